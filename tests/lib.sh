# tests/lib.sh: helpers for shell tests (sourced).  Output is TAP-style:
# "ok - NAME", "not ok - NAME", which tests/run counts.
# $STACKPRINT is the binary, $TOP the source tree, $TMPDIR a fresh folder.
set -u
: "${STACKPRINT:?run through tests/run}"
cd "$TOP" || exit 1

ok() { printf 'ok - %s\n' "$1"; }
not_ok() { printf 'not ok - %s\n' "$1"; shift; for l in "$@"; do printf '#   %s\n' "$l"; done; }
skip() { printf 'ok - %s # skip %s\n' "$1" "$2"; }

# check NAME CMD...: ok when CMD succeeds
check() { n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n" "command failed: $*"; fi; }

# same_lines NAME FILE_EXPECTED FILE_GOT: ok when identical; shows the diff
same_lines() {
    if diff -u "$2" "$3" >"$TMPDIR/diff.out" 2>&1; then ok "$1"
    else not_ok "$1" "$(head -n 40 "$TMPDIR/diff.out" | sed 's/^/  /')"; fi
}

# fact FILE KEY: the value of KEY in a JSON manifest FILE (empty if absent)
fact() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"].get(sys.argv[2],""))' "$1" "$2"; }

# umoci_bundle LAYOUT TAG BUNDLE: with umoci, in the current folder, a new
# OCI image layout LAYOUT holding an empty image tagged TAG, unpacked into
# the runtime bundle BUNDLE (its tree is BUNDLE/rootfs); a test fills the
# tree, then `umoci repack --image LAYOUT:TAG BUNDLE` makes it a layer
umoci_bundle() {
    umoci init --layout "$1" >/dev/null && umoci new --image "$1:$2" >/dev/null &&
        umoci unpack --image "$1:$2" "$3" >/dev/null
}

# DSSE with shell tools and the openssl command line (stackprint-verify(1)):
# dsse_field ENVELOPE NAME: payload or payloadType, or keyid or sig of the
# first signature
dsse_field() {
    /usr/bin/python3 -c 'import json,sys
e=json.load(open(sys.argv[1])); k=sys.argv[2]
print(e["signatures"][0][k] if k in ("sig","keyid") else e[k])' "$1" "$2"
}
# dsse_pae ENVELOPE OUT: the PAE bytes, rebuilt with printf, base64 -d, wc -c
dsse_pae() {
    _t=$(dsse_field "$1" payloadType) || return 1
    dsse_field "$1" payload | base64 -d > "$2.body" || return 1
    _n=$(wc -c < "$2.body")
    { printf 'DSSEv1 %d %s %d ' "${#_t}" "$_t" "$_n"; cat "$2.body"; } > "$2"
}
# dsse_openssl_verify KIND PUB PAE SIG: openssl checks the signature file SIG
# over the PAE file (KIND ed25519 or ecdsa-p256)
dsse_openssl_verify() {
    if [ "$1" = ed25519 ]; then
        openssl pkeyutl -verify -pubin -inkey "$2" -rawin -in "$3" -sigfile "$4" >/dev/null 2>&1
    else
        openssl dgst -sha256 -verify "$2" -signature "$4" "$3" >/dev/null 2>&1
    fi
}
# dsse_openssl_check NAME KIND PUB ENVELOPE: "ok" lines when openssl
# verifies ENVELOPE's first signature over its PAE and rejects it over the
# PAE with one byte more (the oracle can fail)
dsse_openssl_check() {
    dsse_pae "$4" "$TMPDIR/check.pae" && dsse_field "$4" sig | base64 -d > "$TMPDIR/check.sig"
    check "$1: openssl verifies the signature over the PAE" \
        dsse_openssl_verify "$2" "$3" "$TMPDIR/check.pae" "$TMPDIR/check.sig"
    printf x >> "$TMPDIR/check.pae"
    if dsse_openssl_verify "$2" "$3" "$TMPDIR/check.pae" "$TMPDIR/check.sig"; then
        not_ok "$1: openssl rejects a changed PAE"
    else ok "$1: openssl rejects a changed PAE"; fi
}
# dsse_openssl_resign KEY ENVELOPE OUT: ENVELOPE with its first signature
# replaced by one openssl makes (ECDSA P-256, SHA-256) over its PAE
dsse_openssl_resign() {
    dsse_pae "$2" "$TMPDIR/resign.pae" &&
        openssl dgst -sha256 -sign "$1" -out "$TMPDIR/resign.sig" "$TMPDIR/resign.pae" &&
        /usr/bin/python3 -c 'import json,sys,base64
e=json.load(open(sys.argv[1])); e["signatures"][0]["sig"]=base64.b64encode(open(sys.argv[2],"rb").read()).decode()
json.dump(e, open(sys.argv[3],"w"))' "$2" "$TMPDIR/resign.sig" "$3"
}

# npm_oracles: NODE_PATH to scripts/bootstrap-npm's folder, with ORACLE the
# bill-of-materials judges (tests/oracle/bom_oracle.js); a "not ok" line
# and status 1 when they are not installed
npm_oracles() {
    if [ -n "${STACKPRINT_NPM:-}" ]; then _npm=$STACKPRINT_NPM
    elif [ "$(id -u)" = 0 ]; then _npm=/var/cache/stackprint/npm
    else _npm=$HOME/.cache/stackprint/npm; fi
    export NODE_PATH=$_npm/node_modules
    ORACLE="node $TOP/tests/oracle/bom_oracle.js"
    if ! command -v node >/dev/null || [ ! -d "$NODE_PATH/@cyclonedx/cyclonedx-library" ]; then
        not_ok "npm oracles installed" "run scripts/bootstrap-npm (make check does)"
        return 1
    fi
}
