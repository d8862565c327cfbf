# tests/lib.sh: helpers for shell tests (sourced).  Output is TAP-style:
# "ok - NAME", "not ok - NAME", which tests/run counts.
# $STACKPRINT is the binary, $TOP the source tree, $TMPDIR a fresh folder.
set -u
: "${STACKPRINT:?run through tests/run}"
cd "$TOP" || exit 1

ok() { printf 'ok - %s\n' "$1"; }
not_ok() { printf 'not ok - %s\n' "$1"; shift; for l in "$@"; do printf '#   %s\n' "$l"; done; }
skip() { printf 'ok - %s # skip %s\n' "$1" "$2"; }

# check NAME CMD...: ok when CMD succeeds
check() { n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n" "command failed: $*"; fi; }

# same_lines NAME FILE_EXPECTED FILE_GOT: ok when identical; shows the diff
same_lines() {
    if diff -u "$2" "$3" >"$TMPDIR/diff.out" 2>&1; then ok "$1"
    else not_ok "$1" "$(head -n 40 "$TMPDIR/diff.out" | sed 's/^/  /')"; fi
}

# fact FILE KEY: the value of KEY in a JSON manifest FILE (empty if absent)
fact() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"].get(sys.argv[2],""))' "$1" "$2"; }
