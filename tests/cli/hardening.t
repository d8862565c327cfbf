# tests/cli/hardening.t: inputs that once steered stackprint (an injective
# stack id, DSSE multi-signature semantics, never blocking, complete fact
# sets).  Fixtures under tests/fixtures/hostile/ (README.md there says each
# fault and the right result).

### a v1 manifest is refused with one line saying how to renew it
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml tests/fixtures/hostile/stackid-collision/a.yaml
? 4
2>~ ^stackprint: tests/fixtures/hostile/stackid-collision/a.yaml:1:9: stackprint/manifest/v1 has the old stack_id definition; probe again, or rewrite a test fixture with the source tree's tests/restamp tests/fixtures/hostile/stackid-collision/a.yaml$

### the two fact sets that shared a v1 stack id get distinct ids (tests/restamp's hashlib as the oracle), and stackprint reads both
$ cp tests/fixtures/hostile/stackid-collision/a.yaml tests/fixtures/hostile/stackid-collision/b.yaml $T/
$ tests/restamp $T/a.yaml $T/b.yaml
$ a=$(grep '^stack_id' $T/a.yaml); b=$(grep '^stack_id' $T/b.yaml); [ "$a" != "$b" ] && echo distinct
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml $T/a.yaml >/dev/null; echo "a: $?"
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml $T/b.yaml >/dev/null; echo "b: $?"
> distinct
> a: 1
> b: 0

### a fact key outside the alphabet is refused, even with a matching stack id
$ printf 'schema: "stackprint/manifest/v2"\ntool: "t"\ncreated: "2026-11-29T08:00:00Z"\nsubject: "s"\nstack_id: "sha256:0"\nfacts:\n  "pip.torch=2.3\\npython.version": "3.10"\n' > $T/k.yaml
$ tests/restamp $T/k.yaml
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml $T/k.yaml
? 4
2>~ ^stackprint: .*/k.yaml:7:3: fact key 'pip.torch=2.3\?python.version' is not 1 to 256 bytes of a-z A-Z 0-9 \. _ \+ : - starting with a-z$

### DSSE multi-signature: a mislabelled signature, then the signer's own unlabelled one, verifies
$ stackprint verify --pub tests/fixtures/hostile/dsse-keyid-hint/signer.pub --envelope tests/fixtures/hostile/dsse-keyid-hint/env-c-mislabelled-then-unlabelled.json tests/fixtures/hostile/dsse-keyid-hint/m.json
? 0
>~ ^verified: m.json sha256:0331820bdf10d0030d9b71b626f6e86e2caaf067e89b367a913579030387b07e signed by key 4a60abfcd7f2441966d9df257477ceab8fb3c46fa09750d57f6c0de0a9fcb368,

### DSSE multi-signature: a mislabelled signature, then the signer's own with keyid "", verifies
$ stackprint verify --pub tests/fixtures/hostile/dsse-keyid-hint/signer.pub --envelope tests/fixtures/hostile/dsse-keyid-hint/env-d-mislabelled-then-emptykeyid.json tests/fixtures/hostile/dsse-keyid-hint/m.json
? 0
>~ ^verified: m.json sha256:0331820bdf10d0030d9b71b626f6e86e2caaf067e89b367a913579030387b07e

### a file with the image config's digest never verifies as the manifest, and the message names the subject it matched
$ stackprint sign --key tests/fixtures/sign/ed25519.key -o $T/e.json tests/fixtures/sign/image.yaml
$ printf x > $T/cfg
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope $T/e.json $T/cfg
? 3
2>~ subject check failed: .*/cfg has the sha256 of subject\[1\] "app.tar:latest", which the manifest describes, not of the manifest itself \(subject\[0\] "image.yaml"\)$

### the image manifest itself verifies against its own subject
$ stackprint sign --key tests/fixtures/sign/ed25519.key -o $T/e.json tests/fixtures/sign/image.yaml
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope $T/e.json tests/fixtures/sign/image.yaml
>~ ^verified: image.yaml sha256:

