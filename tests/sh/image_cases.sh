#!/bin/sh
# tests/sh/image_cases.sh: images that once made `stackprint probe --image`
# describe something a runtime does not build, read a member the archive does
# not name, or work for minutes (tests/fixtures/image-cases/README.md), and
# crafted images of the same kinds (tests/sh/image_craft.py).  Oracles nobody
# here wrote: umoci unpack (the tree a runtime builds), skopeo (which
# documents it refuses, and the manifest digest it synthesises), Python's
# tarfile and hashlib (the member a name names).
. tests/lib.sh
C=tests/fixtures/image-cases
W=$TMPDIR/cases
mkdir -p "$W"
export SOURCE_DATE_EPOCH=0

# refused NAME STATUS PATTERN SPEC: exit STATUS, one error line matching
# PATTERN, no manifest written
refused() {
    n=$1 want=$2 pat=$3; shift 3
    rm -f "$W/out.json"
    timeout 60 "$STACKPRINT" probe --format json -o "$W/out.json" --image "$@" 2>"$W/err"
    rc=$?
    if [ "$rc" = "$want" ] && [ "$(wc -l < "$W/err")" = 1 ] && grep -q "^stackprint: .*$pat" "$W/err" \
       && [ ! -e "$W/out.json" ]; then ok "$n"
    else not_ok "$n" "exit $rc (want $want)" "$(head -c 600 "$W/err")"; fi
}

# ---- entries beneath a lower layer's symlink land where a runtime puts
# them (umoci unpack is the oracle below); what depends on the tar's order,
# or on how runtimes differ, is refused ----
cp -r "$C/img-symlink-parent-write/image" "$W/pw" && chmod -R u+w "$W/pw"
cp -r "$C/img-symlink-parent-whiteout/image" "$W/pwh" && chmod -R u+w "$W/pwh"

/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft the link images"; exit 0; }
import os, sys
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]
OSR = b'ID=linked\nVERSION_ID="7"\n'
def mk(name, layers):
    c.layout(os.path.join(W, name), layers, tag="t")
# same layer: a symlink, then an entry beneath it
mk("samelayer", [c.tar_of([("d", "usr/share/etc"), ("l", "etc", "usr/share/etc"),
                           ("f", "etc/os-release", OSR)])])
# a lower regular file, an upper entry beneath it (a runtime fails: ENOTDIR)
mk("underfile", [c.tar_of([("f", "etc", b"x")]), c.tar_of([("f", "etc/os-release", OSR)])])
# a lower symlink, an upper opaque marker beneath it: clears the target
mk("opaque", [c.tar_of([("d", "real"), ("f", "real/a", b"a"), ("l", "etc", "real")]),
              c.tar_of([("f", "etc/.wh..wh..opq", b"")])])
# a lower symlink replaced by the upper layer's own directory entry: valid,
# a runtime removes the link and makes the directory
mk("replaced", [c.tar_of([("d", "usr/share/etc"), ("f", "usr/share/etc/os-release", b"ID=lower\n"),
                          ("l", "etc", "usr/share/etc")]),
                c.tar_of([("d", "etc"), ("f", "etc/os-release", OSR)])])
# a lower symlink whited out, then the name reused as a directory: valid
mk("whiteout-link", [c.tar_of([("d", "usr/share/etc"), ("l", "etc", "usr/share/etc")]),
                     c.tar_of([("f", ".wh.etc", b""), ("d", "etc"), ("f", "etc/os-release", OSR)])])
# kept files reached only through a symlinked directory: in the same layer,
# and with the link added by a later layer over content of a lower one
STATUS = (b"Package: libc6\nStatus: install ok installed\nArchitecture: amd64\n"
          b"Version: 2.36-9\n\n")
mk("through-same", [c.tar_of([("d", "usr/share/etc"), ("f", "usr/share/etc/os-release", OSR),
                              ("l", "etc", "usr/share/etc")])])
mk("through-upper", [c.tar_of([("d", "usr/share/etc"), ("f", "usr/share/etc/os-release", OSR),
                               ("d", "data/dpkg"), ("f", "data/dpkg/status", STATUS)]),
                     c.tar_of([("l", "etc", "/usr/share/etc/"), ("d", "var/lib"),
                               ("l", "var/lib/dpkg", "../../data/dpkg")])])
# like COPY --link into /lib on a merged-/usr base: a whole dist-info
# written through lib -> usr/lib, implicit parents only
META = b"Metadata-Version: 2.1\nName: linked-pkg\nVersion: 3.1\n"
PY = [("d", "usr/bin"), ("f", "usr/bin/python3.11", b"\0Python 3.11.2\0", 0o755),
      ("l", "usr/bin/python3", "python3.11"), ("d", "usr/lib/python3.11"),
      ("f", "usr/lib/python3.11/os.py", b"#\n"), ("f", "usr/lib/python3.11/site.py", b"# dist-packages\n"),
      ("f", "usr/include/python3.11/patchlevel.h", b"#define PY_VERSION \"3.11.2\"\n")]
