/* fuzz/fuzz_dsse.c: libFuzzer target for DSSE envelope verification: the
 * input is an envelope checked against a fixed manifest under a fixed
 * Ed25519 key (tests/fixtures/sign); any input verifies or fails with a
 * message, never crashes.  Also the strict base64 decoder on the raw input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/dsse.h"
#include "manifest/keys.h"
#include "manifest/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static EVP_PKEY *pub;
    static char *man;
    static size_t manlen;
    struct sp_error e = { 0 };
    if (pub == NULL &&
        (sp_key_load_public("tests/fixtures/sign/ed25519.pub", &pub, &e) != 0 ||
         sp_read_file("tests/fixtures/sign/manifest.yaml", SP_MANIFEST_MAX_BYTES, "manifest",
                      &man, &manlen, &e) != 0))
        abort();               /* run from the top of the tree (fuzz/run does) */
    struct sp_verified v = { 0 };
    if (sp_verify_manifest((const char *)data, size, "env", man, manlen, "m", pub, &v, &e) == 0)
        sp_verified_free(&v);
    unsigned char *out = NULL;
    size_t outlen = 0;
    const char *why = NULL;
    if (sp_base64_decode((const char *)data, size, &out, &outlen, &why) == 0)
        free(out);
    return 0;
}
