#!/bin/sh
# tests/sh/fix.sh: `stackprint check --fix`, self-verifying: for every
# fixture manifest that fails the shipped policies, the plan's steps are
# applied to the manifest's facts here, in Python (set each key to its
# target, drop each removed key), the stack id is recomputed
# (tests/restamp), and the shipped policies are checked again: the result
# must pass.  Where no release fits, the plan must say why.  A few plans
# are asserted exactly, each target version cited from the SDK's own table
# (policies/neuron/n2-manifest.json).
. "$TOP/tests/lib.sh"
PY=/usr/bin/python3

# apply PLAN_JSON MANIFEST OUT: the manifest with the plan's steps applied
apply() {
    "$PY" - "$1" "$2" "$3" <<'EOF'
import json, sys, yaml
plan = json.load(open(sys.argv[1]))["plan"]
text = open(sys.argv[2]).read()
doc = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
for s in plan["steps"]:
    if s["target"] is None:
        doc["facts"].pop(s["key"], None)
        doc.get("evidence", {}).pop(s["key"], None)
    else:
        doc["facts"][s["key"]] = s["target"]
json.dump(doc, open(sys.argv[3], "w"), indent=2, sort_keys=False)
EOF
    "$PY" tests/restamp "$3"
}

nfixed=0
for m in tests/fixtures/manifests/*.yaml tests/fixtures/manifests/*.json tests/fixtures/cases/*/manifest*.json; do
    [ -f "$m" ] || continue
    "$STACKPRINT" check --policy policies/ "$m" >/dev/null 2>&1
    [ $? -eq 1 ] || continue
    nfixed=$((nfixed + 1))
    name=$(echo "$m" | tr / _)
    "$STACKPRINT" check --policy policies/ --fix --format json "$m" >"$TMPDIR/$name.plan" 2>"$TMPDIR/err"
    rc=$?
    release=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["release"] or "")' "$TMPDIR/$name.plan" 2>/dev/null)
    reason=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["reason"] or "")' "$TMPDIR/$name.plan" 2>/dev/null)
    check "$m: --fix exits 1 (the stack still fails today)" [ $rc -eq 1 ]
    if [ -z "$release" ]; then
        check "$m: no release fits, and the plan says why" [ -n "$reason" ]
        continue
    fi
    apply "$TMPDIR/$name.plan" "$m" "$TMPDIR/$name.after.json"
    "$STACKPRINT" check --policy policies/ "$TMPDIR/$name.after.json" >"$TMPDIR/$name.after.txt" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then ok "$m: the plan to Neuron $release, applied, passes every shipped policy"
    else not_ok "$m: the plan to Neuron $release, applied, passes every shipped policy" "$(grep -E 'violated|missing|invalid' "$TMPDIR/$name.after.txt" | grep -v 'warning' | head -5)"; fi
done
check "at least five failing fixtures were fixed or explained ($nfixed)" [ "$nfixed" -ge 5 ]

# Exact plans, hand-checked against the table.
# inf2 with Python 3.10: the newest release listing Python 3.10 for
# neuronx-cc on inf2 is 2.29.1 (2.31.0 and later list 3.11-3.13); its rows:
# aws-neuronx-dkms 2.27.4.0, aws-neuronx-runtime-lib 2.31.24.0,
# neuronx-cc 2.24.8799.0.
"$STACKPRINT" check --policy policies/ --fix tests/fixtures/manifests/neuron-inf2-compiler-newer.yaml >"$TMPDIR/inf2.txt" 2>&1
sed -n '/^Commands, in this order/,$p' "$TMPDIR/inf2.txt" | sed '1,2d' >"$TMPDIR/inf2.got"
cat >"$TMPDIR/inf2.want" <<'EOF'
    apt-get install -y 'aws-neuronx-dkms=2.27.4.0*'
    modprobe -r neuron && modprobe neuron   # reload the driver: stop every Neuron workload first
    apt-get install -y 'aws-neuronx-runtime-lib=2.31.24.0*'
    python3 -m pip install neuronx-cc==2.24.8799.0
EOF
same_lines "inf2, compiler newer than runtime: the exact commands of Neuron 2.29.1" "$TMPDIR/inf2.want" "$TMPDIR/inf2.got"
check "inf2: the target is 2.29.1" grep -q '^Remediation plan: Neuron 2.29.1 ' "$TMPDIR/inf2.txt"

# The XLA path on a 2.32 runtime: the XLA path ends with 2.31; 2.31.1's rows:
# aws-neuronx-dkms 2.29.0.0, aws-neuronx-runtime-lib 2.33.10.0.
"$STACKPRINT" check --policy policies/ --fix --format json tests/fixtures/manifests/neuron-xla-on-2.32-runtime.yaml >"$TMPDIR/xla.json" 2>/dev/null
got=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["plan"]; print(p["release"], *[s["key"]+"="+str(s["target"]) for s in p["steps"]])' "$TMPDIR/xla.json")
check "xla on 2.32: Neuron 2.31.1, driver and runtime from its rows" [ "$got" = "2.31.1 deb.aws-neuronx-dkms=2.29.0.0 neuron.driver.version=2.29.0.0 deb.aws-neuronx-runtime-lib=2.33.10.0" ]

# --keep-driver: the loaded driver (2.30.2.0) stays; 2.31.1's runtime
# 2.33.10.0 is served by it, so only the runtime moves.
"$STACKPRINT" check --policy policies/ --fix --keep-driver --format json tests/fixtures/manifests/neuron-xla-on-2.32-runtime.yaml >"$TMPDIR/keep.json" 2>/dev/null
got=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["plan"]; print(p["release"], *[s["key"]+"="+str(s["target"]) for s in p["steps"]])' "$TMPDIR/keep.json")
check "--keep-driver: no driver step, runtime 2.33.10.0" [ "$got" = "2.31.1 deb.aws-neuronx-runtime-lib=2.33.10.0" ]

