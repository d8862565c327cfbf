#!/bin/sh
# tests/oracle/pep440.sh: PEP 440 versions and specifier sets against Debian's
# python3-packaging over a generated corpus (tests/oracle/pep440_oracle.py
# says what is generated and the two documented departures).
. "$TOP/tests/lib.sh"
driver="$BUILD/tests/test_version"
if ! /usr/bin/python3 -c 'import packaging' 2>/dev/null; then
    skip "pep440 oracle" "Debian's python3-packaging is not installed"
    exit 0
fi
[ -x "$driver" ] || { not_ok "pep440 oracle" "$driver missing: run make unit"; exit 0; }
/usr/bin/python3 "$TOP/tests/oracle/pep440_oracle.py" "$driver"
