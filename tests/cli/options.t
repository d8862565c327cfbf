# tests/cli/options.t: the one option loop every command runs
# (cli/options.c, getopt_long underneath), seen from the command line:
# GNU rules for long and short options, the same one-line usage errors
# (exit 2) in every command, and --help made from the option table.
# M = tests/fixtures/manifests.

### a long option may be shortened to a unique prefix, and take its value after '='
$ stackprint export --form=spdx --out $T/bom.json tests/fixtures/manifests/trn2-xla.yaml && grep -c '"spdxVersion"' $T/bom.json
> 1

### a prefix that fits two options is ambiguous: named as typed, with what it could be
$ stackprint probe --imd x
? 2
2> stackprint probe: option '--imd' is ambiguous (--imds, --imds-endpoint) (see 'stackprint probe --help')

### a short option in a bundle is named by itself, not by the bundle or the argument before
$ stackprint check -p policies -Zs m.yaml
? 2
2> stackprint check: unknown option '-Z' (see 'stackprint check --help')

### an empty value is refused by the option's name, before any file is opened
$ stackprint sign -o '' --key k m.yaml
? 2
2> stackprint sign: --output ENVELOPE is empty (see 'stackprint sign --help')

### short options bundle, and a short option's value may follow it at once
$ stackprint check -sfjson --policy tests/fixtures/policies/torch-2.3.yaml tests/fixtures/manifests/trn2-xla.yaml | head -c 1
> {

### options and operands may mix, in any order
$ stackprint diff tests/fixtures/manifests/trn2-xla.yaml --format json tests/fixtures/manifests/trn2-xla.yaml | head -c 1
> {

### an option without a value at the end of the line: exit 2, the option named as typed
$ stackprint diff a b --outp
? 2
2> stackprint diff: option '--outp' needs a value (see 'stackprint diff --help')

### --help with a value: the option exists but takes none
$ stackprint sign --help=yes
? 2
2> stackprint sign: option '--help' takes no value (see 'stackprint sign --help')

### a flag given a value: the option exists but takes none
$ stackprint fleet --strict=1 x
? 2
2> stackprint fleet: option '--strict' takes no value (see 'stackprint fleet --help')

### an unknown option before -h is the error
$ stackprint attest --bogus-later-is-not-read -h
? 2
2> stackprint attest: unknown option '--bogus-later-is-not-read' (see 'stackprint attest --help')

### -h before anything wrong shows the help and does nothing else, exit 0
$ stackprint attest -h --bogus
>~ ^usage: stackprint attest
>~ ^  -h, --help +show this help$

### a required option is named with its argument, before the operands are counted
$ stackprint attach
? 2
2> stackprint attach: --junit RESULTS.xml is required (see 'stackprint attach --help')

### attest names its required options in table order
$ stackprint attest -j r.xml
? 2
2> stackprint attest: --key KEY is required (see 'stackprint attest --help')

### one operand: none and two are each their own error
$ stackprint export; echo $?; stackprint export a b; echo $?
> 2
> 2
2> stackprint export: MANIFEST is required (see 'stackprint export --help')
2> stackprint export: one MANIFEST only (see 'stackprint export --help')

### no operands: the first one is named
$ stackprint keygen -o $T/k extra
? 2
2> stackprint keygen: unexpected argument 'extra' (see 'stackprint keygen --help')

### an option that may be given once: the second is an error
$ stackprint probe --root / --cache /a --cache /b
? 2
2> stackprint probe: --cache given twice (see 'stackprint probe --help')

### a repeatable option's limit is its own table's
$ i=0; set --; while [ $i -lt 257 ]; do set -- "$@" --fact k; i=$((i+1)); done; stackprint attach -j r.xml "$@" m.yaml
? 2
2> stackprint attach: more than 256 --fact options (see 'stackprint attach --help')

### a repeatable option's values are checked one by one as they come
$ stackprint attach -j r.xml --fact ok --fact '' m.yaml
? 2
2> stackprint attach: --fact needs a fact key of 1 to 256 bytes (see 'stackprint attach --help')

### --help: a row per option and -h last, the help text at the command's column; a longer option gets two blanks
$ stackprint probe --help | grep -E '^  -r, |^      --image-digest|^      --deep-timeout|^  -h'
>   -r, --root DIR             probe a copied tree; nothing outside DIR is read
>       --image-digest sha256:HEX  the digest of the image this container runs
>       --deep-timeout SECONDS  how long it may take, 1 to 3600 (default 30)
>   -h, --help                 show this help

### --help: a row's text over two lines goes on at the column
$ stackprint check --help | grep -A1 -E '^  -p, '
>~ ^  -p, --policy FILE\|DIR  a policy file, or a folder of \*.yaml and \*.yml; repeatable;$
>~ ^ {25}default: the installed policies, /.*/policies$
