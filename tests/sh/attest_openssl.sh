# tests/sh/attest_openssl.sh: stackprint attest and the verification of its
# attestations, on reports made by pytest and ctest (tests/fixtures/junit).
# Oracles: the openssl command line over the DSSE PAE rebuilt with shell
# tools (Ed25519 from stackprint keygen, ECDSA P-256 from openssl genpkey),
# sha256sum, and junit_oracle.py, which checks the statement field by field
# against in-toto's published Statement v1 / ResourceDescriptor v1 /
# test-result v0.1 schemas and its test lists against xml.etree's reading
# of the report.  Then stackprint verify: the report, --manifest, and each
# way to get it wrong (exit 3).
. "$TOP/tests/lib.sh"
T=$TMPDIR
F=tests/fixtures/junit
CAT=policies/neuron/catalog.yaml
ORACLE="/usr/bin/python3 tests/sh/junit_oracle.py"
URL=https://ci.example.com/trial/runs/42

mkdir -p "$T/py" "$T/ct"
cp $F/test_trial.py "$T/py/"
(cd "$T/py" && /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml=raw.xml \
    test_trial.py >/dev/null 2>&1)
cp $F/ctest/CMakeLists.txt "$T/ct/"
(cd "$T/ct" && cmake -S . -B b >/dev/null 2>&1 && cd b && ctest --output-junit ctest.xml >/dev/null 2>&1)
check "pytest wrote a report" test -s "$T/py/raw.xml"
check "ctest wrote a report" test -s "$T/ct/b/ctest.xml"

cp tests/fixtures/manifests/trn2-xla.yaml "$T/m.yaml"
"$STACKPRINT" keygen --type ed25519 -o "$T/ed" >/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$T/ec.key" 2>/dev/null &&
    openssl pkey -in "$T/ec.key" -pubout -out "$T/ec.pub"
"$STACKPRINT" sign --key "$T/ed.key" "$T/m.yaml"          # m.yaml.intoto.json
"$STACKPRINT" attach --junit "$T/py/raw.xml" --catalog $CAT -o "$T/results.xml" "$T/m.yaml"

for kind in ed25519 ecdsa-p256; do
    k=$T/ed; [ $kind = ecdsa-p256 ] && k=$T/ec
    out=$T/results.xml.intoto.json
    rm -f "$out"
    "$STACKPRINT" attest --junit "$T/results.xml" --key "$k.key" --url $URL "$T/m.yaml"
    check "$kind: attest writes RESULTS.xml.intoto.json" test -s "$out"
    dsse_openssl_check "$kind" $kind "$k.pub" "$out"
    want=$(openssl pkey -pubin -in "$k.pub" -outform DER | sha256sum | cut -c1-64)
    check "$kind: keyid is sha256 of the SPKI DER" test "$(dsse_field "$out" keyid)" = "$want"
    if $ORACLE statement "$out" "$T/results.xml" "$T/m.yaml" "$T/m.yaml.intoto.json" $URL >"$T/o" 2>&1
    then ok "$kind: statement matches the schema and the report"
    else not_ok "$kind: statement matches the schema and the report" "$(head -20 "$T/o")"; fi
    check "$kind: stackprint verify" \
        "$STACKPRINT" verify --pub "$k.pub" --envelope "$out" "$T/results.xml" >/dev/null
    check "$kind: stackprint verify --manifest" \
        "$STACKPRINT" verify --pub "$k.pub" --envelope "$out" --manifest "$T/m.yaml" "$T/results.xml" >/dev/null
done
cp "$T/results.xml.intoto.json" "$T/ec.intoto.json"

