#!/bin/sh
# tests/sh/image_real.sh: `stackprint probe --image` on real images built here
# with umoci (four layers: files from this machine, a Neuron-shaped
# /opt/aws/neuron and a torch-neuronx venv, a layer deleting a file and a
# dist-info directory through whiteouts, and an opaque directory with hard
# links added by tests/sh/image_craft.py), converted by skopeo to
# docker-archive and oci-archive (and zstd layers).  Oracles nobody here
# wrote: skopeo inspect (manifest and config digests), sha256sum and zcat of
# the blobs (diff_ids), and the same probes run with --root on the tree that
# `umoci unpack` extracts, which must give the same facts.
. tests/lib.sh
for t in umoci skopeo /usr/bin/python3 sha256sum; do
    command -v "$t" >/dev/null || { skip "image tools" "$t missing"; exit 0; }
done
W=$TMPDIR/img
mkdir -p "$W"
export SOURCE_DATE_EPOCH=0

# ---- build ----
build() {
    set -e
    cd "$W"
    umoci init --layout oci
    umoci new --image oci:app
    umoci unpack --image oci:app b >/dev/null
    R=b/rootfs
    mkdir -p $R/etc $R/var/lib/dpkg $R/usr/bin $R/usr/lib/python3.11 \
             $R/usr/lib/python3/dist-packages $R/opt/replace
    cp /etc/os-release $R/etc/os-release
    echo "old" > $R/etc/old.conf
    cp /var/lib/dpkg/status $R/var/lib/dpkg/status
    cp /usr/bin/python3.11 $R/usr/bin/python3.11
    ln -s python3.11 $R/usr/bin/python3
    cp /usr/lib/python3.11/os.py /usr/lib/python3.11/site.py $R/usr/lib/python3.11/
    # every dist-info of this machine's Debian Python (python3-packaging's at
    # least, which scripts/bootstrap installs), plus one the next layers delete
    for d in /usr/lib/python3/dist-packages/*.dist-info; do
        [ -d "$d" ] && cp -r "$d" $R/usr/lib/python3/dist-packages/
    done
    G=$R/usr/lib/python3/dist-packages/zz_whiteout_probe-1.0.dist-info
    mkdir -p $G
    printf 'Metadata-Version: 2.1\nName: zz-whiteout-probe\nVersion: 1.0\n' > $G/METADATA
    echo a > $R/opt/replace/a.txt
    echo b > $R/opt/replace/b.txt
    umoci repack --refresh-bundle --image oci:app b >/dev/null

    # layer 2: Neuron-shaped runtime and a torch-neuronx (XLA path) venv
    N=$R/opt/aws/neuron/lib
    mkdir -p $N
    printf 'not a real library\n' > $N/libnrt.so.2.31.24.0
    ln -s libnrt.so.2.31.24.0 $N/libnrt.so.1
    printf 'not a real library\n' > $N/libnccom.so.2.22.26
    ln -s libnccom.so.2.22.26 $N/libnccom.so.2
    V=$R/opt/aws_neuronx_venv_pytorch_2_9
    SP=$V/lib/python3.11/site-packages
    mkdir -p $V/bin $SP/torch_neuronx/xla_impl $SP/torch \
             $SP/torch_neuronx-2.9.0.2.15.32035.dist-info $SP/torch-2.9.0.dist-info
    ln -s /usr/bin/python3.11 $V/bin/python3
    printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n' > $V/pyvenv.cfg
    printf 'Metadata-Version: 2.1\nName: torch-neuronx\nVersion: 2.9.0.2.15.32035\nRequires-Dist: torch-xla\nRequires-Dist: libneuronxla\n' \
        > $SP/torch_neuronx-2.9.0.2.15.32035.dist-info/METADATA
    printf 'pip\n' > $SP/torch_neuronx-2.9.0.2.15.32035.dist-info/INSTALLER
    printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0\n' > $SP/torch-2.9.0.dist-info/METADATA
    printf "__version__ = '2.9.0'\ncuda = None\ngit_version = 'abc'\n" > $SP/torch/version.py
    : > $SP/torch_neuronx/__init__.py
    : > $SP/torch_neuronx/xla.py
    : > $SP/torch_neuronx/xla_impl/__init__.py
    umoci repack --refresh-bundle --image oci:app b >/dev/null

    # layer 3: deletions, which umoci writes as .wh. whiteouts
    rm $R/etc/old.conf
    rm -rf $R/usr/lib/python3/dist-packages/zz_whiteout_probe-1.0.dist-info
    umoci repack --refresh-bundle --image oci:app b >/dev/null
    cd - >/dev/null

    # layer 4: an opaque /opt/replace (.wh..wh..opq) and hard links, which
    # umoci repack does not write; umoci unpack reads them below
    /usr/bin/python3 - "$W/oci" <<'EOF'
import sys; sys.path.insert(0, "tests/sh")
import image_craft as c
c.append_layer(sys.argv[1], "app", c.tar_of([
    ("d", "opt/replace"), ("f", "opt/replace/.wh..wh..opq", b""),
    ("f", "opt/replace/c.txt", b"c\n"),
    ("h", "opt/replace/c-link.txt", "opt/replace/c.txt"),
    ("h", "usr/bin/python3.11-hardlink", "usr/bin/python3.11"),
]))
EOF
}
if ! (build) >"$TMPDIR/build.log" 2>&1; then
    not_ok "build the test image with umoci" "$(tail -n 20 "$TMPDIR/build.log")"
    exit 0
fi
ok "build the test image with umoci"

(cd "$W" && skopeo copy -q oci:oci:app docker-archive:da.tar:example.com/app:v1 &&
    skopeo copy -q oci:oci:app oci-archive:oa.tar:app &&
    skopeo copy -q --dest-compress-format zstd --dest-compress oci:oci:app oci:zst:app) \
    >"$TMPDIR/copy.log" 2>&1 ||
    { not_ok "convert with skopeo" "$(tail -n 5 "$TMPDIR/copy.log")"; exit 0; }
ok "convert with skopeo"

# ---- probe ----
probe() { # NAME ARGS...: manifest JSON into $W/NAME.json
    n=$1; shift
    if "$STACKPRINT" probe --format json -o "$W/$n.json" "$@" 2>"$W/$n.err"; then ok "probe $n"
    else not_ok "probe $n" "$(cat "$W/$n.err")"; fi
}
probe oci --image "$W/oci:app"
probe oa --image "$W/oa.tar:app"
probe da --image "$W/da.tar"
probe zst --image "$W/zst:app"
(cd "$W" && umoci unpack --image oci:app u >/dev/null 2>&1) || not_ok "umoci unpack"
probe unpacked --root "$W/u/rootfs"

facts() { # FILE [PREFIX-TO-DROP]: "key=value" lines
    /usr/bin/python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
for k in sorted(f):
    if not any(k.startswith(p) for p in sys.argv[2:]):
        print(k + "=" + f[k])' "$@"
}

# identity facts against skopeo and sha256sum
raw=$(skopeo inspect --raw oci:"$W/oci":app)
want_manifest=sha256:$(printf '%s' "$raw" | sha256sum | cut -d' ' -f1)
want_config=sha256:$(skopeo inspect --config --raw oci:"$W/oci":app | sha256sum | cut -d' ' -f1)
check "image.manifest_digest is sha256 of skopeo inspect --raw" \
    test "$(fact "$W/oci.json" image.manifest_digest)" = "$want_manifest"
check "image.config_digest is sha256 of the config skopeo reads" \
    test "$(fact "$W/oci.json" image.config_digest)" = "$want_config"
check "image.manifest_digest_source oci-index" \
    test "$(fact "$W/oci.json" image.manifest_digest_source)" = oci-index
check "image.layers is 4" test "$(fact "$W/oci.json" image.layers)" = 4
check "image.ref is the tag" test "$(fact "$W/oci.json" image.ref)" = app
check "image.os, image.architecture as skopeo says" test \
    "$(fact "$W/oci.json" image.os)/$(fact "$W/oci.json" image.architecture)" = \
    "$(skopeo inspect oci:"$W/oci":app | /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["Os"]+"/"+j["Architecture"])')"
i=0
bad=""
for dg in $(printf '%s' "$raw" | /usr/bin/python3 -c 'import json,sys; [print(l["digest"][7:]) for l in json.load(sys.stdin)["layers"]]'); do
    blob=$W/oci/blobs/sha256/$dg
    [ "$(sha256sum < "$blob" | cut -d' ' -f1)" = "$dg" ] || bad="$bad blob$i"
    want=sha256:$(zcat "$blob" | sha256sum | cut -d' ' -f1)
    got=$(fact "$W/oci.json" "image.layer.00$i.diff_id")
    [ "$got" = "$want" ] || bad="$bad layer$i:$got!=$want"
    i=$((i + 1))
done
check "diff_ids are sha256sum of the zcat'ed blobs" test -z "$bad" -a "$i" = 4

# the same image through each source
facts "$W/oci.json" > "$W/oci.facts"
facts "$W/oa.json" > "$W/oa.facts"
same_lines "oci-archive gives the same facts as the layout" "$W/oci.facts" "$W/oa.facts"
facts "$W/zst.json" image. > "$W/zst.facts"
facts "$W/oci.json" image. > "$W/oci.noimage"
same_lines "zstd layers give the same facts" "$W/oci.noimage" "$W/zst.facts"
check "zstd diff_ids equal the gzip ones" test \
    "$(fact "$W/zst.json" image.layer.003.diff_id)" = "$(fact "$W/oci.json" image.layer.003.diff_id)"

facts "$W/da.json" image.manifest_digest image.ref > "$W/da.facts"
facts "$W/oci.json" image.manifest_digest image.ref > "$W/oci.nomanifest"
same_lines "docker-archive gives the same facts but for the manifest" "$W/oci.nomanifest" "$W/da.facts"
da_raw=sha256:$(skopeo inspect --raw docker-archive:"$W/da.tar" | sha256sum | cut -d' ' -f1)
check "docker-archive: synthesised manifest digest as skopeo synthesises it" \
    test "$(fact "$W/da.json" image.manifest_digest)" = "$da_raw"
check "docker-archive: skopeo inspect Digest agrees" test "$da_raw" = \
    "$(skopeo inspect docker-archive:"$W/da.tar" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')"
check "docker-archive: source says docker-archive" \
    test "$(fact "$W/da.json" image.manifest_digest_source)" = docker-archive
check "docker-archive: ref from RepoTags" \
    test "$(fact "$W/da.json" image.ref)" = example.com/app:v1
probe da_tag --image "$W/da.tar:example.com/app:v1"
check "docker-archive: selected by its RepoTag" test -s "$W/da_tag.json"

# the merged image equals umoci's own extraction
facts "$W/unpacked.json" > "$W/unpacked.facts"
same_lines "facts equal those of umoci unpack's rootfs" "$W/unpacked.facts" "$W/oci.noimage"
check "the facts are not trivially empty" test "$(wc -l < "$W/unpacked.facts")" -gt 3
check "host.os.id read from the image's os-release" test \
    "$(fact "$W/oci.json" host.os.id)" = "$(. /etc/os-release; echo "$ID")"
check "the subject names the image and tag" test \
    "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["subject"])' "$W/oci.json")" = "image:$W/oci:app"
check "no kernel facts from an image" test -z "$(fact "$W/oci.json" host.kernel)$(fact "$W/oci.json" host.arch)"
check "a warning says the image has no live kernel" grep -q 'no live kernel' "$W/oci.json"
check "a whiteout layer removed a dist-info directory (no pip.zz-whiteout-probe)" \
    test -z "$(fact "$W/oci.json" pip.zz-whiteout-probe)" -a -n "$(fact "$W/oci.json" pip.packaging)"
check "the Neuron runtime library named in the image's /opt/aws/neuron/lib" \
    test "$(fact "$W/oci.json" neuron.runtime.version)" = 2.31.24.0
