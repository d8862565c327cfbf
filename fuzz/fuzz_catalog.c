/* fuzz/fuzz_catalog.c: libFuzzer target for the release catalog reader
 * (policies/neuron/catalog.yaml's format) and release inference on it: a
 * catalog that loads infers a release for a fixed set of Neuron facts. */
#include <stdint.h>
#include <stdlib.h>

#include "checks/catalog.h"
#include "checks/release.h"
#include "fuzz/fuzz_facts.h"
#include "manifest/node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const neuron_facts[] = {
    "deb.aws-neuronx-dkms", "2.24.7.0",
    "deb.aws-neuronx-runtime-lib", "2.28.23.0-8b2b5d5fc",
    "deb.aws-neuronx-collectives", "2.28.27.0-bc30ece58",
    "pip.neuronx-cc", "2.21.18209.0",
    "pip.torch-neuronx", "2.8.0.2.10.13553",
    "python.version", "3.11.7",
    "host.instance_family", "trn2",
    NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sp_error e = { 0 };
    struct sp_node *doc = sp_node_parse((const char *)data, size, "catalog.yaml", &e);
    if (doc == NULL)
        return 0;
    struct catalog c;
    if (catalog_from_node(doc, "catalog.yaml", &c, &e) == 0) {
        struct factset fs;
        fuzz_facts(&fs, neuron_facts);
        release_infer(&c, &fs, &e);
        factset_free(&fs);
        catalog_free(&c);
    }
    sp_node_free(doc);
    return 0;
}
