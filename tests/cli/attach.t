# tests/cli/attach.t: stackprint attach, attest and verify of a report on the
# command line: usage errors (exit 2) and reports refused as untrusted
# input (exit 4, one line naming the file and, from the parser, the line
# and column).  J = tests/fixtures/junit (README there says what each is);
# M = tests/fixtures/manifests/trn2-xla.yaml.  Whether the output is right
# is checked by tests/sh/attach_junit.sh and tests/sh/attest_openssl.sh
# against xmllint, xml.etree and openssl.

### attach --help
$ stackprint attach --help
>~ ^usage: stackprint attach -j\|--junit RESULTS.xml

### attest --help
$ stackprint attest --help
>~ ^usage: stackprint attest -j\|--junit RESULTS.xml -k\|--key KEY

### attach: --junit is required
$ stackprint attach tests/fixtures/manifests/trn2-xla.yaml
? 2
2> stackprint attach: --junit RESULTS.xml is required (see 'stackprint attach --help')

### attach: a manifest is required
$ stackprint attach --junit tests/fixtures/junit/nested.xml
? 2
2> stackprint attach: MANIFEST is required (see 'stackprint attach --help')

### attach: -o may not be the manifest
$ cp tests/fixtures/manifests/trn2-xla.yaml $T/m.yaml
$ stackprint attach --junit tests/fixtures/junit/nested.xml -o $T/m.yaml $T/m.yaml
? 2
2>~ output '.*/m.yaml' is the manifest; it would be overwritten

### attach: an empty --fact
$ stackprint attach --junit tests/fixtures/junit/nested.xml --fact '' tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ --fact needs a fact key

### attach: --catalog must hold a catalog
$ stackprint attach --junit tests/fixtures/junit/nested.xml --catalog policies/neuron/backend.yaml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: policies/neuron/backend.yaml: no release catalog in it

### attest: --key is required
$ stackprint attest --junit tests/fixtures/junit/nested.xml tests/fixtures/manifests/trn2-xla.yaml
? 2
2> stackprint attest: --key KEY is required (see 'stackprint attest --help')

### attest: the attestation may not replace the report
$ stackprint attest --junit tests/fixtures/junit/nested.xml --key tests/fixtures/sign/ed25519.key -o tests/fixtures/junit/nested.xml tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ output 'tests/fixtures/junit/nested.xml' is the report; it would be overwritten

### attest: a report from standard input needs -o
$ stackprint attest --junit - --key tests/fixtures/sign/ed25519.key tests/fixtures/manifests/trn2-xla.yaml < tests/fixtures/junit/nested.xml
? 2
2>~ a report from standard input needs -o ENVELOPE

### attest: a missing manifest envelope named with --envelope is exit 4
$ stackprint attest --junit tests/fixtures/junit/nested.xml --key tests/fixtures/sign/ed25519.key --envelope $T/none.json -o $T/a.json tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/none.json: No such file or directory$

### verify: --manifest goes with a report
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub --manifest tests/fixtures/sign/manifest.yaml tests/fixtures/sign/manifest.yaml
? 2
2> stackprint verify: --manifest goes with a test report, and tests/fixtures/sign/manifest.yaml is not XML (see 'stackprint verify --help')

### attach: a report that is not XML
$ stackprint attach --junit tests/fixtures/junit/not-xml.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: tests/fixtures/junit/not-xml.xml:1:1: not well-formed XML: Start tag expected, '<' not found

### attach: an external entity is refused at the DOCTYPE, /etc/passwd never read
$ stackprint attach --junit tests/fixtures/junit/external-entity.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: tests/fixtures/junit/external-entity.xml:2:21: a DOCTYPE declaration is refused (entities are never expanded, DTDs never loaded)
>! root:

### attach: a billion laughs never expand
$ stackprint attach --junit tests/fixtures/junit/billion-laughs.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: tests/fixtures/junit/billion-laughs.xml:2:16: a DOCTYPE declaration is refused (entities are never expanded, DTDs never loaded)

### attach: a report without a testsuite element
$ stackprint attach --junit tests/fixtures/junit/no-testsuite.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: tests/fixtures/junit/no-testsuite.xml: no <testsuite> element (not a JUnit XML report)

### attach: a 100 MiB report is refused before it is read
$ printf '<testsuite>' > $T/big.xml && truncate -s 100M $T/big.xml
$ stackprint attach --junit $T/big.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/big.xml: larger than the JUnit report size limit \(67108864 bytes\)$

### attach: a truncated report names the line and column
$ printf '<testsuites>\n  <testsuite name="a">\n    <testcase name="t">\n' > $T/cut.xml
$ stackprint attach --junit $T/cut.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/cut.xml:4:1: not well-formed XML: 

### attest: each bad report is exit 4 too
$ for f in not-xml external-entity billion-laughs no-testsuite; do stackprint attest --junit tests/fixtures/junit/$f.xml --key tests/fixtures/sign/ed25519.key -o $T/a.json tests/fixtures/manifests/trn2-xla.yaml 2>/dev/null; echo "$f $?"; done; test -e $T/a.json || echo "no attestation written"
> not-xml 4
> external-entity 4
> billion-laughs 4
> no-testsuite 4
> no attestation written

### verify: a report needs its attestation: the default envelope RESULTS.xml.intoto.json
$ cp tests/fixtures/junit/nested.xml $T/r.xml
$ stackprint verify --pub tests/fixtures/sign/ed25519.pub $T/r.xml
? 4
2>~ ^stackprint: .*/r.xml.intoto.json: No such file or directory$

### attach: libxml2's bound holds: elements nested deeper than 256
$ { printf '<testsuite>'; for i in $(seq 300); do printf '<a>'; done; for i in $(seq 300); do printf '</a>'; done; printf '</testsuite>'; } > $T/deep.xml
$ stackprint attach --junit $T/deep.xml tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/deep.xml:1:[0-9]+: not well-formed XML: Excessive depth in document: 256

### attach: at most 256 --fact options
$ stackprint attach --junit tests/fixtures/junit/nested.xml $(for i in $(seq 257); do printf -- '--fact k%d ' $i; done) tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ more than 256 --fact options

### attach: 256 --fact options are fine (none of these keys is a fact: one note)
$ stackprint attach --junit tests/fixtures/junit/nested.xml $(for i in $(seq 256); do printf -- '--fact k%d ' $i; done) tests/fixtures/manifests/trn2-xla.yaml > /dev/null
2> stackprint: note: tests/fixtures/manifests/trn2-xla.yaml has no fact k1; no property written for it

### attest: --url at most 8192 bytes
$ stackprint attest --junit tests/fixtures/junit/nested.xml --key tests/fixtures/sign/ed25519.key -o $T/a.json --url "https://x/$(head -c 8190 /dev/zero | tr '\0' a)" tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ --url needs a URL of 1 to 8192 bytes

### attest: a --url of 8192 bytes is recorded
$ stackprint attest --junit tests/fixtures/junit/nested.xml --key tests/fixtures/sign/ed25519.key -o $T/a.json --url "https://x/$(head -c 8182 /dev/zero | tr '\0' a)" tests/fixtures/manifests/trn2-xla.yaml
$ /usr/bin/python3 -c 'import json,sys,base64; e=json.load(open(sys.argv[1])); print(len(json.loads(base64.b64decode(e["payload"]))["predicate"]["url"]))' $T/a.json
> 8192
