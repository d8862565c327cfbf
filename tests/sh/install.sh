#!/bin/sh
# `make install` honours PREFIX and DESTDIR: the binary and every man page
# land under DESTDIR/PREFIX, the installed binary runs, and man(1) can render
# each installed page without warnings (groff's own check of the macros).
. "$TOP/tests/lib.sh"

d="$TMPDIR/dest"
# the same SANITIZE as the build under test, so make never relinks it
# with other flags
if make -s --no-print-directory install SANITIZE="${SANITIZE:-0}" BUILD="$BUILD" DESTDIR="$d" PREFIX=/opt/sp >"$TMPDIR/log" 2>&1; then
    ok "make install DESTDIR PREFIX"
else
    not_ok "make install DESTDIR PREFIX" "$(tail -n 5 "$TMPDIR/log")"
fi
check "binary installed under DESTDIR/PREFIX/bin" test -x "$d/opt/sp/bin/stackprint"
v=$("$d/opt/sp/bin/stackprint" --version 2>&1)
check "installed binary runs" test "$v" = "$("$STACKPRINT" --version)"
for m in man/*.1 man/*.5; do
    s=${m##*.}
    page="$d/opt/sp/share/man/man$s/${m#man/}"
    if [ -f "$page" ]; then ok "installed $m"; else not_ok "installed $m"; continue; fi
    warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -z "$warn" ]; then ok "$m renders without warnings"; else not_ok "$m renders without warnings" "$warn"; fi
done
