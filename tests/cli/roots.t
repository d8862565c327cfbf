# Opening a --root (fingerprint/root/root_dir.c): a root that cannot be read is an
# error, exit 4, never a manifest of warnings and no facts.

### a root this user cannot list is refused, exit 4
$ mkdir -p "$T/r/etc" && chmod 000 "$T/r" && chmod 755 "$T"
$ setpriv --reuid=65534 --regid=65534 --clear-groups stackprint probe --root "$T/r"
? 4
2>~ ^stackprint: .*/r: Permission denied$

### a missing root, exit 4
$ stackprint probe --root "$T/nothing-here"
? 4
2>~ ^stackprint: .*/nothing-here: No such file or directory$

### a file as the root, exit 4
$ touch "$T/f"
$ stackprint probe --root "$T/f"
? 4
2>~ ^stackprint: .*/f: Not a directory$

### no openat2 in the kernel (simulated with strace): refused, never an empty manifest
# (LeakSanitizer cannot run under ptrace: leak checks off for this one run)
$ ASAN_OPTIONS=detect_leaks=0 strace -f -o /dev/null -e inject=openat2:error=ENOSYS stackprint probe --root tests/fixtures/roots/inf2
? 4
2>~ ^stackprint: tests/fixtures/roots/inf2: 
