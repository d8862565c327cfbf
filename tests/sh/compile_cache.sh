#!/bin/sh
# tests/sh/compile_cache.sh: the Neuron compile cache (neuron.cache.*) and
# NEFF files (neuron.neff.*), probe and the shipped neuron-compile-cache
# policy.  Caches are shaped like the SDK's own (doc/DOMAIN.md section 9:
# neuronxcc-VERSION/MODULE_GRAPH+FLAGS/ with model.neff, model.done,
# compile_flags.json, a model.hlo_module.pb.lock left by a killed compile,
# model.log of a failed one), inside copies of the trn2-native fixture root
# (trn2.48xlarge; pip.neuronx-cc 2.27.5334.0).  Oracles nobody here wrote:
# find(1) counts the modules and lists the compiler folders, sha256sum and
# stat(1) give each NEFF's digest and size, and umoci's unpack of an image
# holding a cache gives the tree whose facts --image must reproduce.
. "$TOP/tests/lib.sh"
CC=/var/tmp/neuron-compile-cache

# root NAME: a copy of trn2-native in $TMPDIR/NAME; R is its path
root() {
    R=$TMPDIR/$1
    rm -rf "$R"
    cp -a tests/fixtures/roots/trn2-native "$R"
}

# module ROOT VERSION NAME TARGET: a compiled module with its flags
module() {
    d=$1$CC/neuronxcc-$2/$3
    mkdir -p "$d"
    printf 'NEFF of %s %s' "$2" "$3" >"$d/model.neff"
    : >"$d/model.done"
    printf 'hlo' >"$d/model.hlo_module.pb"
    printf '["--target=%s", "--model-type=transformer", "-O1"]' "$4" >"$d/compile_flags.json"
}

probe_json() {   # probe_json ROOT OUT [ARGS...]
    r=$1 o=$2
    shift 2
    "$STACKPRINT" probe --root "$r" --format json -o "$o" "$@" 2>"$TMPDIR/err"
}

warned() {   # warned FILE REGEX
    /usr/bin/python3 -c 'import json,re,sys
sys.exit(0 if any(re.search(sys.argv[2], w) for w in json.load(open(sys.argv[1]))["warnings"]) else 1)' "$1" "$2"
}

# 1. two compiler versions, the installed one among them, trn2 targets
root two
for i in 1 2 3; do module "$R" 2.26.6360.0+6f180f47 "MODULE_${i}1111+d41d8cd9" trn2; done
for i in 4 5; do module "$R" 2.27.5334.0 "MODULE_${i}2222+aaaa0001" trn2; done
# a killed compile (lock, no NEFF), a failed one (log, no NEFF), a folder
# that is not a module, a file where a compiler folder would be
mkdir -p "$R$CC/neuronxcc-2.27.5334.0/MODULE_lock+aaaa0001" "$R$CC/neuronxcc-2.27.5334.0/MODULE_fail+aaaa0001" \
         "$R$CC/neuronxcc-2.27.5334.0/0_REGISTRY"
