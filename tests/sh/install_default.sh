#!/bin/sh
# After `make install PREFIX=P` (no DESTDIR: the binary's own prefix),
# `stackprint check` without --policy uses P/share/stackprint/policies (and
# `stackprint diff` without --catalog its release catalog),
# compiled in from the Makefile's DATADIR, and says so on stderr; its report
# is the one --policy policies/ of the tree gives.  The bash completion is
# installed where bash-completion looks for it.  The build under test is
# copied first, so this install relinks only the copy, never $BUILD.
. "$TOP/tests/lib.sh"

b="$TMPDIR/build" p="$TMPDIR/usr"
cp -a "$BUILD" "$b"
before=$(ls -l --time-style=+%s.%N "$BUILD/stackprint")
if make -s --no-print-directory install SANITIZE="${SANITIZE:-0}" BUILD="$b" PREFIX="$p" >"$TMPDIR/log" 2>&1; then
    ok "make install PREFIX"
else
    not_ok "make install PREFIX" "$(tail -n 5 "$TMPDIR/log")"
fi
check "the build under test was not relinked" test "$before" = "$(ls -l --time-style=+%s.%N "$BUILD/stackprint")"

m="$TMPDIR/m.yaml"
"$STACKPRINT" probe --root tests/fixtures/roots/trn2-native -o "$m" 2>/dev/null
"$p/bin/stackprint" check "$m" >"$TMPDIR/a" 2>"$TMPDIR/a.err"; echo "exit $?" >>"$TMPDIR/a"
"$STACKPRINT" check --policy policies "$m" >"$TMPDIR/b" 2>"$TMPDIR/b.err"; echo "exit $?" >>"$TMPDIR/b"
same_lines "check without --policy reports as --policy policies/ does" "$TMPDIR/b" "$TMPDIR/a"
printf 'stackprint: check: no --policy given; using the installed policies in %s\n' \
    "$p/share/stackprint/policies" >"$TMPDIR/want.err"
same_lines "and says which policies it used, on stderr" "$TMPDIR/want.err" "$TMPDIR/a.err"
check "check --help names the default" sh -c "'$p/bin/stackprint' check --help | grep -qF 'default: the installed policies, $p/share/stackprint/policies'"

# an explicit --policy is used alone, without the line
"$p/bin/stackprint" check --policy tests/fixtures/policies/torch-2.3.yaml "$m" >/dev/null 2>"$TMPDIR/c.err"
check "with --policy, nothing is said about installed policies" test ! -s "$TMPDIR/c.err"

# diff without --catalog reads the installed catalog (DATADIR, compiled in
# like check's: a changed PREFIX rebuilds both)
"$p/bin/stackprint" diff "$m" "$m" >"$TMPDIR/da" 2>&1
"$STACKPRINT" diff --catalog policies "$m" "$m" >"$TMPDIR/db" 2>&1
same_lines "diff without --catalog reads the installed catalog" "$TMPDIR/db" "$TMPDIR/da"

# with the installed folder gone, --policy is required again
rm -rf "$p/share/stackprint"
"$p/bin/stackprint" check "$m" >/dev/null 2>"$TMPDIR/d.err"; rc=$?
check "without installed policies, --policy is required (exit 2)" test "$rc" = 2
check "and the message names the folder looked for" grep -qF "(no installed policies in $p/share/stackprint/policies)" "$TMPDIR/d.err"

check "bash completion installed" cmp -s completion/stackprint.bash "$p/share/bash-completion/completions/stackprint"
if command -v bash >/dev/null 2>&1; then
    g=$(PATH="$p/bin:$PATH" bash -c ". '$p/share/bash-completion/completions/stackprint'
        COMP_WORDS=(stackprint ch); COMP_CWORD=1; _stackprint; echo \"\${COMPREPLY[*]}\"")
    check "the installed completion completes the installed binary's commands" test "$g" = check
fi
if make -s --no-print-directory uninstall BUILD="$b" PREFIX="$p" >"$TMPDIR/log" 2>&1 &&
   test ! -e "$p/share/bash-completion/completions/stackprint"; then
    ok "make uninstall removes the completion"
else
    not_ok "make uninstall removes the completion" "$(tail -n 5 "$TMPDIR/log")"
fi
