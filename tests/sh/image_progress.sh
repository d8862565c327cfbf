#!/bin/sh
# tests/sh/image_progress.sh: the --image progress line: shown on a terminal
# for an image over SP_IMAGE_PROGRESS_MIN (256 MiB of blobs), never when
# standard error is a file or the image is small.  The terminal is script(1)'s
# pseudo-terminal; the image, one uncompressed 300 MiB layer, is written here
# streaming (tests/sh/image_craft.py).
. tests/lib.sh
command -v script >/dev/null || { skip "progress line" "script(1) missing"; exit 0; }
W=$TMPDIR/prog
mkdir -p "$W"
/usr/bin/python3 - "$W" <<'EOF' || { not_ok "craft a 300 MiB image"; exit 0; }
import hashlib, os, sys, tarfile
sys.path.insert(0, "tests/sh")
import image_craft as c
W = sys.argv[1]
class Zeros:
    def __init__(s, n): s.n = n
    def read(s, k=-1):
        k = s.n if k < 0 else min(k, s.n); s.n -= k; return bytes(k)
class Sink:
    def __init__(s, fh): s.fh, s.h, s.n = fh, hashlib.sha256(), 0
    def tell(s): return s.n
    def write(s, b): s.h.update(b); s.fh.write(b); s.n += len(b); return len(b)
for name, size in (("big", 300 << 20), ("small", 1 << 20)):
    d = os.path.join(W, name); os.makedirs(os.path.join(d, "blobs", "sha256"))
    open(os.path.join(d, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
    tmp = os.path.join(d, "layer")
    with open(tmp, "wb") as fh:
        o = Sink(fh)
        with tarfile.open(fileobj=o, mode="w", format=tarfile.PAX_FORMAT) as tf:
            ti = tarfile.TarInfo("data"); ti.size = size
            tf.addfile(ti, Zeros(size))
    dg = "sha256:" + o.h.hexdigest()
    os.rename(tmp, os.path.join(d, "blobs", "sha256", dg[7:]))
    c.write_manifest(d, {"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": [dg]}},
                     [{"mediaType": c.LAYER["none"], "digest": dg, "size": o.n}], "t")
EOF
script -qec "$STACKPRINT probe --image $W/big -o $W/big.yaml" /dev/null > "$W/tty.out" 2>&1
check "a large image on a terminal shows the progress line" grep -q 'image: [0-9]* of 300 MiB read, [0-9]* MiB/s' "$W/tty.out"
check "the manifest is still written" test -s "$W/big.yaml"
script -qec "$STACKPRINT probe --image $W/small -o $W/small.yaml" /dev/null > "$W/tty2.out" 2>&1
check "a small image shows none" sh -c "! grep -q 'MiB read' '$W/tty2.out'"
"$STACKPRINT" probe --image "$W/big" -o "$W/big2.yaml" 2>"$W/err"
check "standard error not a terminal: nothing on it" test ! -s "$W/err"
