#!/bin/sh
# tests/sh/image_bad.sh: `stackprint probe --image` on crafted bad images
# (tests/sh/image_craft.py, Python's tarfile/gzip/json): each must give a
# one-line error and its documented exit status (stackprint-probe(1),
# IMAGE), never a crash, and write no manifest; and the odd-but-valid ones
# (duplicates, non-UTF-8 names, sparse 10 GiB entries, symlinks aimed out
# of the image, platform and tag selection) must read as documented.
. tests/lib.sh
W=$TMPDIR/bad
mkdir -p "$W"
export SOURCE_DATE_EPOCH=0

/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft the bad images"; exit 0; }
import copy, gzip, io, json, os, shutil, sys, tarfile
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]
OSR = b'ID=inside\nVERSION_ID="1"\n'
base = [("d", "etc"), ("f", "etc/os-release", OSR)]

def mk(name, layers, **kw):
    d = os.path.join(W, name)
    c.layout(d, layers, **kw)
    return d

def blob_path(d, digest):
    return os.path.join(d, "blobs", "sha256", digest[7:])

def man_of(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    m = idx["manifests"][0]
    return idx, json.load(open(blob_path(d, m["digest"])))

good = mk("good", [c.tar_of(base)])

# a truncated layer file (shorter than its descriptor)
d = mk("truncated", [c.tar_of(base + [("f", "big", os.urandom(20000))])])
idx, man = man_of(d)
p = blob_path(d, man["layers"][0]["digest"])
data = open(p, "rb").read()
open(p, "wb").write(data[: len(data) // 2])

# a gzip stream cut short, with descriptors that agree with the cut bytes
t = c.tar_of(base + [("f", "big", os.urandom(20000))])
gz = gzip.compress(t, mtime=0)[:-3000]
d = os.path.join(W, "gzcut"); os.makedirs(d)
open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
desc = dict(mediaType=c.LAYER["gzip"], **c.put_blob(d, gz))
c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                     "rootfs": {"type": "layers", "diff_ids": [c.sha(t)]}}, [desc], "t")

# a layer whose bytes do not match its digest (same size)
d = mk("digest", [c.tar_of(base)])
idx, man = man_of(d)
p = blob_path(d, man["layers"][0]["digest"])
b = bytearray(open(p, "rb").read()); b[-5] ^= 0xff
open(p, "wb").write(bytes(b))

# three layers read at once, the middle one corrupt: the others stop early
d = mk("digest3", [c.tar_of(base + [("f", "f%d" % i, os.urandom(300000))]) for i in range(3)])
idx, man = man_of(d)
p = blob_path(d, man["layers"][1]["digest"])
b = bytearray(open(p, "rb").read()); b[100] ^= 0xff
open(p, "wb").write(bytes(b))

# a config diff_id that does not match the layer
t = c.tar_of(base)
d = os.path.join(W, "diffid"); os.makedirs(d)
open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
desc = dict(mediaType=c.LAYER["gzip"], **c.put_blob(d, gzip.compress(t)))
c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                     "rootfs": {"type": "layers", "diff_ids": [c.sha(t + b"x")]}}, [desc], "t")

# a manifest naming a missing blob
d = mk("missing", [c.tar_of(base)])
idx, man = man_of(d)
os.unlink(blob_path(d, man["layers"][0]["digest"]))

# entry names
mk("dotdot", [c.tar_of(base + [("f", "etc/../../escape", b"x")])])
mk("absolute", [c.tar_of(base + [("f", "/etc/passwd", b"x")])])
mk("linkout", [c.tar_of([("d", "etc"), ("d", "usr/lib"),
                         ("f", "usr/lib/os-release", OSR),
                         ("l", "etc/os-release", "../../../../../../usr/lib/os-release"),
                         ("l", "etc/hostname", "/etc/shadow")])])
mk("hardmissing", [c.tar_of(base + [("h", "etc/link", "etc/nothing-here")])])
mk("longname", [c.tar_of(base + [("f", "d/" + "n" * 5000, b"x")])])
mk("dup", [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=first\n"),
                     ("f", "etc/os-release", b"ID=second\n")])])
mk("nonutf8", [c.tar_of(base + [("f", "etc/caf\udcff", b"x")], fmt=tarfile.GNU_FORMAT)])

EOF
# the bomb and the sparse entry are written streaming, never whole in memory
/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft the bomb and sparse images"; exit 0; }
import gzip, hashlib, io, json, os, sys, tarfile, zlib
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]

