#!/bin/sh
# tests/oracle/pci.sh: the PCI facts of `stackprint probe` equal what lspci
# (pciutils' own front end) shows, on this machine (`lspci -n`) and on every
# fixture root with a bus (`lspci -n -A linux-sysfs -O sysfs.path=ROOT/sys/bus/pci`).
# The expected facts are derived here from lspci's lines with doc/DOMAIN.md's
# tables: Neuron = vendor 1d0f with the device ids of section 1; EFA =
# 1d0f:efa0-efa3; GPU = vendor 10de with a display class (03xx).
. "$TOP/tests/lib.sh"

command -v lspci >/dev/null || { skip "pci oracle" "no lspci"; exit 0; }

expected() {   # lspci -n lines on stdin -> "key=value" lines
    /usr/bin/python3 -c '
import sys, re
kinds = {0x7064: "inferentia", 0x7065: "inferentia", 0x7066: "inferentia", 0x7067: "inferentia",
         0x7164: "trainium", 0x7264: "inferentia2", 0x7364: "trainium2",
         0x7564: "trainium3", 0x7565: "trainium3"}
neuron, efa, gpu = [], 0, []
for line in sys.stdin:
    m = re.match(r"^\S+ ([0-9a-f]{4}): ([0-9a-f]{4}):([0-9a-f]{4})", line)
    if not m:
        continue
    cls, vendor, device = (int(x, 16) for x in m.groups())
    if vendor == 0x1d0f and device in kinds:
        neuron.append(device)
    elif vendor == 0x1d0f and 0xefa0 <= device <= 0xefa3:
        efa += 1
    elif vendor == 0x10de and cls >> 8 == 0x03:
        gpu.append(device)
out = ["neuron.device.count=%d" % len(neuron), "efa.device.count=%d" % efa,
       "gpu.device.count=%d" % len(gpu)]
if neuron:
    out.append("neuron.device.kind=" + ",".join(sorted({kinds[d] for d in neuron})))
    out.append("neuron.device.pci_id=" + ",".join("1d0f:%04x" % d for d in sorted(set(neuron))))
if gpu:
    out.append("gpu.device.pci_id=" + ",".join("10de:%04x" % d for d in sorted(set(gpu))))
print("\n".join(sorted(out)))'
}

got() {
    /usr/bin/python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
keys = ("neuron.device.count", "neuron.device.kind", "neuron.device.pci_id",
        "efa.device.count", "gpu.device.count", "gpu.device.pci_id")
print("\n".join(sorted("%s=%s" % (k, f[k]) for k in keys if k in f)))' "$1"
}

compare() {    # NAME [--root DIR]; lspci output in $TMPDIR/lspci
    name=$1; shift
    expected <"$TMPDIR/lspci" >"$TMPDIR/want"
    if ! "$STACKPRINT" probe "$@" --format json >"$TMPDIR/m.json" 2>"$TMPDIR/p.err"; then
        not_ok "$name" "probe failed: $(cat "$TMPDIR/p.err")"
        return
    fi
    got "$TMPDIR/m.json" >"$TMPDIR/got"
    same_lines "$name" "$TMPDIR/want" "$TMPDIR/got"
}

if [ -d /sys/bus/pci/devices ] && lspci -n >"$TMPDIR/lspci" 2>"$TMPDIR/lspci.err"; then
    compare "pci facts equal lspci -n on this machine"
else
    skip "pci facts equal lspci -n on this machine" "no readable PCI bus"
fi
n=0
for r in tests/fixtures/roots/*/; do
    r=${r%/}
    [ -d "$r/sys/bus/pci/devices" ] || continue
    abs=$(cd "$r" && pwd)
    if ! lspci -n -A linux-sysfs -O "sysfs.path=$abs/sys/bus/pci" >"$TMPDIR/lspci" 2>"$TMPDIR/lspci.err" ||
        [ ! -s "$TMPDIR/lspci" ]; then
        not_ok "lspci reads ${r##*/}" "$(cat "$TMPDIR/lspci.err")"
        continue
    fi
    compare "pci facts equal lspci on ${r##*/} ($(wc -l <"$TMPDIR/lspci") devices)" --root "$r"
    n=$((n + 1))
done
check "fixture buses compared: $n (at least 7)" [ "$n" -ge 7 ]
