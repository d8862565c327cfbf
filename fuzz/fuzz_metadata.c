/* fuzz/fuzz_metadata.c: libFuzzer target for the METADATA / PKG-INFO header
 * reader (py_metadata_read on a root file that is the input). */
#include "fuzz/fuzz_root.h"
#include "fingerprint/probes/python/python_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_root_write("x-1.dist-info/METADATA", data, size, 0644);
    struct root *root = root_open_dir(fuzz_root_dir());
    if (root == NULL)
        abort();
    struct py_metadata m;
    if (py_metadata_read(root, "/x-1.dist-info/METADATA", 1, &m) == 0)
        py_metadata_free(&m);
    root_close(root);
    return 0;
}
