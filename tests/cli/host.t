# tests/cli/host.t: stackprint check --host: an image's manifest checked
# with a host's kernel-side facts laid over it (stackprint-check(1), "A
# CONTAINER ON A HOST").  M = tests/fixtures/manifests:
#   image-neuron-2.30-runtime-2.32.yaml  an image with aws-neuronx-runtime-lib
#                                        2.32.31.0 (Neuron 2.30.0), no driver
#   host-trn1-driver-2.26/2.28/2.29.yaml trn1 hosts whose loaded driver is
#                                        2.26.10.0, 2.28.0.0, 2.29.0.0; each
#                                        also holds an older runtime library
#                                        (2.30.51.0) in its own user space
# The verdicts follow the runtime release notes the shipped rules cite
# (policies/neuron/driver-runtime.yaml): runtime-lib 2.32 does not work
# with driver 2.26 or earlier, and driver 2.29 needs runtime-lib 2.33 or
# later; Neuron 2.30.0 itself pairs runtime-lib 2.32.31.0 with dkms 2.28.0.0
# (policies/neuron/n2-manifest.json).  Only the driver rules and the catalog
# are loaded (DR), so the exit status is theirs.

### runtime 2.32 in the image on a host with driver 2.26 fails, naming the rule
$ stackprint check --policy policies/neuron/catalog.yaml --policy policies/neuron/driver-runtime.yaml --host tests/fixtures/manifests/host-trn1-driver-2.26.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
? 1
>~ ^subject: image:train\.tar on host:/$
>~ ^stack ids: sha256:[0-9a-f]{64} \(image\), sha256:[0-9a-f]{64} \(host\)$
>~ ^neuron-driver-runtime +runtime-2\.32-needs-driver-2\.27 +neuron\.sdk\.driver_version +2\.26\.10\.0 +>=2\.27 +violated$

### the same image on a host with its release's driver (2.28) passes the driver rules
$ stackprint check --policy policies/neuron/catalog.yaml --policy policies/neuron/driver-runtime.yaml --host tests/fixtures/manifests/host-trn1-driver-2.28.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
>~ ^neuron-driver-runtime +runtime-2\.32-needs-driver-2\.27 +neuron\.sdk\.driver_version +2\.28\.0\.0 +>=2\.27 +ok$
>~ check passed$

### on driver 2.29 the runtime rule holds, but driver 2.29 needs runtime 2.33
$ stackprint check --policy policies/neuron/catalog.yaml --policy policies/neuron/driver-runtime.yaml --host tests/fixtures/manifests/host-trn1-driver-2.29.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
? 1
>~ ^neuron-driver-runtime +runtime-2\.32-needs-driver-2\.27 +neuron\.sdk\.driver_version +2\.29\.0\.0 +>=2\.27 +ok$
>~ ^neuron-driver-runtime +driver-2\.29-needs-runtime-2\.33 +neuron\.sdk\.runtime_version +2\.32\.31\.0 +>=2\.33 +violated$

### the image alone cannot be judged against a driver: the rules do not apply
$ stackprint check --policy policies/neuron/catalog.yaml --policy policies/neuron/driver-runtime.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
>~ ^neuron-driver-runtime +runtime-2\.32-needs-driver-2\.27 +neuron\.sdk\.driver_version +- +>=2\.27 +not applicable$

### the host alone (its own older runtime) passes: the image's runtime is what fails above
$ stackprint check --policy policies/neuron/catalog.yaml --policy policies/neuron/driver-runtime.yaml tests/fixtures/manifests/host-trn1-driver-2.26.yaml
>~ check passed$

### json: the subject names both, both stack ids kept; the overlay's facts are the image's user space and the host's kernel side
$ stackprint check --format json --policy policies/neuron/catalog.yaml --policy policies/neuron/driver-runtime.yaml --host tests/fixtures/manifests/host-trn1-driver-2.26.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml > $T/r.json; echo "exit $?"
$ /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["subject"]); print(d["stack_id"] == sys.argv[2], d["host"]["stack_id"] == sys.argv[3], d["host"]["manifest"])' $T/r.json "$(sed -n 's/^stack_id: "\(.*\)"/\1/p' tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml)" "$(sed -n 's/^stack_id: "\(.*\)"/\1/p' tests/fixtures/manifests/host-trn1-driver-2.26.yaml)"
> exit 1
> image:train.tar on host:/
> True True tests/fixtures/manifests/host-trn1-driver-2.26.yaml

### the host's facts decide the instance family rules: trn1 from the host
$ stackprint check --format json --policy policies --host tests/fixtures/manifests/host-trn1-driver-2.28.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted({r["found"] for r in d["results"] if r["key"] == "host.instance_family"}))'
> ['trn1']

### a missing host manifest is exit 4
$ stackprint check --policy policies --host $T/none.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
? 4
2>~ ^stackprint: .*/none.yaml: No such file or directory$

### a tampered host manifest is exit 4
$ sed 's/2.26.10.0"/2.30.2.0"/' tests/fixtures/manifests/host-trn1-driver-2.26.yaml > $T/h.yaml
$ stackprint check --policy policies --host $T/h.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
? 4
2>~ stack_id does not match the facts

### both from standard input is a usage error
$ stackprint check --policy policies --host - - < tests/fixtures/manifests/host-trn1-driver-2.26.yaml
? 2
2>~ cannot both be standard input

### -o naming the host manifest is refused
$ cp tests/fixtures/manifests/host-trn1-driver-2.26.yaml $T/h.yaml
$ stackprint check --policy policies -o $T/h.yaml --host $T/h.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
? 2
2>~ is the host manifest

### the manifests swapped (an image's given as --host) is a usage error, nothing checked
$ stackprint check --policy policies --host tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml tests/fixtures/manifests/host-trn1-driver-2.26.yaml
? 2
>! .
2>~ ^stackprint check: --host '.*image-neuron-2\.30-runtime-2\.32\.yaml' is an image's manifest \(subject image:train\.tar\); --host names the host's, MANIFEST the image's

### --host with --fix is a usage error: a plan runs on one machine
$ stackprint check --policy policies --fix --host tests/fixtures/manifests/host-trn1-driver-2.26.yaml tests/fixtures/manifests/image-neuron-2.30-runtime-2.32.yaml
? 2
2>~ ^stackprint check: --fix and --host cannot be combined
