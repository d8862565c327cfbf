# tests/oracle/pip.sh: pip.*, python.version and python.prefix of
# `stackprint probe` on this machine against the interpreter itself:
# importlib.metadata's distributions in sys.path order (first of a
# normalised name wins, as importlib.metadata.version() picks),
# platform.python_version() and sys.prefix.  Run for the interpreter the
# probe chooses (python.path) and for Debian's /usr/bin/python3.
. "$TOP/tests/lib.sh"

# oracle PYTHON OUT: what PYTHON itself says, as "key=value" lines, sorted.
# It runs in an empty folder and leaves the current folder ('' on sys.path
# for -c and stdin) out, as the probe does not see it.
oracle() {
    (cd "$TMPDIR/empty" && "$1" - <<'PY'
import importlib.metadata as md, os, platform, re, sys
paths = [p for p in sys.path if p and os.path.abspath(p) != os.getcwd()]
seen = {}
for d in md.distributions(path=paths):
    name = d.metadata["Name"]
    if name is None:
        continue
    key = "pip." + re.sub(r"[-_.]+", "-", name).lower()
    seen.setdefault(key, d.version)
seen["python.version"] = platform.python_version()
seen["python.prefix"] = sys.prefix
for k in sorted(seen):
    print("%s=%s" % (k, seen[k]))
PY
    ) >"$2"
}

# probe_lines MANIFEST OUT: the same keys from a JSON manifest.
probe_lines() {
    /usr/bin/python3 - "$1" >"$2" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
for k in sorted(f):
    if k.startswith("pip.") or k in ("python.version", "python.prefix"):
        print("%s=%s" % (k, f[k]))
PY
}

mkdir -p "$TMPDIR/empty"
n=0
for how in default debian; do
    n=$((n + 1))
    m="$TMPDIR/m$n.json"
    if [ $how = default ]; then
        "$STACKPRINT" probe --format json -o "$m"
    else
        if [ ! -x /usr/bin/python3 ]; then skip "pip: /usr/bin/python3" "not installed"; continue; fi
        "$STACKPRINT" probe --python /usr/bin/python3 --format json -o "$m"
    fi
    py=$(fact "$m" python.path)
    if [ -z "$py" ]; then
        not_ok "pip ($how): the probe chose an interpreter" "no python.path in the manifest"
        continue
    fi
    ok "pip ($how): the probe chose $py"
    if [ $how = debian ] && [ "$py" != /usr/bin/python3 ]; then
        not_ok "pip ($how): --python is honoured" "python.path is $py"
    fi
    oracle "$py" "$TMPDIR/want$n"
    probe_lines "$m" "$TMPDIR/got$n"
    count=$(grep -c '^pip\.' "$TMPDIR/want$n")
    same_lines "pip ($how): pip.*, python.version, python.prefix equal $py's own ($count distributions)" \
        "$TMPDIR/want$n" "$TMPDIR/got$n"
done
# Debian's interpreter has packages (python3-packaging at least on CI): the
# comparison above must not have been between two empty lists.
if [ -x /usr/bin/python3 ]; then
    if grep -q '^pip\.packaging=' "$TMPDIR/got2" 2>/dev/null; then ok "pip (debian): packaging is listed"
    else not_ok "pip (debian): packaging is listed" "no pip.packaging from /usr/bin/python3"; fi
fi
