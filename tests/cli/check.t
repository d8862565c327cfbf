# tests/cli/check.t: stackprint check on the command line.  P = the example
# policies (tests/fixtures/policies), M = the hand-written manifests
# (tests/fixtures/manifests).  Verdicts expected for each manifest, and why:
#   trn2-xla.yaml     passes: every requirement of the XLA and driver
#                     policies holds (torch 2.9.0 is ==2.9.*, runtime-lib
#                     2.28.23.0-dd5879008 is >=2.28 in Debian order, ...)
#   trn1-native.json  fails: the native backend on trn1 (one of trn2, trn3)
#                     and torch-neuron installed; the legacy NEFF setting is
#                     a warning; the rpm dkms 2.24.7.0-1.amzn2023 is >=2.19
#   ngc-torch.yaml    passes with one warning: 2.3.0a0+ebedce2 is an
#                     installed pre-release, so >=2.3.0a0,<2.4 holds but >=2.3
#                     does not (PEP 440 orders 2.3.0a0 before 2.3); --strict fails
#   bad-versions.yaml fails: 2.x, 2.24.x and a2.24 are not versions of their
#                     keys' schemes, so those requirements are invalid

### --help
$ stackprint check --help
>~ ^usage: stackprint check --policy FILE\|DIR

### --policy is required when no policies are installed
# this build's DATADIR is /usr/local/share/stackprint (the Makefile's
# default); tests/sh/install_default.sh tests an installed one
$ stackprint check tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ ^stackprint check: --policy is required \(no installed policies in /.*/share/stackprint/policies\) \(see 'stackprint check --help'\)$

### a manifest is required
$ stackprint check --policy tests/fixtures/policies
? 2
2> stackprint check: a manifest is required (see 'stackprint check --help')

### one manifest only
$ stackprint check --policy tests/fixtures/policies tests/fixtures/manifests/trn2-xla.yaml tests/fixtures/manifests/ngc-torch.yaml
? 2
2> stackprint check: one manifest only (see 'stackprint check --help')

### unknown format
$ stackprint check --policy tests/fixtures/policies --format xml tests/fixtures/manifests/trn2-xla.yaml
? 2
2> stackprint check: unknown format 'xml' (text, json, junit, sarif or github) (see 'stackprint check --help')

### unknown option
$ stackprint check --colour --policy tests/fixtures/policies tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ unknown option '--colour'

### an unreadable manifest is exit 4
$ stackprint check --policy tests/fixtures/policies $T/none.yaml
? 4
2>~ ^stackprint: .*/none.yaml: No such file or directory$

### a malformed manifest is exit 4, with its position
$ printf 'schema: stackprint/manifest/v2\nbogus: 1\n' > $T/m.yaml
$ stackprint check --policy tests/fixtures/policies $T/m.yaml
? 4
2>~ ^stackprint: .*/m.yaml:2:1: unknown key 'bogus' in a manifest \(expected schema, tool, created, subject, stack_id, facts, evidence, warnings\)$

### a missing policy is exit 4
$ stackprint check --policy $T/none.yaml tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/none.yaml: No such file or directory$

### a malformed policy is exit 4, with file:line:column, before the manifest is read
$ printf 'policy: p\nrequire:\n  pip.torch: ">=2.x"\n' > $T/p.yaml
$ stackprint check --policy $T/p.yaml $T/none.yaml
? 4
2>~ ^stackprint: .*/p.yaml:3:14: pip.torch: '>=2.x': '2.x' is not a valid PEP 440 version: unexpected text after the version$

### an unquoted specifier is a YAML error (">" starts a folded block), with its position
$ printf 'policy: p\nrequire:\n  pip.torch: >=2.0\n' > $T/p.yaml
$ stackprint check --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/p.yaml:3:15: did not find expected comment or line break$

### a folder without policies is exit 4
$ mkdir $T/empty
$ stackprint check --policy $T/empty tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/empty: no \*.yaml or \*.yml policy files$

