#!/bin/sh
# tests/sh/contrib.sh: the recipes under contrib/.
#   Kubernetes (no cluster here): each file parses as YAML (PyYAML) and has
#   the fields the Kubernetes API requires of its kind, every hostPath mount
#   is read-only, and the probe runs with --root /host.
#   Slurm: the TaskProlog, run as slurmstepd would (SLURM_* set), writes
#   NODE.json and NODE.check.txt and speaks the TaskProlog protocol (only
#   "export NAME=VALUE" and "print TEXT" lines); other local tasks return at
#   once.  The preamble, with an srun that runs its command on one node,
#   leaves the manifest, the check and fleet.txt, and with
#   STACKPRINT_ON_DRIFT=fail ends the job with fleet's status.
. "$TOP/tests/lib.sh"

for f in contrib/kubernetes/*.yaml; do
    if out=$(/usr/bin/python3 - "$f" 2>&1 <<'PY'
import sys, yaml
(doc,) = list(yaml.safe_load_all(open(sys.argv[1])))
assert doc["apiVersion"] in ("apps/v1", "batch/v1"), doc["apiVersion"]
assert doc["kind"] in ("DaemonSet", "Job") and doc["metadata"]["name"]
spec = doc["spec"]
pod = spec["template"]["spec"]
if doc["kind"] == "DaemonSet":
    labels = spec["template"]["metadata"]["labels"]
    assert all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items())
else:
    assert pod["restartPolicy"] in ("Never", "OnFailure")
vols = {v["name"]: v for v in pod["volumes"]}
for c in pod.get("initContainers", []) + pod["containers"]:
    assert c["name"] and c["image"]
    for m in c.get("volumeMounts", []):
        assert m["name"] in vols, m["name"]
        if "hostPath" in vols[m["name"]]:
            assert m.get("readOnly") is True, m
            assert m["mountPath"].startswith("/host/"), m
text = open(sys.argv[1]).read()
assert doc["kind"] != "DaemonSet" or "--root /host" in text
PY
    ); then ok "contrib: $f is a well-formed $(basename "$f" .yaml)"
    else not_ok "contrib: $f is a well-formed $(basename "$f" .yaml)" "$out"; fi
done

check "contrib: preamble.sh parses" sh -n contrib/slurm/preamble.sh
check "contrib: taskprolog.sh parses" sh -n contrib/slurm/taskprolog.sh

# the TaskProlog, on this machine
mkdir -p "$TMPDIR/job"
SLURM_LOCALID=0 SLURM_JOB_ID=42 SLURMD_NODENAME=n1 SLURM_SUBMIT_DIR="$TMPDIR/job" \
    STACKPRINT="$STACKPRINT" STACKPRINT_POLICY=policies/ \
    sh contrib/slurm/taskprolog.sh >"$TMPDIR/tp.out" 2>"$TMPDIR/tp.err"
check "taskprolog: exit 0" [ $? -eq 0 ]
check "taskprolog: NODE.json is a manifest" "$STACKPRINT" fleet "$TMPDIR/job/stackprint-42/n1.json" 
check "taskprolog: NODE.check.txt written" test -s "$TMPDIR/job/stackprint-42/n1.check.txt"
check "taskprolog: exports STACKPRINT_MANIFEST" \
    grep -qx "export STACKPRINT_MANIFEST=$TMPDIR/job/stackprint-42/n1.json" "$TMPDIR/tp.out"
check "taskprolog: only export and print lines" [ -z "$(grep -Ev '^(export [A-Z_]+=|print )' "$TMPDIR/tp.out")" ]
SLURM_LOCALID=3 SLURM_JOB_ID=43 SLURMD_NODENAME=n1 SLURM_SUBMIT_DIR="$TMPDIR/job" \
    STACKPRINT="$STACKPRINT" sh contrib/slurm/taskprolog.sh >"$TMPDIR/tp3.out"
check "taskprolog: other local tasks do nothing" test ! -s "$TMPDIR/tp3.out" -a ! -e "$TMPDIR/job/stackprint-43"

# the preamble, with an srun that runs the step here, as node n1
mkdir -p "$TMPDIR/bin"
cat >"$TMPDIR/bin/srun" <<'SH'
#!/bin/sh
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
SLURMD_NODENAME=n1 exec "$@"
SH
chmod +x "$TMPDIR/bin/srun"
cat >"$TMPDIR/job.sh" <<SH
. "$TOP/contrib/slurm/preamble.sh"
echo "workload runs"
SH
PATH="$TMPDIR/bin:$PATH" SLURM_JOB_ID=44 SLURM_JOB_NUM_NODES=1 SLURM_SUBMIT_DIR="$TMPDIR/job" \
    STACKPRINT_POLICY=policies/ sh "$TMPDIR/job.sh" >"$TMPDIR/pre.out" 2>&1
check "preamble: the job goes on (warn)" grep -qx "workload runs" "$TMPDIR/pre.out"
check "preamble: NODE.json, NODE.check.txt, fleet.txt" \
    test -s "$TMPDIR/job/stackprint-44/n1.json" -a -s "$TMPDIR/job/stackprint-44/n1.check.txt" \
    -a -s "$TMPDIR/job/stackprint-44/fleet.txt"
check "preamble: the fleet report is in the job's output" grep -q "^result: " "$TMPDIR/pre.out"
# a second, drifted node's manifest in the folder: with fail the job stops
mkdir -p "$TMPDIR/job/stackprint-45" && cp tests/fixtures/fleet/node4.json "$TMPDIR/job/stackprint-45/"
PATH="$TMPDIR/bin:$PATH" SLURM_JOB_ID=45 SLURM_JOB_NUM_NODES=1 SLURM_SUBMIT_DIR="$TMPDIR/job" \
    STACKPRINT_POLICY=policies/ STACKPRINT_ON_DRIFT=fail sh "$TMPDIR/job.sh" >"$TMPDIR/pre.out" 2>&1
check "preamble: STACKPRINT_ON_DRIFT=fail stops the job with fleet's exit 1" [ $? -eq 1 ]
check "preamble: ... before the workload" sh -c "! grep -q 'workload runs' '$TMPDIR/pre.out'"
