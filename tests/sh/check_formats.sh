#!/bin/sh
# tests/sh/check_formats.sh: the machine formats of `stackprint check` read
# by tools nobody here wrote: JUnit validated by xmllint against
# tests/schemas/junit.xsd (and its counts recounted with Python's
# ElementTree); SARIF 2.1.0's required fields (tests/sh/check_sarif.py);
# the JSON report parsed by Python's json; GitHub annotations escaped as the
# runner's parser expects.  Manifests: tests/fixtures/manifests; policies:
# tests/fixtures/policies.
. "$TOP/tests/lib.sh"
P=tests/fixtures/policies
M=tests/fixtures/manifests
py=/usr/bin/python3

# a manifest whose facts carry what each format must escape
sed -e 's/"trn1"/"trn1 <\&>\\u0027\\"%\\n::error::x,y:z\\u001b"/' $M/trn1-native.json > "$TMPDIR/esc.json"
tests/restamp "$TMPDIR/esc.json"     # its stack_id must match the edited facts

for m in $M/trn2-xla.yaml $M/trn1-native.json $M/ngc-torch.yaml $M/bad-versions.yaml "$TMPDIR/esc.json"; do
    n=$(basename "$m")
    $STACKPRINT check -p $P -f junit "$m" > "$TMPDIR/$n.xml"
    if xmllint --noout --schema tests/schemas/junit.xsd "$TMPDIR/$n.xml" 2>"$TMPDIR/xmllint.err"; then
        ok "junit validates: $n"
    else
        not_ok "junit validates: $n" "$(cat "$TMPDIR/xmllint.err")"
    fi
    # counts in the XML agree with its elements and with the JSON report
    $STACKPRINT check -p $P -f json "$m" > "$TMPDIR/$n.json"
    if $py - "$TMPDIR/$n.xml" "$TMPDIR/$n.json" > "$TMPDIR/count.err" 2>&1 <<'PY'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
rep = json.load(open(sys.argv[2]))
cases = root.findall("./testsuite/testcase")
assert int(root.get("tests")) == len(cases) == len(rep["results"]), "tests"
assert int(root.get("failures")) == len(root.findall(".//failure")) == sum(r["fails"] for r in rep["results"]), "failures"
assert int(root.get("skipped")) == len(root.findall(".//skipped")) == rep["summary"]["not_applicable"], "skipped"
for s in root.findall("testsuite"):
    assert int(s.get("tests")) == len(s.findall("testcase")), s.get("name")
names = [s.get("name") for s in root.findall("testsuite")]
assert names == list(dict.fromkeys(r["policy"] for r in rep["results"])), "one suite per policy"
PY
    then ok "junit counts agree with the json report: $n"
    else not_ok "junit counts agree with the json report: $n" "$(cat "$TMPDIR/count.err")"; fi

    $STACKPRINT check -p $P -f sarif "$m" > "$TMPDIR/$n.sarif"
    $py tests/sh/check_sarif.py "$TMPDIR/$n.sarif"
done

# JSON: the fields stackprint-check(1) documents, and the escaped value intact
if $py - "$TMPDIR/esc.json.json" > "$TMPDIR/json.err" 2>&1 <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
keys = ["policy", "rule", "key", "found", "supported", "verdict", "severity", "message", "detail", "fails"]
for r in rep["results"]:
    assert list(r)[:len(keys)] == keys, list(r)
    assert r["verdict"] in ("ok", "violated", "missing", "invalid", "not applicable")
    assert r["severity"] in ("error", "warning")
s = rep["summary"]
assert s["requirements"] == len(rep["results"])
assert s["ok"] + s["violated"] + s["missing"] + s["invalid"] + s["not_applicable"] + s["incomplete"] == len(rep["results"])
assert s["passed"] is False
fam = [r["found"] for r in rep["results"] if r["key"] == "host.instance_family"]
assert fam[0] == "trn1 <&>'\"%\n::error::x,y:z\x1b", repr(fam[0])
PY
then ok "json report: documented fields; values carried exactly"
else not_ok "json report: documented fields; values carried exactly" "$(cat "$TMPDIR/json.err")"; fi

