#!/bin/sh
# Each command's --help lists its options one a line, and they are the
# options its page documents: every long option of `stackprint CMD --help`
# appears in stackprint-CMD(1), and every option the page's OPTIONS section
# names appears in --help.  `stackprint help CMD` prints the same text.
# The synopsis ("usage:" lines) of --help names exactly the options its
# rows list (both come from the command's option table), and the page's
# SYNOPSIS names the same options as --help's synopsis.
. "$TOP/tests/lib.sh"

# long_names HELP: the options in stdin's words ("-o", "--root", "-j|--junit",
# "[--fact"), each as its long name (a short one mapped through HELP's
# rows "  -o, --output ..."), one a line, sorted, --help left out
long_names() {
    sed -n 's/^ *-\([A-Za-z0-9]\), \(--[a-z0-9-]*\).*/-\1 \2/p' "$1" >"$TMPDIR/shorts"
    tr '[]|' '   ' | tr -s ' \t' '\n\n' | grep -- '^-[A-Za-z-]' | sed 's/[^A-Za-z0-9-].*//' |
        awk 'NR == FNR { long[$1] = $2; next } { print ($1 in long) ? long[$1] : $1 }' \
            "$TMPDIR/shorts" - | grep -v -- '^--help$' | sort -u
}

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
    # the synopsis: the "usage:" line and those that go on from it
    awk 'NR == 1 || (on && /^ /) { on = 1; print; next } { exit }' "$TMPDIR/help" |
        sed 's/^usage: stackprint [a-z]*//; s/^ *stackprint [a-z]*//' | long_names "$TMPDIR/help" >"$TMPDIR/syn"
    grep -v -- '^--help$' "$TMPDIR/h" >"$TMPDIR/rows"
    same_lines "$cmd --help: its synopsis names the options its rows list" "$TMPDIR/rows" "$TMPDIR/syn"
    awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH/ { on = 0 } on' "$page" |
        sed 's/\\-/-/g; s/^\.[A-Z]*//; s/"//g' | long_names "$TMPDIR/help" >"$TMPDIR/mansyn"
    same_lines "$page SYNOPSIS names the options of $cmd --help's synopsis" "$TMPDIR/syn" "$TMPDIR/mansyn"
done