: >"$R$CC/neuronxcc-2.27.5334.0/MODULE_lock+aaaa0001/model.hlo_module.pb.lock"
echo "ERROR: compilation failed" >"$R$CC/neuronxcc-2.27.5334.0/MODULE_fail+aaaa0001/model.log"
: >"$R$CC/neuronxcc-9.9.9"
probe_json "$R" "$TMPDIR/two.json"
check "two compilers: probe exit 0" [ $? -eq 0 ]
want=$(find "$R$CC" -name model.neff -type f | wc -l)
check "two compilers: modules = find's count of model.neff ($want)" [ "$(fact "$TMPDIR/two.json" neuron.cache.modules)" = "$want" ]
want=$(find "$R$CC" -mindepth 1 -maxdepth 1 -type d -name 'neuronxcc-*' | sed 's,.*/neuronxcc-,,' | LC_ALL=C sort | paste -sd, -)
check "two compilers: compilers = find's folders ($want)" [ "$(fact "$TMPDIR/two.json" neuron.cache.compilers)" = "$want" ]
check "two compilers: per compiler" [ "$(fact "$TMPDIR/two.json" neuron.cache.modules_by_compiler)" = "2.26.6360.0+6f180f47=3,2.27.5334.0=2" ]
check "two compilers: one locked module" [ "$(fact "$TMPDIR/two.json" neuron.cache.locked)" = 1 ]
check "two compilers: one failed module" [ "$(fact "$TMPDIR/two.json" neuron.cache.failed)" = 1 ]
check "two compilers: targets from the flags" [ "$(fact "$TMPDIR/two.json" neuron.cache.targets)" = trn2 ]
check "two compilers: no other target" [ -z "$(fact "$TMPDIR/two.json" neuron.cache.other_targets)" ]
check "two compilers: path is the SDK default" [ "$(fact "$TMPDIR/two.json" neuron.cache.path)" = "$CC" ]
"$STACKPRINT" check --policy policies/neuron/compile-cache.yaml "$TMPDIR/two.json" >"$TMPDIR/report" 2>&1
check "two compilers: check exit 0 (the lock is a warning)" [ $? -eq 0 ]
check "two compilers: the installed compiler filled it" grep -Eq 'cache-filled-by-installed-compiler +pip.neuronx-cc +2.27.5334.0 .* ok$' "$TMPDIR/report"
check "two compilers: the lock is reported" grep -Eq 'no-stale-locks +neuron.cache.locked +1 .*violated \(warning\)' "$TMPDIR/report"

# 2. filled only by another compiler: every graph recompiles (a warning)
root other
module "$R" 2.26.6360.0+6f180f47 MODULE_1+d41d8cd9 trn2
probe_json "$R" "$TMPDIR/other.json"
"$STACKPRINT" check --policy policies/neuron/compile-cache.yaml "$TMPDIR/other.json" >"$TMPDIR/report" 2>&1
check "other compiler: exit 0, a warning" [ $? -eq 0 ]
check "other compiler: 'every graph will recompile'" grep -q 'every graph will recompile' "$TMPDIR/report"
"$STACKPRINT" check --strict --policy policies/neuron/compile-cache.yaml "$TMPDIR/other.json" >/dev/null 2>&1
check "other compiler: --strict fails" [ $? -eq 1 ]

# 3. graphs compiled for trn1 on a trn2 host: an error
root trn1
module "$R" 2.27.5334.0 MODULE_1+bbbb0001 trn2
module "$R" 2.27.5334.0 MODULE_2+cccc0002 trn1
printf '["--target", "trn1"]' >"$R$CC/neuronxcc-2.27.5334.0/MODULE_2+cccc0002/compile_flags.json"
probe_json "$R" "$TMPDIR/trn1.json"
check "trn1 on trn2: targets" [ "$(fact "$TMPDIR/trn1.json" neuron.cache.targets)" = trn2,trn1 ]
check "trn1 on trn2: other_targets" [ "$(fact "$TMPDIR/trn1.json" neuron.cache.other_targets)" = trn1 ]
"$STACKPRINT" check --policy policies/neuron/compile-cache.yaml "$TMPDIR/trn1.json" >"$TMPDIR/report" 2>&1
check "trn1 on trn2: check exit 1" [ $? -eq 1 ]
check "trn1 on trn2: names the rule" grep -Eq 'cache-targets-match-instance +neuron.cache.other_targets +trn1 .*violated$' "$TMPDIR/report"

# 3b. NEFFs from a compiler newer than the runtime: the trn1-xla root runs
# runtime-lib 2.28.23.0 (Neuron 2.26.x in the table); neuronx-cc 2.27.5334.0
# first ships in 2.32.0, so its NEFFs cannot load there (aws-neuron-sdk#820)
R=$TMPDIR/newer
rm -rf "$R"
cp -a tests/fixtures/roots/trn1-xla "$R"
module "$R" 2.27.5334.0 MODULE_1+abcd0001 trn1
probe_json "$R" "$TMPDIR/newer.json"
"$STACKPRINT" check --policy policies/ "$TMPDIR/newer.json" >"$TMPDIR/report" 2>&1
check "newer compiler: check exit 1" [ $? -eq 1 ]
check "newer compiler: the rule names 2.32.0 against the runtime's release" \
    grep -Eq 'cache-compiler-not-newer-than-runtime +neuron.sdk.cache_compiler_release +2.32.0 +<=\$\{neuron.sdk.runtime_release\} \(<=2.26.1\) +violated$' "$TMPDIR/report"

