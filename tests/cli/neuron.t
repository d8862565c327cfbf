# tests/cli/neuron.t: the shipped Neuron policies (policies/, with the release
# catalog) against the manifests of tests/fixtures/manifests/neuron-*.yaml.
# Each case checks the exit status and the policy, rule and key it must name.
# Expected verdicts come from the SDK's release table (n2-manifest.json, as
# policies/neuron/catalog.yaml holds it), the release notes each policy's
# source names, and the public reports each fixture names; each fixture's header
# says why.

### every fixture's stack_id is the sha256 of its key=value lines sorted by key (sha256sum as the oracle)
$ for f in tests/fixtures/manifests/neuron-*.yaml; do want=$(sed -n 's/^stack_id: "sha256:\(.*\)"$/\1/p' $f); got=$(sed -n '/^facts:/,$p' $f | tail -n +2 | sed 's/^  \([^:]*\): "\(.*\)"$/\1=\2/' | grep -v '^host.instance_id=' | LC_ALL=C sort -t= -k1,1 | sha256sum | cut -c1-64); [ "$want" = "$got" ] || echo "bad $f"; done; echo checked
> checked

### policies/ loads the eleven shipped policies and the catalog, not the test policies
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-trn2-native-2.32.yaml
>~ ^11 policies, 
>! ^example-

### clean trn2 native on Neuron 2.32 passes
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-trn2-native-2.32.yaml
? 0
>~ ^neuron-backend +native-backend-only-on-trn2-trn3 +host.instance_family +trn2 +one of trn2, trn3 +ok$
>~ ^neuron-one-release +one-release +neuron.sdk.release +2.32.0 +not mixed +ok$
>~ ^neuron-driver-runtime +driver-2.29-needs-runtime-2.33 +neuron.sdk.runtime_version +2.34.10.0 +>=2.33 +ok$
>~ ^neuron-driver-runtime +runtime-2.32-needs-driver-2.27 +neuron.sdk.driver_version +2.30.2.0 +>=2.27 +ok$
>~ ^neuron-driver-runtime +trn2-needs-driver-2.19 +neuron.sdk.driver_version +2.30.2.0 +>=2.19 +ok$
>~ ^neuron-compiler-runtime +compiler-not-newer-than-runtime +neuron.sdk.compiler_release +2.32.0 +<=\$\{neuron.sdk.runtime_release\} \(<=2.32.0\) +ok$
>~ ^neuron-python-window +python-in-release-window +python.version +3.11.13 +first 2 in \$\{neuron.sdk.python\} \(3.11,3.12,3.13\) +ok$
>~ ^neuron-framework-instance +release-supports-instance-family +host.instance_family +trn2 +in \$\{neuron.sdk.instances\} \(trn2,trn3\) +ok$
>~ ^neuron-legacy-packages +no-legacy-deb +deb.aws-neuron-tools +- +not present +ok$
>~ ^neuron-risky-env +autoload-disabled +env.TORCH_DEVICE_BACKEND_AUTOLOAD +- +not 0 +ok$
>~  0 violated, 0 missing, 0 invalid, .*check passed$

### the same stack on trn1 fails, naming the backend rule
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-trn1-native-2.32.yaml
? 1
>~ ^neuron-backend +native-backend-only-on-trn2-trn3 +host.instance_family +trn1 +one of trn2, trn3 +violated$
>~ ^neuron-framework-instance +release-supports-instance-family +host.instance_family +trn1 +in \$\{neuron.sdk.instances\} \(trn2,trn3\) +violated$
>~ ^neuron-backend/native-backend-only-on-trn2-trn3: host.instance_family: found trn1, supported one of trn2, trn3: the native TorchNeuron backend supports Trainium2 and Trainium3 only

