#!/bin/sh
# tests/sh/fact_cap.sh: 200,000 dpkg stanzas never crowd out the key facts,
# and a manifest whose fact set was cut never passes a check.  The root is
# tests/fixtures/roots/trn2-native (it passes the shipped policies) plus
# 200,000 installed filler stanzas.  Oracles: the same root without them
# (every fact outside the bulk families deb.* and python.env.* must be the
# same), dpkg-query (the number of
# installed packages must equal the deb.* facts plus facts.dropped).
. "$TOP/tests/lib.sh"
T=$TMPDIR
cp -r tests/fixtures/roots/trn2-native "$T/r"
"$STACKPRINT" probe --root "$T/r" --format json -o "$T/plain.json" 2>/dev/null
/usr/bin/python3 - "$T/r/var/lib/dpkg/status" <<'PY'
import sys
with open(sys.argv[1], "a") as f:
    f.write("\n")
    for i in range(200000):
        f.write("Package: filler%06d\nStatus: install ok installed\nArchitecture: amd64\n"
                "Version: 1.0-%d\n\n" % (i, i))
PY
if ! "$STACKPRINT" probe --root "$T/r" --format json -o "$T/big.json" 2>"$T/err"; then
    not_ok "probe of 200,000 stanzas" "$(cat "$T/err")"; exit 0
fi
keys() {
    /usr/bin/python3 -c 'import json,sys
f = json.load(open(sys.argv[1]))["facts"]
for k in sorted(f):
    if not k.startswith(("deb.", "python.env.")) and k != "facts.dropped":
        print("%s=%s" % (k, f[k]))' "$1"
}
keys "$T/plain.json" >"$T/want"
keys "$T/big.json" >"$T/got"
check "the key facts are there (pip.torch, python.version, torch.backend, instance)" \
    grep -q '^torch.backend=' "$T/got"
same_lines "every fact but the bulk ones (deb.*, python.env.*) equals the probe without the stanzas" "$T/want" "$T/got"
installed=$(dpkg-query --admindir="$T/r/var/lib/dpkg" -W -f='${db:Status-Status}\n' 2>/dev/null | grep -cx installed)
# dropped facts are deb.* ones and the python.env.* ones the plain probe has
counted=$(/usr/bin/python3 -c 'import json,sys
f = json.load(open(sys.argv[1]))["facts"]
p = json.load(open(sys.argv[2]))["facts"]
env = sum(k.startswith("python.env.") for k in p) - sum(k.startswith("python.env.") for k in f)
print(sum(k.startswith("deb.") for k in f) + int(f.get("facts.dropped", "0")) - env)' "$T/big.json" "$T/plain.json")
check "deb.* facts plus facts.dropped ($counted) equal dpkg-query's installed packages ($installed)" \
    [ "$counted" = "$installed" ]
"$STACKPRINT" check --policy policies/ "$T/plain.json" >/dev/null 2>&1
check "the root without the stanzas passes the shipped policies" [ $? = 0 ]
"$STACKPRINT" check --policy policies/ --format json -o "$T/rep.json" "$T/big.json" 2>/dev/null
rc=$?
check "with facts dropped, check fails (exit 1)" [ $rc = 1 ]
check "and says why: incomplete verdicts, none not-applicable for lack of a fact" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
assert s["incomplete"] > 0, s
bad = [x for x in r["results"] if x["verdict"] == "incomplete" and x.get("found") is not None]
assert not bad, bad' "$T/rep.json"
