#!/bin/sh
# completion/stackprint.bash, sourced in bash as bash-completion would: the
# completions offered for commands, options, option values and fact keys,
# all read from the binary (its --help, COMMAND --help and help keys).  A
# wrapper that adds a command to the binary's help shows that a new command
# and its options are completed without editing the script.
. "$TOP/tests/lib.sh"

if ! command -v bash >/dev/null 2>&1; then skip "completion" "no bash"; exit 0; fi
mkdir -p "$TMPDIR/bin" "$TMPDIR/w/pol" && : >"$TMPDIR/w/m.yaml"
ln -s "$STACKPRINT" "$TMPDIR/bin/stackprint"
# a binary with one more command, "later", whose --ignore takes a GLOB
cat >"$TMPDIR/bin/stackprint-later" <<EOS
#!/bin/sh
if [ "\$1" = --help ]; then "$STACKPRINT" --help | sed 's/^  probe /  later    a command added later\n&/'; exit 0; fi
if [ "\$1" = later ]; then printf '  -i, --ignore GLOB   leave these keys out\n  -h, --help   help\n'; exit 0; fi
exec "$STACKPRINT" "\$@"
EOS
chmod +x "$TMPDIR/bin/stackprint-later"

# c WORDS...: the completions for the last word, one line, sorted
cat >"$TMPDIR/c.bash" <<'EOS'
. "$TOP/completion/stackprint.bash"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _stackprint;
      printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'; echo; }
EOS
got() { (cd "$TMPDIR/w" && PATH="$TMPDIR/bin:$PATH" TOP="$TOP" bash -c ". '$TMPDIR/c.bash'; c $*" 2>&1); }
is() {
    g=$(got "$2")
    if [ "$g" = "$3" ]; then ok "$1"; else not_ok "$1" "words: $2" "expected: $3" "got:      $g"; fi
}

check "complete -F _stackprint stackprint is registered" \
    sh -c "bash -c '. \"$TOP/completion/stackprint.bash\"; complete -p stackprint' | grep -q '_stackprint'"
# the commands are those of the binary's table (its --help), whichever
# others have been added; at least these five
cmds=$("$STACKPRINT" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p' | sort | tr '\n' ' ')
check "the table holds probe, check, keygen, sign and verify" \
    sh -c "echo ' $cmds' | grep ' check ' | grep ' keygen ' | grep ' probe ' | grep ' sign ' | grep -q ' verify '"
is "commands" "stackprint ''" "$(printf '%s\n' --help --version help $cmds | sort | tr '\n' ' ' | sed 's/ $//')"
is "a command's prefix" "stackprint pr" "probe"
is "help takes a command or keys" "stackprint help ''" "$(printf '%s\n' keys $cmds | sort | tr '\n' ' ' | sed 's/ $//')"
is "options of check, from check --help" "stackprint check --s" "--strict"
is "options of verify, from verify --help" "stackprint verify --" "--envelope --help --manifest --pub"
is "short options of sign" "stackprint sign -" "--help --key --output --predicate -h -k -o"
is "sign --predicate values, from its usage" "stackprint sign --predicate ''" "cyclonedx manifest"
is "check --format values, from its usage" "stackprint check --format j" "json junit"
is "probe -f values (short option)" "stackprint probe -f j" "json"
is "keygen --type values" "stackprint keygen --type ''" "ecdsa-p256 ed25519"
is "--policy completes files and folders" "stackprint check --policy ''" "m.yaml pol"
is "the manifest completes files" "stackprint check --strict m" "m.yaml"
# --key and --pub name key files (their metavar KEY is not a fact key)
is "sign --key completes files" "stackprint sign --key m" "m.yaml"
is "diff --pub completes files" "stackprint diff --pub m" "m.yaml"
is "a command added to the binary is completed" "stackprint-later l" "later"
is "its options too" "stackprint-later later --" "--help --ignore"
is "fact keys for a GLOB value, from help keys" "stackprint-later later --ignore pyth" \
    "python.env. python.path python.prefix python.version"
is "a key pattern is offered up to its part" "stackprint-later later --ignore neuron.sdk.release_" "neuron.sdk.release_of."

# every option a command's help lists is one the command accepts: each is
# given (with a value when the help shows one) before --help, which stops
# the command before it does anything
cd "$TMPDIR/w" || exit 1
for cmd in $("$STACKPRINT" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
    "$STACKPRINT" "$cmd" --help | sed -n 's/^ *\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z0-9-]*\)\( [^ ]\{1,\}\)\{0,1\}  .*/\2\3/p' >"$TMPDIR/opts"
    while read -r o v; do
        "$STACKPRINT" "$cmd" "$o" ${v:+"$TMPDIR/nowhere/x"} --help </dev/null >"$TMPDIR/out" 2>&1
        # a value can be refused ("unknown format 'x'"), the option itself not
        if grep -q "^usage: stackprint $cmd" "$TMPDIR/out" || ! grep -q "unknown option" "$TMPDIR/out"; then
            ok "$cmd --help lists $o${v:+ $v}, which $cmd accepts"
        else
            not_ok "$cmd --help lists $o${v:+ $v}, which $cmd accepts" "$(head -n 3 "$TMPDIR/out")"
        fi
    done <"$TMPDIR/opts"
done
cd "$TOP" || exit 1