# the subject digest is sha256sum's
sub=$(dsse_field "$T/ec.intoto.json" payload | base64 -d | /usr/bin/python3 -c 'import json,sys
print(json.load(sys.stdin)["subject"][0]["digest"]["sha256"])')
check "subject digest is sha256sum of the report" \
    test "$sub" = "$(sha256sum < "$T/results.xml" | cut -c1-64)"

# the oracle can fail: a statement for another report
if $ORACLE statement "$T/ec.intoto.json" "$T/py/raw.xml" "$T/m.yaml" "$T/m.yaml.intoto.json" $URL \
    >/dev/null 2>&1; then not_ok "the statement oracle rejects another report"
else ok "the statement oracle rejects another report"; fi

# verify: each way to get it wrong is exit 3, one line
expect3() {
    n=$1; shift
    "$@" >/dev/null 2>"$T/err"; rc=$?
    if [ $rc -eq 3 ] && [ "$(wc -l < "$T/err")" -eq 1 ]; then ok "$n: exit 3"
    else not_ok "$n: exit 3" "exit $rc" "$(cat "$T/err")"; fi
}
cp "$T/results.xml" "$T/changed.xml"
sed -i 's/test_pass/test_pass_renamed/' "$T/changed.xml"
expect3 "a changed report" \
    "$STACKPRINT" verify --pub "$T/ec.pub" --envelope "$T/ec.intoto.json" "$T/changed.xml"
expect3 "another manifest" "$STACKPRINT" verify --pub "$T/ec.pub" --envelope "$T/ec.intoto.json" \
    --manifest tests/fixtures/manifests/ngc-torch.yaml "$T/results.xml"
expect3 "the manifest's envelope given as the manifest" "$STACKPRINT" verify --pub "$T/ec.pub" \
    --envelope "$T/ec.intoto.json" --manifest "$T/m.yaml.intoto.json" "$T/results.xml"
expect3 "the wrong key" \
    "$STACKPRINT" verify --pub "$T/ed.pub" --envelope "$T/ec.intoto.json" "$T/results.xml"
expect3 "a manifest's envelope for a report" \
    "$STACKPRINT" verify --pub "$T/ed.pub" --envelope "$T/m.yaml.intoto.json" "$T/results.xml"
expect3 "a report's attestation for a manifest" \
    "$STACKPRINT" verify --pub "$T/ec.pub" --envelope "$T/ec.intoto.json" "$T/m.yaml"

# a signature openssl makes over the shell-built PAE verifies with stackprint
dsse_openssl_resign "$T/ec.key" "$T/ec.intoto.json" "$T/oenv.json"
check "a signature made by openssl verifies with stackprint" \
    "$STACKPRINT" verify --pub "$T/ec.pub" --envelope "$T/oenv.json" --manifest "$T/m.yaml" "$T/results.xml" >/dev/null

# ctest's report, a JSON manifest without an envelope, no --url
"$STACKPRINT" probe --root tests/fixtures/roots/trn2-native --format json -o "$T/host.json" 2>/dev/null
"$STACKPRINT" attest --junit "$T/ct/b/ctest.xml" --key "$T/ed.key" -o "$T/ct.intoto.json" "$T/host.json"
if $ORACLE statement "$T/ct.intoto.json" "$T/ct/b/ctest.xml" "$T/host.json" >"$T/o" 2>&1
then ok "ctest: statement matches the schema and the report"
else not_ok "ctest: statement matches the schema and the report" "$(head -20 "$T/o")"; fi
check "ctest: stackprint verify --manifest" "$STACKPRINT" verify --pub "$T/ed.pub" \
    --envelope "$T/ct.intoto.json" --manifest "$T/host.json" "$T/ct/b/ctest.xml" >/dev/null

# nested suites, an <error>, a test without classname
cp $F/nested.xml "$T/nested.xml"
"$STACKPRINT" attest --junit "$T/nested.xml" --key "$T/ed.key" "$T/m.yaml"
if $ORACLE statement "$T/nested.xml.intoto.json" "$T/nested.xml" "$T/m.yaml" "$T/m.yaml.intoto.json" \
    >"$T/o" 2>&1
then ok "nested suites: statement matches the schema and the report"
else not_ok "nested suites: statement matches the schema and the report" "$(head -20 "$T/o")"; fi

# Ed25519 is deterministic: the same inputs, the same bytes
"$STACKPRINT" attest --junit "$T/nested.xml" --key "$T/ed.key" -o "$T/again.json" "$T/m.yaml"
check "Ed25519: attesting again gives the same bytes" cmp -s "$T/nested.xml.intoto.json" "$T/again.json"
