# tests/sh/sign_files.sh: the files keygen, sign and probe --sign write:
# keygen never overwrites (if either file exists, neither is written), its
# modes and PEM forms (checked by openssl); sign writes atomically (a
# rename: a hard link to the old envelope keeps the old bytes; a failed sign
# leaves the old envelope and no temporary file); standard input; YAML and
# JSON manifests give the same predicate (JSON made by Python's yaml
# module); probe --sign; the envelope size bound.
. "$TOP/tests/lib.sh"
F=tests/fixtures/sign
T=$TMPDIR
S=$STACKPRINT

# --- keygen ---------------------------------------------------------------
"$S" keygen -o "$T/a" >/dev/null
check "keygen: private key mode 0600" test "$(stat -c %a "$T/a.key")" = 600
check "keygen: public key mode 0644" test "$(stat -c %a "$T/a.pub")" = 644
check "keygen: PKCS#8 PEM" grep -qx -- '-----BEGIN PRIVATE KEY-----' "$T/a.key"
check "keygen: SPKI PEM" grep -qx -- '-----BEGIN PUBLIC KEY-----' "$T/a.pub"
check "keygen: default type is P-256 (openssl says)" \
    sh -c "openssl pkey -in '$T/a.key' -noout -text | grep -q 'ASN1 OID: prime256v1'"
check "keygen: .pub is the public half of .key (openssl says)" \
    sh -c "openssl pkey -in '$T/a.key' -pubout | cmp -s - '$T/a.pub'"
"$S" keygen --type ed25519 -o "$T/b" >/dev/null
check "keygen --type ed25519 (openssl says)" \
    sh -c "openssl pkey -in '$T/b.key' -noout -text | grep -q 'ED25519 Private-Key'"

cp "$T/a.key" "$T/a.key.before"
"$S" keygen -o "$T/a" 2>"$T/err"; rc=$?
check "keygen: existing files: exit 4" test $rc -eq 4
check "keygen: existing files: not overwritten" cmp -s "$T/a.key" "$T/a.key.before"
check "keygen: existing files: says so" grep -q 'exists; not overwritten' "$T/err"
printf 'keep\n' > "$T/c.pub"
"$S" keygen -o "$T/c" 2>/dev/null; rc=$?
check "keygen: only PREFIX.pub exists: exit 4" test $rc -eq 4
check "keygen: only PREFIX.pub exists: no PREFIX.key written" test ! -e "$T/c.key"
check "keygen: only PREFIX.pub exists: PREFIX.pub kept" test "$(cat "$T/c.pub")" = keep
ln -s "$T/elsewhere" "$T/d.key"
"$S" keygen -o "$T/d" 2>/dev/null; rc=$?
check "keygen: a dangling symlink at PREFIX.key is not followed" \
    test $rc -eq 4 -a ! -e "$T/elsewhere" -a ! -e "$T/d.pub"

# --- sign: default name, atomic replacement ---------------------------------
cp "$F/manifest.yaml" "$T/m.yaml"
"$S" sign --key "$T/b.key" "$T/m.yaml"
check "sign: default output MANIFEST.intoto.json" test -s "$T/m.yaml.intoto.json"
check "sign: default envelope verifies" "$S" verify --pub "$T/b.pub" "$T/m.yaml" >/dev/null
cp "$T/m.yaml.intoto.json" "$T/old.json"
ln "$T/m.yaml.intoto.json" "$T/link.json"
"$S" sign --key "$T/a.key" "$T/m.yaml"
check "sign: replaces by rename (a hard link keeps the old bytes)" cmp -s "$T/link.json" "$T/old.json"
check "sign: the new envelope verifies under the new key" \
    "$S" verify --pub "$T/a.pub" "$T/m.yaml" >/dev/null
cp "$T/m.yaml.intoto.json" "$T/before.json"
"$S" sign --key "$T/c.pub" "$T/m.yaml" 2>/dev/null; rc=$?
check "sign: a public key as --key: exit 4" test $rc -eq 4
check "sign: a failed sign leaves the envelope alone" cmp -s "$T/m.yaml.intoto.json" "$T/before.json"
printf 'schema: "stackprint/manifest/v2"\n' > "$T/bad.yaml"
"$S" sign --key "$T/a.key" -o "$T/m.yaml.intoto.json" "$T/bad.yaml" 2>/dev/null; rc=$?
check "sign: a malformed manifest: exit 4, envelope left alone" \
    sh -c "test $rc -eq 4 && cmp -s '$T/m.yaml.intoto.json' '$T/before.json'"
check "sign: no temporary file left behind" \
    test -z "$(find "$T" -name '*.tmp.*')"