### trn2-xla passes
$ stackprint check --policy tests/fixtures/policies tests/fixtures/manifests/trn2-xla.yaml
>~ ^example-neuron-pytorch-xla +require +deb.aws-neuronx-runtime-lib +2.28.23.0-dd5879008 +>=2.28 +ok$
>~ ^example-native-backend +require +host.instance_family +trn2 +one of trn2, trn3 +not applicable$
>~ ^4 policies, 17 requirements: 9 ok, 0 violated, 0 missing, 0 invalid, 8 not applicable; 0 errors, 0 warnings: check passed$
>! (violated|missing|invalid)$

### trn1-native (a JSON manifest) fails, naming the keys
$ stackprint check --policy tests/fixtures/policies tests/fixtures/manifests/trn1-native.json
? 1
>~ ^example-native-backend +require +host.instance_family +trn1 +one of trn2, trn3 +violated$
>~ ^example-native-backend +forbid +pip.torch-neuron +1.13.1.2.6.6.0 +not present +violated$
>~ ^example-native-backend +legacy-neff +env.NEURON_RT_ALLOW_LEGACY_NEFF +1 +not present +violated \(warning\)$
>~ ^example-neuron-driver +dkms-rpm +rpm.aws-neuronx-dkms +2.24.7.0-1.amzn2023 +>=2.19 +ok$
>~ ^example-native-backend/legacy-neff: env.NEURON_RT_ALLOW_LEGACY_NEFF: found 1, supported not present: the runtime loads old NEFFs while NEURON_RT_ALLOW_LEGACY_NEFF is set$
>~ ^4 policies, 17 requirements: 2 ok, 3 violated, 0 missing, 0 invalid, 12 not applicable; 2 errors, 1 warning: check failed$

### ngc-torch: an installed pre-release passes >=2.3.0a0,<2.4 but not >=2.3 (a warning)
$ stackprint check --policy tests/fixtures/policies/torch-2.3.yaml tests/fixtures/manifests/ngc-torch.yaml
>~ ^example-torch-2.3 +require +pip.torch +2.3.0a0\+ebedce2 +>=2.3.0a0,<2.4 +ok$
>~ ^example-torch-2.3 +require +python.version +3.10.12 +~=3.10 +ok$
>~ ^example-torch-2.3 +final-release +pip.torch +2.3.0a0\+ebedce2 +>=2.3 +violated \(warning\)$
>~ ^1 policy, 4 requirements: 3 ok, 1 violated, 0 missing, 0 invalid, 0 not applicable; 0 errors, 1 warning: check passed$

### --strict makes the warning fail
$ stackprint check --strict --policy tests/fixtures/policies/torch-2.3.yaml tests/fixtures/manifests/ngc-torch.yaml
? 1
>~ ^1 policy, 4 requirements: .*; 0 errors, 1 warning \(strict\): check failed$

### bad-versions: unparseable versions are invalid, never compared as text
$ stackprint check --policy tests/fixtures/policies tests/fixtures/manifests/bad-versions.yaml
? 1
>~ ^example-neuron-pytorch-xla +require +pip.torch +2.x +==2.9.\* +invalid$
>~ ^example-neuron-pytorch-xla/require: pip.torch: '2.x' is not a valid PEP 440 version: unexpected text after the version$
>~ ^example-neuron-driver/dkms-deb: deb.aws-neuronx-dkms: 'a2.24' is not a valid Debian version: upstream version does not start with a digit$
>~ ^example-neuron-pytorch-xla +require +pip.torch-neuronx +- +==2.9.0.2.15.\* +missing$
>~ ^4 policies, 17 requirements: 3 ok, 0 violated, 2 missing, 4 invalid, 8 not applicable; 6 errors, 0 warnings: check failed$

### an undecidable when is one invalid row for the condition
$ printf 'policy: q\nwhen: {pip.torch: ">=2"}\nrequire: {pip.torch-xla: present}\n' > $T/q.yaml
$ stackprint check --policy $T/q.yaml tests/fixtures/manifests/bad-versions.yaml
? 1
>~ ^q +when +pip.torch +2.x +when >=2 +invalid$
>~ ^1 policy, 1 requirement: 0 ok, 0 violated, 0 missing, 1 invalid, 0 not applicable; 1 error, 0 warnings: check failed$

