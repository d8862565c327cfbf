# tests/cli/typos.t: what a first-time user mistypes, and what stackprint
# says.  Each policy is written inline; M = tests/fixtures/manifests.
# A misspelled keyword would be an exact-text test that never holds (a
# forbid of it passes silently), so it is refused with the keyword named;
# an undocumented fact key is a warning naming the nearest documented one
# (stackprint help keys), an error under --strict.

### a misspelled keyword in forbid is an error, not an exact match
$ printf 'policy: p\nforbid:\n  pip.torch-neuron: presnt\n' > $T/p.yaml
$ stackprint check --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml
? 4
2>~ ^stackprint: .*/p.yaml:3:21: pip.torch-neuron: 'presnt' is one edit from the keyword present: write present, or \{equals: "presnt"\} for this exact text$

### a keyword in the wrong case, a swapped pair and a doubled letter are refused too
$ for w in Present absnet presennt ABSENT; do printf 'policy: p\nrequire:\n  pip.torch: %s\n' $w > $T/p.yaml; stackprint check --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml; echo "$w $?"; done
> Present 4
> absnet 4
> presennt 4
> ABSENT 4
2>~ 'Present' is one edit from the keyword present
2>~ 'absnet' is one edit from the keyword absent
2>~ 'presennt' is one edit from the keyword present
2>~ 'ABSENT' is one edit from the keyword absent

### exact text near a keyword is written {equals: ...}; a word two edits away is exact text
$ printf 'policy: p\nrequire:\n  torch.backend: {equals: presnt}\n  host.instance_family: prsnt\n' > $T/p.yaml
$ stackprint check --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml
? 1
>~ ^p +require +torch.backend +xla +presnt +violated$
>~ ^p +require +host.instance_family +trn2 +prsnt +violated$

### an undocumented fact key is a warning naming the nearest documented key
$ printf 'policy: p\nrequire:\n  pyhton.version: ">=3.10"\n' > $T/p.yaml
$ stackprint check --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml
? 1
2>~ ^stackprint: warning: .*/p.yaml:3:3: 'pyhton.version': not a documented fact key; did you mean 'python.version'\? \(stackprint help keys\)$

### under --strict an undocumented fact key is an error, before the manifest is read
$ printf 'policy: p\nrequire:\n  neuron.sdk.relase: present\n  deb-aws-neuronx-dkms: present\n' > $T/p.yaml
$ stackprint check --strict --policy $T/p.yaml $T/no-such-manifest.yaml
? 4
2>~ ^stackprint: .*/p.yaml:3:3: 'neuron.sdk.relase': not a documented fact key; did you mean 'neuron.sdk.release'\?
2>~ ^stackprint: .*/p.yaml:4:3: 'deb-aws-neuronx-dkms': not a documented fact key; did you mean 'deb.aws-neuronx-dkms'\?
2>~ ^stackprint: check: undocumented fact keys in the policies \(--strict\)$

### a near miss of a well-known key under a documented pattern is a warning, also under --strict
$ printf 'policy: p\nforbid:\n  pip.trch: present\n  python.env.opt_venv.pip.torch-neuronxx: present\n' > $T/p.yaml
$ stackprint check --strict --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml
? 0
2>~ ^stackprint: warning: .*/p.yaml:3:3: 'pip.trch': did you mean 'pip.torch'\? \(a well-known key one edit away\)$
2>~ ^stackprint: warning: .*/p.yaml:4:3: 'python.env.opt_venv.pip.torch-neuronxx': did you mean 'python.env.opt_venv.pip.torch-neuronx'\?

### any name under a documented pattern is known: no warning
$ printf 'policy: p\nforbid:\n  pip.some-other-package: present\n  deb.libc6: "<2"\n  env.NEURON_RT_LOG_LEVEL: present\n  image.layer.000.diff_id: present\n' > $T/p.yaml
$ stackprint check --strict --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml >/dev/null 2>$T/err; echo "exit $?"; cat $T/err
> exit 0

