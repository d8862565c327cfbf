# tests/cli/diff.t: stackprint diff on the command line.  D =
# tests/fixtures/diff: old.yaml and new.yaml hold a change of every kind in
# every scheme; the expected direction of each comes from the scheme's
# specification, and is the answer of the scheme's own tool
# (tests/oracle/direction.sh asks dpkg, packaging and rpm the same questions):
#   neuron.driver.version  2.9.1.0 -> 2.10.0.0      upgraded: dotted numbers, 10 > 9
#                                                   (as text "2.10" < "2.9")
#   neuron.runtime.version 2.31.24.0 -> 2.28.23.0   downgraded
#   python.version         3.11.7 -> 3.11.10        upgraded (PEP 440)
#   pip.torch              2.3.0a0+ebedce2 -> 2.3.0 upgraded: a pre-release sorts
#                                                   before its release (PEP 440)
#   pip.torchvision        0.18.0 -> 0.18.0+cu121   upgraded: a local label sorts
#                                                   after the public version (PEP 440)
#   pip.numpy              2.0.0 -> 1.26.4          downgraded
#   pip.six                1.0 -> 1.0.0             changed: one version, two
#                                                   spellings (stackprint-diff(1))
#   deb.libc6              +deb12u4 -> +deb12u10    upgraded: digit runs compare
#                                                   as numbers (deb-version(7))
#   deb.tilde-pkg          1.0 -> 1.0~rc1           downgraded: '~' sorts before
#                                                   the empty string (deb-version(7))
#   deb.epoch-pkg          1:0.9-1 -> 2.0-1         downgraded: the epoch first
#   rpm.aws-neuronx-tools  2.24.7.0-1 -> 1:2.19.5.0-1  upgraded: the epoch
#                                                   outweighs the version (rpm EVR)
#   rpm.glibc              2.34-100 -> 2.34-52      downgraded: the release compares
#   torch.backend          xla -> native            changed: not a version
#   neuron.device.count    16 -> 32                 changed: a count, not a version
#   pip.nki added, pip.torch-xla removed; host.hostname, container.id and
#   created differ but are volatile (reported with --all only).
# M = tests/fixtures/manifests: neuron-trn1-xla-2.31.yaml and
# neuron-trn1-native-2.32.yaml are whole Neuron 2.31.0 and 2.32.0 stacks
# (the release is the catalog's, tests/data/release.test).

### --help
$ stackprint diff --help
>~ ^usage: stackprint diff \[--format text\|json\|markdown\]

### two manifests are required
$ stackprint diff tests/fixtures/diff/old.yaml
? 2
2> stackprint diff: OLD and NEW manifests are required (see 'stackprint diff --help')

### three are too many
$ stackprint diff tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml tests/fixtures/diff/new.yaml
? 2
2> stackprint diff: two manifests only: OLD NEW (see 'stackprint diff --help')

### unknown format
$ stackprint diff --format yaml tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml
? 2
2> stackprint diff: unknown format 'yaml' (text, json or markdown) (see 'stackprint diff --help')

### both from standard input
$ stackprint diff - - < tests/fixtures/diff/old.yaml
? 2
2>~ cannot both be standard input

### --envelope without --pub
$ stackprint diff --envelope a --envelope b tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml
? 2
2>~ --envelope needs --pub

### -o naming an input is refused
$ cp tests/fixtures/diff/old.yaml $T/old.yaml
$ stackprint diff -o $T/old.yaml $T/old.yaml tests/fixtures/diff/new.yaml
? 2
2>~ is an input; it would be overwritten

### every change kind in every scheme, in text
$ stackprint diff tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml
? 1
>~ ^  neuron\.driver\.version +2\.9\.1\.0 -> 2\.10\.0\.0  upgraded$
>~ ^  neuron\.runtime\.version +2\.31\.24\.0 -> 2\.28\.23\.0  downgraded$
>~ ^  python\.version +3\.11\.7 -> 3\.11\.10  upgraded$
>~ ^  pip\.torch +2\.3\.0a0\+ebedce2 -> 2\.3\.0  upgraded$
>~ ^  pip\.torchvision +0\.18\.0 -> 0\.18\.0\+cu121  upgraded$
>~ ^  pip\.numpy +2\.0\.0 -> 1\.26\.4  downgraded$
>~ ^  pip\.six +1\.0 -> 1\.0\.0  changed$
>~ ^  deb\.libc6 +2\.36-9\+deb12u4 -> 2\.36-9\+deb12u10  upgraded$
>~ ^  deb\.tilde-pkg +1\.0 -> 1\.0~rc1  downgraded$
>~ ^  deb\.epoch-pkg +1:0\.9-1 -> 2\.0-1  downgraded$
>~ ^  rpm\.aws-neuronx-tools +2\.24\.7\.0-1\.amzn2023 -> 1:2\.19\.5\.0-1\.amzn2023  upgraded$
>~ ^  rpm\.glibc +2\.34-100\.amzn2023 -> 2\.34-52\.amzn2023  downgraded$
>~ ^  torch\.backend +xla -> native  changed$
>~ ^  neuron\.device\.count +16 -> 32  changed$
>~ ^  pip\.nki +\(absent\) -> 0\.6\.0  added$
>~ ^  pip\.torch-xla +2\.9\.0 -> \(absent\)  removed$
>~ ^  backend path changed: xla -> native$
>! host\.hostname|container\.id|created|deb\.zlib1g|env\.
>~ ^16 changed: 6 upgraded, 5 downgraded, 1 added, 1 removed, 3 changed$