mk("copy-link", [c.tar_of(PY + [("d", "usr/lib/python3/dist-packages"), ("l", "lib", "usr/lib"),
                           ("f", "usr/lib/python3/dist-packages/a-1.0.dist-info/METADATA",
                            b"Metadata-Version: 2.1\nName: a\nVersion: 1.0\n")]),
                 c.tar_of([("f", "lib/python3/dist-packages/linked_pkg-3.1.dist-info/METADATA", META),
                           ("f", "lib/python3/dist-packages/.wh.a-1.0.dist-info", b"")])])
# the same layer changes the link's target and writes through the link:
# the tar's order decides, so refused
mk("order", [c.tar_of([("d", "real"), ("l", "etc", "real")]),
             c.tar_of([("f", "etc/os-release", OSR), ("f", "real/os-release", b"ID=other\n")])])
mk("order-link", [c.tar_of([("d", "real"), ("l", "etc", "real2")]),
                  c.tar_of([("l", "real2", "real"), ("f", "etc/os-release", OSR)])])
# beneath a lower link, then the layer's own entry for the link's name
mk("late-dir", [c.tar_of([("d", "real"), ("l", "etc", "real")]),
                c.tar_of([("f", "etc/os-release", OSR), ("d", "etc")])])
# a dangling link (umoci makes its target, docker fails): refused
mk("dangling", [c.tar_of([("l", "etc", "/nowhere/etc")]), c.tar_of([("f", "etc/os-release", OSR)])])
# a layout whose index.json carries a manifest's "layers", and one whose
# manifest says another media type than its descriptor
import json, shutil
mk("good", [c.tar_of([("d", "etc"), ("f", "etc/os-release", OSR)])])
g = os.path.join(W, "good")
shutil.copytree(g, os.path.join(W, "ambig-index"))
idx = json.load(open(os.path.join(g, "index.json")))
open(os.path.join(W, "ambig-index", "index.json"), "w").write(json.dumps(dict(idx, layers=[])))
shutil.copytree(g, os.path.join(W, "ambig-media"))
idx["manifests"][0]["mediaType"] = "application/vnd.docker.distribution.manifest.v2+json"
open(os.path.join(W, "ambig-media", "index.json"), "w").write(json.dumps(idx))
EOF
refused "an entry beneath a symlink of the same layer is refused" 4 \
    "etc/os-release lies beneath a symlink or file made earlier in this layer" "$W/samelayer"
refused "an entry beneath a lower layer's file is refused" 4 "etc is a non-directory in a lower layer" \
    "$W/underfile"
refused "the same layer writing through a lower link and at its target is refused" 4 \
    "the result depends on the order of the tar" "$W/order"
refused "a lower link resolved through a link of the same layer is refused" 4 \
    "the result depends on the order of the tar" "$W/order-link"
refused "an entry beneath a lower link, then a directory entry for the link, is refused" 4 \
    "before its own entry for it" "$W/late-dir"
refused "an entry beneath a dangling lower symlink is refused" 4 \
    "does not resolve in the image" "$W/dangling"

# valid link images: every fact equals that of umoci's unpacked tree
facts() { # FILE: "key=value" lines, without the image's identity facts
    /usr/bin/python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
for k in sorted(f):
    if not k.startswith("image."):
        print(k + "=" + f[k])' "$1"
}
for it in replaced:t whiteout-link:t through-same:t through-upper:t opaque:t copy-link:t \
          pw:latest pwh:latest; do
    img=${it%%:*}
    if ! "$STACKPRINT" probe --format json -o "$W/$img.json" --image "$W/$it" 2>"$W/$img.err"; then
        not_ok "$img: probed" "$(cat "$W/$img.err")"; continue
    fi
    if command -v umoci >/dev/null; then
        (cd "$W" && umoci unpack --image "$it" "$img-u" >/dev/null 2>&1) || not_ok "$img: umoci unpack"
        "$STACKPRINT" probe --format json -o "$W/$img-u.json" --root "$W/$img-u/rootfs" 2>/dev/null
        facts "$W/$img.json" > "$W/$img.img"
        facts "$W/$img-u.json" > "$W/$img.dir"
        same_lines "$img: facts equal those of umoci unpack's tree" "$W/$img.dir" "$W/$img.img"
    else
        skip "$img: facts equal those of umoci unpack's tree" "umoci missing"
    fi
done

for img in replaced whiteout-link through-same through-upper; do
    check "$img: os-release read, from where the link leads" \
        test "$(fact "$W/$img.json" host.os.id)" = linked
done
# the handed images: the lower status says 2.35, the upper one 2.31
check "handed write: var/lib/dpkg/status is the upper layer's, written through dpkgdir" \
    test "$(fact "$W/pw.json" deb.libc6)" = 2.31
check "handed whiteout: var/lib/dpkg/status deleted through dpkgdir" \
    test -z "$(fact "$W/pwh.json" deb.libc6)"
