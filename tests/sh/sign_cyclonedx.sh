#!/bin/sh
# tests/sh/sign_cyclonedx.sh: stackprint sign --predicate cyclonedx, the
# manifest's CycloneDX BOM as the predicate of a signed in-toto Statement
# (stackprint-sign(1), stackprint-verify(1)), judged by tools nobody here
# wrote:
#   - the openssl command line verifies the signature over the PAE rebuilt
#     with printf, base64 -d and wc -c (DSSE protocol.md), Ed25519 and ECDSA;
#   - the CycloneDX project's strict validator (schema 1.6) judges the
#     predicate extracted from the envelope, which must equal, as JSON, what
#     stackprint export writes for the manifest;
#   - the predicate type is the one in-toto's vetted CycloneDX predicate
#     gives (github.com/in-toto/attestation spec/predicates/cyclonedx.md),
#     the subjects those of the manifest's own envelope, digests sha256sum's.
# Refused with exit 3: another manifest (subject), a predicate changed and
# re-signed with openssl (predicate), the BOM of another manifest under this
# manifest's subject (predicate), the manifest predicate relabelled as a BOM
# (predicate), a payload changed without re-signing (signature).
. "$TOP/tests/lib.sh"
npm_oracles || exit 1
F=tests/fixtures/sign
T=$TMPDIR