### the text report reads like a stack: groups in order, the summary last
$ stackprint diff tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml | grep -v '^  ' | grep -v '^$' | grep -v '^old:\|^new:'
> devices
> driver
> SDK release: not inferred (no release catalog; see --catalog)
> runtime
> torch
> python
> packages
> 16 changed: 6 upgraded, 5 downgraded, 1 added, 1 removed, 3 changed

### json: every change with its key, values (null when absent) and kind; the summary
$ stackprint diff --format json tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml > $T/d.json; echo "exit $?"
$ /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c={x["key"]:(x["old"],x["new"],x["change"]) for x in d["changes"]}; print(c["pip.nki"], c["pip.torch-xla"], c["deb.tilde-pkg"]); print(sorted(d["summary"].items())); print(d["old"]["subject"], d["old"]["stack_id"] == d["new"]["stack_id"], list(d))' $T/d.json
> exit 1
> (None, '0.6.0', 'added') ('2.9.0', None, 'removed') ('1.0', '1.0~rc1', 'downgraded')
> [('added', 1), ('changed', 3), ('downgraded', 5), ('removed', 1), ('total', 16), ('upgraded', 6)]
> host:/ False ['old', 'new', 'changes', 'summary']

### json stack ids are the manifests' own
$ stackprint diff --format json tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["old"]["stack_id"]); print(d["new"]["stack_id"])' > $T/ids
$ grep -h '^stack_id' tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml | sed 's/stack_id: "\(.*\)"/\1/' | diff - $T/ids && echo same
> same

### identical manifests: nothing reported, exit 0
$ stackprint diff tests/fixtures/diff/old.yaml tests/fixtures/diff/old.yaml
>~ ^old: host:/  sha256:[0-9a-f]{64}  \(tests/fixtures/diff/old\.yaml\)$
>~ ^new: host:/  sha256:[0-9a-f]{64}  \(tests/fixtures/diff/old\.yaml\)$
>~ ^0 changed: 0 upgraded, 0 downgraded, 0 added, 0 removed$
>! -> 

### only volatile facts and created differ: exit 0
$ stackprint diff --format json tests/fixtures/diff/old.yaml tests/fixtures/diff/volatile.yaml
>~ "total": 0

### --all reports them
$ stackprint diff --all tests/fixtures/diff/old.yaml tests/fixtures/diff/volatile.yaml
? 1
>~ ^  host\.hostname +trn1-node-01 -> trn1-node-99  changed$
>~ ^  container\.id +4f1a2b -> ffffff  changed$
>~ ^  created +2026-05-01T08:00:00Z -> 2026-06-01T09:00:00Z  changed$
>~ ^3 changed: 0 upgraded, 0 downgraded, 0 added, 0 removed, 3 changed$

### --ignore drops keys by glob ('*' crosses dots), several allowed
$ stackprint diff --ignore 'deb.*' --ignore 'rpm.*' --ignore '*.version' tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml
? 1
>! deb\.|rpm\.|\.version
>~ ^8 changed: 2 upgraded, 1 downgraded, 1 added, 1 removed, 3 changed$

### ignoring every difference is the same stack as far as diff is concerned
$ stackprint diff --ignore '*' tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml
>~ ^0 changed

### standard input for one side
$ stackprint diff --format json - tests/fixtures/diff/new.yaml < tests/fixtures/diff/old.yaml
? 1
>~ "manifest": "-"
>~ "total": 16

### markdown: a table for pull-request comments, '|' and '_' escaped
$ stackprint diff --format markdown tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml
? 1
>~ ^\| group \| key \| old \| new \| change \|$
>~ ^\| driver \| neuron\.driver\.version \| 2\.9\.1\.0 \| 2\.10\.0\.0 \| upgraded \|$
>~ ^\| packages \| pip\.torch-xla|^\| torch \| pip\.torch-xla \| 2\.9\.0 \| - \| removed \|$
>~ ^\*\*Backend path changed:\*\* xla -> native$
>~ ^\*\*16 changed: 6 upgraded, 5 downgraded, 1 added, 1 removed, 3 changed\*\*$

### the SDK release on each side, from the catalog, and the backend on its own line
$ stackprint diff --catalog policies tests/fixtures/manifests/neuron-trn1-xla-2.31.yaml tests/fixtures/manifests/neuron-trn1-native-2.32.yaml
? 1
>~ ^SDK release: 2\.31\.0 -> 2\.32\.0$
>~ ^  backend path changed: xla -> native$

