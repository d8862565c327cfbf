#!/bin/sh
# tests/oracle/metadata_eol.sh: METADATA / PKG-INFO headers with CR, LF and
# CRLF line ends (and mixtures, and a CR/LF pair split across stackprint's
# first read) give the pip.* facts Python's importlib.metadata reads from the
# same files (it opens them as text, universal newlines, and parses them with
# the email package).  The handed CR-only torch METADATA is one of them.
. "$TOP/tests/lib.sh"
T=$TMPDIR
cp -r tests/fixtures/roots/inf2 "$T/r"
S="$T/r/usr/local/lib/python3.11/site-packages"
rm -rf "$S"/torch-*.dist-info
cp -r tests/fixtures/hostile/metadata-cr-line-endings/site/torch-2.12.0.dist-info "$S/"
/usr/bin/python3 - "$S" <<'PY'
import os, sys
S = sys.argv[1]
def dist(name, version, eol, pad=0, kind="dist-info"):
    d = os.path.join(S, "%s-%s.%s" % (name, version, kind))
    os.makedirs(d, exist_ok=True)
    lines = ["Metadata-Version: 2.1", "Summary: a", "  folded summary", "X-Pad: " + "p" * pad,
             "Name: " + name, "Version: " + version, "", "Name: body-not-a-header", "Version: 9"]
    if isinstance(eol, str):
        text = eol.join(lines) + eol
    else:   # a list of line ends, one per line, cycled
        text = "".join(l + eol[i % len(eol)] for i, l in enumerate(lines))
    open(os.path.join(d, "METADATA" if kind == "dist-info" else "PKG-INFO"), "w", newline="").write(text)
dist("eol-lf", "1.0", "\n")
dist("eol-crlf", "1.1", "\r\n")
dist("eol-cr", "1.2", "\r")
dist("eol-mixed", "1.3", ["\r", "\r\n", "\n"])
dist("eol-egg", "1.4", "\r", kind="egg-info")
# the CR of a CRLF as the last byte of the first 16 KiB read
first = len("Metadata-Version: 2.1\r\nSummary: a\r\n  folded summary\r\nX-Pad: ")
dist("eol-split", "1.5", "\r\n", pad=16 * 1024 - first - 1)
# a CR at that boundary that is a line end of its own, then a blank line
dist("eol-split-cr", "1.6", "\r", pad=16 * 1024 - len("Metadata-Version: 2.1\rSummary: a\r  folded summary\rX-Pad: ") - 1)
PY
"$STACKPRINT" probe --root "$T/r" --format json -o "$T/m.json" 2>"$T/err" || { not_ok "probe" "$(cat "$T/err")"; exit 0; }
/usr/bin/python3 - "$S" >"$T/want" <<'PY'
import importlib.metadata as md, os, re, sys
S = sys.argv[1]
for e in sorted(os.listdir(S)):
    if not (e.startswith("eol-") or e.startswith("torch-")):
        continue
    d = md.PathDistribution(md.Path(os.path.join(S, e)) if hasattr(md, "Path") else __import__("pathlib").Path(os.path.join(S, e)))
    print("pip.%s=%s" % (re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower(), d.version))
PY
/usr/bin/python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["facts"]
for k in sorted(f):
    if k.startswith("pip.eol-") or k == "pip.torch":
        print("%s=%s" % (k, f[k]))' "$T/m.json" | sort >"$T/got"
sort -o "$T/want" "$T/want"
check "importlib.metadata read all eight files" [ "$(wc -l <"$T/want")" = 8 ]
check "the handed CR-only METADATA gives pip.torch 2.12.0" grep -qx 'pip.torch=2.12.0' "$T/want"
same_lines "pip.* from CR, LF, CRLF and mixed line ends equal importlib.metadata's" "$T/want" "$T/got"
