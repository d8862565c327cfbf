#!/usr/bin/python3
"""tests/sh/junit_oracle.py: checks of stackprint attach and attest made
with Python's standard library only (xml.etree, hashlib, json, base64) and
python3-yaml, none of it stackprint's code.  Prints nothing and exits 0
when every check holds, else prints what differs and exits 1.

  junit_oracle.py attached BEFORE AFTER MANIFEST [--release] [--fact KEY]...
      AFTER is BEFORE with the stack of MANIFEST attached: every
      <testsuite> holds exactly the expected stackprint.* properties, in
      order (values read from MANIFEST with yaml/json and hashlib); its
      other properties are BEFORE's; with the stackprint properties (and
      the <properties> elements attach created) taken out, AFTER's
      canonical form (C14N 2.0, text stripped) is BEFORE's.  --release:
      stackprint.fact.neuron.sdk.release is expected (a catalog was given).

  junit_oracle.py statement ENVELOPE REPORT MANIFEST [MANIFEST_ENVELOPE] [URL]
      the DSSE payload of ENVELOPE, field by field against in-toto's
      Statement v1, ResourceDescriptor v1 and test-result predicate v0.1
      (github.com/in-toto/attestation spec/v1/statement.md,
      spec/v1/resource_descriptor.md, spec/predicates/test-result.md), and
      its content against REPORT's test cases read with xml.etree.
"""
import base64, hashlib, json, os, sys
import xml.etree.ElementTree as ET

import yaml

# stackprint-attach(1): the facts a trial report needs, in this order
STACK_FACTS = ["host.instance_type", "neuron.device.kind", "neuron.driver.version",
               "neuron.sdk.release", "pip.neuronx-cc", "pip.torch", "pip.torch-xla",
               "pip.torch-neuronx", "torch.backend", "python.version",
               "image.manifest_digest", "container.image_digest"]

errors = []


def need(cond, what):
    if not cond:
        errors.append(what)
    return cond


def load_manifest(path):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")
    doc = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    return raw, doc


def props_of(suite):
    """[(name, value)] of the suite's own <properties>, or None."""
    p = suite.find("properties")
    if p is None:
        return None
    return [(q.get("name"), q.get("value")) for q in p.findall("property")]


def strip_ours(root, created):
    """Remove stackprint.* properties; and <properties> left empty that
    attach created (CREATED: suite indexes)."""
    for i, s in enumerate(root.iter("testsuite")):
        p = s.find("properties")
        if p is None:
            continue
        for q in list(p.findall("property")):
            if (q.get("name") or "").startswith("stackprint."):
                p.remove(q)
        if i in created and len(p) == 0:
            s.remove(p)


def attached(argv):
    before, after, manifest = argv[0], argv[1], argv[2]
    release, extra, rest = False, [], argv[3:]
    while rest:
        if rest[0] == "--release":
            release, rest = True, rest[1:]
        elif rest[0] == "--fact":
            extra.append(rest[1])
            rest = rest[2:]
        else:
            raise SystemExit(f"unknown argument {rest[0]}")
    raw, m = load_manifest(manifest)
    facts = m["facts"]
    want = [("stackprint.stack_id", m["stack_id"]),
            ("stackprint.manifest.sha256", hashlib.sha256(raw).hexdigest()),
            ("stackprint.subject", m["subject"])]
    for k in STACK_FACTS + [k for k in extra if k not in STACK_FACTS]:
        if k == "neuron.sdk.release" and release:
            want.append(("stackprint.fact." + k, None))     # value: release.c's
        elif k in facts:
            want.append(("stackprint.fact." + k, facts[k]))
    b, a = ET.parse(before).getroot(), ET.parse(after).getroot()
    bs, as_ = list(b.iter("testsuite")), list(a.iter("testsuite"))
    need(len(as_) > 0, "no testsuite after")
    need(len(bs) == len(as_), f"{len(bs)} suites before, {len(as_)} after")
    created = set()
    for i, (sb, sa) in enumerate(zip(bs, as_)):
        pb, pa = props_of(sb), props_of(sa)
        if pb is None:
            created.add(i)
            pb = []
        if not need(pa is not None, f"suite {i} ({sa.get('name')}): no <properties>"):
            continue
        ours = [(n, v) for n, v in pa if n.startswith("stackprint.")]
        got = [(n, v if w is not None else None) for (n, v), (_, w) in zip(ours, want)]
        need(len(ours) == len(want) and got == want,
             f"suite {i}: stackprint properties\n  want {want}\n  got  {ours}")
        if release:
            rel = [v for n, v in ours if n == "stackprint.fact.neuron.sdk.release"]
            need(len(rel) == 1 and rel[0], f"suite {i}: no neuron.sdk.release value")
        need([p for p in pa if not p[0].startswith("stackprint.")] ==
             [p for p in pb if not p[0].startswith("stackprint.")],
             f"suite {i}: other properties changed: {pb} -> {pa}")
    # everything else is kept: canonical forms equal once ours are removed
    strip_ours(b, set())
    strip_ours(a, created)
    cb = ET.canonicalize(ET.tostring(b, encoding="unicode"), strip_text=True)
    ca = ET.canonicalize(ET.tostring(a, encoding="unicode"), strip_text=True)
    need(cb == ca, "the rest of the report changed:\n  before " + cb[:800] + "\n  after  " + ca[:800])


