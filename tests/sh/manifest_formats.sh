#!/bin/sh
# The YAML and the JSON manifest carry the same content: PyYAML (a YAML 1.1
# reader, the strictest about retyping) and Python's json, neither written
# here, must read identical documents from both, and every value must come
# back a non-empty string.  Also: two probes in a row give identical output.
. "$TOP/tests/lib.sh"

for subject in host $(ls tests/fixtures/roots 2>/dev/null | grep -v README); do
    if [ "$subject" = host ]; then set -- ; else set -- --root "tests/fixtures/roots/$subject"; fi
    SOURCE_DATE_EPOCH=1 "$STACKPRINT" probe "$@" >"$TMPDIR/m.yaml" 2>"$TMPDIR/err" || { not_ok "$subject: probe yaml" "$(cat "$TMPDIR/err")"; continue; }
    SOURCE_DATE_EPOCH=1 "$STACKPRINT" probe "$@" --format json >"$TMPDIR/m.json" 2>>"$TMPDIR/err" || { not_ok "$subject: probe json" "$(cat "$TMPDIR/err")"; continue; }
    if /usr/bin/python3 - "$TMPDIR/m.yaml" "$TMPDIR/m.json" >"$TMPDIR/py.out" 2>&1 <<'PY'
import json, sys, yaml
y = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
j = json.load(open(sys.argv[2], encoding="utf-8"))
assert y == j, "yaml and json differ: " + str(set(y["facts"].items()) ^ set(j["facts"].items()))
for k, v in y["facts"].items():
    assert isinstance(v, str) and v != "", f"fact {k} is {v!r}"
assert list(y["facts"]) == sorted(y["facts"], key=lambda s: s.encode()), "facts not sorted bytewise"
assert set(y["evidence"]) <= set(y["facts"]), "evidence for a missing fact"
PY
    then ok "$subject: yaml equals json"; else not_ok "$subject: yaml equals json" "$(cat "$TMPDIR/py.out")"; fi
    SOURCE_DATE_EPOCH=1 "$STACKPRINT" probe "$@" >"$TMPDIR/m2.yaml" 2>/dev/null
    if [ "$subject" = host ]; then
        # a live host can change between two runs; its facts must not
        /usr/bin/python3 -c 'import yaml,sys; a,b=(yaml.safe_load(open(f))["facts"] for f in sys.argv[1:]); sys.exit(a!=b)' "$TMPDIR/m.yaml" "$TMPDIR/m2.yaml" \
            && ok "$subject: facts identical twice" || not_ok "$subject: facts identical twice"
    else
        cmp -s "$TMPDIR/m.yaml" "$TMPDIR/m2.yaml" && ok "$subject: byte-identical twice" \
            || not_ok "$subject: byte-identical twice" "$(diff "$TMPDIR/m.yaml" "$TMPDIR/m2.yaml" | head)"
    fi
done
