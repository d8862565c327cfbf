#!/bin/sh
# tests/sh/rpm.sh: rpm.* facts from real rpm databases made here with
# Debian's rpm (rpmbuild tiny packages, Neuron-named with the yum spelling
# "VERSION_HASH-RELEASE", one with an epoch, one with Epoch 0, a kernel
# installed twice; `rpm --root DIR --dbpath /var/lib/rpm --initdb` and
# `-i --justdb --nodeps`).  Oracles nobody here wrote: `rpm -qa --qf` on the
# same database (the value of every fact), sha256sum/stat/find (reading
# never changes the probed tree), umoci (the same database in an image
# layer gives the same facts).  Then an AL2023-shaped Neuron DLAMI root
# through probe and check, and damaged databases: warnings, never a crash
# or a hang.
. "$TOP/tests/lib.sh"
for t in rpm rpmbuild timeout; do
    command -v "$t" >/dev/null || { skip "rpm databases" "$t missing (scripts/bootstrap installs rpm)"; exit 0; }
done
W=$TMPDIR/rpm
mkdir -p "$W/top"
QF='%{NAME} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n'

# pkg NAME VERSION RELEASE [EPOCH]: a noarch package without files
pkg() {
    {
        printf 'Name: %s\nVersion: %s\nRelease: %s\n' "$1" "$2" "$3"
        [ -n "${4:-}" ] && printf 'Epoch: %s\n' "$4"
        printf 'Summary: t\nLicense: none\nBuildArch: noarch\n%%description\nt\n%%files\n'
    } > "$W/p.spec"
    rpmbuild --quiet -bb --define "_topdir $W/top" --define "_build_id_links none" \
        "$W/p.spec" >/dev/null 2>&1 || { echo "rpmbuild $1 failed" >&2; return 1; }
    ls "$W"/top/RPMS/noarch/"$1-$2-$3".noarch.rpm
}

# db ROOT DBPATH RPM...: a fresh database at ROOT/DBPATH holding the packages
db() {
    r=$1 p=$2
    shift 2
    mkdir -p "$r"
    rpm --root "$r" --dbpath "$p" --initdb 2>/dev/null &&
    rpm --root "$r" --dbpath "$p" -i --justdb --nodeps --nosignature "$@" 2>/dev/null
}

# facts MANIFEST: "NAME VALUE" for every rpm.* fact
facts() {
    /usr/bin/python3 -c 'import json,sys
for k, v in json.load(open(sys.argv[1]))["facts"].items():
    if k.startswith("rpm."): print(k[4:], v)' "$1"
}

