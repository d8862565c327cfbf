/* fuzz/fuzz_manifest.c: libFuzzer target for the manifest reader (and so
 * for the strict YAML/JSON tree of manifest/node.c underneath it).  Any
 * input must give a manifest or an error, never a crash, a leak or a hang;
 * a manifest that parses must render and parse again to the same facts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct manifest m, again;
    struct sp_error e = { 0 };
    if (manifest_parse((const char *)data, size, "fuzz", &m, &e) != 0)
        return 0;
    char *buf;
    size_t len;
    for (int f = 0; f < 2; f++) {
        if (manifest_render(&m, f ? MANIFEST_JSON : MANIFEST_YAML, &buf, &len, &e) != 0)
            abort();
        if (manifest_parse(buf, len, "again", &again, &e) != 0)
            abort();
        if (again.facts.count != m.facts.count)
            abort();
        for (size_t i = 0; i < m.facts.count; i++)
            if (strcmp(again.facts.facts[i].value, m.facts.facts[i].value) != 0)
                abort();
        manifest_free(&again);
        free(buf);
    }
    manifest_free(&m);
    return 0;
}
