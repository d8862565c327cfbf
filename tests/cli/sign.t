# tests/cli/sign.t: stackprint keygen, sign and verify on the command line:
# usage errors (exit 2), unreadable input (exit 4), failed checks (exit 3,
# naming the check).  F = tests/fixtures/sign: an Ed25519 test key made by
# `openssl genpkey`, a manifest and its committed envelope.  The digest in
# the success line is `sha256sum tests/fixtures/sign/manifest.yaml`; the
# key id is `openssl pkey -pubin -in ed25519.pub -outform DER | sha256sum`
# (both rechecked by tests/sh/sign_openssl.sh).

### verify the golden envelope: one line naming key, subject, predicate type
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub tests/fixtures/sign/manifest.yaml
> verified: manifest.yaml sha256:24d618a3d1aeabc164499ee6fe0febc11c0923a7a0be16292edec93783fc7683 signed by key 8d59da8ded8b4dd25440697100eda668e6f11073188e83f2dab6cbef71dac54f, predicate https://stackprint.dev/manifest/v1

### a valid envelope for another manifest fails the subject check
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope tests/fixtures/sign/manifest.yaml.intoto.json tests/fixtures/sign/image.yaml
? 3
2>~ ^stackprint: tests/fixtures/sign/manifest.yaml.intoto.json: subject check failed: the manifest's subject\[0\] "manifest.yaml" does not have the sha256 of tests/fixtures/sign/image.yaml \(

### a changed manifest fails
$ sed 's/2.9.0/2.9.1/' tests/fixtures/sign/manifest.yaml > $T/m.yaml
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope tests/fixtures/sign/manifest.yaml.intoto.json $T/m.yaml
? 3
2>~ subject check failed

### the wrong public key fails the signature check
$ stackprint keygen --type ed25519 -o $T/other >/dev/null
$ stackprint verify --pub $T/other.pub --envelope tests/fixtures/sign/manifest.yaml.intoto.json tests/fixtures/sign/manifest.yaml
? 3
2>~ signature check failed: no signature verifies under key [0-9a-f]{64} \(1 tried\)

### an ECDSA key of the right name but the wrong type fails too
$ stackprint keygen -o $T/ec >/dev/null
$ stackprint verify --pub $T/ec.pub --envelope tests/fixtures/sign/manifest.yaml.intoto.json tests/fixtures/sign/manifest.yaml
? 3
2>~ signature check failed

### unknown payloadType
$ sed 's#application/vnd.in-toto+json#text/plain#' tests/fixtures/sign/manifest.yaml.intoto.json > $T/e.json
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub --envelope e.json $TOP/tests/fixtures/sign/manifest.yaml
? 3
2> stackprint: e.json: envelope check failed: unknown payloadType "text/plain" (expected application/vnd.in-toto+json)

### no signatures
$ printf '{"payloadType":"application/vnd.in-toto+json","payload":"e30","signatures":[]}' > $T/e.json
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub --envelope e.json $TOP/tests/fixtures/sign/manifest.yaml
? 3
2> stackprint: e.json: envelope check failed: no signatures

### bad base64 in the signature: a character outside the alphabet
$ sed 's#"sig": "#"sig": "!#' tests/fixtures/sign/manifest.yaml.intoto.json > $T/e.json
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub --envelope e.json $TOP/tests/fixtures/sign/manifest.yaml
? 3
2> stackprint: e.json: envelope check failed: signatures[0].sig: character '!' at offset 0 is not base64

### bad base64 in the signature: non-zero trailing bits
$ sed 's#.=="$#B=="#' tests/fixtures/sign/manifest.yaml.intoto.json > $T/e.json
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub --envelope e.json $TOP/tests/fixtures/sign/manifest.yaml
? 3
2> stackprint: e.json: envelope check failed: signatures[0].sig: base64 has non-zero trailing bits (not canonical)

### URL-safe base64 without padding is accepted (DSSE allows either)
$ /usr/bin/python3 -c 'import json,sys,base64; e=json.load(open(sys.argv[1])); d=lambda s: base64.urlsafe_b64encode(base64.b64decode(s)).decode().rstrip("="); e["payload"]=d(e["payload"]); e["signatures"][0]["sig"]=d(e["signatures"][0]["sig"]); json.dump(e, open(sys.argv[2], "w"))' tests/fixtures/sign/manifest.yaml.intoto.json $T/e.json
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope $T/e.json tests/fixtures/sign/manifest.yaml
>~ ^verified: manifest.yaml sha256:24d618

### bad base64 in the payload: mixed alphabets
$ sed 's#"payload": "\(.\)#"payload": "-/\1#' tests/fixtures/sign/manifest.yaml.intoto.json > $T/e.json
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub --envelope e.json $TOP/tests/fixtures/sign/manifest.yaml
? 3
2> stackprint: e.json: envelope check failed: payload: mixes the standard and URL-safe base64 alphabets

### not JSON
$ printf 'payloadType: x\n' > $T/e.json
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub --envelope e.json $TOP/tests/fixtures/sign/manifest.yaml
? 3
2> stackprint: e.json: envelope check failed: not a JSON object