# 4. an empty cache, a cache that is a file, flags that are not a list
root empty
mkdir -p "$R$CC"
probe_json "$R" "$TMPDIR/empty.json"
check "empty cache: 0 modules" [ "$(fact "$TMPDIR/empty.json" neuron.cache.modules)" = 0 ]
check "empty cache: no compilers" [ -z "$(fact "$TMPDIR/empty.json" neuron.cache.compilers)" ]
root file
mkdir -p "$R/var/tmp" && : >"$R$CC"
probe_json "$R" "$TMPDIR/file.json"
check "cache is a file: exit 0" [ $? -eq 0 ]
check "cache is a file: a warning" warned "$TMPDIR/file.json" "neuron.cache: $CC: not a directory"
check "cache is a file: no facts" [ -z "$(fact "$TMPDIR/file.json" neuron.cache.path)" ]
root badflags
module "$R" 2.27.5334.0 MODULE_1+dddd0001 trn2
printf '{"target": "trn2"}' >"$R$CC/neuronxcc-2.27.5334.0/MODULE_1+dddd0001/compile_flags.json"
probe_json "$R" "$TMPDIR/badflags.json"
check "flags not a list: no targets (never guessed)" [ -z "$(fact "$TMPDIR/badflags.json" neuron.cache.targets)" ]
check "flags not a list: a warning" warned "$TMPDIR/badflags.json" 'compile_flags.json: not a JSON array'

# 5. --cache names one explicitly; a missing one is a warning
root explicit
mkdir -p "$R/srv"
module "$R/srv" 2.27.5334.0 MODULE_1+eeee0001 trn2
mv "$R/srv$CC" "$R/srv/cache" && rm -rf "$R/srv/var"
probe_json "$R" "$TMPDIR/explicit.json" --cache /srv/cache
check "--cache: path" [ "$(fact "$TMPDIR/explicit.json" neuron.cache.path)" = /srv/cache ]
check "--cache: one module" [ "$(fact "$TMPDIR/explicit.json" neuron.cache.modules)" = 1 ]
probe_json "$R" "$TMPDIR/missing.json" --cache /srv/nowhere
check "--cache missing: a warning" warned "$TMPDIR/missing.json" 'neuron.cache: /srv/nowhere: no such file'
"$STACKPRINT" probe --root "$R" --cache relative/path >/dev/null 2>&1
check "--cache relative: usage error" [ $? -eq 2 ]

# 6. live host: NEURON_CC_FLAGS' --cache_dir wins over NEURON_COMPILE_CACHE_URL;
# an s3:// URL is recorded and never fetched
NEURON_CC_FLAGS="-O1 --cache_dir=s3://bucket/cache --retry_failed_compilation" NEURON_COMPILE_CACHE_URL=/nowhere \
    "$STACKPRINT" probe --format json -o "$TMPDIR/s3.json" 2>/dev/null
