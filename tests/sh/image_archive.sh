#!/bin/sh
# tests/sh/image_archive.sh: image archives in the shapes tools write them,
# crafted with Python's tarfile: an OCI archive whose members carry pax
# headers longer than a block, one in GNU format after a long-named member,
# the newer `docker save` form (OCI layout plus manifest.json), a classic
# docker-save tarball holding two images (selection by RepoTag; skopeo as
# the oracle of the synthesised manifest digest), a config that does not
# match its name, and an archive holding a member twice (the later wins).
. tests/lib.sh
W=$TMPDIR/arc
mkdir -p "$W"
export SOURCE_DATE_EPOCH=0

/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft the archives"; exit 0; }
import hashlib, io, json, os, sys, tarfile
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]
src = os.path.join(W, "src")
c.layout(src, [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=arc\n")]),
               c.tar_of([("f", "etc/hostname", b"h\n")])], tag="v1")

def files(d):
    out = []
    for top, dirs, fs in os.walk(d):
        dirs.sort()
        for f in sorted(fs):
            p = os.path.join(top, f)
            out.append((os.path.relpath(p, d), open(p, "rb").read()))
    return out

def write(name, members, fmt=tarfile.PAX_FORMAT, pax=None):
    with tarfile.open(os.path.join(W, name), "w", format=fmt) as t:
        for n, data in members:
            ti = tarfile.TarInfo(n); ti.size = len(data); ti.mtime = 0
            if pax:
                ti.pax_headers = dict(pax)
            t.addfile(ti, io.BytesIO(data))

lay = files(src)
write("pax.tar", lay, pax={"comment": "x" * 1500})
write("gnu.tar", [("d/" + "n" * 300, b"long name first")] + lay, fmt=tarfile.GNU_FORMAT)
idx = json.loads(open(os.path.join(src, "index.json")).read())
write("dup.tar", lay + [("index.json", json.dumps({"schemaVersion": 2, "manifests": []}).encode()),
                        ("index.json", json.dumps(idx).encode())])

# the newer docker save: the layout, annotations as Docker 25 writes them,
# and manifest.json naming the same blobs
m = idx["manifests"][0]
m["annotations"] = {"io.containerd.image.name": "docker.io/library/app:v1",
                    "org.opencontainers.image.ref.name": "v1"}
man = json.load(open(os.path.join(src, "blobs", "sha256", m["digest"][7:])))
dm = [{"Config": "blobs/sha256/" + man["config"]["digest"][7:], "RepoTags": ["app:v1"],
       "Layers": ["blobs/sha256/" + l["digest"][7:] for l in man["layers"]]}]
new = [(n, d) for n, d in lay if n != "index.json"]
write("docker-new.tar", new + [("index.json", json.dumps(idx).encode()),
                               ("manifest.json", json.dumps(dm).encode())])

# a classic docker save holding two images, layers uncompressed in
# "<id>/layer.tar"; with LINK, layer.tar is a symlink to "../<diff_id>.tar"
# (as skopeo writes them)
def classic(name, images, bad_config=False, link=False):
    members, entries, links = [], [], []
    for tag, osr in images:
        t = c.tar_of([("d", "etc"), ("f", "etc/os-release", osr)])
        h = hashlib.sha256(t).hexdigest()
        lid = hashlib.sha256(h.encode() + tag.encode()).hexdigest()
        if link:
            members.append((h + ".tar", t))
            links.append((lid + "/layer.tar", "../" + h + ".tar"))
        else:
            members.append((lid + "/layer.tar", t))
        cfg = c.jbytes({"architecture": "amd64", "os": "linux",
                        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + h]}})
        ch = hashlib.sha256(cfg).hexdigest()
        if bad_config:
            cfg = cfg.replace(b"amd64", b"arm64")
        members.append((ch + ".json", cfg))
        entries.append({"Config": ch + ".json", "RepoTags": [tag], "Layers": [lid + "/layer.tar"]})
    with tarfile.open(os.path.join(W, name), "w", format=tarfile.PAX_FORMAT) as tf:
        for n, data in members + [("manifest.json", json.dumps(entries).encode())]:
            ti = tarfile.TarInfo(n); ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
        for n, target in links:
            ti = tarfile.TarInfo(n); ti.type = tarfile.SYMTYPE; ti.linkname = target
            tf.addfile(ti)
classic("classic.tar", [("example.com/app:v1", b"ID=one\n"), ("example.com/app:v2", b"ID=two\n")])
classic("badconfig.tar", [("app:v1", b"ID=one\n")], bad_config=True)
classic("linked.tar", [("app:v1", b"ID=linked\n")], link=True)
EOF

run() { # NAME ARGS...: probe into $W/NAME.json, expect exit 0
    n=$1; shift
    if "$STACKPRINT" probe --format json -o "$W/$n.json" "$@" 2>"$W/$n.err"; then ok "$n: exit 0"
    else not_ok "$n: exit 0" "$(cat "$W/$n.err")"; fi
}
run src --image "$W/src"
want=$(fact "$W/src.json" image.manifest_digest)
for a in pax gnu dup docker-new; do
    run "$a" --image "$W/$a.tar"
    check "$a.tar: same manifest digest as the layout" test "$(fact "$W/$a.json" image.manifest_digest)" = "$want"
    check "$a.tar: the image's os-release" test "$(fact "$W/$a.json" host.os.id)" = arc
done
check "docker-new: the OCI index is preferred" test "$(fact "$W/docker-new.json" image.manifest_digest_source)" = oci-index
run docker-new-tag --image "$W/docker-new.tar:app:v1"
check "docker-new: the containerd name selects" test "$(fact "$W/docker-new-tag.json" image.ref)" = v1

run classic-v2 --image "$W/classic.tar:example.com/app:v2"
check "classic: RepoTags select the second image" test "$(fact "$W/classic-v2.json" host.os.id)" = two
run classic-short --image "$W/classic.tar:v1"
check "classic: the tag part alone selects" test "$(fact "$W/classic-short.json" host.os.id)" = one
if command -v skopeo >/dev/null; then
    sk=sha256:$(skopeo inspect --raw "docker-archive:$W/classic.tar:example.com/app:v2" | sha256sum | cut -c1-64)
    check "classic: synthesised manifest digest equals skopeo's" \
        test "$(fact "$W/classic-v2.json" image.manifest_digest)" = "$sk"
else
    skip "classic: synthesised manifest digest equals skopeo's" "skopeo missing"
fi
# (skopeo gives a symlinked layer.tar the size 0 in its manifest; stackprint
# uses the size of the file the link names, so no skopeo comparison here)
run linked --image "$W/linked.tar"
check "classic: layer.tar as a symlink inside the archive" test "$(fact "$W/linked.json" host.os.id)" = linked
"$STACKPRINT" probe --image "$W/classic.tar" >/dev/null 2>"$W/err"
rc=$?
check "classic: two images and no tag is exit 4 naming the tags" \
    sh -c "[ $rc = 4 ] && grep -q 'example.com/app:v1, example.com/app:v2' '$W/err'"
"$STACKPRINT" probe --image "$W/badconfig.tar" -o "$W/bad.json" 2>"$W/err"
rc=$?
check "classic: a config unlike its name is exit 3, nothing written" \
    sh -c "[ $rc = 3 ] && grep -q 'its name says' '$W/err' && [ ! -e '$W/bad.json' ]"
