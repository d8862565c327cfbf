/* fuzz/fuzz_keys.c: libFuzzer target for key files: the input, written to a
 * file, is loaded as a public and as a private key (PEM through OpenSSL's
 * store); a key that loads gets its key id and signs and verifies. */
#include "fuzz/fuzz_root.h"
#include "manifest/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_root_write("k.pem", data, size, 0600);
    snprintf(path, sizeof path, "%s/k.pem", fuzz_root_dir());
    for (int priv = 0; priv < 2; priv++) {
        EVP_PKEY *k = NULL;
        struct sp_error e = { 0 };
        if ((priv ? sp_key_load_private : sp_key_load_public)(path, &k, &e) != 0)
            continue;
        char id[SP_KEYID_HEX_LEN + 1];
        unsigned char sig[SP_SIG_MAX_BYTES];
        size_t siglen = 0;
        if (sp_key_id(k, id, &e) != 0)
            abort();
        if (priv && (sp_key_sign(k, data, size, sig, &siglen, &e) != 0 ||
                     !sp_key_verify(k, data, size, sig, siglen)))
            abort();
        EVP_PKEY_free(k);
    }
    return 0;
}
