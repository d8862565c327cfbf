# tests/cli/probe.t: stackprint probe on the command line: usage errors
# (exit 2), unreadable roots and outputs (exit 4), both output formats
# carrying the same content (read back by Python's json and yaml modules,
# not by stackprint), atomic -o, byte-identical repeated runs, and the facts
# of each fixture root (tests/fixtures/roots/README.md says why each value
# is right).  R = tests/fixtures/roots.

### unknown option
$ stackprint probe --bogus
? 2
2>~ ^stackprint probe: unknown option '--bogus'

### unknown format
$ stackprint probe --root tests/fixtures/roots/inf2 --format xml
? 2
2>~ unknown format 'xml' \(yaml, json or cyclonedx\)

### a stray argument
$ stackprint probe --root tests/fixtures/roots/inf2 extra
? 2
2>~ unexpected argument 'extra'

### --root without a value
$ stackprint probe --root
? 2
2>~ option '--root' needs a value

### --root and --image together
$ stackprint probe --root tests/fixtures/roots/inf2 --image x.tar
? 2
2>~ --root and --image exclude each other

### a malformed image digest
$ stackprint probe --root tests/fixtures/roots/inf2 --image-digest sha256:ABC
? 2
2>~ image digest 'sha256:ABC' is not sha256:<64 lowercase hex>

### a missing root: exit 4, one line naming it, nothing on stdout
$ stackprint probe --root $T/nowhere
? 4
>! .
2>~ ^stackprint: .*/nowhere: No such file or directory$

### a root that is a file
$ : > $T/file && stackprint probe --root $T/file
? 4
2>~ file: Not a directory$

### an output in a folder that does not exist: exit 4, no file
$ stackprint probe --root tests/fixtures/roots/inf2 -o $T/no/such/m.yaml
? 4
2>~ ^stackprint: .*m.yaml

### help exits 0 and names the IMDS options
$ stackprint probe --help
>~ --imds-endpoint HOST:PORT

### JSON and YAML carry the same content (parsed by Python, not by us)
$ export SOURCE_DATE_EPOCH=1764403200
$ stackprint probe --root tests/fixtures/roots/trn2-native --format json > $T/m.json
$ stackprint probe --root tests/fixtures/roots/trn2-native --format yaml > $T/m.yaml
$ /usr/bin/python3 -c 'import json,yaml,sys; j=json.load(open(sys.argv[1])); y=yaml.safe_load(open(sys.argv[2])); print("same" if j==y else "differ"); print(j["facts"]["neuron.device.kind"], j["created"])' $T/m.json $T/m.yaml
> same
> trainium2 2025-11-29T08:00:00Z

### YAML is the default, and every fact value is a double-quoted string
$ stackprint probe --root tests/fixtures/roots/inf2 | sed -n '/^facts:/,/^evidence:/p' | grep -E '^  (neuron|host\.instance)'
>   host.instance_family: "inf2"
>   host.instance_id: "i-0123456789abcdef0"
>   host.instance_type: "inf2.xlarge"
>   neuron.collectives.version: "2.33.10"
>   neuron.core.count: "2"
>   neuron.device.count: "1"
>   neuron.device.kind: "inferentia2"
>   neuron.device.pci_id: "1d0f:7264"
>   neuron.driver.dkms: "2.29.0.0"
>   neuron.driver.version: "2.29.0.0"
>   neuron.runtime.version: "2.33.10.0"

### -o writes the file whole and leaves no temporary file beside it
$ mkdir $T/out && echo old > $T/out/m.yaml
$ stackprint probe --root tests/fixtures/roots/inf2 -o $T/out/m.yaml
$ ls -A $T/out
$ head -n 1 $T/out/m.yaml
> m.yaml
> schema: "stackprint/manifest/v1"