# --target-release that cannot fit: the XLA path on 2.32.0 (it has no
# torch-neuronx), refused with the failing requirement named.
"$STACKPRINT" check --policy policies/ --fix --target-release 2.32.0 --format json tests/fixtures/manifests/neuron-xla-on-2.32-runtime.yaml >"$TMPDIR/t232.json" 2>/dev/null
reason=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["plan"]; print(p["release"], p["reason"])' "$TMPDIR/t232.json")
case $reason in
"None Neuron 2.32.0 cannot fit: after its plan, neuron-backend/"*) ok "--target-release 2.32.0 refused for the XLA path, with the rule" ;;
*) not_ok "--target-release 2.32.0 refused for the XLA path, with the rule" "$reason" ;;
esac

# a passing manifest: nothing to change, exit 0
"$STACKPRINT" check --policy policies/ --fix tests/fixtures/manifests/neuron-trn2-native-2.32.yaml >"$TMPDIR/pass.txt" 2>&1
check "passing manifest: exit 0" [ $? -eq 0 ]
check "passing manifest: nothing to change" grep -q '^Remediation plan: nothing to change' "$TMPDIR/pass.txt"

# usage errors
M=tests/fixtures/manifests/neuron-inf2-compiler-newer.yaml
for args in "--target-release 2.31.1" "--keep-driver" "--format markdown" "--fix --format junit" \
            "--fix --format sarif"; do
    # shellcheck disable=SC2086
    "$STACKPRINT" check --policy policies/ $args "$M" >/dev/null 2>&1
    check "usage: check $args: exit 2" [ $? -eq 2 ]
done
"$STACKPRINT" check --policy policies/ --fix --target-release 9.9.9 "$M" >/dev/null 2>&1
check "--target-release not in the catalog: exit 2" [ $? -eq 2 ]
"$STACKPRINT" check --policy policies/neuron/backend.yaml --fix "$M" >/dev/null 2>"$TMPDIR/err"
check "--fix without a catalog: exit 2" [ $? -eq 2 ]
"$STACKPRINT" check --policy policies/ --fix --format markdown "$M" >"$TMPDIR/md" 2>&1
check "markdown: a heading and a shell block" grep -q '^```sh$' "$TMPDIR/md"

# Found by trying to break it: an interpreter path with a space, a quote and
# $(...) is one quoted shell word; one with a newline is never printed (the
# commands name "$PYTHON" instead); the driver's reload comes after its
# package on an rpm host too; a downgrade says so, as apt-get requires.
mk() {   # mk IN OUT KEY=VALUE...: a manifest with facts changed, restamped
    in=$1 out=$2
    shift 2
    "$PY" -c '
import json, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for kv in sys.argv[3:]:
    k, v = kv.split("=", 1)
    if v == "-":
        d["facts"].pop(k, None)
    else:
        d["facts"][k] = v
json.dump(d, open(sys.argv[2], "w"))' "$in" "$out" "$@"
    "$PY" tests/restamp "$out"
}
mk "$M" "$TMPDIR/q.json" "python.path=/opt/my venv \$(id)'x/bin/python3"
"$STACKPRINT" check --policy policies/ --fix "$TMPDIR/q.json" >"$TMPDIR/q.txt" 2>&1
check "a path with a space, a quote and \$(...) is one quoted word" \
    grep -qF "    '/opt/my venv \$(id)'\\''x/bin/python3' -m pip install neuronx-cc==2.24.8799.0" "$TMPDIR/q.txt"
mk "$M" "$TMPDIR/nl.json" "python.path=/opt/x
rm -rf ~/important
/bin/python3"
"$STACKPRINT" check --policy policies/ --fix "$TMPDIR/nl.json" >"$TMPDIR/nl.txt" 2>&1
check "a path with a newline: no line of the output starts with rm" sh -c "! grep -q '^ *rm ' '$TMPDIR/nl.txt'"
check "a path with a newline: the commands name \$PYTHON" grep -qF '"${PYTHON:?the workload interpreter}" -m pip install' "$TMPDIR/nl.txt"
mk tests/fixtures/manifests/trn2-xla.yaml "$TMPDIR/r.json" deb.aws-neuronx-dkms=- deb.aws-neuronx-runtime-lib=- \
    rpm.aws-neuronx-dkms=2.24.7.0-dkms rpm.aws-neuronx-runtime-lib=2.28.23.0_dd5879008-1 host.os.id=amzn host.os.version_id=2023
"$STACKPRINT" check --policy policies/ --fix "$TMPDIR/r.json" >"$TMPDIR/r.txt" 2>&1
first=$(sed -n '/^Commands, in this order/,$p' "$TMPDIR/r.txt" | sed -n 3p)
case $first in
"    dnf install -y 'aws-neuronx-dkms-"*) ok "rpm host: the driver package comes before its reload" ;;
*) not_ok "rpm host: the driver package comes before its reload" "first command: $first" ;;
esac
"$STACKPRINT" check --policy policies/ --fix tests/fixtures/manifests/neuron-xla-on-2.32-runtime.yaml >"$TMPDIR/down.txt" 2>&1
check "a downgrade: apt-get --allow-downgrades" grep -qF "apt-get install -y --allow-downgrades 'aws-neuronx-dkms=2.29.0.0*'" "$TMPDIR/down.txt"
