#!/bin/sh
# The documented fact keys are one table (manifest/fact_keys.c, printed by
# `stackprint help keys`), and the pages document exactly that table:
# stackprint-manifest(5) FACT KEYS (its "Well-known keys" subsection for the
# well-known names) and stackprint-policy(5) "Derived facts".  Every key a
# probe writes for a fixture root or this host is documented, and the
# shipped and fixture policies name no key the table does not know.
. "$TOP/tests/lib.sh"

"$STACKPRINT" help keys >"$TMPDIR/table" 2>"$TMPDIR/err"
check "help keys exits 0 and prints the table" test -s "$TMPDIR/table"

# The pages, read as troff: a .B/.BR/.BI line of a documented entry names
# keys in bold, italic parts are filled in by the probe ("*"); an entry is
# the line after .TP.
/usr/bin/python3 - "$TMPDIR/table" >"$TMPDIR/py.out" <<'EOF'
import re, sys

def keys_of(line):
    macro, rest = line.split(" ", 1)
    if macro in (".BR", ".BI"):
        fonts = "BR" if macro == ".BR" else "BI"
        args = [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', rest)]
        text = "".join("\\f" + fonts[i % 2] + a for i, a in enumerate(args))
    else:
        text = "\\fB" + rest
    out, font = "", "B"
    for part in re.split(r"(\\f[BIRP])", text):
        if re.fullmatch(r"\\f[BIRP]", part):
            font = part[2]
        elif font == "I":
            out += "*"
        elif font == "B":
            out += part
        else:
            out += " "
    out = out.replace("\\-", "-")
    return [k for k in re.split(r"[ ,]+", out) if k]

def section(path, start, stop):
    lines, on = [], False
    for l in open(path, encoding="utf-8"):
        l = l.rstrip("\n")
        if re.match(start, l):
            on = True
            continue
        if on and re.match(stop, l):
            break
        if on:
            lines.append(l)
    return lines

pages = set()
sub = prev = None
for l in section("man/stackprint-manifest.5", r"\.SH FACT KEYS", r"\.SH "):
    entry, prev = prev == ".TP", l
    if l.startswith(".SS "):
        sub = l[4:]
    elif entry and re.match(r"\.(B|BR|BI) ", l):
        kind = "well-known, " if sub == "Well-known keys" else ""
        pages |= {(k, kind + "stackprint-manifest(5)") for k in keys_of(l)}
for l in section("man/stackprint-policy.5", r"\.SS Derived facts", r"\.S[HS] "):
    entry, prev = prev == ".TP", l
    if entry and re.match(r"\.(B|BR|BI) ", l):
        pages |= {(k, "stackprint-policy(5)") for k in keys_of(l)}

table = set()
for l in open(sys.argv[1]):
    key, page = l.rstrip("\n").split(None, 1)
    table.add((key, page))

for k, p in sorted(pages - table):
    print(f"in the pages, not in the table: {k} ({p})")
for k, p in sorted(table - pages):
    print(f"in the table, not in the pages: {k} ({p})")
print(f"{len(table)} entries")
EOF
if grep -q "not in the" "$TMPDIR/py.out"; then
    not_ok "the table and the pages list the same keys" "$(cat "$TMPDIR/py.out")"
else
    ok "the table and the pages list the same keys ($(tail -n 1 "$TMPDIR/py.out"))"
fi

# every key probed is documented: a policy naming each one draws no warning
for r in tests/fixtures/roots/*/ /; do
    name=${r%/}; name=${name##*/}; [ -n "$name" ] || name=host
    if [ "$r" = / ]; then "$STACKPRINT" probe --format json -o "$TMPDIR/m.json" 2>/dev/null
    else "$STACKPRINT" probe --root "$r" --format json -o "$TMPDIR/m.json" 2>/dev/null; fi
    /usr/bin/python3 - "$TMPDIR/m.json" >"$TMPDIR/p.yaml" <<'EOF'
import json, sys
print("policy: every-key\nrequire:")
for k in json.load(open(sys.argv[1]))["facts"]:
    print(f"  {k}: present")
EOF
    "$STACKPRINT" check --strict --policy "$TMPDIR/p.yaml" "$TMPDIR/m.json" >/dev/null 2>"$TMPDIR/err"
    if grep -q "not a documented fact key" "$TMPDIR/err"; then
        not_ok "every fact probed for $name is documented" "$(grep 'not a documented' "$TMPDIR/err" | head -n 5)"
    else
        ok "every fact probed for $name is documented ($(grep -c present "$TMPDIR/p.yaml") keys)"
    fi
done

# the shipped policies and the test policies use documented, well-spelled keys
for p in policies tests/fixtures/policies; do
    "$STACKPRINT" check --strict --policy "$p" tests/fixtures/manifests/trn2-xla.yaml >/dev/null 2>"$TMPDIR/err"
    if grep -q "did you mean" "$TMPDIR/err"; then
        not_ok "$p: no key warning" "$(head -n 5 "$TMPDIR/err")"
    else
        ok "$p: no key warning"
    fi
done