### --catalog takes the catalog file too; a policy file without one is exit 4
$ stackprint diff --format json --catalog policies/neuron/catalog.yaml tests/fixtures/manifests/neuron-trn1-xla-2.31.yaml tests/fixtures/manifests/neuron-trn1-native-2.32.yaml | grep sdk_release
$ stackprint diff --catalog policies/neuron/backend.yaml tests/fixtures/manifests/neuron-trn1-xla-2.31.yaml tests/fixtures/manifests/neuron-trn1-native-2.32.yaml
? 4
>~ "sdk_release": "2\.31\.0"
>~ "sdk_release": "2\.32\.0"
2> stackprint: policies/neuron/backend.yaml: no release catalog in it

### a tampered stack id is exit 4
$ sed 's/"2.0.0"/"2.0.1"/' tests/fixtures/diff/old.yaml > $T/old.yaml
$ stackprint diff $T/old.yaml tests/fixtures/diff/new.yaml
? 4
2>~ ^stackprint: .*/old.yaml: stack_id does not match the facts

### a stack id replaced by another well-formed one is exit 4 too
$ sed 's/^stack_id: "sha256:[0-9a-f]*"/stack_id: "sha256:1111111111111111111111111111111111111111111111111111111111111111"/' tests/fixtures/diff/new.yaml > $T/new.yaml
$ grep -c '^stack_id: "sha256:1111' $T/new.yaml
$ stackprint diff tests/fixtures/diff/old.yaml $T/new.yaml
? 4
> 1
2>~ ^stackprint: .*/new.yaml: stack_id does not match the facts

### an unreadable manifest is exit 4
$ stackprint diff $T/none.yaml tests/fixtures/diff/new.yaml
? 4
2>~ ^stackprint: .*/none.yaml: No such file or directory$

### a FIFO is refused at once, never waited on
$ mkfifo $T/fifo
$ stackprint diff $T/fifo tests/fixtures/diff/new.yaml
? 4
2>~ ^stackprint: .*/fifo: not a regular file$

### --pub: both envelopes verify, the differences are reported
$ stackprint keygen --type ed25519 -o $T/k >/dev/null
$ cp tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml $T/
$ stackprint sign --key $T/k.key $T/old.yaml >/dev/null && stackprint sign --key $T/k.key $T/new.yaml > /dev/null
$ stackprint diff --pub $T/k.pub $T/old.yaml $T/new.yaml
? 1
>~ ^16 changed

### --pub: one envelope that does not verify is exit 3, nothing reported
$ stackprint keygen --type ed25519 -o $T/k >/dev/null
$ cp tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml $T/
$ stackprint sign --key $T/k.key $T/old.yaml >/dev/null && stackprint sign --key $T/k.key $T/new.yaml > /dev/null
$ cp $T/old.yaml.intoto.json $T/new.yaml.intoto.json
$ stackprint diff --pub $T/k.pub $T/old.yaml $T/new.yaml
? 3
>! changed
2>~ ^stackprint: .*/new.yaml.intoto.json: subject check failed

### --pub: a missing envelope is exit 4
$ stackprint keygen --type ed25519 -o $T/k >/dev/null
$ cp tests/fixtures/diff/old.yaml $T/
$ stackprint sign --key $T/k.key $T/old.yaml >/dev/null
$ stackprint diff --pub $T/k.pub $T/old.yaml tests/fixtures/diff/new.yaml
? 4
2>~ new.yaml.intoto.json: No such file or directory$

### --pub with --envelope names each side's envelope, OLD's first
$ stackprint keygen --type ed25519 -o $T/k >/dev/null
$ cp tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml $T/
$ stackprint sign --key $T/k.key -o $T/a.env $T/old.yaml && stackprint sign --key $T/k.key -o $T/b.env $T/new.yaml
$ stackprint diff --pub $T/k.pub --envelope $T/a.env --envelope $T/b.env $T/old.yaml $T/new.yaml > /dev/null; echo "exit $?"
$ stackprint diff --pub $T/k.pub --envelope $T/b.env --envelope $T/a.env $T/old.yaml $T/new.yaml
> exit 1
? 3
2>~ subject check failed

### -o writes the report to a file
$ stackprint diff -o $T/r.md --format markdown tests/fixtures/diff/old.yaml tests/fixtures/diff/new.yaml; echo "exit $?"
$ tail -1 $T/r.md
> exit 1
> **16 changed: 6 upgraded, 5 downgraded, 1 added, 1 removed, 3 changed**

### control characters in values never reach the terminal; markdown escapes its own syntax
$ printf '{"schema": "stackprint/manifest/v1", "tool": "t", "created": "2026-01-01T00:00:00Z", "subject": "host:/", "stack_id": "x", "facts": {"torch.backend": "x\\u001b[31m|`_*"}}\n' > $T/esc.json
$ tests/restamp $T/esc.json
$ stackprint diff tests/fixtures/diff/old.yaml $T/esc.json | grep 'backend path'
$ stackprint diff --format markdown tests/fixtures/diff/old.yaml $T/esc.json | grep 'torch.backend'
>   backend path changed: xla -> x\x1b[31m|`_*
> | torch | torch.backend | xla | x\x1b[31m\|\`\_\* | changed |
