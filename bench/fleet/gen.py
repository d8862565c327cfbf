#!/usr/bin/python3
"""bench/fleet/gen.py DIR N: write N node manifests into DIR, shaped like
the JSON stackprint probe writes (schema, tool, created, subject, stack_id,
facts, evidence, warnings; two-space indent, keys sorted), each with about
1,200 facts: a trn1 host with ~700 Debian packages, ~300 pip packages in
the system interpreter and ~150 in a venv, the Neuron, torch, Python and
EFA facts, evidence for every fact, two warnings.  Every node has its own
host.hostname and host.instance_id (volatile); a few are odd: one node in
500 has an older driver, node 7 a newer torch and a missing package, node
13 one more environment variable.  Stack ids are computed here with
hashlib, as tests/restamp does (stackprint-manifest(5))."""
import hashlib, json, os, random, sys

VOLATILE = {"host.hostname", "host.instance_id", "container.id"}
d, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(15)

def ver():
    return ".".join(str(rng.randint(0, 40)) for _ in range(rng.choice((2, 3, 4))))

base, ev = {}, {}
line = 1
for i in range(700):
    k = f"deb.pkg-{i:03d}-{rng.choice(['lib', 'tools', 'python3', 'x11', 'fonts'])}"
    base[k] = ver() + f"-{rng.randint(1, 9)}ubuntu{rng.randint(0, 5)}"
    ev[k] = f"/var/lib/dpkg/status:{line}"
    line += rng.randint(15, 40)
for i in range(300):
    k = f"pip.package-{i:03d}"
    base[k] = ver()
    ev[k] = f"/usr/local/lib/python3.10/dist-packages/package_{i:03d}-{base[k]}.dist-info/METADATA"
for i in range(150):
    k = f"python.env.opt_aws_neuronx_venv_pytorch_2_8.pip.venv-package-{i:03d}"
    base[k] = ver()
    ev[k] = f"/opt/aws_neuronx_venv_pytorch_2_8/lib/python3.10/site-packages/venv_package_{i:03d}-{base[k]}.dist-info/METADATA"
named = {
    "host.instance_type": ("trn1.32xlarge", "/sys/class/dmi/id/product_name"),
    "host.instance_family": ("trn1", "/sys/class/dmi/id/product_name"),
    "host.os.id": ("ubuntu", "/etc/os-release"),
    "host.os.version_id": ("22.04", "/etc/os-release"),
    "neuron.driver.version": ("2.24.7.0", "/sys/module/neuron/version"),
    "neuron.device.count": ("16", "/sys/class/neuron_device"),
    "neuron.core.count": ("32", "/sys/class/neuron_device"),
    "deb.aws-neuronx-dkms": ("2.24.7.0-5856c0b42", "/var/lib/dpkg/status:126"),
    "deb.aws-neuronx-runtime-lib": ("2.28.23.0-24b0c6585", "/var/lib/dpkg/status:141"),
    "deb.aws-neuronx-collectives": ("2.28.27.0-856c0b420", "/var/lib/dpkg/status:154"),
    "pip.torch": ("2.8.0", "/usr/local/lib/python3.10/dist-packages/torch-2.8.0.dist-info/METADATA"),
    "pip.torch-neuronx": ("2.8.0.2.10.16998", "/usr/local/lib/python3.10/dist-packages/torch_neuronx-2.8.0.2.10.16998.dist-info/METADATA"),
    "pip.torch-xla": ("2.8.1", "/usr/local/lib/python3.10/dist-packages/torch_xla-2.8.1.dist-info/METADATA"),
    "pip.neuronx-cc": ("2.21.18209.0", "/usr/local/lib/python3.10/dist-packages/neuronx_cc-2.21.18209.0.dist-info/METADATA"),
    "pip.torchvision": ("0.23.0", "/usr/local/lib/python3.10/dist-packages/torchvision-0.23.0.dist-info/METADATA"),
    "python.version": ("3.10.12", "/usr/bin/python3.10"),
    "torch.backend": ("xla", "/usr/local/lib/python3.10/dist-packages/torch_neuronx/__init__.py"),
    "efa.device.count": ("8", "/sys/class/infiniband"),
    "efa.installer.version": ("1.41.0", "/opt/amazon/efa_installed_packages"),
}
for k, (v, e) in named.items():
    base[k], ev[k] = v, e
os.makedirs(d, exist_ok=True)
for i in range(n):
    f, e = dict(base), dict(ev)
    host = f"trn1-node-{i:05d}"
    f["host.hostname"], e["host.hostname"] = host, "/proc/sys/kernel/hostname"
    f["host.instance_id"], e["host.instance_id"] = f"i-{i:017x}", "/sys/class/dmi/id/board_asset_tag"
    if i % 500 == 499:
        f["neuron.driver.version"] = "2.22.14.0"
    if i == 7:
        f["pip.torch"] = "2.8.1"
        del f["pip.torchvision"], e["pip.torchvision"]
    if i == 13:
        f["env.NEURON_RT_VISIBLE_CORES"], e["env.NEURON_RT_VISIBLE_CORES"] = "0-15", "environ"
    keys = sorted(f, key=lambda k: k.encode())
    # stackprint-manifest(5): netstrings of each key and value (schema v2)
    ns = lambda t: str(len(t.encode())).encode() + b":" + t.encode() + b","
    lines = b"".join(ns(k) + ns(f[k]) for k in keys if k not in VOLATILE)
    doc = {
        "schema": "stackprint/manifest/v2", "tool": "stackprint 0.1.0",
        "created": "2026-11-29T08:00:00Z", "subject": "host:/",
        "stack_id": "sha256:" + hashlib.sha256(lines).hexdigest(),
        "facts": {k: f[k] for k in keys},
        "evidence": {k: e[k] for k in keys},
        "warnings": ["host.kernel: uname: read from /proc/sys/kernel/osrelease",
                     "python: /usr/bin/python3.11: no site-packages"],
    }
    with open(os.path.join(d, host + ".json"), "w") as fp:
        fp.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
