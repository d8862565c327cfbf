# tests/cli/robustness.t: what a new user's trial ran into: manifests whose
# values are not strings or whose stack_id does not match their facts,
# outputs that would overwrite an input, and odd output targets.

### a JSON number is not a version: 2.3 would be read as 2.2999999999999998
$ sed 's/"2.9.0+cu121"/2.3/' tests/fixtures/manifests/trn1-native.json > $T/num.json
$ grep -q '"pip.torch": 2.3,' $T/num.json || echo "no number made"
$ stackprint check -p tests/fixtures/policies $T/num.json
? 4
2>~ ^stackprint: .*/num.json: fact value must be a string: pip.torch$

### JSON true is not text either
$ sed 's/"2.9.0+cu121"/true/' tests/fixtures/manifests/trn1-native.json > $T/true.json
$ stackprint check -p tests/fixtures/policies $T/true.json
? 4
2>~ ^stackprint: .*/true.json: fact value must be a string: pip.torch$

### a JSON number is not a time
$ sed 's/"created": "[^"]*"/"created": 5/' tests/fixtures/manifests/trn1-native.json > $T/created.json
$ stackprint check -p tests/fixtures/policies $T/created.json
? 4
2>~ ^stackprint: .*/created.json: created must be a text, not a number$

### a fact edited after probing: check refuses it
$ sed 's/"trn2"/"trn1"/' tests/fixtures/manifests/trn2-xla.yaml > $T/edited.yaml
$ stackprint check -p tests/fixtures/policies $T/edited.yaml
? 4
2>~ ^stackprint: .*/edited.yaml: stack_id does not match the facts \(edited after probing\?\)$

### a fact edited after probing: sign refuses it and writes no envelope
$ sed 's/"trn2"/"trn1"/' tests/fixtures/manifests/trn2-xla.yaml > $T/edited.yaml
$ stackprint sign -k tests/fixtures/sign/ed25519.key $T/edited.yaml; echo "exit $?"; ls $T
> exit 4
> edited.yaml
2>~ ^stackprint: .*/edited.yaml: stack_id does not match the facts \(edited after probing\?\)$

### the same file with its stack_id recomputed (tests/restamp, hashlib as the oracle) is read
$ sed 's/"trn2"/"trn1"/' tests/fixtures/manifests/trn2-xla.yaml > $T/edited.yaml
$ tests/restamp $T/edited.yaml
$ stackprint check -p tests/fixtures/policies/neuron-driver.yaml $T/edited.yaml > /dev/null

### created must be RFC 3339 UTC
$ sed 's/^created: .*/created: "yesterday"/' tests/fixtures/manifests/trn2-xla.yaml > $T/y.yaml
$ stackprint check -p tests/fixtures/policies $T/y.yaml
? 4
2>~ ^stackprint: .*/y.yaml:5:10: created is not an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ$

### stack_id must be sha256 and 64 lowercase hex
$ sed 's/^stack_id: .*/stack_id: "md5:zz"/' tests/fixtures/manifests/trn2-xla.yaml > $T/z.yaml
$ stackprint check -p tests/fixtures/policies $T/z.yaml
? 4
2>~ ^stackprint: .*/z.yaml:[0-9]+:11: stack_id is not "sha256:" and 64 lowercase hex digits$

### sign: -o naming the key file is refused; the key is unchanged
$ cp tests/fixtures/sign/ed25519.key $T/x.key
$ stackprint sign -k $T/x.key -o $T/x.key tests/fixtures/sign/manifest.yaml; echo "exit $?"; cmp $T/x.key tests/fixtures/sign/ed25519.key && echo same
> exit 2
> same
2>~ ^stackprint sign: output '.*/x.key' is the key file; it would be overwritten

### sign: -o naming the manifest (here through a symbolic link) is refused
$ cp tests/fixtures/sign/manifest.yaml $T/m.yaml; ln -s m.yaml $T/link
$ stackprint sign -k tests/fixtures/sign/ed25519.key -o $T/link $T/m.yaml; echo "exit $?"; cmp $T/m.yaml tests/fixtures/sign/manifest.yaml && echo same
> exit 2
> same
2>~ is the manifest; it would be overwritten

### sign: the default envelope name may not be the key either
$ cp tests/fixtures/sign/manifest.yaml $T/m.yaml; cp tests/fixtures/sign/ed25519.key $T/m.yaml.intoto.json
$ stackprint sign -k $T/m.yaml.intoto.json $T/m.yaml; echo "exit $?"; cmp $T/m.yaml.intoto.json tests/fixtures/sign/ed25519.key && echo same
> exit 2
> same
2>~ is the key file

### check: -o naming a policy or the manifest is refused; both unchanged
$ cp tests/fixtures/policies/neuron-driver.yaml $T/p.yaml; cp tests/fixtures/manifests/trn2-xla.yaml $T/m.yaml
$ stackprint check -p $T/p.yaml -o $T/p.yaml $T/m.yaml; echo "exit $?"
$ stackprint check -p $T/p.yaml -o $T/m.yaml $T/m.yaml; echo "exit $?"
$ cmp $T/p.yaml tests/fixtures/policies/neuron-driver.yaml && cmp $T/m.yaml tests/fixtures/manifests/trn2-xla.yaml && echo same
> exit 2
> exit 2
> same
2>~ ^stackprint check: output '.*/p.yaml' is the policy '.*/p.yaml'; it would be overwritten
2>~ ^stackprint check: output '.*/m.yaml' is the manifest '.*/m.yaml'; it would be overwritten

