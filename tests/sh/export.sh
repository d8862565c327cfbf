#!/bin/sh
# tests/sh/export.sh: stackprint export (CycloneDX 1.6, SPDX 2.3) judged by
# tools nobody here wrote:
#   - the CycloneDX project's own strict validator (@cyclonedx/cyclonedx-library,
#     JSON schema 1.6) for every fixture root's manifest, this machine's, and
#     a real image built with umoci;
#   - ajv with the SPDX 2.3 JSON schema the SPDX project publishes
#     (tests/schemas/spdx-2.3/);
#   - packageurl-js parsing every purl back into type, namespace, name,
#     version and qualifiers, which must be what the manifest's fact says;
#   - Python's uuid.uuid5 for the serial number (RFC 9562 version 5).
# Plus: nothing in the manifest is lost (every fact is a component or a
# property), the same manifest gives the same bytes, CycloneDX and SPDX
# name the same purls, and bad input is refused.
. "$TOP/tests/lib.sh"

npm_oracles || exit 1
export SOURCE_DATE_EPOCH=1764547200

# judge NAME MANIFEST: every check on one manifest
judge() {
    jn=$1 jm=$2
    "$STACKPRINT" export -o "$TMPDIR/$jn.cdx.json" "$jm" 2>"$TMPDIR/err"
    check "$jn: export exit 0" [ $? -eq 0 ]
    "$STACKPRINT" export --format spdx -o "$TMPDIR/$jn.spdx.json" "$jm" 2>>"$TMPDIR/err"
    check "$jn: export --format spdx exit 0" [ $? -eq 0 ]
    out=$($ORACLE cyclonedx "$TMPDIR/$jn.cdx.json" 2>&1)
    if [ "$out" = valid ]; then ok "$jn: CycloneDX 1.6 strict validator"
    else not_ok "$jn: CycloneDX 1.6 strict validator" "$(printf '%s' "$out" | head -c 1500)"; fi
    out=$($ORACLE spdx "$TOP/tests/schemas/spdx-2.3/spdx-schema.json" "$TMPDIR/$jn.spdx.json" 2>&1)
    if [ "$out" = valid ]; then ok "$jn: SPDX 2.3 JSON schema"
    else not_ok "$jn: SPDX 2.3 JSON schema" "$(printf '%s' "$out" | head -c 1500)"; fi
    $ORACLE purls "$TMPDIR/$jn.cdx.json" >"$TMPDIR/$jn.purls" 2>&1
    "$STACKPRINT" export --format cyclonedx "$jm" >"$TMPDIR/$jn.again.json"
    check "$jn: the same manifest gives the same bytes" cmp -s "$TMPDIR/$jn.cdx.json" "$TMPDIR/$jn.again.json"
    out=$(/usr/bin/python3 - "$jm" "$TMPDIR/$jn.cdx.json" "$TMPDIR/$jn.spdx.json" "$TMPDIR/$jn.purls" <<'PY'
import json, re, sys, uuid
import yaml
man_path, cdx_path, spdx_path, purls_path = sys.argv[1:]
text = open(man_path).read()
man = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
cdx, spdx = json.load(open(cdx_path)), json.load(open(spdx_path))
facts, problems = man["facts"], []
os_id, os_ver = facts.get("host.os.id"), facts.get("host.os.version_id")

# serial number: RFC 9562 version 5 of the stack id, by Python's uuid
want = "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, "https://stackprint.dev/stack/" + man["stack_id"]))
if cdx["serialNumber"] != want:
    problems.append(f"serialNumber {cdx['serialNumber']} != {want}")
if cdx["metadata"]["timestamp"] != man["created"]:
    problems.append("timestamp is not the manifest's created")

# nothing lost: each fact is a document property with its value, or the
# component(s) whose stackprint:fact names it carry it as their version
props = {p["name"]: p["value"] for p in cdx["metadata"].get("properties", [])}
if props.get("stackprint:stack_id") != man["stack_id"]:
    problems.append("stack_id property missing")
by_fact = {}
for c in cdx["components"]:
    for p in c.get("properties", []):
        if p["name"] == "stackprint:fact":
            by_fact.setdefault(p["value"], []).append(c)
for k, v in facts.items():
    if ("stackprint:" + k) in props:
        if props["stackprint:" + k] != v:
            problems.append(f"property {k} = {props['stackprint:' + k]!r}, fact {v!r}")
        continue
    comps = by_fact.get(k)
    if not comps:
        problems.append(f"fact {k} is neither a property nor a component")
        continue
    versions = [c.get("version") for c in comps]
    want_v = [re.sub(r"^[0-9]+:", "", v)] if k.startswith("rpm.") else [v]
    if versions != want_v:
        problems.append(f"fact {k}: component versions {versions} != {want_v}")

# purls, as packageurl-js parses them back
n = 0
for line in open(purls_path):
    n += 1
    p = json.loads(line)
    k, v = p["fact"], facts.get(p["fact"] or "")
    if v is None:
        problems.append(f"purl {p['purl']} names no fact"); continue
    if k.startswith("pip.") or ".pip." in k:
        name = k.split("pip.", 1)[1] if k.startswith("pip.") else k.split(".pip.", 1)[1]
        want = ("pypi", None, name, v, {})
    elif k.startswith("deb."):
        name, _, arch = k[4:].partition(":")
        q = {"distro": f"{os_id}-{os_ver}"}
        if arch: q["arch"] = arch
        want = ("deb", os_id, name, v, q)
    elif k.startswith("rpm."):
        q = {"distro": f"{os_id}-{os_ver}"}
        if "epoch" in p["qualifiers"]: q["epoch"] = p["qualifiers"]["epoch"]
        want = ("rpm", os_id, k[4:], p["version"], q)
    else:
        problems.append(f"purl for unexpected fact {k}"); continue
    got = (p["type"], p["namespace"], p["name"], p["version"], p["qualifiers"])
    if got != want:
        problems.append(f"{p['purl']}: parsed {got}, fact says {want}")
if n != sum(1 for c in cdx["components"] if "purl" in c):
    problems.append("packageurl-js did not parse every purl")

# CycloneDX and SPDX name the same purls
sp = sorted(r["referenceLocator"] for pkg in spdx["packages"] for r in pkg.get("externalRefs", []))
cp = sorted(c["purl"] for c in cdx["components"] if "purl" in c)
if sp != cp:
    problems.append("SPDX and CycloneDX purls differ")
print("\n".join(problems) if problems else "ok")
PY
)
    if [ "$out" = ok ]; then ok "$jn: lossless, purls parse back to their facts, serial and timestamp"
    else not_ok "$jn: lossless, purls parse back to their facts, serial and timestamp" "$(printf '%s' "$out" | head -n 20)"; fi
}

