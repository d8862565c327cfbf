# tests/sh/attach_junit.sh: stackprint attach on reports made by real
# producers (pytest's --junitxml from Debian's python3-pytest: a pass, a
# failure, a skip and a record_testsuite_property; ctest's --output-junit
# from cmake) and on the hand-written shapes in tests/fixtures/junit.
# Oracles: xmllint --noout for well-formedness, and junit_oracle.py
# (xml.etree, C14N 2.0, hashlib, yaml) for the properties and for
# everything else being kept (and, for ctest's report, grep and cmp: every
# other byte).  Also: attaching again replaces (same bytes),
# -o may be the report, the declared encoding is kept, a 100 MiB report is
# refused without reading it (peak memory measured by the kernel).
. "$TOP/tests/lib.sh"
T=$TMPDIR
F=tests/fixtures/junit
M=tests/fixtures/manifests/trn2-xla.yaml
CAT=policies/neuron/catalog.yaml
ORACLE="/usr/bin/python3 tests/sh/junit_oracle.py"

# attached NAME BEFORE AFTER [oracle options]: xmllint and the oracle agree
attached() {
    n=$1; b=$2; a=$3; shift 3
    if xmllint --noout --nonet "$a" 2>"$T/lint"; then ok "$n: xmllint: well-formed"
    else not_ok "$n: xmllint: well-formed" "$(head -3 "$T/lint")"; fi
    if $ORACLE attached "$b" "$a" "$@" >"$T/oracle" 2>&1; then ok "$n: properties and content (etree)"
    else not_ok "$n: properties and content (etree)" "$(head -20 "$T/oracle")"; fi
}

# -- pytest ----------------------------------------------------------------
mkdir -p "$T/py"
cp $F/test_trial.py "$T/py/"
(cd "$T/py" && /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml=results.xml \
    test_trial.py >/dev/null 2>&1)
if [ -s "$T/py/results.xml" ]; then
    ok "pytest wrote a report"
    r=$T/py/results.xml
    "$STACKPRINT" attach --junit "$r" --catalog "$CAT" -o "$T/py/a.xml" "$M"
    check "pytest: attach exits 0" test $? -eq 0
    attached "pytest" "$r" "$T/py/a.xml" "$M" --release
    # the oracle can fail: a changed property value is caught
    sed 's/name="trial" value="run-42"/name="trial" value="run-43"/' "$T/py/a.xml" > "$T/py/bad.xml"
    if $ORACLE attached "$r" "$T/py/bad.xml" "$M" --release >/dev/null 2>&1; then
        not_ok "pytest: the oracle notices a changed property"
    else ok "pytest: the oracle notices a changed property"; fi
    # and a changed test case
    sed 's/name="test_pass"/name="test_passed"/' "$T/py/a.xml" > "$T/py/bad.xml"
    if $ORACLE attached "$r" "$T/py/bad.xml" "$M" --release >/dev/null 2>&1; then
        not_ok "pytest: the oracle notices a changed test case"
    else ok "pytest: the oracle notices a changed test case"; fi
    # attaching again replaces the set: the same bytes
    "$STACKPRINT" attach --junit "$T/py/a.xml" --catalog "$CAT" "$M" > "$T/py/again.xml"
    check "pytest: attaching again gives the same bytes" cmp -s "$T/py/a.xml" "$T/py/again.xml"
    # another manifest attached over it: its values, one set
    "$STACKPRINT" attach --junit "$T/py/a.xml" tests/fixtures/manifests/ngc-torch.yaml > "$T/py/other.xml"
    attached "pytest, another manifest over the first" "$r" "$T/py/other.xml" \
        tests/fixtures/manifests/ngc-torch.yaml
    # -o names the report itself
    cp "$r" "$T/py/inplace.xml"
    "$STACKPRINT" attach --junit "$T/py/inplace.xml" -o "$T/py/inplace.xml" --catalog "$CAT" "$M"
    check "pytest: -o the report itself" cmp -s "$T/py/a.xml" "$T/py/inplace.xml"
    leftover=$(find "$T/py" -name '*.tmp.*' | wc -l)
    check "pytest: no temporary file left" test "$leftover" -eq 0
    # --fact adds a property; pytest reads the report back too
    "$STACKPRINT" attach --junit "$r" --fact host.os.id --fact pip.torch "$M" > "$T/py/fact.xml" 2>"$T/err"
    attached "pytest, --fact host.os.id" "$r" "$T/py/fact.xml" "$M" --fact host.os.id --fact pip.torch
    "$STACKPRINT" attach --junit "$r" --fact no.such.key "$M" > "$T/py/nofact.xml" 2>"$T/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q 'has no fact no.such.key' "$T/err" && [ "$(wc -l < "$T/err")" -eq 1 ]; then
        ok "pytest: a --fact the manifest lacks: a one-line note, exit 0"
    else not_ok "pytest: a --fact the manifest lacks: a one-line note, exit 0" "exit $rc" "$(cat "$T/err")"; fi