check "COPY --link through lib -> usr/lib: the new dist-info is there, the old one whited out" \
    test "$(fact "$W/copy-link.json" pip.linked-pkg)/$(fact "$W/copy-link.json" pip.a)" = 3.1/
check "through-upper: dpkg's status read through var/lib/dpkg -> data/dpkg" \
    test "$(fact "$W/through-upper.json" deb.libc6)" = 2.36-9

# ---- names: the whole name or exit 4, never another member ----
refused "a.tar: the 310-byte layer is looked up whole (it does not match its diff_id)" 3 \
    "uncompressed sha256 is" "$C/docker-long-layer-name/a.tar"
if "$STACKPRINT" probe --format json -o "$W/b.json" --image "$C/docker-long-layer-name/b.tar" 2>"$W/b.err"; then
    want=$(/usr/bin/python3 -c '
import hashlib, json, sys, tarfile
t = tarfile.open(sys.argv[1])
name = json.load(t.extractfile("manifest.json"))[0]["Layers"][0]
print("sha256:" + hashlib.sha256(t.extractfile(name).read()).hexdigest(), len(name))' \
        "$C/docker-long-layer-name/b.tar")
    check "b.tar: the diff_id is that of the member manifest.json names (310 bytes)" \
        test "$(fact "$W/b.json" image.layer.000.diff_id) 310" = "$want"
else
    not_ok "b.tar: read" "$(cat "$W/b.err")"
fi
/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft the long-name archive"; exit 0; }
import io, json, sys, tarfile
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]
layer = c.tar_of([("f", "x", b"x")])
cfg = c.jbytes({"os": "linux", "architecture": "amd64",
                "rootfs": {"type": "layers", "diff_ids": [c.sha(layer)]}})
name = "L" * 5000 + "/layer.tar"
with tarfile.open(W + "/long.tar", "w", format=tarfile.PAX_FORMAT) as t:
    for n, b in (("manifest.json", json.dumps([{"Config": "c.json", "RepoTags": ["t:1"],
                                                  "Layers": [name]}]).encode()),
                 ("c.json", cfg), (name, layer)):
        ti = tarfile.TarInfo(n); ti.size = len(b); t.addfile(ti, io.BytesIO(b))
EOF
refused "a member name over 4095 bytes is exit 4" 4 "a member name is longer than 4095 bytes" "$W/long.tar"

# ---- indexes: bounded, unambiguous ----
refused "a fan-out of nested indexes stops at the descriptor bound" 4 \
    "more than 10000 descriptors in the image indexes" "$C/oci-index-fanout/image"
refused "a manifest that is also an index is refused" 4 \
    "ambiguous document: an image manifest with the fields of an image index" \
    "$C/oci-ambiguous-manifest/image"
refused "an index.json with a manifest's layers is refused" 4 \
    "index.json: ambiguous document: an image index with the fields of an image manifest" "$W/ambig-index"
refused "a manifest whose mediaType differs from its descriptor's is refused" 4 \
    "ambiguous document: mediaType 'application/vnd.oci.image.manifest.v1+json', its descriptor says" \
    "$W/ambig-media"
if command -v skopeo >/dev/null; then
    cp -r "$C/oci-ambiguous-manifest/image" "$W/amb" && chmod -R u+w "$W/amb"
    check "skopeo refuses the ambiguous manifest too" \
        sh -c '! skopeo inspect oci:"$1" >/dev/null 2>&1' sh "$W/amb"
else
    skip "skopeo refuses the ambiguous manifest too" "skopeo missing"
fi

# ---- Docker 25.0.0/25.0.1: "manifests": null ----
S=$C/docker25-index-null/save-null.tar
if "$STACKPRINT" probe --format json -o "$W/d25.json" --image "$S" 2>"$W/d25.err"; then
    check "docker25: digest source docker-archive" \
        test "$(fact "$W/d25.json" image.manifest_digest_source)" = docker-archive
    check "docker25: a warning says the OCI index is malformed" \
        grep -q 'the OCI index is malformed.*read through manifest.json' "$W/d25.json"
    if command -v skopeo >/dev/null; then
        check "docker25: manifest digest as skopeo's docker-archive transport synthesises it" \
            test "$(fact "$W/d25.json" image.manifest_digest)" = \
            "sha256:$(skopeo inspect --raw docker-archive:"$S" | sha256sum | cut -c1-64)"
    else
        skip "docker25: manifest digest as skopeo's" "skopeo missing"
    fi
else
    not_ok "docker25: read through manifest.json" "$(cat "$W/d25.err")"
fi
# an OCI layout without manifest.json is not a docker archive: still refused
mkdir -p "$W/nullidx" && cp -r "$W/good/." "$W/nullidx/"
printf '{"schemaVersion":2,"manifests":null}' > "$W/nullidx/index.json"
refused "a malformed index.json without manifest.json stays an error" 4 \
    'no "manifests" array' "$W/nullidx"