# snapshot DIR: every file's name, type, size, mode, mtime (ns) and sha256
snapshot() {
    (cd "$1" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
     find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

RUNTIME=$(pkg aws-neuronx-runtime-lib 2.28.23.0_8a7a5d7ea 1) &&
COLL=$(pkg aws-neuronx-collectives 2.28.27.0_b2b1ca6b4 1) &&
DKMS=$(pkg aws-neuronx-dkms 2.24.7.0 dkms) &&
TOOLS=$(pkg aws-neuronx-tools 2.26.14.0_3e6d2c1a7 1) &&
EPOCH=$(pkg zz-epoch-test 1.0 3.amzn2023 2) &&
ZERO=$(pkg zz-epoch-zero 4.5 1 0) &&
K1=$(pkg kernel 6.1.9 1.amzn2023) &&
K2=$(pkg kernel 6.1.10 1.amzn2023) || { not_ok "rpmbuild tiny packages"; exit 0; }
ALL="$RUNTIME $COLL $DKMS $TOOLS $EPOCH $ZERO $K1 $K2"

# ---- values: exactly what rpm -qa --qf prints -----------------------------
A=$W/a
db "$A" /var/lib/rpm $ALL || { not_ok "rpm --initdb and -i --justdb"; exit 0; }
rpm --root "$A" --dbpath /var/lib/rpm -qa --qf "$QF" | LC_ALL=C sort > "$W/oracle.txt"
before=$(snapshot "$A")
if $STACKPRINT probe --root "$A" --format json -o "$W/a.json" 2>"$W/err"; then
    facts "$W/a.json" | LC_ALL=C sort > "$W/got.txt"
    # one line per name: the kernel's two versions are one fact (the newest)
    grep -v '^kernel ' "$W/oracle.txt" > "$W/want.txt"
    grep -v '^kernel ' "$W/got.txt" > "$W/got1.txt"
    same_lines "rpm.* values are rpm -qa --qf's (epoch when tagged, 0 included; yum spelling kept)" \
        "$W/want.txt" "$W/got1.txt"
    grep -q '^zz-epoch-test 2:1.0-3.amzn2023$' "$W/got.txt" && grep -q '^zz-epoch-zero 0:4.5-1$' "$W/got.txt" &&
        ok "the epoch is shown when the package has one" || not_ok "the epoch is shown when the package has one" "$(cat "$W/got.txt")"
    # rpmvercmp compares 10 and 9 as numbers: 6.1.10 is the newer kernel
    # (a string order would say 6.1.9); both lines are in rpm's own list
    k=$(/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["facts"]["rpm.kernel"], "|", m["evidence"]["rpm.kernel"])' "$W/a.json")
    if [ "$k" = "6.1.10-1.amzn2023 | /var/lib/rpm/rpmdb.sqlite; also installed: 6.1.9-1.amzn2023" ] &&
       grep -q '^kernel 6.1.10-1.amzn2023$' "$W/oracle.txt" && grep -q '^kernel 6.1.9-1.amzn2023$' "$W/oracle.txt"; then
        ok "several versions of one name: the newest, the others in its evidence"
    else
        not_ok "several versions of one name: the newest, the others in its evidence" "got: $k"
    fi
    ev=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["evidence"]["rpm.aws-neuronx-tools"])' "$W/a.json")
    check "evidence names the database file" test "$ev" = /var/lib/rpm/rpmdb.sqlite
else
    not_ok "probe --root of an rpm root" "$(cat "$W/err")"
fi
after=$(snapshot "$A")
if [ "$before" = "$after" ]; then
    ok "reading never changes the probed database (listing, sizes, modes, mtimes, sha256)"
else
    not_ok "reading never changes the probed database" "$(printf '%s\n' "$before" > "$W/b"; printf '%s\n' "$after" > "$W/c"; diff "$W/b" "$W/c" | head -20)"
fi
ls "${TMPDIR:-/tmp}" | grep -q '^stackprint-rpm-' && not_ok "the private copy is removed" "$(ls "$TMPDIR")" ||
    ok "the private copy is removed"

# ---- a read-only database without -wal, -shm or lock, as a user who
# cannot write to it: the same facts, and nothing new appears ------------
RO=$W/ro
cp -a "$A" "$RO"
rm -f "$RO/var/lib/rpm/rpmdb.sqlite-wal" "$RO/var/lib/rpm/rpmdb.sqlite-shm" "$RO/var/lib/rpm/.rpm.lock"
chmod -R a-w,a+rX "$RO"
mkdir -p "$W/scratch"
chmod 1777 "$W/scratch"
chmod 0755 "$TMPDIR" "$W"
cp "$STACKPRINT" "$W/sp" && chmod 0755 "$W/sp"
as=""
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
before=$(snapshot "$RO")
TMPDIR=$W/scratch $as "$W/sp" probe --root "$RO" --format json > "$W/ro.json" 2>"$W/err"
after=$(snapshot "$RO")
facts "$W/ro.json" | LC_ALL=C sort > "$W/gotro.txt"
if [ "$before" = "$after" ] && cmp -s "$W/got.txt" "$W/gotro.txt" &&
   [ -z "$(ls -A "$W/scratch")" ]; then
    ok "a read-only database, read by a user who cannot write it: same facts, no -wal, -shm or lock created"
else
    not_ok "a read-only database, read by a user who cannot write it" "$(cat "$W/err")" \
        "$(diff "$W/got.txt" "$W/gotro.txt" | head)" "$(ls -A "$RO/var/lib/rpm" "$W/scratch")"
fi

# ---- no user or system macro file steers librpm ---------------------------
# a ~/.rpmmacros (and $RPM_CONFIGDIR) pointing _dbpath elsewhere and asking
# for the dummy backend would change what rpm -qa reads; stackprint sets its
# macros in-process and reads no macro file
mkdir -p "$W/home"
printf '%%_dbpath /nonexistent\n%%_db_backend dummy\n' > "$W/home/.rpmmacros"
HOME=$W/home RPM_CONFIGDIR=$W/home $STACKPRINT probe --root "$A" --format json -o "$W/h.json" 2>"$W/err"
facts "$W/h.json" | LC_ALL=C sort > "$W/goth.txt"
same_lines "~/.rpmmacros and RPM_CONFIGDIR do not change what is read" "$W/got.txt" "$W/goth.txt"

# ---- the same through the yum spelling into release inference ------------
R=$W/al2023
cp -a tests/fixtures/roots/trn1-xla "$R"
rm -rf "$R/var/lib/dpkg"
# Fedora's layout: the stdlib under the lib64 platlibdir
mkdir -p "$R/usr/lib64" && mv "$R/usr/lib/python3.10" "$R/usr/lib64/python3.10"
printf 'NAME="Amazon Linux"\nVERSION="2023"\nID="amzn"\nID_LIKE="fedora"\nVERSION_ID="2023"\nPLATFORM_ID="platform:al2023"\nPRETTY_NAME="Amazon Linux 2023.6.20241212"\n' > "$R/etc/os-release"
if db "$R" /var/lib/rpm $RUNTIME $COLL $DKMS $TOOLS $K1 &&
   $STACKPRINT probe --root "$R" --format json -o "$W/al.json" 2>"$W/err"; then
    $STACKPRINT check --policy policies/ "$W/al.json" > "$W/al.txt" 2>&1
    rc=$?
    why=""
    [ $rc = 0 ] || why="check exit $rc"
    for rx in '^neuron-one-release +one-release +neuron.sdk.release +2.26.1 +not mixed +ok$' \
              '^neuron-driver-runtime +.* neuron.sdk.runtime_version +2.28.23.0 ' \
              '^neuron-framework-instance +release-supports-instance-family +host.instance_family +trn1 +.* ok$' \
              '^neuron-legacy-packages +no-legacy-rpm '; do
        grep -Eq -- "$rx" "$W/al.txt" || why="$why; no line /$rx/"
    done
    [ "$(fact "$W/al.json" host.os.id)" = amzn ] || why="$why; host.os.id"
    [ "$(fact "$W/al.json" rpm.aws-neuronx-runtime-lib)" = 2.28.23.0_8a7a5d7ea-1 ] || why="$why; rpm.aws-neuronx-runtime-lib"
    [ -n "$(fact "$W/al.json" pip.torch-neuronx)" ] || why="$why; no pip.torch-neuronx"
    [ -n "$(fact "$W/al.json" python.env.opt_aws_neuronx_venv_pytorch_2_8.pip.torch-neuronx)" ] ||
        why="$why; no torch-neuronx from /opt/aws_neuronx_venv_pytorch_2_8"
    [ -z "$why" ] && ok "AL2023 Neuron DLAMI root: rpm packages, venv, trn1 DMI: probe then check passes (2.26.1)" ||
        not_ok "AL2023 Neuron DLAMI root: probe then check passes" "$why" "$(head -40 "$W/al.txt")"
else
    not_ok "AL2023 Neuron DLAMI root: probe" "$(cat "$W/err")"
fi

# ---- Berkeley DB Packages (Amazon Linux 2), read by librpm's bdb_ro -----
# Debian's rpm writes no Berkeley DB, so the database is made with Berkeley
# DB's own db_load: a hash database of the same header blobs keyed by their
# instance numbers (native order; key 0 holds the next one), as rpm's bdb
# backend stores them.  Oracle: rpm -qa with _db_backend bdb_ro.  The index
# databases (Name, ...) are not made: librpm warns about each, truthfully.
if command -v db5.3_load >/dev/null; then
    D=$W/al2
    mkdir -p "$D/var/lib/rpm"
    /usr/bin/python3 - "$A/var/lib/rpm/rpmdb.sqlite" > "$W/pk.txt" <<'PY'
import sqlite3, struct, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
rows = list(c.execute("SELECT hnum, blob FROM Packages ORDER BY hnum"))
hexed = lambda bs: "".join("\\%02x" % b for b in bs)
print(hexed(struct.pack("=I", 0))); print(hexed(struct.pack("=I", max(r[0] for r in rows) + 1)))
for hnum, blob in rows:
    print(hexed(struct.pack("=I", hnum))); print(hexed(blob))
PY
    if db5.3_load -T -t hash "$D/var/lib/rpm/Packages" < "$W/pk.txt" &&
       $STACKPRINT probe --root "$D" --format json -o "$W/al2.json" 2>"$W/err"; then
        rpm --root "$D" --dbpath /var/lib/rpm --define '_db_backend bdb_ro' -qa --qf "$QF" 2>/dev/null |
            grep -v '^kernel ' | LC_ALL=C sort > "$W/want2.txt"
        facts "$W/al2.json" | grep -v '^kernel ' | LC_ALL=C sort > "$W/got2.txt"
        if [ -s "$W/want2.txt" ]; then
            same_lines "Berkeley DB Packages (bdb_ro): the values rpm -qa gives" "$W/want2.txt" "$W/got2.txt"
        else
            not_ok "Berkeley DB Packages (bdb_ro): rpm -qa reads the made database"
        fi
    else
        not_ok "Berkeley DB Packages (bdb_ro): probe" "$(cat "$W/err")"
    fi
else
    skip "Berkeley DB Packages (bdb_ro)" "db5.3_load missing (scripts/bootstrap installs db5.3-util)"
fi

# ---- /usr/lib/sysimage/rpm, with /var/lib/rpm a link to it: read once ----
S=$W/sysimage
if db "$S" /usr/lib/sysimage/rpm $TOOLS; then
    ln -s ../../usr/lib/sysimage/rpm "$S/var/lib/rpm" 2>/dev/null || { mkdir -p "$S/var/lib"; ln -s ../../usr/lib/sysimage/rpm "$S/var/lib/rpm"; }
    $STACKPRINT probe --root "$S" --format json -o "$W/s.json" 2>"$W/err"
    w=$(/usr/bin/python3 -c 'import json,sys; print(sum(x.startswith("rpm:") for x in json.load(open(sys.argv[1]))["warnings"]))' "$W/s.json")
    [ "$(fact "$W/s.json" rpm.aws-neuronx-tools)" = 2.26.14.0_3e6d2c1a7-1 ] && [ "$w" = 0 ] &&
        ok "/usr/lib/sysimage/rpm behind a /var/lib/rpm link: read once" ||
        not_ok "/usr/lib/sysimage/rpm behind a /var/lib/rpm link: read once" "$(cat "$W/err" "$W/s.json")"
fi

# ---- an image layer (umoci) gives what --root gives ----------------------
if command -v umoci >/dev/null; then
    I=$W/img
    mkdir -p "$I"
    if (cd "$I" && export SOURCE_DATE_EPOCH=0 && umoci init --layout oci && umoci new --image oci:al &&
        umoci unpack --image oci:al b >/dev/null) 2>"$W/err" &&
       db "$I/b/rootfs" /var/lib/rpm $RUNTIME $DKMS $EPOCH $K1 $K2 &&
       mkdir -p "$I/b/rootfs/etc" && cp "$R/etc/os-release" "$I/b/rootfs/etc/os-release" &&
       (cd "$I" && umoci repack --image oci:al b >/dev/null) 2>>"$W/err"; then
        $STACKPRINT probe --image "$I/oci:al" --format json -o "$W/img.json" 2>"$W/err" || true
        $STACKPRINT probe --root "$I/b/rootfs" --format json -o "$W/imgroot.json" 2>>"$W/err" || true
        facts "$W/img.json" > "$W/f1"
        facts "$W/imgroot.json" > "$W/f2"
        if [ -s "$W/f1" ] && grep -q '^kernel 6.1.10-1.amzn2023$' "$W/f1"; then
            same_lines "an rpm database in an image layer: the facts --root gives" "$W/f2" "$W/f1"
        else
            not_ok "an rpm database in an image layer" "$(cat "$W/err" "$W/img.json" 2>/dev/null | head -30)"
        fi
    else
        not_ok "build an image with an rpm database (umoci)" "$(cat "$W/err")"
    fi
fi

# ---- damaged and busy databases: warnings, never a crash or a hang -------
# bad NAME SETUP-COMMANDS WARNING-REGEX: a fresh root B, SETUP run in it
bad() {
    name=$1 setup=$2 rx=$3
    B=$W/bad-$(echo "$name" | tr -c 'a-z0-9\n' '-')
    rm -rf "$B"
    db "$B" /var/lib/rpm $TOOLS || { not_ok "$name: make the database"; return; }
    (cd "$B/var/lib/rpm" && eval "$setup") || { not_ok "$name: setup"; return; }
    timeout 60 $STACKPRINT probe --root "$B" --format json -o "$W/bad.json" 2>"$W/err"
    rc=$?
    if [ $rc != 0 ]; then
        not_ok "$name: exit 0 with a warning" "exit $rc" "$(cat "$W/err")"
    elif /usr/bin/python3 -c 'import json,re,sys; m=json.load(open(sys.argv[1])); sys.exit(not any(re.search(sys.argv[2], w) for w in m["warnings"]))' "$W/bad.json" "$rx"; then
        ok "$name: a warning, no crash"
    else
        not_ok "$name: a warning matching /$rx/" "$(cat "$W/bad.json")"
    fi
}
bad "truncated sqlite database" 'head -c 5000 rpmdb.sqlite > t && mv t rpmdb.sqlite && rm -f rpmdb.sqlite-wal rpmdb.sqlite-shm' \
    '^rpm: /var/lib/rpm/rpmdb.sqlite: librpm cannot read this sqlite database'
bad "a database that is a directory" 'rm -f rpmdb.sqlite* && mkdir rpmdb.sqlite' \
    '^rpm: /var/lib/rpm/rpmdb.sqlite: is a directory$'
bad "a WAL file without its database" 'rm -f rpmdb.sqlite && echo x > rpmdb.sqlite-wal' \
    '^rpm: /var/lib/rpm/rpmdb.sqlite-wal: a write-ahead log without its database'
bad "a Berkeley DB Packages librpm cannot read" 'rm -f rpmdb.sqlite* && head -c 8192 /dev/zero > Packages' \
    '^rpm: /var/lib/rpm/Packages: '
bad "a database link that leaves the root" 'rm -f rpmdb.sqlite* && ln -s /var/lib/dpkg/status rpmdb.sqlite' \
    '^rpm: /var/lib/rpm/rpmdb.sqlite: '

# a locked database: rpm's lock taken and an exclusive sqlite transaction
# open while probing; the probe reads its own copy, so it neither waits nor
# fails
L=$W/locked
db "$L" /var/lib/rpm $TOOLS $EPOCH
/usr/bin/python3 -c 'import fcntl, sqlite3, sys, time
lock = open(sys.argv[1] + "/.rpm.lock", "a"); fcntl.flock(lock, fcntl.LOCK_EX)
c = sqlite3.connect(sys.argv[1] + "/rpmdb.sqlite", isolation_level=None)
c.execute("BEGIN EXCLUSIVE"); c.execute("CREATE TABLE zz_probe(x)")
open(sys.argv[2], "w").close(); time.sleep(60)' "$L/var/lib/rpm" "$W/held" >/dev/null 2>&1 &
holder=$!
n=0
while [ ! -e "$W/held" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
timeout 30 $STACKPRINT probe --root "$L" --format json -o "$W/l.json" 2>"$W/err"
rc=$?
kill $holder 2>/dev/null
wait $holder 2>/dev/null
[ $rc = 0 ] && [ "$(fact "$W/l.json" rpm.zz-epoch-test)" = 2:1.0-3.amzn2023 ] &&
    ok "a locked database: read without waiting (exit 0, facts)" ||
    not_ok "a locked database: read without waiting" "exit $rc" "$(cat "$W/err" "$W/l.json" 2>/dev/null | head -20)"
