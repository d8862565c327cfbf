#!/bin/sh
# Each command's --help lists its options one a line, and they are the
# options its page documents: every long option of `stackprint CMD --help`
# appears in stackprint-CMD(1), and every option the page's OPTIONS section
# names appears in --help.  `stackprint help CMD` prints the same text.
. "$TOP/tests/lib.sh"

for cmd in $("$STACKPRINT" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
    page=man/stackprint-$cmd.1
    "$STACKPRINT" "$cmd" --help >"$TMPDIR/help"
    "$STACKPRINT" help "$cmd" >"$TMPDIR/help2"
    same_lines "help $cmd prints what $cmd --help prints" "$TMPDIR/help" "$TMPDIR/help2"
    sed -n 's/^ *\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' "$TMPDIR/help" | sort -u >"$TMPDIR/h"
    check "$cmd --help lists options one a line" test -s "$TMPDIR/h"
    if [ ! -f "$page" ]; then not_ok "$cmd has a page" "$page"; continue; fi
    # long options the page names anywhere, and those its OPTIONS section lists
    sed 's/\\-/-/g' "$page" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMPDIR/all"
    awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH/ { on = 0 } on && prev == ".TP" { print } { prev = $0 }' "$page" |
        sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMPDIR/opt"
    missing=$(comm -23 "$TMPDIR/h" "$TMPDIR/all")
    extra=$(comm -13 "$TMPDIR/h" "$TMPDIR/opt")
    if [ -z "$missing" ]; then ok "every option of $cmd --help is in $page"
    else not_ok "every option of $cmd --help is in $page" $missing; fi
    if [ -z "$extra" ]; then ok "every option in $page OPTIONS is in $cmd --help"
    else not_ok "every option in $page OPTIONS is in $cmd --help" $extra; fi
done