def stream_layout(name, write_tar):
    """Write a one-layer layout whose tar is produced by WRITE_TAR(fh),
    gzip-compressed while streaming, hashing both sides."""
    d = os.path.join(W, name); os.makedirs(os.path.join(d, "blobs", "sha256"))
    open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
    tmp = os.path.join(d, "layer.tmp")
    class Out:
        def __init__(s, fh):
            s.fh, s.h, s.z, s.n = fh, hashlib.sha256(), zlib.compressobj(6, zlib.DEFLATED, 31), 0
        def tell(s): return s.n
        def write(s, b):
            s.h.update(b); s.fh.write(s.z.compress(bytes(b))); s.n += len(b); return len(b)
    with open(tmp, "wb") as fh:
        o = Out(fh)
        write_tar(o)
        fh.write(o.z.flush())
    data = open(tmp, "rb").read(); os.unlink(tmp)
    desc = dict(mediaType=c.LAYER["gzip"], **c.put_blob(d, data))
    c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": ["sha256:" + o.h.hexdigest()]}},
                     [desc], "t")

# a gzip bomb: 1 GiB of zeros in one entry (about 1 MB compressed)
def bomb(o):
    with tarfile.open(fileobj=o, mode="w", format=tarfile.PAX_FORMAT) as tf:
        ti = tarfile.TarInfo("zeros"); ti.size = 1 << 30
        tf.addfile(ti, ZeroReader(1 << 30))
class ZeroReader:
    def __init__(s, n): s.n = n
    def read(s, k=-1):
        k = s.n if k < 0 else min(k, s.n); s.n -= k; return bytes(k)
stream_layout("bomb", bomb)

# a GNU sparse 1.0 (pax) entry of 10 GiB holding 4 KiB of data, named like a
# kept file (so its content would be kept if the bound did not hold)
def sparse(o):
    real = 10 << 30
    def pax(name, recs):
        body = b""
        for k, v in recs:
            r = f" {k}={v}\n".encode()
            n = len(r) + 1
            while len(str(n)) + len(r) != n:
                n = len(str(n)) + len(r)
            body += str(n).encode() + r
        ti = tarfile.TarInfo(name); ti.type = tarfile.XHDTYPE; ti.size = len(body)
        return ti.tobuf(tarfile.USTAR_FORMAT) + body + bytes(-len(body) % 512)
    hdr = pax("PaxHeaders/METADATA", [("GNU.sparse.major", "1"), ("GNU.sparse.minor", "0"),
              ("GNU.sparse.name", "usr/lib/python3/dist-packages/huge-1.0.dist-info/METADATA"),
              ("GNU.sparse.realsize", str(real))])
    mapblock = b"1\n" + str(real - 4096).encode() + b"\n4096\n"
    mapblock += bytes(-len(mapblock) % 512)
    data = b"Metadata-Version: 2.1\n" + bytes(4096 - 22)
    ti = tarfile.TarInfo("GNUSparseFile.0/METADATA"); ti.size = len(mapblock) + 4096
    o.write(hdr + ti.tobuf(tarfile.USTAR_FORMAT) + mapblock + data + bytes(1024))
stream_layout("sparse", sparse)
EOF

/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft the bad JSON"; exit 0; }
import json, os, shutil, sys
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]
good = os.path.join(W, "good")
def variant(name, index=None, raw=None):
    d = os.path.join(W, name)
    shutil.copytree(good, d)
    if raw is not None:
        open(os.path.join(d, "index.json"), "w").write(raw)
    elif index is not None:
        open(os.path.join(d, "index.json"), "w").write(json.dumps(index))
idx = json.load(open(os.path.join(good, "index.json")))
m = idx["manifests"][0]
variant("noimages", {"schemaVersion": 2, "manifests": []})
variant("notarray", {"schemaVersion": 2, "manifests": {"a": 1}})
variant("sizestring", {"schemaVersion": 2, "manifests": [dict(m, size=str(m["size"]))]})
variant("schema1", {"schemaVersion": 1, "manifests": [m]})
variant("badjson", raw='{"schemaVersion": 2, "manifests": [')
variant("dupkey", raw='{"schemaVersion": 2, "schemaVersion": 2, "manifests": []}')
variant("sha512", {"schemaVersion": 2, "manifests": [dict(m, digest="sha512:" + "0" * 128)]})
variant("bigjson", raw='{"schemaVersion": 2, "manifests": [], "x": "' + "a" * (5 << 20) + '"}')
# more layers than the bound: the count is refused before any blob is read
d = os.path.join(W, "manylayers"); os.makedirs(d)
open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
l = dict(mediaType=c.LAYER["gzip"], digest="sha256:" + "0" * 64, size=1)
c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                     "rootfs": {"type": "layers", "diff_ids": [l["digest"]] * 1001}},
                 [l] * 1001, "t")
