#!/bin/sh
# tests/sh/fleet.sh: stackprint fleet's JSON and JUnit reports, --pub, and
# inputs too many or too odd to write as CLI cases.
#   JSON:  read back with Python's json; the expected differences are
#          computed from the manifests themselves (facts of node1 versus
#          node4, volatile keys left out), not from stackprint.
#   JUnit: valid against tests/schemas/junit.xsd (xmllint), one testcase
#          per node, the drifted one failed.
#   --pub: envelopes made by `stackprint sign` with the test key and
#          checked by `openssl pkeyutl` first; a missing, a mismatched and a
#          corrupted envelope each make exit 3 and are named.
#   100,000 tiny files in one folder: exit 4 naming the first without
#          --keep-going; with it, every one reported, no hang.
. "$TOP/tests/lib.sh"
F=tests/fixtures/fleet
K=tests/fixtures/sign

"$STACKPRINT" fleet --format json "$F" >"$TMPDIR/f.json"
check "json: exit 1 on drift" [ $? -eq 1 ]
/usr/bin/python3 - "$F" >"$TMPDIR/expected" <<'PY'
import json, sys
sys.path.insert(0, "tests/oracle")
from stackid import VOLATILE
d = sys.argv[1]
a = json.load(open(d + "/node1.json"))["facts"]
b = json.load(open(d + "/node4.json"))["facts"]
for k in sorted((set(a) | set(b)) - VOLATILE):
    if a.get(k) != b.get(k):
        print(k, json.dumps(a.get(k)), json.dumps(b.get(k)))
PY
/usr/bin/python3 - "$TMPDIR/f.json" >"$TMPDIR/got" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert list(r) == ["nodes", "stacks", "odd", "tie", "problems"], list(r)
assert r["nodes"] == 4 and r["tie"] is False and r["problems"] == []
assert [(s["nodes"], s["majority"], s["check"]) for s in r["stacks"]] == \
    [(["node1", "node2", "node3"], True, None), (["node4"], False, None)], r["stacks"]
(o,) = r["odd"]
assert o["node"] == "node4" and o["stack_id"] == r["stacks"][1]["stack_id"]
for d in sorted(o["differences"], key=lambda d: d["key"]):
    assert list(d) == ["key", "majority", "value", "change"]
    print(d["key"], json.dumps(d["majority"]), json.dumps(d["value"]))
PY
same_lines "json: node4's differences are the manifests' own" "$TMPDIR/expected" "$TMPDIR/got"
sid=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stack_id"])' "$F/node1.json")
check "json: the majority's stack id is node1's" grep -q "\"stack_id\": \"$sid\"" "$TMPDIR/f.json"

"$STACKPRINT" fleet --format json --policy tests/fixtures/policies "$F" >"$TMPDIR/p.json"
/usr/bin/python3 - "$TMPDIR/p.json" <<'PY' >"$TMPDIR/p.out" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["stacks"]:
    c = s["check"]
    assert isinstance(c["passed"], bool) and c["summary"].endswith("passed" if c["passed"] else "failed")
    assert all(f["severity"] in ("error", "warning") for f in c["failures"])
    assert c["passed"] or c["failures"]
PY
check "json --policy: a verdict per stack" [ $? -eq 0 ]

"$STACKPRINT" fleet --format junit "$F" >"$TMPDIR/f.xml"
if xmllint --noout --schema tests/schemas/junit.xsd "$TMPDIR/f.xml" 2>"$TMPDIR/xmllint.err"; then
    ok "junit: valid against junit.xsd"
else
    not_ok "junit: valid against junit.xsd" "$(cat "$TMPDIR/xmllint.err")"
fi
check "junit: one testcase per node" [ "$(xmllint --xpath 'count(//testcase)' "$TMPDIR/f.xml")" = 4 ]
check "junit: node4 failed for drift" \
    [ "$(xmllint --xpath 'string(//testcase[@name="node4"]/failure/@type)' "$TMPDIR/f.xml")" = drift ]
check "junit: node1 passed" [ "$(xmllint --xpath 'count(//testcase[@name="node1"]/*)' "$TMPDIR/f.xml")" = 0 ]

