#!/bin/sh
# The by-hand verification recipe of stackprint-verify(1), VERIFYING BY
# HAND, run exactly as man(1) renders it (no jq: openssl, python3's json
# module and coreutils, which a standard Debian has), for an ECDSA and an
# Ed25519 key; openssl is the oracle for the signature, sha256sum for the
# subject and the key id.  It must also fail: another key's envelope is not
# "Verified OK", and an edited manifest's digest no longer matches.
. "$TOP/tests/lib.sh"

if ! command -v man >/dev/null 2>&1; then skip "verify recipe" "no man"; exit 0; fi
# the example block: the indented lines after the section heading, up to
# the first line indented less; the common indent removed
MANWIDTH=400 man -l man/stackprint-verify.1 2>/dev/null | awk '
    /^VERIFYING BY HAND/ { on = 1; next }
    on && /^       [^ ]/ && !started { next }
    on && /^              / { started = 1; print substr($0, 15); next }
    on && started && /^$/ { print ""; next }
    on && started { exit }' >"$TMPDIR/recipe.sh"
check "the recipe is found in the rendered page" grep -q '^env=manifest.yaml.intoto.json$' "$TMPDIR/recipe.sh"
if grep -q 'jq' "$TMPDIR/recipe.sh"; then not_ok "the recipe does not use jq"; else ok "the recipe does not use jq"; fi

# run KIND DIR: the recipe in DIR, output in DIR/out
run() { (cd "$2" && sh "$TMPDIR/recipe.sh" >out 2>&1); }

for kind in ecdsa-p256 ed25519; do
    d="$TMPDIR/$kind"
    mkdir -p "$d"
    cp tests/fixtures/sign/manifest.yaml "$d/manifest.yaml"
    "$STACKPRINT" keygen --type $kind -o "$d/key" >/dev/null
    "$STACKPRINT" sign --key "$d/key.key" "$d/manifest.yaml" >/dev/null
    run $kind "$d"
    if [ $kind = ecdsa-p256 ]; then says="Verified OK"; else says="Signature Verified Successfully"; fi
    check "$kind: openssl says $says" grep -qx "$says" "$d/out"
    hex=$(sha256sum <"$d/manifest.yaml" | cut -c1-64)
    check "$kind: the subject printed is sha256sum's" grep -qx "$hex" "$d/out"
    keyid=$(openssl pkey -pubin -in "$d/key.pub" -outform DER | sha256sum | cut -c1-64)
    check "$kind: the key id printed is the key's" grep -qx "$keyid" "$d/out"

    # the oracle can fail: another key's envelope, an edited manifest
    "$STACKPRINT" keygen --type $kind -o "$d/other" >/dev/null
    cp "$d/other.pub" "$d/key.pub"
    run $kind "$d"
    if grep -qx "$says" "$d/out"; then not_ok "$kind: another key is not Verified"; else ok "$kind: another key is not Verified"; fi
    printf ' ' >>"$d/manifest.yaml"
    run $kind "$d"
    check "$kind: an edited manifest's digest differs from the subject" \
        sh -c "grep -qx '$hex' '$d/out' && ! grep -q '^$hex  manifest.yaml' '$d/out'"
done
