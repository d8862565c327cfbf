#!/usr/bin/python3
"""tests/oracle/direction_oracle.py DRIVER: ask DRIVER (test_compare --eval)
the change between pairs of versions under real fact keys, and compare each
answer with the scheme's own tool:

  deb.*                   dpkg --compare-versions (lt / eq)
  pip.*, python.version   packaging.version.Version (PEP 440)
  neuron.driver.version   packaging too: dotted numbers order as PEP 440
                          releases do (missing components are zero)
  rpm.*                   rpm.labelCompare((epoch, version, release), ...)

Expected: the oracle's order < 0 is "upgraded", > 0 "downgraded", equal
orders of different texts "changed", equal texts "unchanged".  The pairs
are seeded neighbours of real shapes (a small edit of one version), where
orders disagree, plus each scheme's known traps (tilde, epoch, pre-release,
local label, 2.10 against 2.9).
Prints TAP lines; the first mismatches are shown."""
import random, subprocess, sys

rnd = random.Random(13)


def expect(order, a, b):
    if a == b:
        return "unchanged"
    return "upgraded" if order < 0 else "downgraded" if order > 0 else "changed"


# ---- generators ----------------------------------------------------------

def neighbours(real, edits, n):
    pairs = [(a, b) for a in real for b in real]
    while len(pairs) < n:
        a = rnd.choice(real)
        b = a
        for _ in range(rnd.randint(1, 2)):
            k = rnd.randrange(len(b) + 1)
            b = b[:k] + rnd.choice(edits) + b[k:]
        pairs.append((a, b) if rnd.random() < 0.5 else (b, a))
    return pairs


DEB = ["2.24.7.0-2ab4c1c9e", "2.36-9+deb12u4", "2.36-9+deb12u10", "1.0", "1.0~rc1", "1:0.9-1",
       "2.0-1", "1:2.3.0-1ubuntu1", "1.0+dfsg-2~bpo11+1", "1.2.3~beta1+git20240101-1", "0.0",
       "2.28.23.0-dd5879008", "1:1.2.13.dfsg-1"]
PEP = ["2.3.0a0+ebedce2", "2.3.0", "2.1.2", "2.1.2+cu121", "1.0", "1.0.0", "1.0rc1", "1.0.post1",
       "1.0.dev3", "2.9.0.2.15.32035", "2.26.6360.0+6f180f47", "1!0.1", "3.11.7", "3.11.10",
       "0.18.0+cu121", "2.0.0b2"]
DOTTED = ["2.9.1.0", "2.10.0.0", "2.29", "2.29.0", "2.24.7.0", "2.30.2.0", "10", "1.0.0.0.1"]
RPM = ["2.24.7.0-1.amzn2023", "1:2.19.5.0-1.amzn2023", "2.34-100.amzn2023", "2.34-52.amzn2023",
       "1.0-1", "1.0~rc1-1", "1.0^git1-1", "0:1.0-1", "1.0a-1", "1.0-1.el9_3"]


def dpkg_order(a, b):
    lt = subprocess.run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0
    eq = subprocess.run(["dpkg", "--compare-versions", a, "eq", b]).returncode == 0
    return -1 if lt else 0 if eq else 1


def valid_deb(v):
    return subprocess.run(["dpkg", "--validate-version", v], stderr=subprocess.DEVNULL).returncode == 0


def evr(s):
    e, _, rest = s.rpartition(":") if ":" in s else ("", "", s)
    v, _, r = rest.rpartition("-") if "-" in rest else (rest, "", "")
    return (e or "0", v, r or "")


def valid_evr(s):
    """An EVR as rpm writes one: an optional all-digit epoch and ':', a
    version and a release, neither empty, one '-' between them, no ':'
    elsewhere (rpm's labelCompare takes more, but a package never has it)."""
    if s.count(":") > 1 or s.count("-") != 1:
        return False
    e, v, r = evr(s)
    return e.isdigit() and v != "" and r != "" and ":" not in v + r


def main():
    driver = sys.argv[1]
    cases = []                                   # (scheme, key, a, b, expected)
    try:
        from packaging.version import Version, InvalidVersion
    except ImportError:
        print("ok - direction oracle (PEP 440) # skip python3-packaging is not installed")
        Version = None
    if Version:
        def pep(a, b):
            try:
                va, vb = Version(a), Version(b)
            except InvalidVersion:
                return None
            return (va > vb) - (va < vb)
        for key, real, edits in [("pip.torch", PEP, ["a1", ".0", "+local", ".post2", "rc1", "0", ".dev1", "1!"]),
                                 ("python.version", ["3.11.7", "3.11.10", "3.13.0rc1", "3.13.0"], ["0", ".1", "rc2"]),
                                 ("neuron.driver.version", DOTTED, ["0", ".0", "1", ".10"])]:
            for a, b in neighbours(real, edits, 400):
                o = pep(a, b)
                if o is not None and (key != "neuron.driver.version" or
                                      all(p.isdigit() for p in (a + "." + b).split("."))):
                    cases.append(("pep440" if key != "neuron.driver.version" else "dotted", key, a, b,
                                  expect(o, a, b)))
    if subprocess.run(["sh", "-c", "command -v dpkg"], stdout=subprocess.DEVNULL).returncode == 0:
        for a, b in neighbours(DEB, ["~", "+", ".0", "0", "a", "-1", "1:", "~~"], 300):
            if valid_deb(a) and valid_deb(b):
                cases.append(("deb", "deb.libc6", a, b, expect(dpkg_order(a, b), a, b)))
    else:
        print("ok - direction oracle (deb) # skip dpkg is not installed")
    try:
        import rpm
    except ImportError:
        rpm = None
        print("ok - direction oracle (rpm) # skip python3-rpm is not installed")
    if rpm:
        for a, b in neighbours(RPM, ["~", "^", ".0", "0", "a", "1:", ".1"], 400):
            if valid_evr(a) and valid_evr(b):
                try:
                    o = rpm.labelCompare(evr(a), evr(b))
                except ValueError:      # rpm refuses it (a bad epoch): not a question
                    continue
                cases.append(("rpm", "rpm.glibc", a, b, expect(o, a, b)))
    text = "".join(f"{k}\t{a}\t{b}\n" for _, k, a, b, _ in cases)
    r = subprocess.run([driver, "--eval"], input=text, capture_output=True, text=True, timeout=120)
    got = r.stdout.splitlines()
    if r.returncode != 0 or len(got) != len(cases):
        print(f"not ok - direction driver ran (exit {r.returncode}, {len(got)} of {len(cases)} answers)")
        return 0
    for scheme, tool in [("pep440", "packaging"), ("dotted", "packaging"), ("deb", "dpkg"),
                         ("rpm", "rpm.labelCompare")]:
        mine = [(c, g) for c, g in zip(cases, got) if c[0] == scheme]
        if not mine:
            continue
        # a version the scheme here refuses gives "changed"; the oracle's
        # direction then differs: such values are reported, never hidden
        bad = [f"{c[1]}: {c[2]} -> {c[3]}: {tool} says {c[4]}, stackprint {g}"
               for c, g in mine if g != c[4]]
        kinds = sorted({c[4] for c, _ in mine})
        if bad:
            print(f"not ok - {scheme} direction: {len(bad)} of {len(mine)} differ from {tool}")
            for line in bad[:15]:
                print("#   " + line)
        else:
            print(f"ok - {scheme} direction: {len(mine)} pairs agree with {tool} ({', '.join(kinds)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
