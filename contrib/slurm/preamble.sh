# contrib/slurm/preamble.sh: stackprint as the first step of a Slurm batch
# job (stackprint-fleet(1), "SLURM").  Source it from the job script, before
# the workload:
#
#   #!/bin/sh
#   #SBATCH --nodes=16
#   . /usr/local/share/stackprint/contrib/slurm/preamble.sh
#   srun ... the workload ...
#
# One task per node probes that node and checks it against the policies,
# writing NODE.json (the manifest) and NODE.check.txt into
# $STACKPRINT_DIR; then `stackprint fleet` compares all of them and writes
# fleet.txt there, and the report goes to the job's output.  It reports
# only: it never drains or reboots a node and never changes the cluster.
# With STACKPRINT_ON_DRIFT=fail the job ends here, with fleet's exit status,
# when the nodes differ or a check fails; the default (warn) goes on.
#
#   STACKPRINT_DIR     where the files go (default: stackprint-JOBID next
#                      to the job's output, in $SLURM_SUBMIT_DIR); must be
#                      on a file system every node shares
#   STACKPRINT_POLICY  policies (default: the installed ones)
#   STACKPRINT         the stackprint binary (default: from PATH)
#   STACKPRINT_ON_DRIFT warn (default) or fail

: "${STACKPRINT:=stackprint}"
: "${STACKPRINT_DIR:=${SLURM_SUBMIT_DIR:-$PWD}/stackprint-${SLURM_JOB_ID:-local}}"
: "${STACKPRINT_POLICY:=/usr/local/share/stackprint/policies}"
: "${STACKPRINT_ON_DRIFT:=warn}"
mkdir -p "$STACKPRINT_DIR"
# one task on each node of the allocation; a node whose probe fails is
# simply missing from the comparison (its error is in the job's output)
srun --nodes="${SLURM_JOB_NUM_NODES:-1}" --ntasks-per-node=1 /bin/sh -c '
    out=$1/$SLURMD_NODENAME
    "$0" probe --format json -o "$out.json" &&
        "$0" check --policy "$2" -o "$out.check.txt" "$out.json"
    exit 0' "$STACKPRINT" "$STACKPRINT_DIR" "$STACKPRINT_POLICY"
"$STACKPRINT" fleet --keep-going --policy "$STACKPRINT_POLICY" -o "$STACKPRINT_DIR/fleet.txt" \
    "$STACKPRINT_DIR"
stackprint_rc=$?
cat "$STACKPRINT_DIR/fleet.txt" 2>/dev/null
if [ "$STACKPRINT_ON_DRIFT" = fail ] && [ $stackprint_rc -ne 0 ]; then
    echo "stackprint: the nodes differ or a check failed (exit $stackprint_rc); see $STACKPRINT_DIR" >&2
    exit $stackprint_rc
fi
