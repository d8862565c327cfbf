#!/bin/sh
# tests/oracle/dpkg.sh: deb.* of `stackprint probe` equals what dpkg-query
# (dpkg's own reader) says is installed, exactly, on this machine and on
# every fixture root (dpkg-query --admindir=ROOT/var/lib/dpkg).  Expected
# facts are built from dpkg-query's lines by the multi-arch rule of
# stackprint-manifest(5): deb.NAME = VERSION; a name installed for several
# architectures also gets deb.NAME:ARCH for each, and no deb.NAME when their
# versions differ.
. "$TOP/tests/lib.sh"

command -v dpkg-query >/dev/null || { skip "dpkg oracle" "no dpkg-query"; exit 0; }

expected() {   # dpkg-query lines "state name arch version" on stdin -> "key=value" lines
    /usr/bin/python3 -c '
import sys, collections
by = collections.defaultdict(list)
for line in sys.stdin:
    state, name, arch, version = line.split(" ", 3)
    if state == "installed":
        by[name].append((arch, version.rstrip("\n")))
out = []
for name, inst in by.items():
    if len({v for a, v in inst}) == 1:
        out.append("deb.%s=%s" % (name, inst[0][1]))
    if len(inst) > 1:
        out += ["deb.%s:%s=%s" % (name, a, v) for a, v in inst]
print("\n".join(sorted(out)))'
}

got() {        # manifest JSON file -> "key=value" lines of deb.*
    /usr/bin/python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
print("\n".join(sorted("%s=%s" % (k, v) for k, v in f.items() if k.startswith("deb."))))' "$1"
}

compare() {    # NAME ADMINDIR [--root DIR]
    name=$1; admin=$2; shift 2
    dpkg-query --admindir="$admin" -W \
        -f='${db:Status-Status} ${Package} ${Architecture} ${Version}\n' 2>"$TMPDIR/q.err" |
        expected >"$TMPDIR/want"
    if ! "$STACKPRINT" probe "$@" --format json >"$TMPDIR/m.json" 2>"$TMPDIR/p.err"; then
        not_ok "$name" "probe failed: $(cat "$TMPDIR/p.err")"
        return
    fi
    got "$TMPDIR/m.json" >"$TMPDIR/got"
    if [ ! -s "$TMPDIR/want" ]; then
        not_ok "$name" "dpkg-query listed nothing: $(cat "$TMPDIR/q.err")"
        return
    fi
    same_lines "$name ($(wc -l <"$TMPDIR/want") facts)" "$TMPDIR/want" "$TMPDIR/got"
}

if [ -f /var/lib/dpkg/status ]; then
    compare "deb.* equals dpkg-query on this machine" /var/lib/dpkg
else
    skip "deb.* equals dpkg-query on this machine" "no /var/lib/dpkg/status"
fi
for r in tests/fixtures/roots/*/; do
    r=${r%/}
    [ -f "$r/var/lib/dpkg/status" ] || continue
    compare "deb.* equals dpkg-query on ${r##*/}" "$r/var/lib/dpkg" --root "$r"
done
# the multi-arch fixture really has several architectures (else the rule is untested)
"$STACKPRINT" probe --root tests/fixtures/roots/trn1-xla --format json >"$TMPDIR/m.json"
check "multi-arch keys present on trn1-xla" [ "$(fact "$TMPDIR/m.json" deb.libc6:i386)" = 2.35-0ubuntu3.8 ]