"$S" sign --key "$T/a.key" -o "$T/no/such/folder/e.json" "$T/m.yaml" 2>/dev/null; rc=$?
check "sign: output folder missing: exit 4" test $rc -eq 4

# --- standard input ---------------------------------------------------------
"$S" sign --key "$T/b.key" -o "$T/stdin.json" - < "$T/m.yaml"
out=$("$S" verify --pub "$T/b.pub" --envelope "$T/stdin.json" "$T/m.yaml")
case $out in
    "verified: stdin sha256:"*) ok "sign from stdin: subject named stdin, verifies" ;;
    *) not_ok "sign from stdin: subject named stdin, verifies" "$out" ;;
esac
out=$("$S" verify --pub "$T/b.pub" --envelope "$T/stdin.json" - < "$T/m.yaml")
check "verify a manifest from stdin" test -n "$out"
"$S" sign --key "$T/b.key" -o - "$T/m.yaml" > "$T/stdout.json"
check "sign -o - writes the envelope to stdout" \
    "$S" verify --pub "$T/b.pub" --envelope "$T/stdout.json" "$T/m.yaml" >/dev/null
"$S" verify --pub "$T/b.pub" --envelope - "$T/m.yaml" < "$T/stdout.json" >/dev/null
check "verify --envelope - reads stdin" test $? -eq 0

# --- YAML and JSON manifests give the same predicate ------------------------
/usr/bin/python3 -c 'import json,sys,yaml
json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2],"w"), indent=1)' "$T/m.yaml" "$T/m.json"
"$S" sign --key "$T/b.key" "$T/m.json"
"$S" sign --key "$T/b.key" -o "$T/y.json" "$T/m.yaml"
pred() { /usr/bin/python3 -c 'import json,sys,base64
e=json.load(open(sys.argv[1])); s=json.loads(base64.b64decode(e["payload"]))
print(json.dumps(s["predicate"], sort_keys=True))' "$1"; }
check "YAML and JSON manifests give the same predicate" test "$(pred "$T/m.json.intoto.json")" = "$(pred "$T/y.json")"
check "the predicate is the manifest's content (Python's yaml reading it)" test "$(pred "$T/y.json")" = \
    "$(/usr/bin/python3 -c 'import json,sys,yaml
m = yaml.safe_load(open(sys.argv[1]))
m.setdefault("evidence", {}); m.setdefault("warnings", [])   # the canonical form has both
print(json.dumps(m, sort_keys=True))' "$T/m.yaml")"
check "the JSON manifest's envelope verifies" "$S" verify --pub "$T/b.pub" "$T/m.json" >/dev/null

# --- probe --sign -------------------------------------------------------------
mkdir -p "$T/root/etc"
printf 'ID=debian\nVERSION_ID="12"\n' > "$T/root/etc/os-release"
"$S" probe --root "$T/root" -o "$T/p.yaml" --sign "$T/b.key" 2>/dev/null
check "probe --sign: writes FILE.intoto.json" test -s "$T/p.yaml.intoto.json"
check "probe --sign: the envelope verifies against FILE" \
    "$S" verify --pub "$T/b.pub" "$T/p.yaml" >/dev/null
"$S" probe --root "$T/root" --format json -o "$T/p2.json" --sign "$T/a.key" 2>/dev/null
check "probe --sign --format json with an ECDSA key" \
    "$S" verify --pub "$T/a.pub" "$T/p2.json" >/dev/null
"$S" probe --root "$T/root" -o "$T/p3.yaml" --sign "$T/c.pub" 2>/dev/null; rc=$?
check "probe --sign with a bad key: exit 4 and no manifest written" \
    test $rc -eq 4 -a ! -e "$T/p3.yaml"

# --- the envelope size bound ------------------------------------------------------
truncate -s $((128 * 1024 * 1024 + 1)) "$T/huge.json"
"$S" verify --pub "$T/b.pub" --envelope "$T/huge.json" "$T/m.yaml" 2>"$T/err"; rc=$?
check "an envelope over SP_ENVELOPE_MAX_BYTES: exit 4" test $rc -eq 4
check "an envelope over SP_ENVELOPE_MAX_BYTES: says so" grep -q 'larger than the envelope size limit' "$T/err"
truncate -s $((64 * 1024 + 1)) "$T/huge.key"
"$S" sign --key "$T/huge.key" "$T/m.yaml" 2>"$T/err"; rc=$?
check "a key file over SP_KEY_MAX_BYTES: exit 4, says so" \
    sh -c "test $rc -eq 4 && grep -q 'larger than the key size limit' '$T/err'"