# nested indexes deeper than the bound
d = os.path.join(W, "deep"); shutil.copytree(good, d)
inner = json.load(open(os.path.join(d, "index.json")))
for i in range(5):
    b = c.put_blob(d, c.jbytes(inner))
    inner = {"schemaVersion": 2, "manifests": [dict(mediaType="application/vnd.oci.image.index.v1+json", **b)]}
open(os.path.join(d, "index.json"), "w").write(json.dumps(inner))
# a multi-platform index (two images) and a two-tag index
d = os.path.join(W, "multi"); os.makedirs(d)
a = c.layout(d, [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=amd\n")])], tag="x", arch="amd64")
b = c.layout(d, [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=arm\n")])], tag="x", arch="arm64")
a["platform"] = {"os": "linux", "architecture": "amd64"}
b["platform"] = {"os": "linux", "architecture": "arm64"}
open(os.path.join(d, "index.json"), "w").write(json.dumps({"schemaVersion": 2, "manifests": [a, b]}))
d = os.path.join(W, "tags"); os.makedirs(d)
a = c.layout(d, [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=one\n")])], tag="one")
b = c.layout(d, [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=two\n")])], tag="two")
open(os.path.join(d, "index.json"), "w").write(json.dumps({"schemaVersion": 2, "manifests": [a, b]}))
# trailing bytes after the gzip stream: zeros are padding, others an error
for name, tail in (("gzpad", bytes(1000)), ("gzjunk", b"junk")):
    d = os.path.join(W, name); os.makedirs(d)
    open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
    t = c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=pad\n")])
    desc = dict(mediaType=c.LAYER["gzip"], **c.put_blob(d, c.compress(t, "gzip") + tail))
    c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": [c.sha(t)]}}, [desc], "t")
# a gzip layer in two members (as pigz or concatenated streams write it)
d = os.path.join(W, "gzmulti"); os.makedirs(d)
open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
t = c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=multi\n"), ("f", "pad", os.urandom(5000))])
desc = dict(mediaType=c.LAYER["gzip"], **c.put_blob(d, c.compress(t[:3000], "gzip") + c.compress(t[3000:], "gzip")))
c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                     "rootfs": {"type": "layers", "diff_ids": [c.sha(t)]}}, [desc], "t")
# a layer that is not a tar
d = os.path.join(W, "nottar"); os.makedirs(d)
open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
t = os.urandom(3000)
desc = dict(mediaType=c.LAYER["gzip"], **c.put_blob(d, c.compress(t, "gzip")))
c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                     "rootfs": {"type": "layers", "diff_ids": [c.sha(t)]}}, [desc], "t")
EOF
(cd "$W/good" && tar cf "$W/good.tar" oci-layout index.json blobs && gzip -c "$W/good.tar" > "$W/good.tar.gz")

# expect NAME EXIT REGEX ARGS...: exit status, one stderr line matching REGEX,
# and no manifest written
expect() {
    n=$1 want=$2 rx=$3; shift 3
    rm -f "$W/out.json"
    "$STACKPRINT" probe --format json -o "$W/out.json" "$@" >"$W/stdout" 2>"$W/stderr"
    got=$?
    lines=$(wc -l < "$W/stderr")
    if [ "$got" = "$want" ] && [ "$lines" = 1 ] && grep -Eq -- "$rx" "$W/stderr" &&
       [ ! -e "$W/out.json" ]; then ok "$n"
    else not_ok "$n" "exit $got (want $want), $lines stderr lines: $(head -c 600 "$W/stderr")"; fi
}
expect "truncated layer file: exit 3" 3 'bytes, its descriptor says' --image "$W/truncated"
expect "gzip stream cut short: exit 4" 4 'gzip stream ends early' --image "$W/gzcut"
expect "layer digest mismatch: exit 3" 3 'sha256 is sha256:[0-9a-f]{64}, its descriptor says' --image "$W/digest"
expect "one corrupt layer of three read at once: exit 3" 3 'its descriptor says .*\(layer 1\)' --image "$W/digest3"
expect "diff_id mismatch: exit 3" 3 "the config's diff_id says" --image "$W/diffid"
expect "manifest names a missing blob: exit 4" 4 'missing \(layer 0' --image "$W/missing"
expect "entry with '..': exit 4" 4 "'\.\.' component" --image "$W/dotdot"
expect "absolute entry name: exit 4" 4 'absolute entry name' --image "$W/absolute"
expect "hard link to a missing target: exit 4" 4 'hard link etc/link points to etc/nothing-here, which is missing' --image "$W/hardmissing"
expect "entry name over 4096 bytes: exit 4" 4 'name longer than the limit' --image "$W/longname"
expect "gzip bomb stops at the ratio bound: exit 4" 4 'inflates more than 200 times' --image "$W/bomb"
expect "index.json with no images: exit 4" 4 'index.json: no images' --image "$W/noimages"
expect "manifests not an array: exit 4" 4 'no "manifests" array' --image "$W/notarray"
expect "size as a string: exit 4" 4 'has no valid size' --image "$W/sizestring"
expect "schemaVersion 1: exit 4" 4 'schemaVersion is not 2' --image "$W/schema1"
expect "truncated JSON: exit 4" 4 'index.json' --image "$W/badjson"
expect "duplicate JSON key: exit 4" 4 'index.json' --image "$W/dupkey"
expect "sha512 digest: exit 4" 4 'only sha256 is read' --image "$W/sha512"
expect "index.json over 4 MiB: exit 4" 4 'larger than 4194304 bytes' --image "$W/bigjson"
expect "more than 1000 layers: exit 4" 4 '1001 layers, more than 1000' --image "$W/manylayers"
expect "indexes nested too deep: exit 4" 4 'nested deeper than 4' --image "$W/deep"
expect "bytes after the gzip stream: exit 4" 4 'bytes after the end of the gzip stream' --image "$W/gzjunk"
expect "a layer that is not a tar: exit 4" 4 'tar: ' --image "$W/nottar"
expect "a compressed archive: exit 4" 4 'decompress first' --image "$W/good.tar.gz"
expect "a missing path: exit 4" 4 'No such file' --image "$W/nothing-here"
expect "unknown tag: exit 4, lists the tags" 4 "no image tagged 'three' \(tags: one, two\)" --image "$W/tags:three"
expect "several images, no tag: exit 4" 4 '2 images match' --image "$W/tags"
expect "no image for the platform: exit 4" 4 'no image for platform linux/s390x \(have: linux/amd64, linux/arm64\)' --image "$W/multi" --platform linux/s390x
expect "malformed --platform: exit 2" 2 'is not os/arch' --image "$W/multi" --platform linux
expect "--platform without --image: exit 2" 2 'needs --image' --platform linux/amd64

# odd but valid
run() { # NAME ARGS...: probe into $W/NAME.json, expect exit 0
    n=$1; shift
    if "$STACKPRINT" probe --format json -o "$W/$n.json" "$@" 2>"$W/$n.err"; then ok "$n: exit 0"
    else not_ok "$n: exit 0" "$(cat "$W/$n.err")"; fi
}
run good --image "$W/good:t"
run goodtar --image "$W/good.tar"
check "an OCI archive reads as its layout" test "$(fact "$W/good.json" image.manifest_digest)" = "$(fact "$W/goodtar.json" image.manifest_digest)"
run linkout --image "$W/linkout"
check "a symlink aimed out of the image resolves inside it" test "$(fact "$W/linkout.json" host.os.id)" = inside
check "an absolute symlink to a host file is not followed out" test -z "$(fact "$W/linkout.json" host.hostname)"
run dup --image "$W/dup"
check "duplicate entries: the later one wins" test "$(fact "$W/dup.json" host.os.id)" = second
run nonutf8 --image "$W/nonutf8"
check "a non-UTF-8 name does not stop the probe" test "$(fact "$W/nonutf8.json" host.os.id)" = inside
start=$(date +%s)
run sparse --image "$W/sparse"
check "a 10 GiB sparse entry is skipped, not read (under 20 s)" test $(( $(date +%s) - start )) -lt 20
run gzpad --image "$W/gzpad"
check "zero padding after the gzip stream counts in the blob digest only" test "$(fact "$W/gzpad.json" host.os.id)" = pad
run gzmulti --image "$W/gzmulti"
check "a gzip layer of two members reads whole" test "$(fact "$W/gzmulti.json" host.os.id)" = multi
"$STACKPRINT" probe --format json -o "$W/multi.json" --image "$W/multi" --platform linux/arm64 2>"$W/multi.err"
check "--platform selects the arm64 image" test "$(fact "$W/multi.json" host.os.id)" = arm
check "the choice is said on stderr" grep -q 'chose 2 of 2: linux/arm64' "$W/multi.err"
check "image.architecture of the chosen image" test "$(fact "$W/multi.json" image.architecture)" = arm64
run tag --image "$W/tags:two"
check "a tag selects its image" test "$(fact "$W/tag.json" host.os.id)" = two
check "image.ref is the tag" test "$(fact "$W/tag.json" image.ref)" = two

# nothing is extracted: the working folder and TMPDIR stay empty
mkdir -p "$W/cwd" "$W/tmp"
(cd "$W/cwd" && TMPDIR="$W/tmp" "$STACKPRINT" probe --image "$W/linkout" >"$W/stdout.yaml" 2>/dev/null)
check "nothing written to the working folder or TMPDIR" \
    test -z "$(ls -A "$W/cwd" "$W/tmp" | grep -v ':$' | grep -v '^$')" -a -s "$W/stdout.yaml"
