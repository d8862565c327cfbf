# bash completion for stackprint(1): commands, options, option values and
# fact keys.  Installed by `make install` as
# PREFIX/share/bash-completion/completions/stackprint.
#
# Nothing is listed here: the commands come from `stackprint --help`, a
# command's options (one a line) from `stackprint COMMAND --help`, the
# values of an option written OPT a|b|c in its usage from that usage, and
# fact keys (for an option whose value is GLOB or KEY) from
# `stackprint help keys`, so a new command or key is completed as soon as
# the binary has it.

# _stackprint_opts PROG CMD: "SHORT LONG METAVAR" for each option line
# ("  -o, --output FILE  what", "      --imds  what"); "-" for none.
_stackprint_opts()
{
    local line
    while IFS= read -r line; do
        if [[ $line =~ ^\ +(-([A-Za-z0-9]),\ )?(--[A-Za-z0-9-]+)(\ ([^ ]+))? ]]; then
            printf '%s %s %s\n' "${BASH_REMATCH[2]:+-${BASH_REMATCH[2]}}" \
                "${BASH_REMATCH[3]}" "${BASH_REMATCH[5]:--}" | sed 's/^ /- /'
        fi
    done < <("$1" "$2" --help 2>/dev/null)
}

_stackprint_keys()
{
    # "pip.*" is offered as "pip.", "python.env.*.pip.*" as "python.env."
    "$1" help keys 2>/dev/null | while read -r key _; do
        printf '%s\n' "${key%%\**}"
    done | sort -u
}

_stackprint()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local prog=${COMP_WORDS[0]} cmd= i
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} != -* ]]; then
            cmd=${COMP_WORDS[i]}
            break
        fi
    done
    local cmds
    cmds=$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
        return
    fi
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == i + 1)) && COMPREPLY=($(compgen -W "$cmds keys" -- "$cur"))
        return
    fi

    local short long arg opts= value= vlong=
    while read -r short long arg; do
        opts+=" $long"
        [[ $short != - ]] && opts+=" $short"
        if [[ $prev == "$long" || ($short != - && $prev == "$short") ]]; then
            value=$arg
            vlong=$long
        fi
    done < <(_stackprint_opts "$prog" "$cmd")

    if [[ -n $value && $value != - ]]; then
        local words
        words=$("$prog" "$cmd" --help 2>/dev/null |
                grep -o -- "$vlong [a-z0-9][a-z0-9.-]*\(|[a-z0-9][a-z0-9.-]*\)\+" | head -n 1)
        if [[ $value == *[a-z]*\|* ]]; then
            COMPREPLY=($(compgen -W "${value//|/ }" -- "$cur"))
        elif [[ -n $words ]]; then
            words=${words#* }
            COMPREPLY=($(compgen -W "${words//|/ }" -- "$cur"))
        elif [[ $vlong != --key && $vlong != --pub ]] &&   # KEY there is a key file
             [[ $value == GLOB || $value == KEY || $value == KEY=* ]]; then
            COMPREPLY=($(compgen -W "$(_stackprint_keys "$prog")" -- "$cur"))
            [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *. ]] && compopt -o nospace 2>/dev/null
        elif [[ $value == DIR ]]; then
            COMPREPLY=($(compgen -d -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}

complete -F _stackprint stackprint
