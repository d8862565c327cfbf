#!/bin/sh
# tests/sh/check_roots.sh: probe then check, end to end, on the fixture roots
# (tests/fixtures/roots, see its README.md) against the test policies
# (tests/fixtures/policies).  Expected verdicts follow from the README's table:
#   inf2          XLA on inf2 with torch 2.9.0, torch-neuronx 2.9.0.2.15.32035,
#                 runtime-lib 2.33.10.0, driver 2.29.0.0: the XLA policy holds
#   trn1-xla      torch 2.8.0 and torch-neuronx 2.8.0.2.10.16998: not ==2.9.*
#   trn2-native   the native backend on trn2: allowed
#   gpu-baseline  torch 2.1.2+cu121 is not >=2.3.0a0,<2.4; driver 535.183.01 is >=535
#   inf1-legacy   driver 2.24.7.0 and dkms 2.24.7.0-5856c0b42: >=2.19 holds
#   container-bare no Neuron, no GPU: nothing applies
. "$TOP/tests/lib.sh"
R=tests/fixtures/roots
P=tests/fixtures/policies

# expect ROOT EXIT [REGEX...]: probe ROOT, check it; the exit status and a
# report line matching each REGEX
expect() {
    root=$1 want=$2
    shift 2
    if ! $STACKPRINT probe --root "$R/$root" -o "$TMPDIR/$root.yaml" 2>"$TMPDIR/probe.err"; then
        not_ok "probe then check: $root" "probe failed: $(cat "$TMPDIR/probe.err")"
        return
    fi
    $STACKPRINT check -p $P "$TMPDIR/$root.yaml" > "$TMPDIR/$root.txt" 2>&1
    got=$?
    why=""
    [ "$got" = "$want" ] || why="exit $got, expected $want"
    for rx in "$@"; do
        grep -Eq -- "$rx" "$TMPDIR/$root.txt" || why="$why; no line matches /$rx/"
    done
    if [ -z "$why" ]; then ok "probe then check: $root"
    else not_ok "probe then check: $root" "$why" "$(cat "$TMPDIR/$root.txt")"; fi
}

expect inf2 0 \
    '^example-neuron-pytorch-xla +require +pip.torch-neuronx +2.9.0.2.15.32035 +==2.9.0.2.15.\* +ok$' \
    '^example-neuron-pytorch-xla +require +deb.aws-neuronx-runtime-lib +2.33.10.0-[0-9a-f]+ +>=2.28 +ok$' \
    ' 0 violated, 0 missing, 0 invalid, '
expect trn1-xla 1 \
    '^example-neuron-pytorch-xla +require +pip.torch +2.8.0 +==2.9.\* +violated$' \
    '^example-neuron-pytorch-xla +require +pip.torch-neuronx +2.8.0.2.10.16998 +==2.9.0.2.15.\* +violated$'
expect trn2-native 0 \
    '^example-native-backend +require +host.instance_family +trn2 +one of trn2, trn3 +ok$'
expect gpu-baseline 1 \
    '^example-torch-2.3 +require +pip.torch +2.1.2\+cu121 +>=2.3.0a0,<2.4 +violated$' \
    '^example-torch-2.3 +require +gpu.nvidia.driver +535.183.01 +>=535 +ok$'
expect inf1-legacy 0 \
    '^example-neuron-driver +dkms-deb +deb.aws-neuronx-dkms +2.24.7.0-5856c0b42 +>=2.19 +ok$'
expect container-bare 0 ' 0 ok, 0 violated, 0 missing, 0 invalid, 17 not applicable;'

# The shipped policies (policies/: the Neuron policies and the release
# catalog) on every fixture root: the verdict is the one the last column of
# tests/fixtures/roots/README.md states (pass: exit 0, fail: exit 1).
for dir in "$R"/*/; do
    root=$(basename "$dir")
    verdict=$(awk -F'|' -v r="$root" '$2 ~ "^ " r " $" { v = $(NF - 1); sub(/^ /, "", v); sub(/:.*/, "", v); print v }' "$R/README.md")
    case $verdict in
    pass) want=0 ;;
    fail) want=1 ;;
    *) not_ok "shipped policies: $root" "no verdict in $R/README.md"; continue ;;
    esac
    if ! $STACKPRINT probe --root "$dir" -o "$TMPDIR/$root.yaml" 2>"$TMPDIR/probe.err"; then
        not_ok "shipped policies: $root" "probe failed: $(cat "$TMPDIR/probe.err")"
        continue
    fi
    $STACKPRINT check --policy policies/ "$TMPDIR/$root.yaml" > "$TMPDIR/$root.ship.txt" 2>&1
    got=$?
    if [ "$got" = "$want" ]; then ok "shipped policies: $root ($verdict)"
    else not_ok "shipped policies: $root" "exit $got, README says $verdict" "$(cat "$TMPDIR/$root.ship.txt")"; fi
done
# and the rows the README names for the failing root
$STACKPRINT check --policy policies/ "$TMPDIR/inf1-legacy.yaml" > "$TMPDIR/inf1.txt" 2>&1
if grep -Eq '^neuron-legacy-packages +no-legacy-deb +deb.aws-neuron-dkms +2.3.26.0 +not present +violated$' "$TMPDIR/inf1.txt" &&
   grep -Eq '^neuron-one-release +one-release +neuron.sdk.odd +deb.aws-neuron-tools +not present +violated$' "$TMPDIR/inf1.txt"; then
    ok "shipped policies: inf1-legacy names the legacy packages and the odd component"
else
    not_ok "shipped policies: inf1-legacy names the legacy packages and the odd component" "$(cat "$TMPDIR/inf1.txt")"
fi
