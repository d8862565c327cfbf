#!/bin/sh
# The release catalog is what the Neuron SDK's own table says: regenerating
# it gives the committed bytes, and every (release, package, version,
# instances, python) of n2-manifest.json is in the catalog as PyYAML reads it
# (a reader not written here), and nothing else is.
. "$TOP/tests/lib.sh"

scripts/gen-catalog policies/neuron/n2-manifest.json "$TMPDIR/catalog.yaml"
cmp -s "$TMPDIR/catalog.yaml" policies/neuron/catalog.yaml && ok "catalog is up to date with its generator" \
    || not_ok "catalog is up to date with its generator" "run scripts/gen-catalog"

if /usr/bin/python3 - >"$TMPDIR/py.out" 2>&1 <<'PY'
import json, yaml
t = json.load(open("policies/neuron/n2-manifest.json"))
c = yaml.safe_load(open("policies/neuron/catalog.yaml"))
want = {(r["neuron_version"], p["name"], p["version"], tuple(p["supported_instances"]),
         tuple(p["supported_python_versions"])) for r in t["neuron_releases"] for p in r["packages"]}
def split(line):
    name, version, inst, py = line.split(" ")
    lst = lambda f: () if f == "-" else tuple(f.split(","))
    return name, version, lst(inst), lst(py)
# the table's one typo, "3.7," (neuronx_hwm 2.8.0.3), is written "3.7"
want = {(r, n, v, i, tuple(x.strip(" ,") for x in p)) for r, n, v, i, p in want}
got = {(r["release"],) + split(p) for r in c["releases"] for p in r["packages"]}
assert want == got, f"missing {sorted(want - got)[:5]} extra {sorted(got - want)[:5]}"
assert [r["release"] for r in c["releases"]] == [r["neuron_version"] for r in t["neuron_releases"]]
# spot checks a reader can confirm in doc/DOMAIN.md section 5
rel = {r["release"]: {split(p)[0]: split(p)[1] for p in r["packages"]} for r in c["releases"]}
assert rel["2.31.0"]["aws-neuronx-runtime-lib"] == "2.33.10.0"
assert rel["2.26.0"]["aws-neuronx-dkms"] == "2.24.7.0"
assert rel["2.32.0"]["neuronx-cc"] == "2.27.5334.0"
PY
then ok "catalog holds exactly the table's entries"; else not_ok "catalog holds exactly the table's entries" "$(cat "$TMPDIR/py.out")"; fi

# checks/release.c leaves the instance lists of the table's helper libraries
# out of neuron.sdk.instances: its list must be exactly the packages of the
# table's releases whose package_properties category is general or helper-lib
if /usr/bin/python3 - >"$TMPDIR/py.out" 2>&1 <<'PY'
import json, re
t = json.load(open("policies/neuron/n2-manifest.json"))
cat = {p["name"]: p.get("category") for p in t["package_properties"]}
want = sorted({p["name"] for r in t["neuron_releases"] for p in r["packages"]
               if cat.get(p["name"]) in ("general", "helper-lib")})
src = open("checks/release.c").read()
block = re.search(r"helper_libraries\[\] = \{(.*?)\};", src, re.S).group(1)
got = sorted(re.findall(r'"([^"]+)"', block))
assert want == got, f"table {want}, checks/release.c {got}"
PY
then ok "helper libraries are the table's general and helper-lib packages"
else not_ok "helper libraries are the table's general and helper-lib packages" "$(cat "$TMPDIR/py.out")"; fi

# The shipped policies' table-derived constants are what the table says
# (a prose note that disagrees loses): the first driver listed for trn2 and
# trn3, the last listed for inf1, the last release carrying torch-neuronx
if /usr/bin/python3 - >"$TMPDIR/py.out" 2>&1 <<'PY'
import json, yaml
from packaging.version import Version
t = json.load(open("policies/neuron/n2-manifest.json"))
rows = [(r["neuron_version"], p) for r in t["neuron_releases"] for p in r["packages"]]
def mm(v):
    x = Version(v).release
    return f"{x[0]}.{x[1]}"
dkms = [(Version(p["version"]), p["supported_instances"]) for _, p in rows if p["name"] == "aws-neuronx-dkms"]
first = {f: mm(str(min(v for v, inst in dkms if f in inst))) for f in ("trn2", "trn3")}
last_inf1 = max(v for v, inst in dkms if "inf1" in inst).release
rules = {r["name"]: r for r in yaml.safe_load(open("policies/neuron/driver-runtime.yaml"))["rules"]}
for f in ("trn2", "trn3"):
    r = rules[f"{f}-needs-driver-{first[f]}"]
    assert r["require"]["neuron.sdk.driver_version"] == ">=" + first[f], (f, r)
inf1 = rules["inf1-needs-driver-2.24-or-earlier"]["require"]["neuron.sdk.driver_version"]
assert inf1 == f"<{last_inf1[0]}.{last_inf1[1] + 1}", inf1
tnx = [(Version(r), Version(p["version"])) for r, p in rows if p["name"] == "torch-neuronx"]
last_rel, _ = max(tnx)
torch = max(v for _, v in tnx).release
b = {r["name"]: r for r in yaml.safe_load(open("policies/neuron/backend.yaml"))["rules"]}
assert b["xla-path-ends-with-2.31"]["require"]["pip.torch-neuronx"] == f"<{torch[0]}.{torch[1] + 1}"
later = sorted(Version(r["neuron_version"]) for r in t["neuron_releases"] if Version(r["neuron_version"]) > last_rel)
nxt = later[0].release
assert b["xla-path-runtime-up-to-2.31"]["require"]["neuron.sdk.runtime_release"] == f"<{nxt[0]}.{nxt[1]}"
print("trn2", first["trn2"], "trn3", first["trn3"], "inf1 <", last_inf1, "xla up to", last_rel)
PY
then ok "the driver-runtime and backend constants are the release table's"
else not_ok "the driver-runtime and backend constants are the release table's" "$(cat "$TMPDIR/py.out")"; fi