### a one_of list of 120,000 values is shown whole, built in linear time (it took seconds with strcat)
$ /usr/bin/python3 -c 'print("policy: big\nrequire:\n  host.instance_family:\n    one_of: [%s, trn1]" % ",".join("v%d" % i for i in range(120000)))' > $T/p.yaml
$ stackprint check --policy $T/p.yaml --format json -o $T/r.json tests/fixtures/manifests/neuron-2.16.yaml
$ /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; s=r["supported"]; print(r["verdict"], s.startswith("one of v0, v1, v2, "), s.endswith(", v119999, trn1"), s.count(", ") + 1)' $T/r.json
> ok True True 120001

### never block: a FIFO named as a key, also as a file: URI, is refused like a plain path
$ mkfifo $T/f
$ stackprint verify --pub file:$T/f tests/fixtures/sign/manifest.yaml
? 4
2>~ ^stackprint: file:.*/f: not a regular file$

### never block: file://localhost/PATH is the local PATH; file://otherhost/PATH is refused
$ stackprint verify --pub file://localhost$TOP/tests/fixtures/sign/ed25519.pub tests/fixtures/sign/manifest.yaml
$ stackprint verify --pub file://otherhost/k.pub tests/fixtures/sign/manifest.yaml
? 4
>~ ^verified: manifest.yaml
2>~ ^stackprint: file://otherhost/k.pub: a file: URI must name a local path

### never block: every input that is a FIFO is refused at once (policy, manifest, envelope, key, root file)
$ mkfifo $T/f
$ stackprint check --policy $T/f tests/fixtures/manifests/neuron-2.16.yaml; echo "policy $?"
$ stackprint check --policy policies/ $T/f; echo "manifest $?"
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope $T/f tests/fixtures/sign/manifest.yaml; echo "envelope $?"
$ stackprint sign --key $T/f tests/fixtures/sign/manifest.yaml; echo "key $?"
> policy 4
> manifest 4
> envelope 4
> key 4

### never block: -o to a FIFO no process reads is refused at once (exit 4), not waited on
$ mkfifo $T/f
$ stackprint check --policy tests/fixtures/policies/ -o $T/f tests/fixtures/manifests/neuron-2.16.yaml
? 4
2>~ ^stackprint: .*/f: a FIFO no process is reading; not written$

### -o to a FIFO with a reader is written in place
# (the test waits until cat sleeps in its open of the FIFO, where it already
# counts as a reader: a probe that ran before would rightly refuse the FIFO
# and leave cat blocked for ever; the wait itself gives up after about 10 s)
$ mkfifo $T/f
$ cat $T/f > $T/got & r=$!; i=0; until [ "$(cat /proc/$r/comm 2>/dev/null)" = cat ] && grep -q '^State:.*S' /proc/$r/status 2>/dev/null || [ $i -ge 1000 ]; do sleep 0.01; i=$((i + 1)); done; stackprint probe --root tests/fixtures/roots/inf2 --format json -o $T/f; wait
$ /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"]["pip.torch"])' $T/got
> 2.9.0

### probe -o FILE --sign KEY: what a killed run left (the new manifest, its envelope still a temporary) is finished or removed by the next run, and no mixed pair verifies
$ stackprint keygen --type ed25519 -o $T/k >/dev/null
$ stackprint probe --root tests/fixtures/roots/inf2 -o $T/m.yaml --sign $T/k.key
$ stackprint probe --root tests/fixtures/roots/trn2-native -o $T/new.yaml --sign $T/k.key
$ dead=$(sh -c 'echo $$')
$ cp $T/new.yaml $T/m.yaml; cp $T/new.yaml.intoto.json $T/m.yaml.intoto.json.tmp.$dead.abcdef; cp $T/new.yaml $T/m.yaml.tmp.$dead.ghijkl
$ stackprint verify --pub $T/k.pub $T/m.yaml >/dev/null 2>&1; echo "mixed pair: $?"
$ stackprint probe --root tests/fixtures/roots/inf2 -o $T/m.yaml --sign $T/k.key
$ ls $T | grep -c '\.tmp\.'; stackprint verify --pub $T/k.pub $T/m.yaml >/dev/null && echo verified
> mixed pair: 3
> 0
> verified
