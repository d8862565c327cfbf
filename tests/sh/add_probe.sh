#!/bin/sh
# tests/sh/add_probe.sh: a newcomer adds a probe by touching one folder and
# the table (CONTRIBUTING.md "Adding a probe", doc/ARCHITECTURE.md "Adding a
# probe"), done once.  In a copy of the tree: write
# fingerprint/probes/probe_example.c, declare its entry point in
# fingerprint/probes/probe.h, add one row to sp_probes[] in
# fingerprint/probes/probes.c (the probe it follows, the path it reads) --
# nothing else -- and build.  The new binary records the example's fact for
# a directory root and for an image: the image backend kept the file
# because the row declares it (fingerprint/root/ holds no list of its own);
# the binary under test, built without the row, records nothing of it.
. "$TOP/tests/lib.sh"

C=$TMPDIR/tree
B=$(basename "$BUILD")
mkdir -p "$C"
# the sources and the build under test with their times, so that make
# recompiles only what the new probe touches
for d in *; do
    case $d in build*|tests|bench|fuzz) continue ;; esac
    cp -a "$d" "$C/" || { not_ok "copy the tree"; exit 0; }
done
cp -a "$BUILD" "$C/$B"
rm -rf "$C/$B/tests"

P=$C/fingerprint/probes
cat >"$P/probe_example.c" <<'C'
/* fingerprint/probes/probe_example.c: example.greeting, the first line of
 * /etc/example.conf (a probe written to show how one is added). */
#include <errno.h>

#include "fingerprint/probes/probe.h"

int probe_example(struct probe_ctx *ctx, struct sp_error *e)
{
    const char *path = "/etc/example.conf";
    char line[256];
    if (root_read_line(ctx->root, path, line, sizeof line) != 0) {
        if (errno != ENOENT)
            probe_warn_errno(ctx, "example.greeting", path, errno);
        return 0;
    }
    if (probe_set(ctx, "example.greeting", line, path) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "example: out of memory");
    return 0;
}
C
# the declaration, after the last one
/usr/bin/python3 - "$P" <<'PY' || { not_ok "add the declaration and the row"; exit 0; }
import re, sys
d = sys.argv[1]
h = open(d + "/probe.h").read()
last = list(re.finditer(r"^SP_PROBE_DECL\(\w+\);\n", h, re.M))[-1]
open(d + "/probe.h", "w").write(h[:last.end()] + "SP_PROBE_DECL(probe_example);\n" + h[last.end():])
t = open(d + "/probes.c").read()
at = t.index('    { "runtime", probe_runtime')     # runtime stays the last row
row = '    { "example", probe_example, LIST("os-release"), LIST("/etc/example.conf") },\n'
open(d + "/probes.c", "w").write(t[:at] + row + t[at:])
PY

# a make of its own, not a part of the make running the tests (no jobserver)
unset MAKEFLAGS MFLAGS MAKELEVEL
if make -C "$C" -j2 --no-print-directory SANITIZE="${SANITIZE:-0}" BUILD="$B" all \
        >"$TMPDIR/make.log" 2>&1; then
    ok "the tree with probe_example.c and its row builds"
else
    not_ok "the tree with probe_example.c and its row builds" "$(tail -n 8 "$TMPDIR/make.log")"
    exit 0
fi
check "no compiler warning in the build" sh -c "! grep -E '\.[ch]:[0-9]+:[0-9]+: warning:' '$TMPDIR/make.log'"
NEW=$C/$B/stackprint

R=$TMPDIR/root
mkdir -p "$R/etc"
printf 'hello from a new probe\n' >"$R/etc/example.conf"
"$NEW" probe --root "$R" --format json -o "$TMPDIR/dir.json" 2>"$TMPDIR/dir.err"
check "--root: the example's fact" test "$(fact "$TMPDIR/dir.json" example.greeting)" = "hello from a new probe"
"$STACKPRINT" probe --root "$R" --format json -o "$TMPDIR/old.json" 2>/dev/null
check "--root: the binary without the row has no such fact" test -z "$(fact "$TMPDIR/old.json" example.greeting)"

/usr/bin/python3 - "$TMPDIR/img" <<'PY' || { not_ok "craft the image"; exit 0; }
import sys
sys.path.insert(0, "tests/sh")
import image_craft as c
c.layout(sys.argv[1], [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=ex\n"),
                                 ("f", "etc/example.conf", b"hello from an image\n")])])
PY
"$NEW" probe --image "$TMPDIR/img" --format json -o "$TMPDIR/img.json" 2>"$TMPDIR/img.err"
check "--image: the row's path was kept, the example's fact recorded" \
    test "$(fact "$TMPDIR/img.json" example.greeting)" = "hello from an image"
check "--image: the image's own facts still come from its probe" \
    test -n "$(fact "$TMPDIR/img.json" image.config_digest)"
