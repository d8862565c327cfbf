#!/bin/sh
# tests/oracle/debver.sh: Debian version order and validity against dpkg
# (--compare-versions, --validate-version) over generated pairs; see
# tests/oracle/debver_oracle.py.
. "$TOP/tests/lib.sh"
driver="$BUILD/tests/test_version"
command -v dpkg >/dev/null || { skip "deb oracle" "dpkg is not installed"; exit 0; }
[ -x "$driver" ] || { not_ok "deb oracle" "$driver missing: run make unit"; exit 0; }
/usr/bin/python3 "$TOP/tests/oracle/debver_oracle.py" "$driver"
