#!/bin/sh
# tests/sh/sign_low_s.sh: ECDSA signatures that stackprint makes are low-S
# (s <= n/2, n the P-256 group order of SEC 2 section 2.4.2), read back with
# `openssl asn1parse`, and verify under `openssl dgst -verify`; a high-S
# signature made by another signer (the openssl command line, which does not
# normalise S) over the same PAE still verifies with stackprint verify.
. "$TOP/tests/lib.sh"
T=$TMPDIR
TYPE=application/vnd.in-toto+json
N=FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

"$STACKPRINT" keygen --type ecdsa-p256 -o "$T/k" >/dev/null || { not_ok "keygen"; exit 0; }
cp tests/fixtures/sign/manifest.yaml "$T/m.yaml"

# s_of SIGFILE: the S integer of a DER ECDSA signature, in hex, by openssl
s_of() { openssl asn1parse -inform DER -in "$1" | sed -n 's/.*INTEGER *://p' | tail -n 1; }
high() { /usr/bin/python3 -c 'import sys; print(int(sys.argv[1],16) > int(sys.argv[2],16)//2)' "$1" "$N"; }

bad=0; unverified=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
    "$STACKPRINT" sign --key "$T/k.key" -o "$T/e.json" "$T/m.yaml" || { bad=$((bad + 1)); continue; }
    /usr/bin/python3 -c 'import json,sys,base64; sys.stdout.buffer.write(base64.b64decode(json.load(open(sys.argv[1]))["signatures"][0]["sig"]))' "$T/e.json" > "$T/sig"
    [ "$(high "$(s_of "$T/sig")")" = False ] || bad=$((bad + 1))
    /usr/bin/python3 -c 'import json,sys,base64; sys.stdout.buffer.write(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))' "$T/e.json" > "$T/body"
    n=$(wc -c < "$T/body")
    { printf 'DSSEv1 %d %s %d ' "${#TYPE}" "$TYPE" "$n"; cat "$T/body"; } > "$T/pae"
    openssl dgst -sha256 -verify "$T/k.pub" -signature "$T/sig" "$T/pae" >/dev/null 2>&1 || unverified=$((unverified + 1))
done
check "24 ECDSA signatures are all low-S (openssl asn1parse)" [ "$bad" = 0 ]
check "and openssl verifies each" [ "$unverified" = 0 ]

# openssl signs the same PAE until it gives a high S (half of its signatures)
found=""
for i in $(seq 1 64); do
    openssl dgst -sha256 -sign "$T/k.key" -out "$T/hs" "$T/pae" 2>/dev/null || break
    if [ "$(high "$(s_of "$T/hs")")" = True ]; then found=1; break; fi
done
if [ -z "$found" ]; then
    not_ok "openssl made a high-S signature" "none in 64 tries"
else
    /usr/bin/python3 -c 'import json,sys,base64
e=json.load(open(sys.argv[1])); e["signatures"][0]["sig"]=base64.b64encode(open(sys.argv[2],"rb").read()).decode()
json.dump(e, open(sys.argv[3],"w"))' "$T/e.json" "$T/hs" "$T/high.json"
    if "$STACKPRINT" verify --pub "$T/k.pub" --envelope "$T/high.json" "$T/m.yaml" >"$T/out" 2>&1; then
        ok "a high-S signature from openssl verifies"
    else
        not_ok "a high-S signature from openssl verifies" "$(cat "$T/out")"
    fi
fi
