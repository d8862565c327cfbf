#!/bin/sh
# `make install` honours PREFIX and DESTDIR: the binary and every man page
# land under DESTDIR/PREFIX, the installed binary runs, and man(1) can render
# each installed page without warnings (groff's own check of the macros).
. "$TOP/tests/lib.sh"

d="$TMPDIR/dest"
# the same SANITIZE as the build under test, so make never relinks it
# with other flags; a copy of it, since the PREFIX (DATADIR, compiled in)
# differs
cp -a "$BUILD" "$TMPDIR/build"
if make -s --no-print-directory install SANITIZE="${SANITIZE:-0}" BUILD="$TMPDIR/build" DESTDIR="$d" PREFIX=/opt/sp >"$TMPDIR/log" 2>&1; then
    ok "make install DESTDIR PREFIX"
else
    not_ok "make install DESTDIR PREFIX" "$(tail -n 5 "$TMPDIR/log")"
fi
check "binary installed under DESTDIR/PREFIX/bin" test -x "$d/opt/sp/bin/stackprint"
v=$("$d/opt/sp/bin/stackprint" --version 2>&1)
check "installed binary runs" test "$v" = "$("$STACKPRINT" --version)"
for p in policies/neuron/*.yaml; do
    cmp -s "$p" "$d/opt/sp/share/stackprint/policies/neuron/${p##*/}" && ok "installed $p" || not_ok "installed $p"
done
m="$TMPDIR/m.yaml"
"$STACKPRINT" probe --root tests/fixtures/roots/trn2-native -o "$m" 2>/dev/null
check "the installed policies check a manifest like the tree's" \
    sh -c "'$d/opt/sp/bin/stackprint' check --policy '$d/opt/sp/share/stackprint/policies' '$m' >'$TMPDIR/a' 2>&1; echo \$? >>'$TMPDIR/a';
           '$STACKPRINT' check --policy policies '$m' >'$TMPDIR/b' 2>&1; echo \$? >>'$TMPDIR/b'; cmp -s '$TMPDIR/a' '$TMPDIR/b'"
for m in man/*.1 man/*.5; do
    s=${m##*.}
    page="$d/opt/sp/share/man/man$s/${m#man/}"
    if [ -f "$page" ]; then ok "installed $m"; else not_ok "installed $m"; continue; fi
    warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -z "$warn" ]; then ok "$m renders without warnings"; else not_ok "$m renders without warnings" "$warn"; fi
done
