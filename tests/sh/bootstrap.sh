#!/bin/sh
# The first contact, without a network and without installing anything:
# scripts/bootstrap decides what is missing with dpkg-query itself (reading a
# status file made here, through DPKG_ADMINDIR), a user who is neither root
# nor has sudo gets one line naming exactly those packages, a user with sudo
# gets apt-get through sudo, ./setup stops when bootstrap fails, and reading
# the Makefile runs no pkg-config (it may not be installed yet).  `id`,
# `sudo` and `make` are stand-ins on PATH that record their arguments;
# tests/fresh/run does the real thing on a new Debian root.
. "$TOP/tests/lib.sh"

bin="$TMPDIR/bin"
mkdir -p "$bin" "$TMPDIR/dpkg/updates" "$TMPDIR/dpkg/info"
for t in dpkg-query cat env; do ln -s "$(command -v $t)" "$bin/$t"; done
printf '#!/bin/sh\necho 1000\n' > "$bin/id"
chmod +x "$bin/id"
# installed: pkg-config and python3; half-installed: libssl-dev; the rest absent
cat > "$TMPDIR/dpkg/status" <<'EOF'
Package: pkg-config
Status: install ok installed
Architecture: amd64
Version: 1.8.1-1

Package: python3
Status: install ok installed
Architecture: amd64
Version: 3.11.2-1+b1

Package: libssl-dev
Status: install ok half-installed
Architecture: amd64
Version: 3.0.15-1~deb12u1
EOF
# what bootstrap should name: its own lists, less the two installed above
eval "$(sed -n '/^build=/,/^fresh=/p' scripts/bootstrap)"
want=""
for p in $build $oracles; do
    case $p in pkg-config|python3) ;; *) want="${want:+$want }$p" ;; esac
done

# not root, no sudo
PATH="$bin" DPKG_ADMINDIR="$TMPDIR/dpkg" /bin/sh scripts/bootstrap >"$TMPDIR/out" 2>&1
rc=$?
check "no sudo: exit 1" test "$rc" = 1
check "no sudo: one line" test "$(wc -l < "$TMPDIR/out")" = 1
got=$(sed 's/.*--no-install-recommends //' "$TMPDIR/out")
check "no sudo: names every missing package, and only those (half-installed libssl-dev too)" test "$got" = "$want"

# a user with sudo: apt-get runs through it, with the missing packages
printf '#!/bin/sh\necho "$*" >> "%s/sudo.log"\n' "$TMPDIR" > "$bin/sudo"
chmod +x "$bin/sudo"
PATH="$bin" DPKG_ADMINDIR="$TMPDIR/dpkg" /bin/sh scripts/bootstrap >"$TMPDIR/out" 2>&1
check "sudo: exit 0" test $? = 0
check "sudo: apt-get update, then install, through sudo" \
    grep -qx "env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq" "$TMPDIR/sudo.log"
check "sudo: the missing packages installed, without Recommends" \
    grep -qx "env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $want" "$TMPDIR/sudo.log"
rm "$bin/sudo" "$TMPDIR/sudo.log"

# --fuzz adds clang and its libFuzzer runtime, --fresh mmdebstrap
PATH="$bin" DPKG_ADMINDIR="$TMPDIR/dpkg" /bin/sh scripts/bootstrap --fuzz --fresh >"$TMPDIR/out" 2>&1
check "--fuzz --fresh: clang, libclang-rt-dev, mmdebstrap named" \
    grep -q ' clang libclang-rt-dev mmdebstrap$' "$TMPDIR/out"
PATH="$bin" DPKG_ADMINDIR="$TMPDIR/dpkg" /bin/sh scripts/bootstrap --bogus >"$TMPDIR/out" 2>&1
check "an unknown option: exit 2" test $? = 2

# everything installed: nothing to do, exit 0, silent (dpkg's own status file)
if [ "$(dpkg-query -W -f='${db:Status-Status}' build-essential 2>/dev/null)" = installed ]; then
    PATH="$bin" /bin/sh scripts/bootstrap >"$TMPDIR/out" 2>&1
    check "all present: exit 0 and silent" test $? = 0 -a ! -s "$TMPDIR/out"
fi

# ./setup: bootstrap's failure stops it before make
printf '#!/bin/sh\necho "make $*" >> "%s/make.log"\n' "$TMPDIR" > "$bin/make"
chmod +x "$bin/make"
ln -s "$(command -v dirname)" "$bin/dirname"
PATH="$bin" DPKG_ADMINDIR="$TMPDIR/dpkg" /bin/sh ./setup demo >"$TMPDIR/out" 2>&1
rc=$?
check "./setup: not root, no sudo: bootstrap's exit 1, its one line" test "$rc" = 1 -a "$(wc -l < "$TMPDIR/out")" = 1
check "./setup: make not run" test ! -e "$TMPDIR/make.log"
PATH="$bin" /bin/sh ./setup demo check >"$TMPDIR/out" 2>&1
check "./setup: then make with the same targets" grep -qx "make demo check" "$TMPDIR/make.log"

# reading the Makefile runs no pkg-config (a stand-in that records)
mkdir -p "$TMPDIR/pc"
printf '#!/bin/sh\necho "$*" >> "%s/pkg-config.log"\nexit 1\n' "$TMPDIR" > "$TMPDIR/pc/pkg-config"
chmod +x "$TMPDIR/pc/pkg-config"
PATH="$TMPDIR/pc:$PATH" make -n --no-print-directory bootstrap >/dev/null 2>&1
PATH="$TMPDIR/pc:$PATH" make -n --no-print-directory -p nothing-at-all >/dev/null 2>&1
check "reading the Makefile runs no pkg-config" test ! -e "$TMPDIR/pkg-config.log"
PATH="$TMPDIR/pc:$PATH" make -n --no-print-directory BUILD="$TMPDIR/b" "$TMPDIR/b/stackprint" >/dev/null 2>&1
check "building asks pkg-config, each question once" \
    test -s "$TMPDIR/pkg-config.log" -a -z "$(sort "$TMPDIR/pkg-config.log" | uniq -d)"
