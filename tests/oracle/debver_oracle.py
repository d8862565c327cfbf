#!/usr/bin/python3
"""tests/oracle/debver_oracle.py DRIVER: compare stackprint's Debian version
order with `dpkg --compare-versions`, and its validity with
`dpkg --validate-version`, over a seeded generated corpus of versions shaped
like real packages (aws-neuronx-dkms 2.24.7.0-2ab4c1c9e, 1:2.3.0-1ubuntu1,
2.0~rc1-1, 1.0+dfsg-2~bpo11+1, epochs, tildes, letters, long numbers).

Pairs: random pairs, and pairs of near neighbours (one version and a small
edit of it), since those are where orders disagree.  dpkg is run once per
question; the questions run in parallel to stay well under 30 seconds.
Prints TAP lines; the first mismatches are shown.
"""
import concurrent.futures, json, random, subprocess, sys

rnd = random.Random(7)
REAL = ["2.24.7.0-2ab4c1c9e", "2.19.5.0-1", "1:2.3.0-1ubuntu1", "2.0~rc1-1", "1.0+dfsg-2~bpo11+1",
        "2.16.1.0", "1:9.2.1-3", "0.0", "2.22.2.0-b7d4d4b2a", "5.15.0-91.101", "1.2.3~beta1+git20240101-1"]
ATOMS = ["0", "1", "2", "7", "9", "10", "19", "24", "007", "2ab4c1c9e", "a", "b", "rc", "beta", "dfsg",
         "git", "ubuntu", "bpo", "Z"]
SEPS = [".", ".", ".", "+", "~", "-", ""]


def upstream():
    s = rnd.choice(["0", "1", "2", "9", "10", "2024"])
    for _ in range(rnd.randint(0, 5)):
        s += rnd.choice(SEPS) + rnd.choice(ATOMS)
    return s.rstrip("-") or "0"


def revision():
    s = rnd.choice(ATOMS)
    for _ in range(rnd.randint(0, 3)):
        s += rnd.choice([".", "+", "~", ""]) + rnd.choice(ATOMS)
    return s


def version():
    if rnd.random() < 0.1:
        return rnd.choice(REAL)
    v = upstream()
    if rnd.random() < 0.6:
        v += "-" + revision()
    if rnd.random() < 0.15:
        v = str(rnd.choice([0, 1, 2, 10])) + ":" + v
    return v


def edit(v):
    k = rnd.randrange(len(v) + 1)
    choice = rnd.random()
    if choice < 0.4:
        return v[:k] + rnd.choice(["~", "+", ".0", "0", "a", "~~", "1", "-1"]) + v[k:]
    if choice < 0.7 and k < len(v):
        return v[:k] + v[k + 1:]
    return v[:k] + rnd.choice(["", "0"]) + v[k:]


def dpkg(*args):
    return subprocess.run(["dpkg"] + list(args), stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def valid(v):
    return dpkg("--validate-version", v) == 0


def order(pair):
    a, b = pair
    if dpkg("--compare-versions", a, "lt", b) == 0:
        return "-1"
    return "0" if dpkg("--compare-versions", a, "eq", b) == 0 else "1"


def main():
    driver = sys.argv[1]
    base = [version() for _ in range(1500)]
    strings = base + [edit(rnd.choice(base)) for _ in range(600)] + \
        ["a1.0", "1.0_1", "1.0-", ":1.0", "1:", "x:1", "1.0 1", "99999999999:1", "1.0-1_2", ""]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        validity = list(pool.map(valid, strings))
        ok = [s for s, good in zip(strings, validity) if good]
        pairs = [(rnd.choice(ok), rnd.choice(ok)) for _ in range(1500)]
        for _ in range(1500):
            a = rnd.choice(ok)
            b = edit(a)
            if valid(b):
                pairs.append((a, b))
        orders = list(pool.map(order, pairs))

    queries = [json.dumps(["norm", "deb", s]) for s in strings] + \
              [json.dumps(["cmp", "deb", a, b]) for a, b in pairs]
    r = subprocess.run([driver, "--eval"], input="\n".join(queries) + "\n", capture_output=True,
                       text=True, timeout=120)
    got = r.stdout.splitlines()
    if r.returncode != 0 or len(got) != len(queries):
        print(f"not ok - deb driver ran (exit {r.returncode}, {len(got)} of {len(queries)} answers)")
        return 1
    bad_valid = [f"{s!r}: dpkg says {'valid' if v else 'invalid'}, we say {g}"
                 for s, v, g in zip(strings, validity, got) if (g != "error") != v]
    bad_order = [f"{a} vs {b}: dpkg {want}, we {g}"
                 for (a, b), want, g in zip(pairs, orders, got[len(strings):]) if g != want]
    for name, bad, n in [("validity", bad_valid, len(strings)), ("order", bad_order, len(pairs))]:
        if bad:
            print(f"not ok - deb {name}: {len(bad)} of {n} differ from dpkg")
            for line in bad[:15]:
                print("#   " + line)
        else:
            print(f"ok - deb {name}: {n} cases agree with dpkg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