# SARIF: rule ids are stable (policy/rule) and the same from run to run
$STACKPRINT check -p $P -f sarif $M/trn1-native.json > "$TMPDIR/a.sarif"
$STACKPRINT check -p $P -f sarif $M/bad-versions.yaml > "$TMPDIR/b.sarif"
if $py - "$TMPDIR/a.sarif" "$TMPDIR/b.sarif" > "$TMPDIR/ids.err" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p))["runs"][0] for p in sys.argv[1:3])
ids = [r["id"] for r in a["tool"]["driver"]["rules"]]
assert ids == [r["id"] for r in b["tool"]["driver"]["rules"]], "rule ids differ between manifests"
assert "example-native-backend/legacy-neff" in ids and "example-neuron-pytorch-xla/require" in ids, ids
got = sorted((r["ruleId"], r["level"]) for r in a["results"])
assert got == [("example-native-backend/forbid", "error"), ("example-native-backend/legacy-neff", "warning"),
               ("example-native-backend/require", "error")], got
PY
then ok "sarif rule ids are stable; one result per bad verdict"
else not_ok "sarif rule ids are stable; one result per bad verdict" "$(cat "$TMPDIR/ids.err")"; fi

# GitHub: one line per annotation; %, CR, LF escaped in data, also : and , in properties
$STACKPRINT check -p $P -f github "$TMPDIR/esc.json" > "$TMPDIR/gh.txt"
want='::error file=/ESC,title=example-native-backend/require::host.instance_family violated: found trn1 <&>'"'"'"%25%0A::error::x,y:z\x1b, supported one of trn2, trn3'
got=$(grep '/require::host.instance_family' "$TMPDIR/gh.txt" | sed "s#file=[^,]*esc.json#file=/ESC#")
if [ "$got" = "$want" ]; then ok "github annotation escaped"
else not_ok "github annotation escaped" "got:  $got" "want: $want"; fi
n=$(grep -c '^::' "$TMPDIR/gh.txt")
if [ "$n" = 3 ]; then ok "github: one annotation per bad result, nothing else starts a command"
else not_ok "github: one annotation per bad result" "$(cat "$TMPDIR/gh.txt")"; fi
printf 'a:b,c%%d' > /dev/null
cp $M/trn2-xla.yaml "$TMPDIR/odd:name,x.yaml"
sed 's/"trn2"/"trn9"/' "$TMPDIR/odd:name,x.yaml" > "$TMPDIR/odd:name,y.yaml"
tests/restamp "$TMPDIR/odd:name,y.yaml"
$STACKPRINT check -p $P -f github "$TMPDIR/odd:name,y.yaml" > "$TMPDIR/gh2.txt"
if grep -q '^::error file=[^,:]*odd%3Aname%2Cy.yaml,title=example-neuron-pytorch-xla/require::host.instance_family violated' "$TMPDIR/gh2.txt"
then ok "github: file property escaped"
else not_ok "github: file property escaped" "$(cat "$TMPDIR/gh2.txt")"; fi

# a manifest whose file name is not UTF-8: reports stay valid XML and JSON
bad="$TMPDIR/$(printf 'bad\377name').json"
cp $M/trn1-native.json "$bad"
$STACKPRINT check -p $P -f junit "$bad" > "$TMPDIR/badname.xml"
$STACKPRINT check -p $P -f json "$bad" > "$TMPDIR/badname.json"
if xmllint --noout --schema tests/schemas/junit.xsd "$TMPDIR/badname.xml" 2>/dev/null &&
   $py -c 'import json,sys; m=json.load(open(sys.argv[1]))["manifest"]; assert m.endswith("bad\\xffname.json"), m' "$TMPDIR/badname.json"
then ok "a file name that is not UTF-8 is shown \\xNN; junit and json stay valid"
else not_ok "a file name that is not UTF-8 is shown \\xNN" "$(head -c 600 "$TMPDIR/badname.json")"; fi