check "s3 URL from NEURON_CC_FLAGS recorded" [ "$(fact "$TMPDIR/s3.json" neuron.cache.url)" = s3://bucket/cache ]
check "s3 URL: nothing listed" [ -z "$(fact "$TMPDIR/s3.json" neuron.cache.modules)" ]
mkdir -p "$TMPDIR/live/neuronxcc-2.27.5334.0/MODULE_1+ffff0001"
: >"$TMPDIR/live/neuronxcc-2.27.5334.0/MODULE_1+ffff0001/model.neff"
NEURON_COMPILE_CACHE_URL=$TMPDIR/live "$STACKPRINT" probe --format json -o "$TMPDIR/live.json" 2>/dev/null
check "NEURON_COMPILE_CACHE_URL: path" [ "$(fact "$TMPDIR/live.json" neuron.cache.path)" = "$TMPDIR/live" ]
check "NEURON_COMPILE_CACHE_URL: one module" [ "$(fact "$TMPDIR/live.json" neuron.cache.modules)" = 1 ]

# 7. NEFF files: size and sha256 as stat and sha256sum give them; bad ones warn
root neff
mkdir -p "$R/models/a/b" "$R/models/dir.neff"
head -c 70000 /dev/urandom >"$R/models/a/model.neff"
printf 'short' >"$R/models/a/b/other.neff"
: >"$R/models/empty.neff"
ln -s loop1.neff "$R/models/loop2.neff"
ln -s loop2.neff "$R/models/loop1.neff"
probe_json "$R" "$TMPDIR/neff.json" --neff /models/a/model.neff --artifacts /models
check "neff: --neff first" [ "$(fact "$TMPDIR/neff.json" neuron.neff.00001.path)" = /models/a/model.neff ]
check "neff: size as stat gives it" [ "$(fact "$TMPDIR/neff.json" neuron.neff.00001.size)" = "$(stat -c %s "$R/models/a/model.neff")" ]
check "neff: sha256 as sha256sum gives it" [ "$(fact "$TMPDIR/neff.json" neuron.neff.00001.sha256)" = "$(sha256sum "$R/models/a/model.neff" | cut -c1-64)" ]
check "neff: --artifacts found the nested one" [ "$(fact "$TMPDIR/neff.json" neuron.neff.00002.path)" = /models/a/b/other.neff ]
check "neff: empty one recorded with a warning" warned "$TMPDIR/neff.json" 'neuron.neff: /models/empty.neff: empty'
check "neff: a directory named .neff is not a NEFF" warned "$TMPDIR/neff.json" 'neuron.neff: /models/dir.neff: not a regular file'
check "neff: a link loop is a warning" warned "$TMPDIR/neff.json" 'neuron.neff: /models/loop[12].neff: symlink loop'
check "neff: nothing about a compiler is guessed" [ -z "$(/usr/bin/python3 -c 'import json,sys; print(" ".join(k for k in json.load(open(sys.argv[1]))["facts"] if k.startswith("neuron.neff.") and not k.endswith((".path",".size",".sha256"))))' "$TMPDIR/neff.json")" ]

# 8. a cache inside an image layer: umoci builds and unpacks it; --image
# must give the neuron.cache facts that --root gives on umoci's tree
if command -v umoci >/dev/null && command -v skopeo >/dev/null; then
    (
        set -e
        cd "$TMPDIR"
        umoci_bundle img c b
        module b/rootfs 2.27.5334.0 MODULE_1+abab0001 trn2
        module b/rootfs 2.27.5334.0 MODULE_2+cdcd0002 trn1
        umoci repack --image img:c b >/dev/null
        umoci unpack --image img:c u >/dev/null
    ) >"$TMPDIR/umoci.log" 2>&1
    probe_json "$TMPDIR/u/rootfs" "$TMPDIR/ur.json"
    "$STACKPRINT" probe --image "$TMPDIR/img:c" --format json -o "$TMPDIR/ui.json" 2>/dev/null
    a=$(/usr/bin/python3 -c 'import json,sys; print(sorted((k,v) for k,v in json.load(open(sys.argv[1]))["facts"].items() if k.startswith("neuron.cache.")))' "$TMPDIR/ur.json")
    b=$(/usr/bin/python3 -c 'import json,sys; print(sorted((k,v) for k,v in json.load(open(sys.argv[1]))["facts"].items() if k.startswith("neuron.cache.")))' "$TMPDIR/ui.json")
    if [ "$a" = "$b" ] && [ "$(fact "$TMPDIR/ui.json" neuron.cache.targets)" = trn2,trn1 ]; then ok "image: the cache's facts equal those of umoci's unpacked tree"
    else not_ok "image: the cache's facts equal those of umoci's unpacked tree" "root: $a" "image: $b" "$(tail -3 "$TMPDIR/umoci.log")"; fi
else
    skip "image cache" "umoci or skopeo missing"
fi

# 9. Found by trying to break it: a flags list with a non-string element is
# not a list of flags (no target taken from it); a compiler folder without
# a compiled module (empty, or a failed compile only) did not fill the
# cache, so the "every graph will recompile" warning still fires.
root mixedflags
module "$R" 2.27.5334.0 MODULE_1+aaaa1111 trn2
printf '["--target", "trn1", 5]' >"$R$CC/neuronxcc-2.27.5334.0/MODULE_1+aaaa1111/compile_flags.json"
probe_json "$R" "$TMPDIR/mixedflags.json"
check "flags with a number: no targets" [ -z "$(fact "$TMPDIR/mixedflags.json" neuron.cache.targets)" ]
check "flags with a number: a warning" warned "$TMPDIR/mixedflags.json" 'element 2 is not a string'
root emptycompiler
module "$R" 2.26.6360.0+6f180f47 MODULE_1+aaaa2222 trn2
mkdir -p "$R$CC/neuronxcc-2.27.5334.0/MODULE_9+bbbb" "$R$CC/neuronxcc-2.27.5334.1"
echo "ERROR: compilation failed" >"$R$CC/neuronxcc-2.27.5334.0/MODULE_9+bbbb/model.log"
probe_json "$R" "$TMPDIR/emptycompiler.json"
check "compilers without a module are not listed" [ "$(fact "$TMPDIR/emptycompiler.json" neuron.cache.compilers)" = 2.26.6360.0+6f180f47 ]
check "the failed module is still counted" [ "$(fact "$TMPDIR/emptycompiler.json" neuron.cache.failed)" = 1 ]
"$STACKPRINT" check --policy policies/neuron/compile-cache.yaml "$TMPDIR/emptycompiler.json" >"$TMPDIR/report" 2>&1
check "and every graph will recompile" grep -q 'every graph will recompile' "$TMPDIR/report"

# 10. The cache's counts are volatile (stackprint-manifest(5)): one more
# module compiled by the same compiler for the same target changes
# neuron.cache.modules but not the stack, so the stack id stays, as
# tests/restamp (Python's hashlib over the documented volatile list)
# computes it too; a module from another compiler changes
# neuron.cache.compilers, which is part of the stack.
root fill
module "$R" 2.27.5334.0 MODULE_1+aaaa3333 trn2
probe_json "$R" "$TMPDIR/fill1.json"
module "$R" 2.27.5334.0 MODULE_2+bbbb3333 trn2
printf 'x' >"$R$CC/neuronxcc-2.27.5334.0/MODULE_2+bbbb3333/model.log"
mkdir -p "$R$CC/neuronxcc-2.27.5334.0/MODULE_3+cccc3333" && printf 'x' >"$R$CC/neuronxcc-2.27.5334.0/MODULE_3+cccc3333/model.log"
probe_json "$R" "$TMPDIR/fill2.json"
sid() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stack_id"])' "$1"; }
check "a fuller cache: modules counted" [ "$(fact "$TMPDIR/fill2.json" neuron.cache.modules)" = 2 ] && [ "$(fact "$TMPDIR/fill1.json" neuron.cache.modules)" = 1 ]
check "a fuller cache: the same stack id" [ "$(sid "$TMPDIR/fill1.json")" = "$(sid "$TMPDIR/fill2.json")" ]
cp "$TMPDIR/fill2.json" "$TMPDIR/fill2-restamped.json"
/usr/bin/python3 tests/restamp "$TMPDIR/fill2-restamped.json"
check "a fuller cache: the stack id as tests/restamp computes it" [ "$(sid "$TMPDIR/fill2.json")" = "$(sid "$TMPDIR/fill2-restamped.json")" ]
"$STACKPRINT" diff "$TMPDIR/fill1.json" "$TMPDIR/fill2.json" >/dev/null 2>&1
check "a fuller cache: diff sees the same stack (exit 0)" [ $? -eq 0 ]
module "$R" 2.26.6360.0+6f180f47 MODULE_4+dddd3333 trn2
probe_json "$R" "$TMPDIR/fill3.json"
check "another compiler in the cache: another stack id" [ "$(sid "$TMPDIR/fill1.json")" != "$(sid "$TMPDIR/fill3.json")" ]