### clean trn1 on the XLA path, Neuron 2.31, passes (torch, torch-xla, torch-neuronx agree)
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-trn1-xla-2.31.yaml
? 0
>~ ^neuron-torch-agreement +torch-neuronx-matches-torch +pip.torch +2.9.0 +==\$\{pip.torch-neuronx:3\} \(==2.9.0\) +ok$
>~ ^neuron-torch-agreement +torch-xla-matches-torch +pip.torch-xla +2.9.0 +==\$\{pip.torch:2\}.\* \(==2.9.\*\) +ok$
>~ ^neuron-backend +xla-path-ends-with-2.31 +pip.torch-neuronx +2.9.0.2.15.32035 +<2.10 +ok$
>~ ^neuron-backend +xla-path-runtime-up-to-2.31 +neuron.sdk.runtime_release +2.31.1 +<2.32 +ok$
>~ ^neuron-torch-agreement +no-cuda-torch-with-torch-neuronx +torch.build.cuda +none +none +ok$
>~ ^neuron-one-release +one-release +neuron.sdk.release +2.31.0 +not mixed +ok$
>~  0 violated, 0 missing, 0 invalid, .*check passed$

### risky settings are warnings: exit 0, exit 1 with --strict
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-trn2-risky-env.yaml
? 0
>~ ^neuron-risky-env +legacy-neff +env.NEURON_RT_ALLOW_LEGACY_NEFF +1 +not present +violated \(warning\)$
>~ ^neuron-risky-env +autoload-disabled +env.TORCH_DEVICE_BACKEND_AUTOLOAD +0 +not 0 +violated \(warning\)$
>~ 0 errors, 2 warnings: check passed$
$ stackprint check --strict --policy policies/ tests/fixtures/manifests/neuron-trn2-risky-env.yaml
? 1
>~ 0 errors, 2 warnings \(strict\): check failed$

### inf2, neuronx-cc 2.12.54.0 (2.16.0) on the runtime of 2.15.2: compiler newer than runtime
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-inf2-compiler-newer.yaml
? 1
>~ ^neuron-compiler-runtime +compiler-not-newer-than-runtime +neuron.sdk.compiler_release +2.16.0 +<=\$\{neuron.sdk.runtime_release\} \(<=2.15.2\) +violated$

### torch-neuronx 2.1.2.2.2.0 + torch-xla 2.1.3 + libneuronxla 2.0.4115.0: mixed, libneuronxla odd, table printed
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-mixed-libneuronxla.yaml
? 1
>~ ^neuron-one-release +one-release +neuron.sdk.release +mixed +not mixed +violated$
>~ ^neuron-one-release +one-release +neuron.sdk.odd +pip.libneuronxla +not present +violated$
>~ ^Neuron SDK release: mixed \(no release ships every component; nearest 2.19.1; odd: pip.libneuronxla\)$
>~ ^COMPONENT +VERSION +RELEASES$
>~ ^pip.libneuronxla +2.0.4115.0 +2.20.0  \(odd\)$
>~ ^pip.torch-neuronx +2.1.2.2.2.0 +2.19.0,2.19.1$
>~ ^neuron-torch-agreement +torch-neuronx-matches-torch +pip.torch +2.1.2\+cu121 +==\$\{pip.torch-neuronx:3\} \(==2.1.2\) +ok$
>~ ^neuron-torch-agreement +no-cuda-torch-with-torch-neuronx +torch.build.cuda +12.1 +none +violated \(warning\)$

### the same table in json
$ stackprint check --policy policies/ --format json tests/fixtures/manifests/neuron-mixed-libneuronxla.yaml > $T/r.json; echo "exit $?"
$ /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["neuron_sdk"]; print(d["release"], d["nearest"], d["odd"]); print([(c["key"], c["releases"], c["odd"]) for c in d["components"] if c["odd"]])' $T/r.json
> exit 1
> mixed 2.19.1 ['pip.libneuronxla']
> [('pip.libneuronxla', ['2.20.0'], True)]

