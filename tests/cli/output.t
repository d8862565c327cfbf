# Where -o writes (cli/output.c): a regular file is replaced atomically, a
# device or a FIFO is written in place and never replaced, a directory is an
# error.

### -o /dev/null leaves /dev/null a character device
$ stackprint probe --root tests/fixtures/roots/container-bare -o /dev/null && test -c /dev/null && echo device
> device

### -o a FIFO writes into it for its reader, and the FIFO stays a FIFO
$ mkfifo "$T/pipe"
$ (head -n 1 "$T/pipe" > "$T/got") & stackprint probe --root tests/fixtures/roots/container-bare -o "$T/pipe"; wait
$ cat "$T/got"; test -p "$T/pipe" && echo fifo
> schema: "stackprint/manifest/v2"
> fifo

### -o a directory is an error naming it, exit 4
$ stackprint probe --root tests/fixtures/roots/container-bare -o "$T"
? 4
2>~ ^stackprint: .*: is a directory$

### -o a regular file replaces it whole and leaves no temporary file
$ echo old > "$T/m.yaml"
$ stackprint probe --root tests/fixtures/roots/container-bare -o "$T/m.yaml"
$ head -n 1 "$T/m.yaml"; ls "$T" | wc -l
> schema: "stackprint/manifest/v2"
> 1

### SIGTERM while -o is being written: the file is completed (or untouched), no temporary file is left
# (strace holds fsync for 1.5 s; the signal arrives in the middle; leak checks
# off because LeakSanitizer cannot run under ptrace)
$ ASAN_OPTIONS=detect_leaks=0 strace -f -o /dev/null -e inject=fsync:delay_enter=1500000 stackprint probe --root tests/fixtures/roots/container-bare -o "$T/m.yaml" &
$ sleep 0.8; pkill -TERM -P $! -x stackprint; wait
$ ls "$T" | grep -c 'tmp' ; head -n 1 "$T/m.yaml"
> 0
> schema: "stackprint/manifest/v2"

### check: a YAML report inside a policy folder is refused (the next check would load it), exit 2
$ mkdir -p "$T/pol/sub" && cp policies/neuron/one-release.yaml "$T/pol/"
$ stackprint check -p "$T/pol" -o "$T/pol/sub/report.yaml" tests/fixtures/manifests/neuron-2.16.yaml
? 2
2>~ is inside the policy folder .*; the next check would load it as a policy

### check: a report next to the policy folder is fine
$ mkdir -p "$T/pol" && cp policies/neuron/one-release.yaml "$T/pol/"
$ stackprint check -p "$T/pol" -o "$T/report.yaml" tests/fixtures/manifests/neuron-2.16.yaml && test -s "$T/report.yaml" && echo written
> written

### probe: -o naming the image file of PATH:TAG is refused, exit 2
$ touch "$T/img.tar"
$ stackprint probe --image "$T/img.tar:latest" -o "$T/img.tar"
? 2
2>~ output '.*/img.tar' is the image; it would be overwritten
