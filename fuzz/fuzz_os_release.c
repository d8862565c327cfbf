/* fuzz/fuzz_os_release.c: libFuzzer target for the os-release(5) reader
 * (probe_os_release on a root whose /etc/os-release is the input). */
#include "fuzz/fuzz_root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_probe_file("etc/os-release", data, size, probe_os_release, NULL);
    return 0;
}