### fact references and one_of_fact keys are looked up too
$ printf 'policy: p\nrequire:\n  pip.torch: "==${pip.torch-neuronxx:2}.*"\n  host.instance_family: {one_of_fact: neuron.sdk.instance}\n' > $T/p.yaml
$ stackprint check --policy $T/p.yaml tests/fixtures/manifests/trn2-xla.yaml
? 1
2>~ ^stackprint: warning: .*/p.yaml:3:3: 'pip.torch-neuronxx': did you mean 'pip.torch-neuronx'\?
2>~ ^stackprint: warning: .*/p.yaml:4:3: 'neuron.sdk.instance': not a documented fact key; did you mean 'neuron.sdk.instances'\?

### --policy with the release catalog alone is exit 4, not an empty pass
$ stackprint check --policy policies/neuron/catalog.yaml tests/fixtures/manifests/trn2-xla.yaml
? 4
2> stackprint: policies/neuron/catalog.yaml: the release catalog alone, no policy: nothing to check (pass the policies too: --policy DIR)

### a folder holding only the catalog is exit 4 too
$ mkdir $T/c && cp policies/neuron/catalog.yaml $T/c/
$ stackprint check --policy $T/c tests/fixtures/manifests/neuron-2.16.yaml
? 4
2>~ ^stackprint: .*/c/catalog.yaml: the release catalog alone, no policy: nothing to check

### .yml files are read like .yaml, in a folder and alone
$ mkdir $T/y && printf 'policy: yml\nrequire:\n  pip.torch: "==9.9"\n' > $T/y/p.yml
$ stackprint check --policy $T/y tests/fixtures/manifests/trn2-xla.yaml
$ echo "dir $?"
$ stackprint check --policy $T/y/p.yml tests/fixtures/manifests/trn2-xla.yaml
$ echo "file $?"
>~ ^yml +require +pip.torch +2.9.0 +==9.9 +violated$
>~ ^dir 1$
>~ ^file 1$

### a .yml report inside a policy folder is refused, as a .yaml one is
$ mkdir $T/y && printf 'policy: yml\nrequire:\n  pip.torch: present\n' > $T/y/p.yml
$ stackprint check --policy $T/y -o $T/y/report.yml tests/fixtures/manifests/trn2-xla.yaml
? 2
2>~ inside the policy folder

### a mistyped command names the command meant
$ stackprint prob
? 2
2> stackprint: 'prob' is not a command; did you mean 'probe'? (see 'stackprint --help')

### two edits away still suggests; a word far from every command does not
$ stackprint chekc; stackprint frobnicate
? 2
2> stackprint: 'chekc' is not a command; did you mean 'check'? (see 'stackprint --help')
2> stackprint: 'frobnicate' is not a command (see 'stackprint --help')

### help COMMAND prints the command's options one line each, as COMMAND --help does
$ stackprint help probe > $T/a; stackprint probe --help > $T/b; cmp $T/a $T/b && cat $T/a
>~ ^usage: stackprint probe
>~ ^  -r, --root DIR +\S
>~ ^  -i, --image PATH\[:TAG\] +\S
>~ ^      --python PATH +\S
>~ ^  -o, --output FILE +\S
>~ ^  -h, --help +\S

### help of a mistyped command suggests it, exit 2
$ stackprint help chek
? 2
2> stackprint: 'chek' is not a command; did you mean 'check'? (see 'stackprint --help')

### help keys lists the documented keys and patterns
$ stackprint help keys
>~ ^python\.version +stackprint-manifest\(5\)$
>~ ^pip\.\* +stackprint-manifest\(5\)$
>~ ^python\.env\.\*\.pip\.\* +stackprint-manifest\(5\)$
>~ ^neuron\.sdk\.release +stackprint-policy\(5\)$
>~ ^pip\.torch +well-known, stackprint-manifest\(5\)$