### the manifest from stdin gives the same report
$ stackprint check --policy tests/fixtures/policies tests/fixtures/manifests/trn1-native.json > $T/file.txt
$ stackprint check --policy tests/fixtures/policies - < tests/fixtures/manifests/trn1-native.json > $T/stdin.txt
$ cmp $T/file.txt $T/stdin.txt && echo same
? 0
> same

### several --policy options add up, in order
$ stackprint check -p tests/fixtures/policies/torch-2.3.yaml -p tests/fixtures/policies/neuron-driver.yaml tests/fixtures/manifests/trn2-xla.yaml
>~ ^2 policies, 7 requirements: 2 ok, 0 violated, 0 missing, 0 invalid, 5 not applicable; 0 errors, 0 warnings: check passed$

### the same policy twice is an error
$ stackprint check -p tests/fixtures/policies -p tests/fixtures/policies/torch-2.3.yaml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: tests/fixtures/policies/torch-2.3.yaml:3:9: policy 'example-torch-2.3' is also defined in tests/fixtures/policies/torch-2.3.yaml

### -o writes the report to a file, atomically, and nothing to stdout
$ stackprint check -p tests/fixtures/policies -f json -o $T/r.json tests/fixtures/manifests/trn1-native.json; echo "exit $?"
$ /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["summary"]["passed"], len(d["results"]))' $T/r.json
> exit 1
> False 17

### no colour when stdout is not a terminal
$ stackprint check -p tests/fixtures/policies tests/fixtures/manifests/trn1-native.json | grep -c "$(printf '\033')" || true
> 0

### colour on a terminal (script(1) gives a pty)
$ script -qec "$STACKPRINT check -p tests/fixtures/policies tests/fixtures/manifests/trn1-native.json" /dev/null
? 1
>~ \x1b\[32mok\x1b\[0m
>~ \x1b\[1;31mviolated\x1b\[0m
>~ \x1b\[33mviolated \(warning\)\x1b\[0m

### never colour with NO_COLOR, even on a terminal
$ NO_COLOR=1 script -qec "$STACKPRINT check -p tests/fixtures/policies tests/fixtures/manifests/trn1-native.json" /dev/null
? 1
>~ violated \(warning\)
>! \x1b

### control characters in facts never reach the terminal
$ sed 's/"trn1"/"trn1\\u001b]0;pwned\\u0007"/' tests/fixtures/manifests/trn1-native.json > $T/esc.json
$ tests/restamp $T/esc.json
$ stackprint check -p tests/fixtures/policies/neuron-native-backend.yaml $T/esc.json
? 1
>~ trn1\\x1b\]0;pwned\\x07 +one of trn2, trn3 +violated
>! \x1b

### >V excludes a local version only when its public version is V (PEP 440)
# tests/fixtures/cases/pep440-gt-local: 1.0.post2+local > 1.0.post1,
# 4.1.0a2.dev1235+local > 4.1.0a2.dev1234 and 2.1.0+cu121 > 2.1.0rc1 hold
# (their public versions differ from V); 1.0+local is a local version of
# 1.0, which >1.0 excludes.  Debian's packaging 23.0 refuses all four
# (tests/oracle/pep440_oracle.py lists them as its known divergences).
$ stackprint check -p tests/fixtures/cases/pep440-gt-local/policy.yaml tests/fixtures/cases/pep440-gt-local/manifest.json
? 1
>~ require +pip\.a +1\.0\.post2\+local +>1\.0\.post1 +ok$
>~ require +pip\.b +4\.1\.0a2\.dev1235\+local +>4\.1\.0a2\.dev1234 +ok$
>~ require +pip\.c +1\.0\+local +>1\.0 +violated$
>~ require +pip\.d +2\.1\.0\+cu121 +>2\.1\.0rc1 +ok$
>~ 3 ok, 1 violated
