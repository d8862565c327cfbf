#!/bin/sh
# tests/sh/catalog_builtin.sh: the release catalog compiled into the binary
# (checks/catalog.h) gives the same verdicts and reports as the file parsed.
# The parsed side is a copy of policies/ whose catalog.yaml has one more
# trailing newline (the same YAML, other bytes: never the compiled-in copy);
# every fixture manifest and probed fixture root is checked both ways, in
# every report format, and the two must agree byte for byte (file names
# aside) with the same exit status.  A catalog edited after the build is
# parsed: a release removed from the copy changes the verdict.
. "$TOP/tests/lib.sh"

mkdir -p "$TMPDIR/parsed" "$TMPDIR/m"
cp -R policies/neuron "$TMPDIR/parsed/"
echo >>"$TMPDIR/parsed/neuron/catalog.yaml"
for r in tests/fixtures/roots/*/; do
    [ -d "$r" ] || continue
    n=$(basename "$r")
    $STACKPRINT probe --root "$r" -o "$TMPDIR/m/root-$n.json" 2>/dev/null
done
for m in tests/fixtures/manifests/* "$TMPDIR"/m/*.json; do
    for f in text json junit sarif; do
        $STACKPRINT check --policy policies/ -f $f "$m" >"$TMPDIR/a" 2>&1
        ra=$?
        $STACKPRINT check --policy "$TMPDIR/parsed/" -f $f "$m" 2>&1 |
            sed "s|$TMPDIR/parsed/|policies/|g" >"$TMPDIR/b"
        $STACKPRINT check --policy "$TMPDIR/parsed/" -f $f "$m" >/dev/null 2>&1
        rb=$?
        if [ $ra = $rb ] && cmp -s "$TMPDIR/a" "$TMPDIR/b"; then
            ok "compiled-in catalog = parsed: $(basename "$m") $f"
        else
            not_ok "compiled-in catalog = parsed: $(basename "$m") $f" "exit $ra vs $rb" \
                "$(diff "$TMPDIR/a" "$TMPDIR/b" | head -n 10)"
        fi
    done
done

# an edited catalog is read, not the compiled-in one: without the 2.16.1
# release, the 2.16 fixture no longer lists it among its candidates
m=tests/fixtures/manifests/neuron-2.16.yaml
/usr/bin/python3 - "$TMPDIR/parsed/neuron/catalog.yaml" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t2 = re.sub(r'  - release: "2\.16\.1"\n(    .*\n|      .*\n)*', '', t)
assert t2 != t
open(p, "w").write(t2)
PY
$STACKPRINT check --policy policies/ -f json "$m" >"$TMPDIR/a"
$STACKPRINT check --policy "$TMPDIR/parsed/" -f json "$m" >"$TMPDIR/b"
if grep -q '"2.16.1"' "$TMPDIR/a" && ! grep -q '"2.16.1"' "$TMPDIR/b"; then
    ok "an edited catalog is parsed, not replaced by the compiled-in one"
else
    not_ok "an edited catalog is parsed, not replaced by the compiled-in one" \
        "$(grep -c '"2.16.1"' "$TMPDIR/a" "$TMPDIR/b")"
fi
