#!/bin/sh
# contrib/slurm/taskprolog.sh: a Slurm TaskProlog (slurm.conf(5):
# TaskProlog=/usr/local/share/stackprint/contrib/slurm/taskprolog.sh) that
# probes the node and checks it before the first task of each job step on
# that node (SLURM_LOCALID 0; the other tasks return at once), writing
# NODE.json and NODE.check.txt into $SLURM_SUBMIT_DIR/stackprint-JOBID (or
# $STACKPRINT_DIR), next to the job's output.  `stackprint fleet` on that
# folder then compares the nodes (contrib/slurm/preamble.sh does it in the
# job script).
#
# A TaskProlog runs as the job's user; Slurm reads its standard output:
# "export NAME=VALUE" sets a variable in the task, "print TEXT" writes TEXT
# to the task's output.  This one exports STACKPRINT_MANIFEST (the node's
# manifest) and prints one line on a failed check.  It always exits 0: it
# reports, and never fails a task, drains a node or touches the cluster.

[ "${SLURM_LOCALID:-0}" = 0 ] || exit 0
sp=${STACKPRINT:-/usr/local/bin/stackprint}
policy=${STACKPRINT_POLICY:-/usr/local/share/stackprint/policies}
dir=${STACKPRINT_DIR:-${SLURM_SUBMIT_DIR:-/tmp}/stackprint-${SLURM_JOB_ID:-local}}
node=${SLURMD_NODENAME:-$(hostname)}
mkdir -p "$dir" 2>/dev/null
out=$dir/$node
# a step after the first finds the manifest of the job's first step
if [ ! -s "$out.json" ]; then
    "$sp" probe --format json -o "$out.json" 2>"$out.probe.err" || {
        echo "print stackprint: $node: probe failed: $(head -n 1 "$out.probe.err")"
        exit 0
    }
    "$sp" check --policy "$policy" -o "$out.check.txt" "$out.json" 2>/dev/null
    [ $? -eq 1 ] && echo "print stackprint: $node: check failed, see $out.check.txt"
fi
echo "export STACKPRINT_MANIFEST=$out.json"
exit 0