### no release inference without a catalog: neuron_sdk is null
$ stackprint check --policy policies/neuron/one-release.yaml --format json tests/fixtures/manifests/neuron-2.16.yaml > $T/n.json; echo "exit $?"
$ /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["neuron_sdk"], d["summary"]["not_applicable"])' $T/n.json
> exit 0
> None 2

### torch-neuron 1.13.1.2.6.6.0 with torch 2.0.1+cu117: torch must be 1.13.1
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-torch-neuron-cu117.yaml
? 1
>~ ^neuron-torch-agreement +torch-neuron-matches-torch +pip.torch +2.0.1\+cu117 +==\$\{pip.torch-neuron:3\} \(==1.13.1\) +violated$
>~ ^neuron-framework-instance +torch-neuron-only-on-inf1 +host.instance_family +inf1 +inf1 +ok$

### legacy aws-neuron-tools next to aws-neuronx-runtime-lib
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-legacy-tools.yaml
? 1
>~ ^neuron-legacy-packages +no-legacy-deb +deb.aws-neuron-tools +2.1.4.0 +not present +violated$

### the 2.16 set: both 2.16.0 and 2.16.1 list all five versions, so the release is the 2.16 line; passes
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-2.16.yaml
? 0
>~ ^neuron-one-release +one-release +neuron.sdk.release +2.16 +not mixed +ok$
>~ ^neuron-one-release +one-release +neuron.sdk.odd +- +not present +ok$

### the 2.16 set's candidates in json
$ stackprint check --policy policies/ --format json tests/fixtures/manifests/neuron-2.16.yaml | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["neuron_sdk"]["candidates"])'
> ['2.16.0', '2.16.1']

### Python 3.7 with Neuron 2.15.0 (the table lists 3.8 to 3.10)
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-python37.yaml
? 1
>~ ^neuron-python-window +python-in-release-window +python.version +3.7.16 +first 2 in \$\{neuron.sdk.python\} \(3.8,3.9,3.10\) +violated$

### driver 2.29 with runtime-lib 2.31: driver 2.29 needs runtime 2.33
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-driver-old-runtime.yaml
? 1
>~ ^neuron-driver-runtime +driver-2.29-needs-runtime-2.33 +neuron.sdk.runtime_version +2.31.24.0 +>=2.33 +violated$

### a manifest's own neuron.sdk.* facts are not taken when the catalog derives them
$ sed 's/^facts:$/facts:\n  neuron.sdk.release: "2.99.0"\n  neuron.sdk.odd: "nothing"/' tests/fixtures/manifests/neuron-mixed-libneuronxla.yaml > $T/forged.yaml
$ tests/restamp $T/forged.yaml
$ stackprint check --policy policies/ $T/forged.yaml
? 1
>~ ^neuron-one-release +one-release +neuron.sdk.odd +pip.libneuronxla +not present +violated$

### two catalogs are an error with the second's position
$ stackprint check --policy policies/ --policy policies/neuron/catalog.yaml tests/fixtures/manifests/neuron-2.16.yaml
? 4
2> stackprint: policies/neuron/catalog.yaml:2:1: a second release catalog (one is loaded from policies/neuron/catalog.yaml)

### legacy packages alone (no aws-neuronx package) are not "next to x packages"
$ printf 'schema: stackprint/manifest/v1\ntool: t\ncreated: "2026-11-29T10:00:00Z"\nsubject: s\nstack_id: "sha256:0000000000000000000000000000000000000000000000000000000000000000"\nfacts:\n  deb.aws-neuron-tools: "2.1.4.0"\n  neuron.driver.version: "2.3.26.0"\n' > $T/legacy-only.yaml
$ tests/restamp $T/legacy-only.yaml
$ stackprint check --policy policies/ $T/legacy-only.yaml
>~ ^neuron-legacy-packages +no-legacy-deb +deb.aws-neuron-tools +2.1.4.0 +not present +not applicable$

