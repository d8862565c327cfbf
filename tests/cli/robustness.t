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
2>~ ^stackprint: .*/created.json: expected a string for created$

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
2>~ ^stackprint: edited.yaml: stack_id does not match the facts \(edited after probing\?\)$

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