### probe --sign: neither -o nor its envelope may be the key
$ mkdir $T/r; cp tests/fixtures/sign/ed25519.key $T/x.key; cp tests/fixtures/sign/ed25519.key $T/m.intoto.json
$ stackprint probe --root $T/r --sign $T/x.key -o $T/x.key; echo "exit $?"
$ stackprint probe --root $T/r --sign $T/m.intoto.json -o $T/m; echo "exit $?"
$ cmp $T/x.key tests/fixtures/sign/ed25519.key && cmp $T/m.intoto.json tests/fixtures/sign/ed25519.key && ls $T
> exit 2
> exit 2
> m.intoto.json
> r
> x.key
2>~ output '.*/x.key' is the signing key
2>~ envelope '.*/m.intoto.json' is the signing key

### probe --sign -o /dev/null: no envelope beside a device
$ mkdir $T/r
$ stackprint probe --root $T/r --sign tests/fixtures/sign/ed25519.key -o /dev/null; echo "exit $?"; ls /dev/null.intoto.json 2>/dev/null || echo "no envelope"
> exit 2
> no envelope
2>~ ^stackprint probe: with --sign, -o '/dev/null' must be a regular file

### SOURCE_DATE_EPOCH: the last second RFC 3339 can write (date(1) as the oracle)
$ mkdir $T/r
$ SOURCE_DATE_EPOCH=253402300799 stackprint probe --root $T/r | grep '^created:'
$ echo "created: \"$(date -u -d @253402300799 +%Y-%m-%dT%H:%M:%SZ)\""
> created: "9999-12-31T23:59:59Z"
> created: "9999-12-31T23:59:59Z"

### SOURCE_DATE_EPOCH: past year 9999, huge, blanks, signs are usage errors naming it
$ mkdir $T/r
$ for v in 253402300800 67768036191676799 99999999999999999999999 ' 12' '12 ' +12 -1 0x10 1e3; do SOURCE_DATE_EPOCH="$v" stackprint probe --root $T/r >/dev/null 2>$T/err; echo "$? $(grep -c "SOURCE_DATE_EPOCH '$v' is not a number of seconds" $T/err)"; done
> 2 1
> 2 1
> 2 1
> 2 1
> 2 1
> 2 1
> 2 1
> 2 1
> 2 1

### SOURCE_DATE_EPOCH=0 is the epoch
$ mkdir $T/r
$ SOURCE_DATE_EPOCH=0 stackprint probe --root $T/r | grep '^created:'
> created: "1970-01-01T00:00:00Z"

### a full stdout is one error line and exit 4, for a command, --help and --version
$ mkdir $T/r
$ stackprint probe --root $T/r > /dev/full 2>$T/e1; echo "exit $? $(wc -l < $T/e1)"
$ stackprint --help > /dev/full 2>$T/e2; echo "exit $? $(wc -l < $T/e2)"
$ stackprint --version > /dev/full 2>$T/e3; echo "exit $? $(wc -l < $T/e3)"
$ stackprint sign --help > /dev/full 2>$T/e4; echo "exit $? $(wc -l < $T/e4)"
$ cat $T/e1 $T/e2 $T/e3 $T/e4 | sort -u
> exit 4 1
> exit 4 1
> exit 4 1
> exit 4 1
> stackprint: stdout: No space left on device

### --imds-endpoint without --imds is a usage error, not silently ignored
$ stackprint probe --root . --imds-endpoint 127.0.0.1:9
? 2
2>~ ^stackprint probe: --imds-endpoint needs --imds

### probe --help and stackprint-probe(1) give --platform the same shape, the one image_source.c parses
$ stackprint probe --help | grep -o -- '--platform OS/ARCH\[/VARIANT\]' | sort -u
$ man -l man/stackprint-probe.1 2>/dev/null | grep -o -- '--platform OS/ARCH\[/VARIANT\]' | sort -u
> --platform OS/ARCH[/VARIANT]
> --platform OS/ARCH[/VARIANT]

### sign and verify --help list their short options
# verify has two usage lines, a manifest's envelope and a report's attestation
$ stackprint sign --help | grep -c -- '-k|--key KEY \[-o|--output ENVELOPE\]'
$ stackprint verify --help | grep -c -- '-p|--pub PUB \[-e|--envelope FILE\]'
> 1
> 2

### stackprint(1) SEE ALSO names every other page in man/
$ for f in man/*.[15]; do p=$(basename $f); n=${p%.*}; s=${p##*.}; [ "$p" = stackprint.1 ] && continue; sed -n '/^\.SH SEE ALSO/,$p' man/stackprint.1 | grep -q "^\.BR $n ($s)" || echo "missing $p"; done; echo done
> done

### a SEC1 "EC PRIVATE KEY" (openssl ecparam) signs; openssl's public key verifies it
$ openssl ecparam -genkey -name prime256v1 -noout -out $T/ec.key 2>/dev/null; head -1 $T/ec.key
$ openssl ec -in $T/ec.key -pubout -out $T/ec.pub 2>/dev/null
$ cp tests/fixtures/sign/manifest.yaml $T/m.yaml
$ stackprint sign -k $T/ec.key $T/m.yaml && stackprint verify -p $T/ec.pub $T/m.yaml | cut -d' ' -f1-2
> -----BEGIN EC PRIVATE KEY-----
> verified: m.yaml