### torch-neuronx and neuronx-cc on inf1
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-inf1-torch-neuronx.yaml
? 1
>~ ^neuron-framework-instance +no-neuronx-on-inf1 +pip.torch-neuronx +2.8.0.2.10.16998 +not present +violated$
>~ ^neuron-framework-instance +no-neuronx-on-inf1 +pip.neuronx-cc +2.21.33363.0\+82f2fc3c +not present +violated$
>~ ^neuron-framework-instance +release-supports-instance-family +host.instance_family +inf1 +in \$\{neuron.sdk.instances\} \(inf2,trn1,trn2\) +violated$

### torch-neuron on trn1 (the check.t fixture trn1-native.json)
$ stackprint check --policy policies/ tests/fixtures/manifests/trn1-native.json
? 1
>~ ^neuron-framework-instance +torch-neuron-only-on-inf1 +host.instance_family +trn1 +inf1 +violated$
>~ ^neuron-torch-agreement +torch-neuron-matches-torch +pip.torch +2.9.0\+cu121 +==\$\{pip.torch-neuron:3\} \(==1.13.1\) +violated$

### the XLA path with the runtime of 2.32, which carries none
$ stackprint check --policy policies/ tests/fixtures/manifests/neuron-xla-on-2.32-runtime.yaml
? 1
>~ ^neuron-backend +xla-path-runtime-up-to-2.31 +neuron.sdk.runtime_release +2.32.0 +<2.32 +violated$
>~ ^neuron-backend +xla-path-ends-with-2.31 +pip.torch-neuronx +2.9.0.2.15.32035 +<2.10 +ok$

### JUnit (xmllint against the schema) and SARIF (required fields) stay valid with the shipped policies
$ stackprint check --policy policies/ --format junit -o $T/j.xml tests/fixtures/manifests/neuron-mixed-libneuronxla.yaml; echo "exit $?"
$ xmllint --noout --schema tests/schemas/junit.xsd $T/j.xml 2>&1
$ stackprint check --policy policies/ --format sarif -o $T/s.json tests/fixtures/manifests/neuron-mixed-libneuronxla.yaml; echo "exit $?"
$ /usr/bin/python3 tests/sh/check_sarif.py $T/s.json
>~ ^exit 1$
>~ j.xml validates$
>~ ^ok - sarif 2.1.0 required fields
>! fails|error

### Neuron's yum spelling (the build hash after '_' in the rpm VERSION) reads as the deb one
# tests/fixtures/cases/rpm-neuron-yum-spelling: the 2.19 set from Amazon Linux
# 2 (huggingface/optimum-neuron#658), and the same versions in the deb
# spelling: the SDK's table lists runtime-lib 2.21.41.0 and collectives
# 2.21.46.0 in 2.19.0 and 2.19.1 only, so both give the 2.19 line, the same
# candidates, and the runtime version without the hash.
$ d=tests/fixtures/cases/rpm-neuron-yum-spelling
$ for m in manifest.json manifest-deb-control.json; do stackprint check -p policies/ -f json $d/$m | /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin)["neuron_sdk"]; print("sdk", s["release"], ",".join(s["candidates"]), s["odd"], [c["releases"] for c in s["components"] if c["releases"] != ["2.19.0", "2.19.1"]])'; done | uniq -c
$ stackprint check -p policies/ $d/manifest.json; echo "exit $?"
>~ ^ +2 sdk 2\.19 2\.19\.0,2\.19\.1 \[\] \[\]$
>~ ^neuron-driver-runtime +driver-2.29-needs-runtime-2.33 +neuron.sdk.runtime_version +2.21.41.0 +>=2.33 +not applicable$
>~ ^neuron-one-release +one-release +neuron.sdk.release +2.19 +not mixed +ok$
>! _fb1705f5f +
>~ ^exit 0$

