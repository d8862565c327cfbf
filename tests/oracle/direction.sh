#!/bin/sh
# tests/oracle/direction.sh: the direction stackprint diff gives a version
# change (upgraded, downgraded, changed) against each scheme's own tool:
# dpkg --compare-versions (deb.*), Python's packaging (pip.*, python.version,
# and dotted version facts, whose numbers packaging orders the same way),
# and rpm's labelCompare from python3-rpm (rpm.*); see
# tests/oracle/direction_oracle.py.
. "$TOP/tests/lib.sh"
driver="$BUILD/tests/test_compare"
[ -x "$driver" ] || { not_ok "direction oracle" "$driver missing: run make unit"; exit 0; }
/usr/bin/python3 "$TOP/tests/oracle/direction_oracle.py" "$driver"
