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
