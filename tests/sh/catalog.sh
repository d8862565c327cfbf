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
got = {(r["release"], p["name"], p["version"], tuple(p["instances"]), tuple(p["python"]))
       for r in c["releases"] for p in r["packages"]}
assert want == got, f"missing {sorted(want - got)[:5]} extra {sorted(got - want)[:5]}"
assert [r["release"] for r in c["releases"]] == [r["neuron_version"] for r in t["neuron_releases"]]
# spot checks a reader can confirm in DOMAIN.md section 5
rel = {r["release"]: {p["name"]: p["version"] for p in r["packages"]} for r in c["releases"]}
assert rel["2.31.0"]["aws-neuronx-runtime-lib"] == "2.33.10.0"
assert rel["2.26.0"]["aws-neuronx-dkms"] == "2.24.7.0"
assert rel["2.32.0"]["neuronx-cc"] == "2.27.5334.0"
PY
then ok "catalog holds exactly the table's entries"; else not_ok "catalog holds exactly the table's entries" "$(cat "$TMPDIR/py.out")"; fi
