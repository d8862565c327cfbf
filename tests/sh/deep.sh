#!/bin/sh
# tests/sh/deep.sh: stackprint probe --deep, which runs the workload's
# interpreter once and records what it really imports (runtime.*).
#
# The oracle for real torch is the interpreter itself: Debian's
# python3-torch under /usr/bin/python3 is asked the same questions
# directly, and the runtime.* facts must equal its answers.  The backend
# paths are played by small stand-in packages in venvs made here (a fake
# torch whose PrivateUse1 backend name a stand-in torch_neuronx renames to
# "neuron", as the native backend registers itself; a stand-in that imports
# torch_xla, as the XLA path does); each venv's files also carry the
# static markers of doc/DOMAIN.md section 4, so static and runtime facts
# can be compared.  Bad interpreters: an import that fails, one that sleeps
# forever (killed at --deep-timeout), a start-up file that prints 100 MiB,
# and a PYTHONPATH that shadows the venv's torch.
. "$TOP/tests/lib.sh"

PY=/usr/bin/python3

# venv DIR: a venv without pip; its site-packages in $SITE
venv() {
    rm -rf "$1"
    "$PY" -m venv --without-pip "$1" || return 1
    SITE=$(echo "$1"/lib/python3*/site-packages)
}

# dist SITE NAME VERSION [REQUIRES...]: a dist-info with METADATA
dist() {
    site=$1 name=$2 version=$3
    shift 3
    d="$site/$(echo "$name" | tr - _)-$version.dist-info"
    mkdir -p "$d"
    { printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version"
      for r in "$@"; do printf 'Requires-Dist: %s\n' "$r"; done; } >"$d/METADATA"
    DIST=$d
}

# fake_torch SITE VERSION: a torch package the static and runtime probes
# can both read (version.py; _C with the PrivateUse1 name and ABI flag)
fake_torch() {
    dist "$1" torch "$2"
    mkdir -p "$1/torch"
    printf "__version__ = '%s'\ncuda = None\ngit_version = 'abc123'\n" "$2" >"$1/torch/version.py"
    cat >"$1/torch/__init__.py" <<EOF
import types
__version__ = '$2'
class version:
    cuda = None
_pu1 = 'privateuseone'
_C = types.SimpleNamespace(_GLIBCXX_USE_CXX11_ABI=True,
                           _get_privateuse1_backend_name=lambda: _pu1)
EOF
}

# fake_neuronx SITE KIND: torch_neuronx 2.10.0.1 of KIND native | xla |
# broken | sleep
fake_neuronx() {
    site=$1
    mkdir -p "$site/torch_neuronx"
    case $2 in
    native|broken|sleep)
        dist "$site" torch-neuronx 2.10.0.1 "torch~=2.10"
        printf '[torch.backends]\ntorch_neuronx = torch_neuronx:_autoload\n' >"$DIST/entry_points.txt"
        mkdir -p "$site/torch_neuronx/neuron_dynamo_backend"
        : >"$site/torch_neuronx/_build_config.py" ;;
    xla)
        dist "$site" torch-neuronx 2.10.0.1 torch-xla libneuronxla
        dist "$site" torch-xla 2.10.0
        mkdir -p "$site/torch_neuronx/xla_impl" "$site/torch_xla"
        printf "__version__ = '2.10.0'\n" >"$site/torch_xla/__init__.py" ;;
    esac
    case $2 in
    native) printf "import torch\ntorch._pu1 = 'neuron'\n__version__ = '2.10.0.1'\n" ;;
    xla) printf "import torch, torch_xla\n__version__ = '2.10.0.1'\n" ;;
    broken) printf "raise ImportError('libnrt.so.1: cannot open shared object file: No such file or directory')\n" ;;
    sleep) printf "import time\ntime.sleep(100000)  # stackprint-deep-test-sleeper\n" ;;
    esac >"$site/torch_neuronx/__init__.py"
}

deep() {   # deep OUT [ARGS...]: probe --deep as JSON into OUT; RC, ERR
    out=$1
    shift
    "$STACKPRINT" probe --format json --deep "$@" >"$out" 2>"$TMPDIR/err"
    RC=$?
}

# neuronx_venv KIND [ARGS...]: a venv $TMPDIR/KIND holding torch 2.10.0 and
# the torch_neuronx stand-in of KIND (fake_neuronx), probed --deep with its
# interpreter into $TMPDIR/KIND.json (ARGS: more probe options); RC, ERR
neuronx_venv() {
    kind=$1
    shift
    venv "$TMPDIR/$kind" && fake_torch "$SITE" 2.10.0 && fake_neuronx "$SITE" "$kind"
    deep "$TMPDIR/$kind.json" --python "$TMPDIR/$kind/bin/python3" "$@"
}