for r in tests/fixtures/roots/*/; do
    r=${r%/}
    name=$(basename "$r")
    "$STACKPRINT" probe --root "$r" -o "$TMPDIR/$name.yaml" 2>/dev/null
    judge "root $name" "$TMPDIR/$name.yaml"
done

"$STACKPRINT" probe --format json -o "$TMPDIR/host.json" 2>/dev/null
judge "this host" "$TMPDIR/host.json"

# a real image: umoci builds it, skopeo writes an OCI archive
if command -v umoci >/dev/null && command -v skopeo >/dev/null; then
    (
        set -e
        cd "$TMPDIR"
        umoci_bundle oci app b
        mkdir -p b/rootfs/etc b/rootfs/var/lib/dpkg
        cp /etc/os-release b/rootfs/etc/os-release
        cp /var/lib/dpkg/status b/rootfs/var/lib/dpkg/status
        umoci repack --image oci:app b >/dev/null
        skopeo copy -q oci:oci:app oci-archive:app.tar:app >/dev/null
    ) >"$TMPDIR/build.log" 2>&1
    if "$STACKPRINT" probe --image "$TMPDIR/app.tar" -o "$TMPDIR/image.yaml" 2>/dev/null; then
        judge "image" "$TMPDIR/image.yaml"
        kind=$(/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metadata"]["component"]; print(m["type"], m["hashes"][0]["content"])' "$TMPDIR/image.cdx.json")
        want=$(/usr/bin/python3 -c 'import yaml,sys; f=yaml.safe_load(open(sys.argv[1]))["facts"]; print("container", f["image.manifest_digest"][7:])' "$TMPDIR/image.yaml")
        check "image: the subject is a container with its manifest digest" [ "$kind" = "$want" ]
    else
        not_ok "image: probe" "$(tail -n 5 "$TMPDIR/build.log")"
    fi
else
    skip "image export" "umoci or skopeo missing"
fi

# probe --format cyclonedx is probe + export
"$STACKPRINT" probe --root tests/fixtures/roots/trn2-native -o "$TMPDIR/s.yaml"
"$STACKPRINT" export "$TMPDIR/s.yaml" >"$TMPDIR/s1.json"
"$STACKPRINT" probe --root tests/fixtures/roots/trn2-native --format cyclonedx >"$TMPDIR/s2.json"
check "probe --format cyclonedx equals probe then export" cmp -s "$TMPDIR/s1.json" "$TMPDIR/s2.json"
"$STACKPRINT" probe --root tests/fixtures/roots/trn2-native --format cyclonedx -o "$TMPDIR/x" --sign k 2>/dev/null
check "probe --format cyclonedx --sign: usage error" [ $? -eq 2 ]

# bad input
"$STACKPRINT" export 2>/dev/null; check "no manifest: exit 2" [ $? -eq 2 ]
"$STACKPRINT" export --format xml "$TMPDIR/s.yaml" 2>/dev/null; check "unknown format: exit 2" [ $? -eq 2 ]
"$STACKPRINT" export -o "$TMPDIR/s.yaml" "$TMPDIR/s.yaml" 2>/dev/null; check "-o is the manifest: exit 2" [ $? -eq 2 ]
sed 's/^  host.os.id: .*/  host.os.id: "tampered"/' "$TMPDIR/s.yaml" >"$TMPDIR/t.yaml"
"$STACKPRINT" export "$TMPDIR/t.yaml" >/dev/null 2>"$TMPDIR/err"
check "tampered manifest (stack id): exit 4" [ $? -eq 4 ]
check "tampered manifest: one line naming the file" [ "$(wc -l <"$TMPDIR/err")" = 1 ] && grep -q "t.yaml" "$TMPDIR/err"
"$STACKPRINT" export "$TMPDIR/nowhere.yaml" >/dev/null 2>&1; check "missing manifest: exit 4" [ $? -eq 4 ]

# An rpm value that is not [E:]V-R (a comma in it) stays a property, whole:
# nothing is lost (found by trying to break it)
/usr/bin/python3 -c '
import sys, yaml, json
d = yaml.safe_load(open(sys.argv[1]))
d["facts"]["rpm.odd"] = ",,,"
d["facts"]["rpm.two"] = "1.0-1,"
json.dump(d, open(sys.argv[2], "w"))' "$TMPDIR/s.yaml" "$TMPDIR/odd.json"
/usr/bin/python3 tests/restamp "$TMPDIR/odd.json"
"$STACKPRINT" export "$TMPDIR/odd.json" >"$TMPDIR/odd.cdx.json"
got=$(/usr/bin/python3 -c '
import json, sys
p = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))["metadata"]["properties"]}
print(p.get("stackprint:rpm.odd"), p.get("stackprint:rpm.two"))' "$TMPDIR/odd.cdx.json")
check "rpm values with commas are properties, whole" [ "$got" = ",,, 1.0-1," ]