### unreadable manifest, envelope or key: exit 4
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub none.yaml
? 4
2> stackprint: none.yaml: No such file or directory

### missing envelope (default name): exit 4
$ cp tests/fixtures/sign/manifest.yaml $T/m.yaml
$ cd $T && stackprint verify --pub $TOP/tests/fixtures/sign/ed25519.pub m.yaml
? 4
2> stackprint: m.yaml.intoto.json: No such file or directory

### missing public key: exit 4
$ cd $T && stackprint verify --pub none.pub $TOP/tests/fixtures/sign/manifest.yaml
? 4
2> stackprint: none.pub: No such file or directory

### a private key given as --pub: exit 4
$ stackprint verify --pub tests/fixtures/sign/ed25519.key tests/fixtures/sign/manifest.yaml
? 4
2>~ is a private key; pass the public key

### a public key given as --key: exit 4
$ stackprint sign --key tests/fixtures/sign/ed25519.pub -o $T/e.json tests/fixtures/sign/manifest.yaml
? 4
2>~ is a public key; signing needs the private key

### an RSA key is refused
$ openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out $T/rsa.key 2>/dev/null
$ stackprint sign --key $T/rsa.key -o $T/e.json tests/fixtures/sign/manifest.yaml
? 4
2>~ unsupported key type RSA \(ecdsa-p256 or ed25519\)

### a malformed manifest is not signed
$ printf 'schema: "stackprint/manifest/v2"\nbogus: "1"\n' > $T/m.yaml
$ stackprint sign --key tests/fixtures/sign/ed25519.key $T/m.yaml
? 4
2>~ unknown key 'bogus'

### usage: sign without --key
$ stackprint sign tests/fixtures/sign/manifest.yaml
? 2
2>~ --key KEY is required

### usage: sign without MANIFEST
$ stackprint sign --key tests/fixtures/sign/ed25519.key
? 2
2>~ MANIFEST is required

### usage: sign from stdin needs -o
$ stackprint sign --key tests/fixtures/sign/ed25519.key - < tests/fixtures/sign/manifest.yaml
? 2
2>~ needs -o ENVELOPE

### usage: verify without --pub
$ stackprint verify tests/fixtures/sign/manifest.yaml
? 2
2>~ --pub PUB is required

### usage: verify with two manifests
$ stackprint verify --pub x a b
? 2
2>~ one MANIFEST only

### usage: verify from stdin needs --envelope
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub -
? 2
2>~ needs --envelope FILE

### usage: keygen without -o
$ stackprint keygen
? 2
2>~ -o PREFIX is required

### usage: keygen with an unknown type
$ stackprint keygen --type rsa -o $T/k
? 2
2>~ unknown key type 'rsa' \(ecdsa-p256 or ed25519\)

### usage: probe --sign without -o
$ stackprint probe --root $T --sign tests/fixtures/sign/ed25519.key
? 2
2>~ --sign needs -o FILE

### usage: probe --sign with -o -
$ stackprint probe --root $T -o - --sign tests/fixtures/sign/ed25519.key
? 2
2>~ --sign needs -o FILE

### keygen writes both files and names them
$ cd $T && stackprint keygen --type ed25519 -o k
>~ ^wrote k\.key \(private, 0600\) and k\.pub \(ed25519, keyid [0-9a-f]{64}\)$

### keygen never overwrites
$ cd $T && stackprint keygen -o k >/dev/null && stackprint keygen -o k
? 4
2> stackprint: k.key: exists; not overwritten (nothing written)

### help, exit 0
$ stackprint keygen --help && stackprint sign -h && stackprint verify --help
>~ ^usage: stackprint keygen
>~ ^usage: stackprint sign
>~ ^usage: stackprint verify

### a key given as a file: URI is read as its path would be: same golden bytes
$ stackprint sign --key file:$TOP/tests/fixtures/sign/ed25519.key -o $T/e.json tests/fixtures/sign/manifest.yaml
$ cmp $T/e.json tests/fixtures/sign/manifest.yaml.intoto.json && echo same
$ stackprint verify --pub file:$TOP/tests/fixtures/sign/ed25519.pub --envelope $T/e.json tests/fixtures/sign/manifest.yaml >/dev/null && echo verified
> same
> verified

### a store URI that names nothing: exit 4
$ stackprint sign --key file:/nonexistent/k.key -o $T/e.json tests/fixtures/sign/manifest.yaml
? 4
2>~ ^stackprint: file:/nonexistent/k.key: 

### usage: a keygen PREFIX longer than 4000 bytes
$ stackprint keygen -o $(printf '%4001s' | tr ' ' a)
? 2
2>~ PREFIX longer than 4000 bytes

### usage: a MANIFEST path longer than 4000 bytes when the envelope name is made from it
$ stackprint sign --key tests/fixtures/sign/ed25519.key $(printf '%4001s' | tr ' ' a)
? 2
2>~ MANIFEST path longer than 4000 bytes

### usage: the same for verify
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub $(printf '%4001s' | tr ' ' a)
? 2
2>~ MANIFEST path longer than 4000 bytes