# payload ENVELOPE: the decoded statement
payload() { dsse_field "$1" payload | base64 -d; }
# restate ENVELOPE PYTHON OUT [FILE]: ENVELOPE with its statement s changed
# by PYTHON (statements on s; f is FILE's JSON), not yet re-signed
restate() {
    /usr/bin/python3 -c 'import json,sys,base64
e=json.load(open(sys.argv[1])); s=json.loads(base64.b64decode(e["payload"]))
f=json.load(open(sys.argv[4])) if sys.argv[4] else None
exec(sys.argv[2])
e["payload"]=base64.b64encode(json.dumps(s, separators=(",", ":")).encode()).decode()
json.dump(e, open(sys.argv[3], "w"))' "$1" "$2" "$3" "${4:-}"
}
# refused NAME ENVELOPE MANIFEST REGEX: verify exits 3, one line matching REGEX
refused() {
    "$STACKPRINT" verify --pub "$T/ec.pub" --envelope "$2" "$3" >/dev/null 2>"$T/err"
    st=$?
    if [ $st -eq 3 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "$4" "$T/err"; then ok "$1"
    else not_ok "$1" "exit $st" "$(cat "$T/err")"; fi
}

cp "$F/manifest.yaml" "$T/m.yaml"
cp "$F/image.yaml" "$T/i.yaml"
"$STACKPRINT" keygen -o "$T/ec" >/dev/null

for kind in ed25519 ecdsa-p256; do
    if [ $kind = ed25519 ]; then key=$F/ed25519.key pub=$F/ed25519.pub
    else key=$T/ec.key pub=$T/ec.pub; fi
    for m in m i; do
        env="$T/$m.$kind.bom.json"
        if ! "$STACKPRINT" sign --key "$key" --predicate cyclonedx -o "$env" "$T/$m.yaml"; then
            not_ok "$kind $m.yaml: sign --predicate cyclonedx"
            continue
        fi
        "$STACKPRINT" verify --pub "$pub" --envelope "$env" "$T/$m.yaml" >"$T/out"
        check "$kind $m.yaml: verify exits 0" [ $? -eq 0 ]
        hex=$(sha256sum <"$T/$m.yaml" | cut -c1-64)
        check "$kind $m.yaml: verify says the predicate it verified" \
            grep -qx "verified: $m.yaml sha256:$hex signed by key [0-9a-f]*, predicate https://cyclonedx.org/bom" "$T/out"
        dsse_openssl_check "$kind $m.yaml" $kind "$pub" "$env"
        # the predicate, extracted, judged by the CycloneDX validator
        payload "$env" | /usr/bin/python3 -c 'import json,sys
json.dump(json.load(sys.stdin)["predicate"], open(sys.argv[1], "w"), indent=2)' "$T/pred.json"
        out=$($ORACLE cyclonedx "$T/pred.json" 2>&1)
        if [ "$out" = valid ]; then ok "$kind $m.yaml: the predicate passes the CycloneDX 1.6 strict validator"
        else not_ok "$kind $m.yaml: the predicate passes the CycloneDX 1.6 strict validator" "$(printf '%s' "$out" | head -c 1500)"; fi
        # the statement: type, predicate type, subjects of the manifest
        # envelope, and the predicate is what export writes
        "$STACKPRINT" sign --key "$key" -o "$T/plain.json" "$T/$m.yaml"
        "$STACKPRINT" export "$T/$m.yaml" >"$T/exp.json"
        payload "$T/plain.json" >"$T/plain.stmt"
        out=$(payload "$env" | /usr/bin/python3 -c 'import json,sys
s=json.load(sys.stdin); p=json.load(open(sys.argv[1])); x=json.load(open(sys.argv[2]))
bad=[]
if s["_type"]!="https://in-toto.io/Statement/v1": bad.append("_type")
if s["predicateType"]!="https://cyclonedx.org/bom": bad.append("predicateType")
if s["subject"]!=p["subject"]: bad.append("subjects differ from the manifest envelope")
if s["subject"][0]["digest"]["sha256"]!=sys.argv[3]: bad.append("subject digest")
if s["predicate"]!=x: bad.append("predicate is not what export writes")
print(" ".join(bad) or "ok")' "$T/plain.stmt" "$T/exp.json" "$hex")
        if [ "$out" = ok ]; then ok "$kind $m.yaml: statement type, subjects of sign, predicate of export"
        else not_ok "$kind $m.yaml: statement type, subjects of sign, predicate of export" "$out"; fi
    done
done
n=$(payload "$T/i.ed25519.bom.json" | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["subject"]))')
check "image manifest: two subjects, the manifest and the image config" [ "$n" = 2 ]

# determinism: Ed25519, same key and manifest, same bytes
"$STACKPRINT" sign --key $F/ed25519.key --predicate cyclonedx -o "$T/again.json" "$T/m.yaml"
check "Ed25519: signing again gives the same bytes" cmp -s "$T/m.ed25519.bom.json" "$T/again.json"
"$STACKPRINT" sign --key $F/ed25519.key --predicate manifest -o "$T/man.json" "$F/manifest.yaml"
check "--predicate manifest is the default envelope" cmp -s "$F/manifest.yaml.intoto.json" "$T/man.json"

# refusals
B="$T/m.ecdsa-p256.bom.json"
refused "BOM envelope, another manifest: subject check (exit 3)" "$B" "$T/i.yaml" \
    'subject check failed'
restate "$B" 's["predicate"]["components"][0]["version"]="0"' "$T/x.json"
dsse_openssl_resign "$T/ec.key" "$T/x.json" "$T/changed.json"
refused "predicate changed, re-signed by openssl: predicate check (exit 3)" "$T/changed.json" \
    "$T/m.yaml" 'predicate check failed: the predicate is not the CycloneDX BOM of .*m\.yaml \(first difference at components\[0\]\.version\)$'
"$STACKPRINT" export "$T/i.yaml" >"$T/i.cdx.json"
restate "$B" 's["predicate"]=f' "$T/x.json" "$T/i.cdx.json"
dsse_openssl_resign "$T/ec.key" "$T/x.json" "$T/other.json"
refused "the BOM of another manifest under this one's subject: predicate check (exit 3)" \
    "$T/other.json" "$T/m.yaml" 'predicate check failed'
"$STACKPRINT" sign --key "$T/ec.key" -o "$T/plain.json" "$T/m.yaml"
restate "$T/plain.json" 's["predicateType"]="https://cyclonedx.org/bom"' "$T/x.json"
dsse_openssl_resign "$T/ec.key" "$T/x.json" "$T/relabel.json"
refused "the manifest predicate labelled a BOM: predicate check (exit 3)" "$T/relabel.json" \
    "$T/m.yaml" 'predicate check failed'
restate "$B" 's["predicate"]["version"]=2' "$T/unsigned.json"
refused "payload changed, not re-signed: signature check (exit 3)" "$T/unsigned.json" \
    "$T/m.yaml" 'signature check failed'
restate "$B" 's["predicateType"]="https://stackprint.dev/manifest/v1"' "$T/unsigned.json"
refused "predicate type changed, not re-signed: signature check (exit 3)" "$T/unsigned.json" \
    "$T/m.yaml" 'signature check failed'

# a signer that re-serialises the BOM with sorted keys (as Go's encoding/json
# does) still verifies: JSON objects are unordered (RFC 8259 section 4)
/usr/bin/python3 -c 'import json,sys,base64
e=json.load(open(sys.argv[1])); s=json.loads(base64.b64decode(e["payload"]))
e["payload"]=base64.b64encode(json.dumps(s, sort_keys=True).encode()).decode()
json.dump(e, open(sys.argv[2], "w"))' "$B" "$T/x.json"
dsse_openssl_resign "$T/ec.key" "$T/x.json" "$T/sorted.json"
check "keys re-ordered, re-signed by openssl: verifies" \
    "$STACKPRINT" verify --pub "$T/ec.pub" --envelope "$T/sorted.json" "$T/m.yaml" >/dev/null

"$STACKPRINT" sign --key "$T/ec.key" --predicate spdx -o "$T/x" "$T/m.yaml" 2>/dev/null
check "sign --predicate spdx: usage error (exit 2)" [ $? -eq 2 ]
