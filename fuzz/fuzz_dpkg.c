/* fuzz/fuzz_dpkg.c: libFuzzer target for dpkg's status file reader
 * (probe_dpkg on a root whose /var/lib/dpkg/status is the input). */
#include "fuzz/fuzz_root.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_probe_file("var/lib/dpkg/status", data, size, probe_dpkg, NULL);
    return 0;
}
