"""tests/oracle/stackid.py: the stack id as stackprint-manifest(5) defines
it, computed with Python's hashlib and nothing of stackprint's: the SHA-256
of, for every fact but the volatile keys in bytewise key order, the key and
then the value each as a netstring "<decimal byte length>:<bytes>,"
(cr.yp.to/proto/netstrings.txt).  The one copy of the volatile list the
tests' oracles use (tests/restamp, tests/sh/fleet.sh, tests/slurm/cluster.sh)."""
import hashlib

VOLATILE = frozenset({
    "host.hostname", "host.instance_id", "container.id",
    "neuron.cache.modules", "neuron.cache.modules_by_compiler",
    "neuron.cache.locked", "neuron.cache.failed",
})


def netstring(s):
    b = s.encode()
    return str(len(b)).encode() + b":" + b + b","


def stack_id(facts):
    """facts: dict key -> value (str).  Returns "sha256:<64 hex>"."""
    data = b"".join(netstring(k) + netstring(v) for k, v in
                    sorted(facts.items(), key=lambda kv: kv[0].encode())
                    if k not in VOLATILE)
    return "sha256:" + hashlib.sha256(data).hexdigest()
