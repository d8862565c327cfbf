/* fuzz/fuzz_pyvenv.c: libFuzzer target for pyvenv.cfg (probe_python with
 * --python /venv/bin/python3, a venv whose pyvenv.cfg is the input, over a
 * stand-in base interpreter /usr/bin/python3.11 made at the first input). */
#include "fuzz/fuzz_root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int made;
    if (!made) {
        static const char elf[] = "\x7f" "ELF\2\1\1\0\0\0\0\0\0\0\0\0\0003.11.7\0";
        fuzz_root_write("usr/bin/python3.11", elf, sizeof elf, 0755);
        fuzz_root_write("usr/lib/python3.11/os.py", "", 0, 0644);
        fuzz_root_write("venv/bin/python3", elf, sizeof elf, 0755);
        fuzz_root_write("venv/lib/python3.11/site-packages/x-1.dist-info/METADATA",
                        "Name: x\nVersion: 1\n\n", 20, 0644);
        made = 1;
    }
    fuzz_probe_file("venv/pyvenv.cfg", data, size, probe_python, "/venv/bin/python3");
    return 0;
}
