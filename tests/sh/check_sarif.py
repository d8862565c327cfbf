#!/usr/bin/python3
"""tests/sh/check_sarif.py FILE...: check SARIF 2.1.0 logs for what the
OASIS specification (sarif-v2.1.0, section 3) requires and what code
scanning relies on: version "2.1.0"; runs[]; each run's tool.driver.name;
each result's message.text; ruleId (when given) equal to
tool.driver.rules[ruleIndex].id; level one of none/note/warning/error;
reportingDescriptor ids unique; artifactLocation.uri a relative reference
or a file:/// URI, without spaces.  Prints "ok"/"not ok" lines; exit 0."""
import json, sys

def check(path):
    errors = []
    doc = json.load(open(path))
    if doc.get("version") != "2.1.0":
        errors.append("version is not 2.1.0")
    runs = doc.get("runs")
    if not isinstance(runs, list) or not runs:
        errors.append("runs is not a non-empty array")
        runs = []
    for run in runs:
        driver = run.get("tool", {}).get("driver", {})
        if not isinstance(driver.get("name"), str) or not driver["name"]:
            errors.append("tool.driver.name missing")
        rules = driver.get("rules", [])
        ids = [r.get("id") for r in rules]
        if len(ids) != len(set(ids)) or not all(isinstance(i, str) and i for i in ids):
            errors.append("rule ids missing or not unique")
        for r in rules:
            lvl = r.get("defaultConfiguration", {}).get("level", "warning")
            if lvl not in ("none", "note", "warning", "error"):
                errors.append(f"rule {r.get('id')}: bad level {lvl}")
        for res in run.get("results", []):
            if not isinstance(res.get("message", {}).get("text"), str):
                errors.append("a result without message.text")
            if res.get("level", "warning") not in ("none", "note", "warning", "error"):
                errors.append("a result with a bad level")
            if "ruleIndex" in res and ids[res["ruleIndex"]] != res.get("ruleId"):
                errors.append(f"ruleIndex {res['ruleIndex']} does not name {res.get('ruleId')}")
            for loc in res.get("locations", []):
                uri = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
                if uri is not None and (" " in uri or (uri.startswith("/") or ":" in uri.split("/")[0])
                                        and not uri.startswith("file:///")):
                    errors.append(f"artifactLocation.uri {uri!r} is neither relative nor file:///")
    return errors

for path in sys.argv[1:]:
    errs = check(path)
    print(("ok - " if not errs else "not ok - ") + f"sarif 2.1.0 required fields: {path.split('/')[-1]}")
    for e in errs[:10]:
        print("#   " + e)
