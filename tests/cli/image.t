# tests/cli/image.t: `stackprint probe --image` on the command line: usage
# errors (exit 2), sources that are not images (exit 4), and a tiny OCI
# layout built in $T with Python's tarfile (tests/sh/image_craft.py) whose
# digests are checked against sha256sum.  The larger cases are in
# tests/sh/image_real.sh (umoci, skopeo) and tests/sh/image_bad.sh.

### --root and --image exclude each other
$ stackprint probe --root / --image x
? 2
2>~ --root and --image exclude each other

### --platform needs --image
$ stackprint probe --platform linux/amd64
? 2
2>~ --platform needs --image

### --platform must be os/arch[/variant]
$ stackprint probe --image x --platform amd64
? 2
2>~ platform 'amd64' is not os/arch\[/variant\]

### a missing image path
$ stackprint probe --image $T/none
? 4
2>~ ^stackprint: .*/none: No such file or directory$

### a directory that is not an image
$ stackprint probe --image tests
? 4
2>~ ^stackprint: tests: neither index.json \(OCI layout\) nor manifest.json \(docker save\) found$

### a file that is not a tar
$ printf 'hello' > $T/x.txt
$ stackprint probe --image $T/x.txt
? 4
2>~ not an OCI layout, OCI archive or docker-save tarball

### a tiny layout: identity facts agree with sha256sum of its blobs
$ /usr/bin/python3 -c 'import sys; sys.path.insert(0, "tests/sh"); import image_craft as c; c.layout(sys.argv[1], [c.tar_of([("d", "etc"), ("f", "etc/os-release", b"ID=tiny\n")])], tag="v1")' $T/img
$ stackprint probe --format json --image $T/img:v1 > $T/m.json
$ m=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"][7:])' $T/img/index.json)
$ f() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"][sys.argv[2]])' $T/m.json $1; }
$ test "$(f image.manifest_digest)" = "sha256:$(sha256sum < $T/img/blobs/sha256/$m | cut -c1-64)" && echo manifest digest is sha256sum of the manifest blob
$ echo $(f host.os.id) $(f image.ref) $(f image.layers) $(f image.manifest_digest_source)
> manifest digest is sha256sum of the manifest blob
> tiny v1 1 oci-index
