#!/bin/sh
# tests/slurm/cluster.sh: stackprint fleet on a real Slurm cluster.
#
# Starts, on this machine and on 127.0.0.1 only, Debian's munged and
# slurmctld and four slurmd (slurmd -N node1..node4, each on its own port),
# configured by tests/slurm/slurm.conf.in; runs `srun -N4` so that every
# node probes its own copy of the trn1-xla fixture root (node4's has an
# older Neuron driver) into one shared folder, as contrib/slurm's preamble
# does; then runs `stackprint fleet` on that folder.  Expected differences
# come from the manifests themselves (Python's json) and the direction from
# `dpkg --compare-versions`, not from stackprint.
#
# Every daemon runs in the foreground under timeout(1) (so none outlives a
# killed test by more than a few minutes) and is stopped by its pid when the
# script exits, on failure too.  Needs root (slurmd runs the job steps as
# their user and must be able to switch to it); skips with the reason
# otherwise, and when slurm-wlm or munge is not installed.
. "$TOP/tests/lib.sh"

need=""
for b in munged mungekey slurmctld slurmd srun sinfo scontrol; do
    command -v "$b" >/dev/null 2>&1 || need="$need $b"
done
if [ "$(id -u)" != 0 ]; then
    skip "slurm cluster" "needs root to run slurmd (CI runs as root)"
    exit 0
fi
if [ -n "${STACKPRINT_FRESH_ROOT:-}" ]; then
    # tests/fresh/run's chroot shares this machine's network and PID
    # namespaces and has no init: its slurmctld never sees the nodes register.
    # The cluster test runs in the host's `make check` (CI runs that too).
    skip "slurm cluster" "inside tests/fresh/run's chroot (the host's make check runs it)"
    exit 0
fi
if [ -n "$need" ]; then
    skip "slurm cluster" "not installed:$need (scripts/bootstrap installs slurm-wlm and munge)"
    exit 0
fi

D=$TMPDIR/cluster
mkdir -p "$D/state" "$D/spool" "$D/out" "$D/roots" || exit 1
chmod 0700 "$D"
PIDS=""
LIFE=300            # seconds any daemon may live, whatever happens to this script

stop_all() {
    [ -n "${SLURM_CONF:-}" ] && scancel --quiet --partition=test 2>/dev/null
    for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
    for p in $PIDS; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    PIDS=""
}
trap 'stop_all' EXIT
trap 'stop_all; exit 1' INT TERM HUP

