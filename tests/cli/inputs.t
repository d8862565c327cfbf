# Every file stackprint reads is opened without blocking and must be a
# regular file (manifest/manifest_read.c sp_read_file): a FIFO nobody
# writes to, /dev/zero or a folder is a one-line error, exit 4, never a hang.

### check: a FIFO as the manifest is refused at once
$ mkfifo "$T/fifo"
$ stackprint check --policy policies/ "$T/fifo"
? 4
2>~ ^stackprint: .*/fifo: not a regular file$

### check: /dev/zero as the manifest is refused
$ stackprint check --policy policies/ /dev/zero
? 4
2>~ ^stackprint: /dev/zero: not a regular file$

### check: a FIFO as a policy file is refused at once
$ mkfifo "$T/p.yaml"
$ stackprint check --policy "$T/p.yaml" tests/fixtures/manifests/neuron-trn2-native-2.32.yaml
? 4
2>~ ^stackprint: .*/p.yaml: not a regular file$

### check: a FIFO named *.yaml inside a policy folder is skipped or refused, never waited on
$ mkdir "$T/pol" && cp policies/neuron/one-release.yaml "$T/pol/" && mkfifo "$T/pol/z.yaml"
$ timeout 10 stackprint check --policy "$T/pol" tests/fixtures/manifests/neuron-trn2-native-2.32.yaml >/dev/null 2>&1; test $? -ne 124 && echo no-hang
> no-hang

### verify: a FIFO as the envelope is refused at once
$ mkfifo "$T/env"
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --envelope "$T/env" tests/fixtures/sign/manifest.yaml
? 4
2>~ not a regular file$

### check: a manifest that is a folder
$ stackprint check --policy policies/ "$T"
? 4
2>~ ^stackprint: .*: not a regular file$

### an error about a file whose name holds a newline and a non-UTF-8 byte stays one line
$ stackprint check --policy policies/ "$(printf 'no\nsuch\377file')"
? 4
2> stackprint: no\x0asuch\xfffile: No such file or directory
