#!/bin/sh
# tests/sh/imds.sh: stackprint probe --imds against tests/imds_server.py on
# 127.0.0.1 (never any other address): IMDSv2 token then metadata; a 404; a
# server that accepts and never answers (must give up within the 1 s
# per-request timeout); an oversized answer.  The root is a fixture without
# DMI so the metadata fills host.instance_*; with DMI present it must not
# replace DMI's values.
. "$TOP/tests/lib.sh"

ROOT=tests/fixtures/roots/container-bare

start() {   # start MODE: sets PID and PORT
    rm -f "$TMPDIR/port"
    /usr/bin/python3 tests/imds_server.py "$1" "$TMPDIR/port" &
    PID=$!
    i=0
    while [ ! -s "$TMPDIR/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    PORT=$(cat "$TMPDIR/port" 2>/dev/null)
}
stop() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }

start ok
if [ -z "$PORT" ]; then not_ok "imds server starts"; exit 1; fi
"$STACKPRINT" probe --root "$ROOT" --imds --imds-endpoint "127.0.0.1:$PORT" --format json \
    >"$TMPDIR/m.json" 2>"$TMPDIR/err"
rc=$?
check "imds ok: exit 0" [ $rc -eq 0 ]
check "imds ok: instance type" [ "$(fact "$TMPDIR/m.json" host.instance_type)" = trn2.48xlarge ]
check "imds ok: family" [ "$(fact "$TMPDIR/m.json" host.instance_family)" = trn2 ]
check "imds ok: instance id" [ "$(fact "$TMPDIR/m.json" host.instance_id)" = i-0123456789abcdef0 ]
check "imds ok: cloud" [ "$(fact "$TMPDIR/m.json" host.cloud)" = aws ]
check "imds ok: evidence names the endpoint" \
    grep -q "\"host.instance_type\": \"imds http://127.0.0.1:$PORT/latest/meta-data/instance-type\"" "$TMPDIR/m.json"
# without --imds the same endpoint is never asked
STACKPRINT_IMDS_ENDPOINT="127.0.0.1:$PORT" "$STACKPRINT" probe --root "$ROOT" --format json >"$TMPDIR/n.json"
check "no --imds: no instance facts" [ -z "$(fact "$TMPDIR/n.json" host.instance_type)" ]
# DMI wins where it has a value
"$STACKPRINT" probe --root tests/fixtures/roots/inf2 --imds --imds-endpoint "127.0.0.1:$PORT" \
    --format json >"$TMPDIR/d.json"
check "dmi kept over imds" [ "$(fact "$TMPDIR/d.json" host.instance_type)" = inf2.xlarge ]
check "dmi/imds disagreement is a warning" grep -q "DMI 'inf2.xlarge'; DMI kept" "$TMPDIR/d.json"
stop

for mode in 404 silent oversized bigtoken; do
    start $mode
    t0=$(date +%s%N)
    "$STACKPRINT" probe --root "$ROOT" --imds --imds-endpoint "127.0.0.1:$PORT" --format json \
        >"$TMPDIR/m.json" 2>"$TMPDIR/err"
    rc=$?
    t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    stop
    check "imds $mode: exit 0" [ $rc -eq 0 ]
    check "imds $mode: no instance facts" [ -z "$(fact "$TMPDIR/m.json" host.instance_type)" ]
    case $mode in
        404) want="api/token: HTTP 404" ;;
        silent) want="api/token: timed out" ;;
        oversized) want="api/token: response larger than 16384 bytes" ;;
        bigtoken) want="api/token: response body longer than 511 bytes" ;;
    esac
    check "imds $mode: warning '$want'" grep -q "$want" "$TMPDIR/m.json"
    check "imds $mode: finished in ${ms} ms (< 3000)" [ "$ms" -lt 3000 ]
done