warned() {   # warned FILE REGEX: a warning of manifest FILE matches REGEX
    "$PY" -c 'import json,re,sys
sys.exit(0 if any(re.search(sys.argv[2], w) for w in json.load(open(sys.argv[1]))["warnings"]) else 1)' "$1" "$2"
}

# 1. Real torch (Debian's python3-torch): the interpreter answers for itself.
if "$PY" -c 'import torch' 2>/dev/null; then
    deep "$TMPDIR/real.json" --python "$PY"
    check "real torch: exit 0" [ "$RC" -eq 0 ]
    oracle=$("$PY" -c 'import torch; print(torch.__version__); print(torch.__file__); print("none" if torch.version.cuda is None else torch.version.cuda); print("true" if torch._C._GLIBCXX_USE_CXX11_ABI else "false")')
    got=$(for k in runtime.torch.version runtime.torch.file runtime.torch.cuda runtime.torch.cxx11_abi; do
              fact "$TMPDIR/real.json" "$k"; done)
    if [ "$oracle" = "$got" ]; then ok "real torch: version, file, cuda, ABI as the interpreter reports them"
    else not_ok "real torch: version, file, cuda, ABI as the interpreter reports them" "want: $oracle" "got: $got"; fi
    check "real torch: python version as platform.python_version()" \
        [ "$(fact "$TMPDIR/real.json" runtime.python.version)" = "$("$PY" -c 'import platform; print(platform.python_version())')" ]
    check "real torch: no torch_neuronx: backend none" [ "$(fact "$TMPDIR/real.json" runtime.torch.backend)" = none ]
    check "real torch: static and runtime agree" [ -z "$(fact "$TMPDIR/real.json" runtime.disagreements)" ]
else
    skip "real torch" "python3-torch is not installed (scripts/bootstrap installs it)"
fi

# 2. The native path: PrivateUse1 renamed to "neuron"; no torch_xla.
neuronx_venv native
check "native: exit 0" [ "$RC" -eq 0 ]
check "native: static torch.backend native" [ "$(fact "$TMPDIR/native.json" torch.backend)" = native ]
check "native: runtime.torch.backend native" [ "$(fact "$TMPDIR/native.json" runtime.torch.backend)" = native ]
check "native: PrivateUse1 is neuron" [ "$(fact "$TMPDIR/native.json" runtime.torch.privateuse1)" = neuron ]
check "native: torch_xla not imported" [ "$(fact "$TMPDIR/native.json" runtime.torch_neuronx.imports_torch_xla)" = no ]
check "native: torch_neuronx version" [ "$(fact "$TMPDIR/native.json" runtime.torch_neuronx.version)" = 2.10.0.1 ]
check "native: no disagreement" [ -z "$(fact "$TMPDIR/native.json" runtime.disagreements)" ]
"$STACKPRINT" check --policy policies/neuron/runtime-agreement.yaml "$TMPDIR/native.json" >/dev/null 2>&1
check "native: runtime-agreement policy passes" [ $? -eq 0 ]

# 3. The XLA path: importing torch_neuronx imports torch_xla.
neuronx_venv xla
check "xla: static xla" [ "$(fact "$TMPDIR/xla.json" torch.backend)" = xla ]
check "xla: runtime xla" [ "$(fact "$TMPDIR/xla.json" runtime.torch.backend)" = xla ]
check "xla: torch_xla imported" [ "$(fact "$TMPDIR/xla.json" runtime.torch_neuronx.imports_torch_xla)" = yes ]
check "xla: no disagreement" [ -z "$(fact "$TMPDIR/xla.json" runtime.disagreements)" ]

# 4. A plugin whose import fails: the files say native, the interpreter
# runs on no backend; the error line is the evidence; check fails.
neuronx_venv broken
check "broken: exit 0 (a probe records, it does not fail)" [ "$RC" -eq 0 ]
check "broken: runtime.torch.backend error" [ "$(fact "$TMPDIR/broken.json" runtime.torch.backend)" = error ]
ev=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["evidence"]["runtime.torch.backend"])' "$TMPDIR/broken.json")
case $ev in
*"ImportError: libnrt.so.1: cannot open shared object file"*) ok "broken: the import error is the evidence" ;;
*) not_ok "broken: the import error is the evidence" "evidence: $ev" ;;
esac
check "broken: disagreement named" [ "$(fact "$TMPDIR/broken.json" runtime.disagreements)" = runtime.torch.backend ]
check "broken: warning names both values" warned "$TMPDIR/broken.json" 'runtime.torch.backend: .*"error".*"native"'
"$STACKPRINT" check --policy policies/neuron/runtime-agreement.yaml "$TMPDIR/broken.json" >"$TMPDIR/report" 2>&1
rc=$?
check "broken: runtime-agreement fails the check (exit 1)" [ $rc -eq 1 ]
check "broken: the report names runtime.disagreements" grep -q 'runtime.disagreements' "$TMPDIR/report"