### -o - is standard output
$ stackprint probe --root tests/fixtures/roots/inf2 --format json -o - | head -n 2
> {
>   "schema": "stackprint/manifest/v1",

### two runs give byte-identical manifests (same created time)
$ export SOURCE_DATE_EPOCH=1764403200
$ for r in tests/fixtures/roots/*/; do stackprint probe --root $r > $T/a && stackprint probe --root $r > $T/b && cmp $T/a $T/b && echo same; done | sort | uniq -c | sed 's/^ *//'
> 8 same

### the live host twice: identical facts (created may differ)
$ stackprint probe --format json | sed '/"created"/d' > $T/a
$ stackprint probe --format json | sed '/"created"/d' > $T/b
$ cmp $T/a $T/b && echo same
> same

### trn1-xla: Trainium1 on trn1.32xlarge, Neuron 2.26-era packages, multi-arch libc6
$ stackprint probe --root tests/fixtures/roots/trn1-xla --format json
>~ "host.instance_family": "trn1"
>~ "neuron.device.count": "16"
>~ "neuron.device.kind": "trainium"
>~ "neuron.core.count": "32"
>~ "efa.device.count": "8"
>~ "deb.aws-neuronx-dkms": "2.24.7.0-5856c0b42"
>~ "deb.libc6:i386": "2.35-0ubuntu3.8"
>~ "neuron.runtime.version": "2.28.23.0"
>! "deb.aws-neuronx-runtime-lib-old"

### trn3: cores from the device table when core_count is missing, with a warning
$ stackprint probe --root tests/fixtures/roots/trn3 --format json
>~ "neuron.device.kind": "trainium3"
>~ "neuron.core.count": "128"
>~ "neuron.core.count": "device table: 16 x 8 cores \(trainium3\)"
>~ core_count: no such file

### inf1-legacy: the legacy aws-neuron DKMS module is a warning
$ stackprint probe --root tests/fixtures/roots/inf1-legacy --format json
>~ "neuron.device.kind": "inferentia"
>~ "deb.aws-neuron-dkms": "2.3.26.0"
>~ legacy aws-neuron DKMS module

### gpu-baseline: GPUs counted, NVSwitches not, CUDA from version.json
$ stackprint probe --root tests/fixtures/roots/gpu-baseline --format json
>~ "gpu.device.count": "8"
>~ "gpu.device.pci_id": "10de:20b0"
>~ "gpu.nvidia.driver": "535.183.01"
>~ "cuda.toolkit.version": "12.1.1"
>~ "neuron.device.count": "0"
>! "neuron.device.kind"

### container-bare: no bus (a warning, no zero counts), docker, digest from the flag
$ stackprint probe --root tests/fixtures/roots/container-bare --image-digest sha256:4d9f1b0c2e3a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344 --format json
>~ "container.runtime": "docker"
>~ "container.image_digest": "sha256:4d9f1b0c2e3a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344"
>~ pci: /sys/bus/pci/devices: no such file
>! device.count

### a copied tree: the environment is not read, even allow-listed names
$ PJRT_DEVICE=NEURON NEURON_RT_VISIBLE_CORES=0 stackprint probe --root tests/fixtures/roots/inf2 --format json
>! "env\.

### the live host: allow-listed variables recorded, secrets never (their names only in a warning)
$ PJRT_DEVICE=NEURON NEURON_API_KEY=sk-do-not-record XLA_FLAGS= stackprint probe --format json
>~ "env.PJRT_DEVICE": "NEURON"
>~ env.XLA_FLAGS: environment: set but empty
>~ "env.NEURON_API_KEY: not recorded \(the name looks like a secret\)"
>! "env.NEURON_API_KEY":
>! sk-do-not-record

### secret-looking names beyond KEY/TOKEN/SECRET/PASSWORD/CREDENTIAL: a warning each, the values nowhere (YAML, JSON, stderr)
$ export NEURON_RT_PASSWD=vq7x1 NEURON_AUTH=vq7x2 XLA_PRIVATE_KEY_FILE=vq7x3 NEURON_COOKIE=vq7x4 TORCH_NEURONX_SESSION=vq7x5 NEURON_CERT_DIR=vq7x6 NEURON_PASS=vq7x7
$ stackprint probe > $T/m.yaml 2>&1; stackprint probe --format json > $T/m.json 2>&1; cat $T/m.yaml $T/m.json
>~ ^- "env.NEURON_RT_PASSWD: not recorded \(the name looks like a secret\)"$
>~ ^- "env.NEURON_AUTH: not recorded
>~ ^- "env.XLA_PRIVATE_KEY_FILE: not recorded
>~ ^- "env.NEURON_COOKIE: not recorded
>~ ^- "env.TORCH_NEURONX_SESSION: not recorded
>~ ^- "env.NEURON_CERT_DIR: not recorded
>~ ^- "env.NEURON_PASS: not recorded
>~ ^  "warnings": \[$
>~ ^    "env.NEURON_AUTH: not recorded \(the name looks like a secret\)",?$
>! vq7x

### STACKPRINT_IMAGE_DIGEST on the live host
$ STACKPRINT_IMAGE_DIGEST=sha256:4d9f1b0c2e3a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344 stackprint probe --format json
>~ "container.image_digest": "sha256:4d9f1b0c

### permission denied for real: core_count unreadable (as root, run as user nobody, which root's bypass does not cover)
$ cp -a tests/fixtures/roots/trn2-native $T/r && chmod 000 $T/r/sys/devices/virtual/neuron_device/neuron*/core_count && chmod 0755 $T
$ cp "$(command -v stackprint)" $T/stackprint && chmod 0755 $T/stackprint
$ as=""; [ "$(id -u)" = 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
$ $as $T/stackprint probe --root $T/r --format json
>~ "neuron.core.count": "128"
>~ "neuron.core.count": "device table: 16 x 8 cores \(trainium2\)"
>~ neuron.core.count: /sys/class/neuron_device/neuron0/core_count: permission denied
