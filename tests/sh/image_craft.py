"""tests/sh/image_craft.py: craft OCI image layouts for the image tests,
with Python's own tarfile, gzip, hashlib and json (an implementation
independent of stackprint's).  Used by tests/sh/image_*.sh and
bench/image/run; writes only under the folder it is given.

    layout(dir, layers, tag="t", os_="linux", arch="amd64")   a whole image
    append_layer(dir, tag, tar_bytes, compress="gzip")          one more layer
    tar_of(entries)                                             tar bytes
Entries: ("f", name, bytes[, mode]) file, ("d", name) directory,
("l", name, target) symlink, ("h", name, target) hard link.
"""
import gzip, hashlib, io, json, os, tarfile

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER = {"none": "application/vnd.oci.image.layer.v1.tar",
         "gzip": "application/vnd.oci.image.layer.v1.tar+gzip",
         "zstd": "application/vnd.oci.image.layer.v1.tar+zstd"}


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def tar_of(entries, fmt=tarfile.PAX_FORMAT):
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=fmt) as t:
        for e in entries:
            ti = tarfile.TarInfo(e[1])
            ti.mtime = 0
            if e[0] == "f":
                ti.size = len(e[2])
                ti.mode = e[3] if len(e) > 3 else 0o644
                t.addfile(ti, io.BytesIO(e[2]))
                continue
            if e[0] == "d":
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
            elif e[0] == "l":
                ti.type, ti.linkname = tarfile.SYMTYPE, e[2]
            elif e[0] == "h":
                ti.type, ti.linkname = tarfile.LNKTYPE, e[2]
            t.addfile(ti)
    return bio.getvalue()


def compress(b, how):
    if how == "gzip":
        return gzip.compress(b, mtime=0)
    if how == "none":
        return b
    raise ValueError(how)


def put_blob(d, data):
    dg = sha(data)
    os.makedirs(os.path.join(d, "blobs", "sha256"), exist_ok=True)
    with open(os.path.join(d, "blobs", "sha256", dg[7:]), "wb") as fh:
        fh.write(data)
    return {"digest": dg, "size": len(data)}


def jbytes(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def layout(d, layers, tag="t", os_="linux", arch="amd64", how="gzip"):
    """LAYERS: list of tar bytes.  Returns the manifest descriptor."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "oci-layout"), "w") as fh:
        fh.write('{"imageLayoutVersion":"1.0.0"}')
    descs, diff_ids = [], []
    for t in layers:
        blob = compress(t, how)
        descs.append(dict(mediaType=LAYER[how], **put_blob(d, blob)))
        diff_ids.append(sha(t))
    cfg = {"architecture": arch, "os": os_, "config": {},
           "rootfs": {"type": "layers", "diff_ids": diff_ids}}
    return write_manifest(d, cfg, descs, tag)


def write_manifest(d, cfg, descs, tag, index=None):
    c = put_blob(d, jbytes(cfg))
    man = {"schemaVersion": 2, "mediaType": OCI_MANIFEST,
           "config": dict(mediaType=OCI_CONFIG, **c), "layers": descs}
    m = put_blob(d, jbytes(man))
    desc = dict(mediaType=OCI_MANIFEST, **m)
    if tag is not None:
        desc["annotations"] = {"org.opencontainers.image.ref.name": tag}
    if index is None:
        index = {"schemaVersion": 2, "manifests": [desc]}
    with open(os.path.join(d, "index.json"), "wb") as fh:
        fh.write(jbytes(index))
    return desc


def read_image(d, tag):
    idx = json.load(open(os.path.join(d, "index.json")))
    for i, m in enumerate(idx["manifests"]):
        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag:
            man = json.load(open(os.path.join(d, "blobs", "sha256", m["digest"][7:])))
            cfg = json.load(open(os.path.join(d, "blobs", "sha256", man["config"]["digest"][7:])))
            return idx, i, man, cfg
    raise KeyError(tag)


def append_layer(d, tag, tar_bytes, how="gzip"):
    """Add one layer on top of image TAG of layout D (as umoci would)."""
    idx, i, man, cfg = read_image(d, tag)
    blob = compress(tar_bytes, how)
    man["layers"].append(dict(mediaType=LAYER[how], **put_blob(d, blob)))
    cfg["rootfs"]["diff_ids"].append(sha(tar_bytes))
    cfg.setdefault("history", []).append({"created_by": "image_craft.append_layer"})
    c = put_blob(d, jbytes(cfg))
    man["config"].update(c)
    m = put_blob(d, jbytes(man))
    idx["manifests"][i].update(m)
    with open(os.path.join(d, "index.json"), "wb") as fh:
        fh.write(jbytes(idx))
