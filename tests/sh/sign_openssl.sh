# tests/sh/sign_openssl.sh: interoperability of stackprint's DSSE envelopes
# with an oracle nobody here wrote, the openssl command line: the PAE bytes
# are rebuilt with printf, base64 -d and wc -c, and the signature checked
# with `openssl dgst -sha256 -verify` (ECDSA P-256) or `openssl pkeyutl
# -verify -rawin` (Ed25519); key ids against `openssl pkey -outform DER |
# sha256sum`; subject digests against sha256sum.  Keys from stackprint
# keygen and from openssl genpkey, both types.  Also the committed golden
# envelope (signing again gives the same bytes, as signify's regress does).
. "$TOP/tests/lib.sh"
F=tests/fixtures/sign
T=$TMPDIR

# field, pae: dsse_field, dsse_pae of tests/lib.sh
field() { dsse_field "$@"; }
pae() { dsse_pae "$@"; }
# openssl_verify KIND PUB ENVELOPE: the signature over the PAE, by openssl
openssl_verify() {
    pae "$3" "$T/pae" && field "$3" sig | base64 -d > "$T/sig" || return 1
    dsse_openssl_verify "$1" "$2" "$T/pae" "$T/sig"
}

cp "$F/manifest.yaml" "$T/m.yaml"
man_hex=$(sha256sum < "$T/m.yaml" | cut -c1-64)

for kind in ecdsa-p256 ed25519; do
    for maker in stackprint openssl; do
        k="$T/$maker-$kind"
        if [ $maker = stackprint ]; then
            "$STACKPRINT" keygen --type $kind -o "$k" >/dev/null
        elif [ $kind = ed25519 ]; then
            openssl genpkey -algorithm ed25519 -out "$k.key" 2>/dev/null &&
                openssl pkey -in "$k.key" -pubout -out "$k.pub"
        else
            openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$k.key" 2>/dev/null &&
                openssl pkey -in "$k.key" -pubout -out "$k.pub"
        fi
        env="$T/$maker-$kind.intoto.json"
        if ! "$STACKPRINT" sign --key "$k.key" -o "$env" "$T/m.yaml"; then
            not_ok "$kind key from $maker: sign"
            continue
        fi
        check "$kind key from $maker: stackprint verify" \
            "$STACKPRINT" verify --pub "$k.pub" --envelope "$env" "$T/m.yaml" >/dev/null
        check "$kind key from $maker: openssl verifies the PAE signature" \
            openssl_verify $kind "$k.pub" "$env"
        # the oracle can fail: one byte more in the PAE
        printf x >> "$T/pae"
        if [ $kind = ed25519 ]; then
            openssl pkeyutl -verify -pubin -inkey "$k.pub" -rawin -in "$T/pae" -sigfile "$T/sig" >/dev/null 2>&1
        else
            openssl dgst -sha256 -verify "$k.pub" -signature "$T/sig" "$T/pae" >/dev/null 2>&1
        fi
        if [ $? -ne 0 ]; then ok "$kind key from $maker: openssl rejects a changed PAE"
        else not_ok "$kind key from $maker: openssl rejects a changed PAE"; fi
        want=$(openssl pkey -pubin -in "$k.pub" -outform DER | sha256sum | cut -c1-64)
        got=$(field "$env" keyid)
        if [ "$want" = "$got" ]; then ok "$kind key from $maker: keyid is sha256 of the SPKI DER"
        else not_ok "$kind key from $maker: keyid is sha256 of the SPKI DER" "want $want" "got $got"; fi
        sub=$(field "$env" payload | base64 -d | /usr/bin/python3 -c 'import json,sys
s=json.load(sys.stdin); print(s["subject"][0]["name"], s["subject"][0]["digest"]["sha256"], s["predicateType"], s["_type"])')
        want="m.yaml $man_hex https://stackprint.dev/manifest/v1 https://in-toto.io/Statement/v1"
        if [ "$sub" = "$want" ]; then ok "$kind key from $maker: subject is the manifest's sha256sum"
        else not_ok "$kind key from $maker: subject is the manifest's sha256sum" "want $want" "got $sub"; fi
    done
done

# A signature made by openssl over the shell-built PAE verifies with stackprint
k="$T/openssl-ecdsa-p256"
env="$T/openssl-ecdsa-p256.intoto.json"
dsse_openssl_resign "$k.key" "$env" "$T/oenv.json"
check "ecdsa signature made by openssl verifies with stackprint" \
    "$STACKPRINT" verify --pub "$k.pub" --envelope "$T/oenv.json" "$T/m.yaml" >/dev/null

# Golden: the committed Ed25519 envelope
G="$F/manifest.yaml.intoto.json"
check "golden envelope: openssl verifies it" openssl_verify ed25519 "$F/ed25519.pub" "$G"
pae "$G" "$T/pae"
openssl pkeyutl -sign -inkey "$F/ed25519.key" -rawin -in "$T/pae" -out "$T/osig"
field "$G" sig | base64 -d > "$T/gsig"
check "golden envelope: signature equals openssl's Ed25519 signature of the PAE" cmp -s "$T/osig" "$T/gsig"
"$STACKPRINT" sign --key "$F/ed25519.key" -o "$T/again.json" "$F/manifest.yaml"
check "golden envelope: signing again gives identical bytes" cmp "$G" "$T/again.json"
"$STACKPRINT" sign --key "$F/ed25519.key" -o "$T/again2.json" "$F/manifest.yaml"
check "golden envelope: and again" cmp "$T/again.json" "$T/again2.json"
cp "$F/manifest.yaml" "$T/manifest.yaml"
printf ' ' >> "$T/manifest.yaml"
"$STACKPRINT" verify --pub "$F/ed25519.pub" --envelope "$G" "$T/manifest.yaml" >/dev/null 2>&1
if [ $? -eq 3 ]; then ok "golden envelope: a forged manifest fails (exit 3)"
else not_ok "golden envelope: a forged manifest fails (exit 3)"; fi