# start NAME CMD...: run CMD in the background under timeout(1), remember its pid
start() {
    name=$1
    shift
    timeout -k 5 $LIFE "$@" >"$D/$name.stdout" 2>&1 &
    PIDS="$PIDS $!"
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s
wait_for() {
    n=$(($1 * 5))
    shift
    while [ $n -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
        n=$((n - 1))
    done
    return 1
}

show_logs() {
    for f in "$D"/*.log "$D"/*.stdout; do
        [ -s "$f" ] && { echo "# --- $f"; tail -n 15 "$f" | sed 's/^/#   /'; }
    done
}

# five ports the kernel says are free on 127.0.0.1
set -- $(/usr/bin/python3 -c '
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')
[ $# -eq 5 ] || { not_ok "slurm: free ports"; exit 1; }
HOST=$(hostname -s)
sed -e "s|@HOST@|$HOST|g" -e "s|@DIR@|$D|g" -e "s|@CTLD_PORT@|$1|" \
    -e "s|@PORT1@|$2|" -e "s|@PORT2@|$3|" -e "s|@PORT3@|$4|" -e "s|@PORT4@|$5|" \
    tests/slurm/slurm.conf.in >"$D/slurm.conf"
: >"$D/plugstack.conf"
SLURM_CONF=$D/slurm.conf
export SLURM_CONF

mungekey --create --keyfile="$D/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null
chmod 0600 "$D/munge.key"
start munged munged --foreground --force --socket="$D/munge.socket" --key-file="$D/munge.key" \
    --pid-file="$D/munged.pid" --log-file="$D/munged.log" --seed-file="$D/munged.seed"
if ! wait_for 10 test -S "$D/munge.socket"; then
    not_ok "slurm: munged starts" "$(show_logs)"
    exit 1
fi
ok "slurm: munged starts"

start slurmctld slurmctld -D -c -f "$SLURM_CONF"
if ! wait_for 30 scontrol ping; then
    not_ok "slurm: slurmctld answers" "$(show_logs)"
    exit 1
fi
ok "slurm: slurmctld answers"

for n in 1 2 3 4; do
    start "slurmd-node$n" slurmd -D -N "node$n" -f "$SLURM_CONF"
done
idle() { [ "$(sinfo -h -p test -t idle -o '%D')" = 4 ]; }
if ! wait_for 60 idle; then
    not_ok "slurm: four nodes idle" "$(sinfo -N 2>&1)" "$(show_logs)"
    exit 1
fi
ok "slurm: four nodes idle"

# every node's own root: the trn1-xla fixture with its own /etc/hostname;
# node4 runs an older Neuron driver than its dkms package
for n in 1 2 3 4; do
    cp -R tests/fixtures/roots/trn1-xla "$D/roots/node$n"
    echo "node$n" >"$D/roots/node$n/etc/hostname"
done
echo "2.22.14.0" >"$D/roots/node4/sys/module/neuron/version"

# the job: one task per node, each probing the root named after its node
# (SLURMD_NODENAME, set by slurmd) into the shared folder
timeout 120 srun -N4 --ntasks-per-node=1 -p test -t 2 /bin/sh -c \
    '"$STACKPRINT" probe --root "$0/roots/$SLURMD_NODENAME" --format json -o "$0/out/$SLURMD_NODENAME.json"' \
    "$D" >"$D/srun.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    not_ok "slurm: srun -N4 probes every node" "exit $rc" "$(cat "$D/srun.out")" "$(show_logs)"
    exit 1
fi
check "slurm: srun -N4 wrote four manifests" [ "$(ls "$D/out" | wc -l)" = 4 ]

"$STACKPRINT" fleet --format json "$D/out" >"$D/fleet.json" 2>"$D/fleet.err"
rc=$?
check "slurm: fleet finds drift (exit 1)" [ $rc -eq 1 ]
# what the manifests themselves say, read by Python's json module
/usr/bin/python3 - "$D" "$(pwd)/tests/oracle" <<'EOF' >"$D/expected"
import json, os, sys
sys.path.insert(0, sys.argv[2])
from stackid import VOLATILE as volatile
d = sys.argv[1]
m = {n: json.load(open(os.path.join(d, "out", n + ".json"))) for n in ("node1", "node2", "node3", "node4")}
a, b = m["node1"]["facts"], m["node4"]["facts"]
for k in sorted((set(a) | set(b)) - volatile):
    if a.get(k) != b.get(k):
        print(k, a.get(k), b.get(k))
print("majority", m["node1"]["stack_id"], "odd", m["node4"]["stack_id"])
EOF
/usr/bin/python3 - "$D/fleet.json" <<'EOF' >"$D/got"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["nodes"] == 4, r["nodes"]
maj = [s for s in r["stacks"] if s["majority"]]
assert len(maj) == 1 and sorted(maj[0]["nodes"]) == ["node1", "node2", "node3"], maj
assert [o["node"] for o in r["odd"]] == ["node4"], r["odd"]
for d in sorted(r["odd"][0]["differences"], key=lambda d: d["key"]):
    print(d["key"], d["majority"], d["value"])
print("majority", maj[0]["stack_id"], "odd", r["odd"][0]["stack_id"])
EOF
same_lines "slurm: fleet names node4 and its differences" "$D/expected" "$D/got"
change=$(/usr/bin/python3 -c 'import json,sys; print([d["change"] for d in json.load(open(sys.argv[1]))["odd"][0]["differences"] if d["key"] == "neuron.driver.version"][0])' "$D/fleet.json" 2>/dev/null)
if dpkg --compare-versions 2.22.14.0 lt 2.24.7.0; then want=downgraded; else want=upgraded; fi
check "slurm: driver change is '$want' (dpkg --compare-versions)" [ "$change" = "$want" ]

stop_all
left=""
for f in "$D"/*.pid; do
    [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && left="$left $f"
done
check "slurm: every daemon stopped" [ -z "$left" ]