# --pub: node1..node3 signed; openssl agrees that the envelopes verify
mkdir -p "$TMPDIR/s"
cp "$F"/node*.json "$TMPDIR/s/"
for n in 1 2 3; do
    "$STACKPRINT" sign --key "$K/ed25519.key" "$TMPDIR/s/node$n.json" >/dev/null 2>&1
done
/usr/bin/python3 - "$TMPDIR/s/node1.json.intoto.json" "$TMPDIR" <<'PY'
import base64, json, sys
e = json.load(open(sys.argv[1]))
p = base64.b64decode(e["payload"])
t = e["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(t), t, len(p), p)
open(sys.argv[2] + "/pae", "wb").write(pae)
open(sys.argv[2] + "/sig", "wb").write(base64.b64decode(e["signatures"][0]["sig"]))
PY
check "--pub: openssl verifies node1's envelope" openssl pkeyutl -verify -pubin -inkey "$K/ed25519.pub" \
    -rawin -in "$TMPDIR/pae" -sigfile "$TMPDIR/sig"
"$STACKPRINT" fleet --pub "$K/ed25519.pub" "$TMPDIR/s/node1.json" "$TMPDIR/s/node2.json" \
    "$TMPDIR/s/node3.json" >"$TMPDIR/out" 2>&1
check "--pub: three signed nodes, exit 0" [ $? -eq 0 ]
"$STACKPRINT" fleet --pub "$K/ed25519.pub" "$TMPDIR/s" >"$TMPDIR/out" 2>"$TMPDIR/err"
check "--pub: node4 without an envelope: exit 3" [ $? -eq 3 ]
check "--pub: node4's missing envelope named" grep -q "^not verified: node4: .*node4.json.intoto.json: No such file" "$TMPDIR/out"
check "--pub: node4 is left out of the stacks" grep -q "^fleet: 3 nodes, 1 stack;" "$TMPDIR/out"
cp "$TMPDIR/s/node1.json.intoto.json" "$TMPDIR/s/node2.json.intoto.json"
sed 's/"sig": "./"sig": "A/' "$TMPDIR/s/node1.json.intoto.json" >"$TMPDIR/s/node3.json.intoto.json"
"$STACKPRINT" fleet --pub "$K/ed25519.pub" --format json "$TMPDIR/s" >"$TMPDIR/out.json" 2>"$TMPDIR/err"
check "--pub: mismatched and corrupted envelopes: exit 3" [ $? -eq 3 ]
/usr/bin/python3 - "$TMPDIR/out.json" >"$TMPDIR/pub.got" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["nodes"], [s["nodes"] for s in r["stacks"]])
for p in r["problems"]:
    print(p["node"], p["exit"])
PY
printf '%s\n' "1 [['node1']]" "node2 3" "node3 3" "node4 3" >"$TMPDIR/pub.want"
same_lines "--pub: only node1 grouped; node2..node4 reported with exit 3" "$TMPDIR/pub.want" "$TMPDIR/pub.got"
check "--pub: each failure on stderr too" [ "$(grep -c '^stackprint: ' "$TMPDIR/err")" = 3 ]

# 100,000 tiny files
mkdir "$TMPDIR/many"
/usr/bin/python3 -c '
import os, sys
d = sys.argv[1]
for i in range(100000):
    with open(os.path.join(d, "n%06d.json" % i), "w") as f:
        f.write("{}\n")' "$TMPDIR/many"
"$STACKPRINT" fleet "$TMPDIR/many" >/dev/null 2>"$TMPDIR/err"
check "100,000 tiny files: exit 4" [ $? -eq 4 ]
check "100,000 tiny files: the first one named, then stop" \
    [ "$(cat "$TMPDIR/err")" = "stackprint: $TMPDIR/many/n000000.json: missing key schema" ]
"$STACKPRINT" fleet --keep-going --format json "$TMPDIR/many" >"$TMPDIR/many.json" 2>"$TMPDIR/err"
rc=$?
if [ $rc -eq 4 ]; then ok "100,000 tiny files --keep-going: exit 4"
else not_ok "100,000 tiny files --keep-going: exit 4" "exit $rc" "$(tail -n 3 "$TMPDIR/err")"; fi
check "100,000 tiny files --keep-going: each reported" [ "$(wc -l <"$TMPDIR/err")" = 100000 ]
check "100,000 tiny files --keep-going: no node" \
    /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["nodes"] == 0 and len(r["problems"]) == 100000))' "$TMPDIR/many.json"