### the yum spelling with a neuronx-cc of Neuron 2.20: the compiler is newer than the runtime, and the odd one out
$ stackprint check -p policies/ tests/fixtures/cases/rpm-neuron-yum-spelling/manifest-rpm-newer-cc.json
? 1
>~ ^neuron-compiler-runtime +compiler-not-newer-than-runtime +neuron.sdk.compiler_release +2.20.0 +<=\$\{neuron.sdk.runtime_release\} \(<=2.19.1\) +violated$
>~ ^neuron-one-release +one-release +neuron.sdk.odd +pip.neuronx-cc +not present +violated$
>~ ^rpm.aws-neuronx-runtime-lib +2.21.41.0_fb1705f5f-1 +2.19.0,2.19.1$

### the 2.21.0 set on trn2 passes: the release table is the authority
# tests/fixtures/cases/trn2-neuron-2.21 (huggingface/optimum-neuron#754: 2.21
# is the first SDK for trn2): every component is the table's 2.21.0 row.
# The table lists aws-neuronx-dkms 2.19.64.0 for trn2 there, so the driver
# bound for trn2 is 2.19 (a prose "2.22" loses to the table); libneuronxla
# 2.1.681.0 lists trn1,inf2 only, but as a helper library its row does not
# veto trn2, which torch-neuronx 2.5.1.2.4.0 and neuronx-cc list.
$ stackprint check --policy policies/ tests/fixtures/cases/trn2-neuron-2.21/manifest.json
? 0
>~ ^neuron-one-release +one-release +neuron.sdk.release +2.21.0 +not mixed +ok$
>~ ^neuron-driver-runtime +trn2-needs-driver-2.19 +neuron.sdk.driver_version +2.19.64.0 +>=2.19 +ok$
>~ ^neuron-framework-instance +release-supports-instance-family +host.instance_family +trn2 +in \$\{neuron.sdk.instances\} \(inf2,trn1,trn2\) +ok$
>~ 0 violated, 0 missing, 0 invalid, .*check passed$

### a driver older than the table's first for trn2 or trn3 fails
$ sed -e 's/"neuron.driver.version": "2.19.64.0"/"neuron.driver.version": "2.18.20.0"/' tests/fixtures/cases/trn2-neuron-2.21/manifest.json > $T/old.json
$ sed -e 's/"trn2"/"trn3"/; s/"neuron.driver.version": "2.19.64.0"/"neuron.driver.version": "2.26.10.0"/' tests/fixtures/cases/trn2-neuron-2.21/manifest.json > $T/trn3.json
$ tests/restamp $T/old.json; tests/restamp $T/trn3.json
$ stackprint check --policy policies/ $T/old.json | grep "needs-driver.*violated"
$ stackprint check --policy policies/ $T/trn3.json | grep "needs-driver.*violated"
>~ ^neuron-driver-runtime +trn2-needs-driver-2.19 +neuron.sdk.driver_version +2.18.20.0 +>=2.19 +violated$
>~ ^neuron-driver-runtime +trn3-needs-driver-2.27 +neuron.sdk.driver_version +2.26.10.0 +>=2.27 +violated$

### check --fix reads the yum spelling too: the runtime library file follows its rpm package
# the handed 2.19 set plus libnrt.so.2.21.41.0 (neuron.runtime.version): the
# file's version is the package's upstream 2.21.41.0 once the "_fb1705f5f"
# build hash is dropped, so the plan moves it with the package
$ sed 's/"host.cloud": "aws",/"host.cloud": "aws", "neuron.runtime.version": "2.21.41.0",/' tests/fixtures/cases/rpm-neuron-yum-spelling/manifest.json > $T/m.json
$ tests/restamp $T/m.json
$ stackprint check --fix --target-release 2.32.0 --policy policies/ $T/m.json
>~ ^neuron.runtime.version +2.21.41.0 +2.34.10.0
>~ ^rpm.aws-neuronx-runtime-lib +2.21.41.0_fb1705f5f-1 +2.34.10.0$
>~ dnf install -y 'aws-neuronx-collectives-2.34.10.0\*' 'aws-neuronx-runtime-lib-2.34.10.0\*'