def cases(report):
    """(passed, failed, skipped count) read from the report with etree."""
    passed, failed, skipped = [], [], 0
    for tc in ET.parse(report).getroot().iter("testcase"):
        cls, name = tc.get("classname") or "", tc.get("name") or ""
        full = f"{cls}::{name}" if cls else name
        tags = {c.tag for c in tc}
        if tags & {"failure", "error"}:
            failed.append(full)
        elif "skipped" in tags:
            skipped += 1
        else:
            passed.append(full)
    return passed, failed, skipped


def descriptor(d, where):
    """ResourceDescriptor v1: an object; at least one of uri, digest,
    content; digest a map of algorithm to string; name, uri,
    downloadLocation, mediaType strings; annotations an object."""
    if not need(isinstance(d, dict), f"{where}: not an object"):
        return
    known = {"name", "uri", "digest", "content", "downloadLocation", "mediaType", "annotations"}
    need(set(d) <= known, f"{where}: unknown fields {set(d) - known}")
    need(any(k in d for k in ("uri", "digest", "content")), f"{where}: no uri, digest or content")
    for k in ("name", "uri", "downloadLocation", "mediaType"):
        if k in d:
            need(isinstance(d[k], str), f"{where}.{k}: not a string")
    if "digest" in d:
        need(isinstance(d["digest"], dict) and d["digest"] and
             all(isinstance(v, str) for v in d["digest"].values()), f"{where}.digest: not a map of strings")
    if "annotations" in d:
        need(isinstance(d["annotations"], dict), f"{where}.annotations: not an object")


def sha256_file(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def statement(argv):
    envelope, report, manifest = argv[0], argv[1], argv[2]
    menv = argv[3] if len(argv) > 3 and argv[3] else None
    url = argv[4] if len(argv) > 4 else None
    env = json.load(open(envelope))
    need(env.get("payloadType") == "application/vnd.in-toto+json", "payloadType")
    s = json.loads(base64.b64decode(env["payload"], validate=True))
    # Statement v1
    need(set(s) == {"_type", "subject", "predicateType", "predicate"}, f"statement fields {set(s)}")
    need(s.get("_type") == "https://in-toto.io/Statement/v1", "_type")
    need(s.get("predicateType") == "https://in-toto.io/attestation/test-result/v0.1", "predicateType")
    subj = s.get("subject")
    if need(isinstance(subj, list) and len(subj) == 1, "subject: one descriptor"):
        descriptor(subj[0], "subject[0]")
        need(subj[0].get("name") == os.path.basename(report), "subject[0].name is the report's file name")
        need(subj[0].get("digest") == {"sha256": sha256_file(report)}, "subject[0].digest is the report's sha256")
    p = s.get("predicate")
    if not need(isinstance(p, dict), "predicate: not an object"):
        return
    known = {"result", "configuration", "url", "passedTests", "warnedTests", "failedTests"}
    need(set(p) <= known, f"predicate: unknown fields {set(p) - known}")
    need(p.get("result") in ("PASSED", "WARNED", "FAILED"), f"result {p.get('result')!r} not an enum value")
    cfg = p.get("configuration")
    if need(isinstance(cfg, list), "configuration: required list"):
        for i, d in enumerate(cfg):
            descriptor(d, f"configuration[{i}]")
    for k in ("passedTests", "warnedTests", "failedTests"):
        if k in p:
            need(isinstance(p[k], list) and all(isinstance(t, str) for t in p[k]), f"{k}: not a list of strings")
    if url is not None:
        need(p.get("url") == url, "url")
    else:
        need("url" not in p, "url present though none given")
    # content: the report's cases, the manifest and its envelope
    passed, failed, skipped = cases(report)
    need(p.get("passedTests") == passed, f"passedTests {p.get('passedTests')} != {passed}")
    need(p.get("failedTests") == failed, f"failedTests {p.get('failedTests')} != {failed}")
    need(p.get("result") == ("FAILED" if failed else "PASSED"), "result vs failed tests")
    need(subj[0].get("annotations", {}).get("skippedTests") == skipped, f"skippedTests != {skipped}")
    raw, m = load_manifest(manifest)
    want = [{"name": os.path.basename(manifest), "digest": {"sha256": hashlib.sha256(raw).hexdigest()},
             "mediaType": "application/json" if raw.lstrip().startswith(b"{") else "application/yaml",
             "annotations": {"stackprint.stack_id": m["stack_id"]}}]
    if menv:
        want.append({"name": os.path.basename(menv), "digest": {"sha256": sha256_file(menv)},
                     "mediaType": "application/vnd.dsse.envelope.v1+json"})
    need(cfg == want, f"configuration\n  want {want}\n  got  {cfg}")


def main():
    cmd, argv = sys.argv[1], sys.argv[2:]
    {"attached": attached, "statement": statement}[cmd](argv)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