# 5. A PYTHONPATH that shadows the venv's torch: the metadata says 2.10.0,
# the interpreter imports 2.5.0 from elsewhere.
venv "$TMPDIR/shadowed"
fake_torch "$SITE" 2.10.0
mkdir -p "$TMPDIR/shadow"
fake_torch "$TMPDIR/shadow" 2.5.0
rm -rf "$TMPDIR"/shadow/*.dist-info
PYTHONPATH=$TMPDIR/shadow deep "$TMPDIR/shadowed.json" --python "$TMPDIR/shadowed/bin/python3"
check "shadowed: runtime torch is the shadowing 2.5.0" [ "$(fact "$TMPDIR/shadowed.json" runtime.torch.version)" = 2.5.0 ]
check "shadowed: static pip.torch is 2.10.0" [ "$(fact "$TMPDIR/shadowed.json" pip.torch)" = 2.10.0 ]
check "shadowed: version and file disagreements named" \
    [ "$(fact "$TMPDIR/shadowed.json" runtime.disagreements)" = runtime.torch.version,runtime.torch.file ]
check "shadowed: the warning names the shadowing folder" warned "$TMPDIR/shadowed.json" "runtime.torch.file: imported from .*/shadow;"
deep "$TMPDIR/unshadowed.json" --python "$TMPDIR/shadowed/bin/python3"
check "shadowed: without PYTHONPATH they agree" [ -z "$(fact "$TMPDIR/unshadowed.json" runtime.disagreements)" ]

# 6. An import that never returns: killed at the timeout, with its whole
# process group; the manifest is still written with the static facts.
venv "$TMPDIR/sleep"
fake_torch "$SITE" 2.10.0
fake_neuronx "$SITE" sleep
start=$(date +%s)
deep "$TMPDIR/sleep.json" --python "$TMPDIR/sleep/bin/python3" --deep-timeout 2
took=$(( $(date +%s) - start ))
check "sleeper: exit 0" [ "$RC" -eq 0 ]
check "sleeper: gave up near the timeout (${took}s)" [ "$took" -le 10 ]
check "sleeper: static facts written" [ "$(fact "$TMPDIR/sleep.json" torch.backend)" = native ]
check "sleeper: no runtime facts" [ -z "$(fact "$TMPDIR/sleep.json" runtime.torch.backend)" ]
check "sleeper: the warning says it was killed" warned "$TMPDIR/sleep.json" 'runtime: .*no answer within 2 s'
sleep 0.2
if pgrep -f "$TMPDIR/sleep/bin/python3" >/dev/null; then not_ok "sleeper: no process left behind" "$(pgrep -af "$TMPDIR/sleep/bin/python3")"
else ok "sleeper: no process left behind"; fi

# 7. A start-up file (.pth) that prints 100 MiB before the script runs: the
# output bound stops it quickly; no runtime facts, a warning.
venv "$TMPDIR/loud"
printf 'import sys; sys.stdout.write("x" * (100 << 20)); sys.stdout.flush()\n' >"$SITE/loud.pth"
deep "$TMPDIR/loud.json" --python "$TMPDIR/loud/bin/python3" --deep-timeout 20
check "loud: exit 0" [ "$RC" -eq 0 ]
check "loud: the warning names the output bound" warned "$TMPDIR/loud.json" 'runtime: .*wrote more than [0-9]+ bytes'
check "loud: no runtime facts" [ -z "$(fact "$TMPDIR/loud.json" runtime.python.version)" ]

# 8. Not an interpreter at all: a warning, no facts.
venv "$TMPDIR/notpy"
deep "$TMPDIR/notpy.json" --python /bin/true
check "not python: exit 0" [ "$RC" -eq 0 ]
check "not python: no runtime facts" [ -z "$(fact "$TMPDIR/notpy.json" runtime.python.version)" ]

# 9. Without --deep nothing is run: a stand-in that would leave a mark.
venv "$TMPDIR/marker"
fake_torch "$SITE" 2.10.0
printf 'open("%s/ran", "w").close()\n' "$TMPDIR" >>"$SITE/torch/__init__.py"
"$STACKPRINT" probe --format json --python "$TMPDIR/marker/bin/python3" >"$TMPDIR/static.json" 2>/dev/null
check "static probe: the interpreter is not run" [ ! -e "$TMPDIR/ran" ]
check "static probe: no runtime facts" [ -z "$(fact "$TMPDIR/static.json" runtime.python.version)" ]
deep "$TMPDIR/marked.json" --python "$TMPDIR/marker/bin/python3"
check "deep probe: the interpreter is run" [ -e "$TMPDIR/ran" ]