else
    not_ok "pytest wrote a report" "python3-pytest missing? (scripts/bootstrap installs it)"
fi

# -- ctest -----------------------------------------------------------------
mkdir -p "$T/ct"
cp $F/ctest/CMakeLists.txt "$T/ct/"
(cd "$T/ct" && cmake -S . -B b >/dev/null 2>&1 && cd b && ctest --output-junit ctest.xml >/dev/null 2>&1)
if [ -s "$T/ct/b/ctest.xml" ]; then
    ok "ctest wrote a report"
    r=$T/ct/b/ctest.xml
    "$STACKPRINT" attach --junit "$r" --catalog "$CAT" "$M" > "$T/ct/a.xml"
    attached "ctest" "$r" "$T/ct/a.xml" "$M" --release
    "$STACKPRINT" attach --junit "$T/ct/a.xml" --catalog "$CAT" "$M" > "$T/ct/again.xml"
    check "ctest: attaching again gives the same bytes" cmp -s "$T/ct/a.xml" "$T/ct/again.xml"
    # byte for byte: without the lines attach added, it is ctest's report
    grep -v -e '<property name="stackprint\.' -e '<properties>$' -e '</properties>$' "$T/ct/a.xml" > "$T/ct/rest.xml"
    check "ctest: every other byte is ctest's" cmp -s "$r" "$T/ct/rest.xml"
else
    not_ok "ctest wrote a report" "cmake missing? (scripts/bootstrap installs it)"
fi

# -- hand-written shapes ---------------------------------------------------
"$STACKPRINT" attach --junit $F/nested.xml "$M" > "$T/nested.xml"
attached "nested suites" $F/nested.xml "$T/nested.xml" "$M"
n=$(grep -c '<!\[CDATA\[Traceback <raw> & "quoted"' "$T/nested.xml")
check "nested suites: the CDATA section is kept as CDATA" test "$n" -eq 1
check "nested suites: comment and processing instruction kept" \
    grep -q '<?producer keep-me?>' "$T/nested.xml"
check "nested suites: the stale stackprint property is gone" \
    sh -c "! grep -q stackprint.stale '$T/nested.xml'"
"$STACKPRINT" attach --junit "$T/nested.xml" "$M" > "$T/nested2.xml"
check "nested suites: attaching again gives the same bytes" cmp -s "$T/nested.xml" "$T/nested2.xml"

"$STACKPRINT" attach --junit $F/latin1.xml "$M" > "$T/latin1.xml"
attached "ISO-8859-1 report" $F/latin1.xml "$T/latin1.xml" "$M"
check "ISO-8859-1 report: the declared encoding is kept" \
    grep -q '^<?xml version="1.0" encoding="ISO-8859-1"?>' "$T/latin1.xml"
check "ISO-8859-1 report: its bytes stay ISO-8859-1" \
    grep -q "$(printf 'caf\351')" "$T/latin1.xml"

# a report without an XML declaration gets none
printf '<testsuite name="bare"><testcase name="t"/></testsuite>\n' > "$T/nodecl.xml"
"$STACKPRINT" attach --junit "$T/nodecl.xml" "$M" > "$T/nodecl-a.xml"
attached "no XML declaration" "$T/nodecl.xml" "$T/nodecl-a.xml" "$M"
check "no XML declaration: none added" sh -c "head -c 11 '$T/nodecl-a.xml' | grep -q '^<testsuite '"

# -- bounded: a 100 MiB report is refused without being read ---------------
printf '<?xml version="1.0"?>\n<testsuite name="big">' > "$T/big.xml"
truncate -s 100M "$T/big.xml"
/usr/bin/python3 - "$STACKPRINT" "$T/big.xml" "$M" > "$T/big.out" <<'EOF'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "attach", "--junit", sys.argv[2], sys.argv[3]],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(r.returncode, peak_kib, r.stderr.count("\n"), r.stderr.strip())
EOF
read -r rc peak lines msg < "$T/big.out"
if [ "$rc" = 4 ] && [ "$lines" = 1 ]; then ok "100 MiB report: one-line error, exit 4"
else not_ok "100 MiB report: one-line error, exit 4" "$(cat "$T/big.out")"; fi
# peak resident memory far below the report's 100 MiB (sanitizer builds
# reserve more at start, still well below)
if [ "$peak" -lt 61440 ]; then ok "100 MiB report: peak memory ${peak} KiB < 60 MiB"
else not_ok "100 MiB report: peak memory ${peak} KiB < 60 MiB"; fi
