/* fuzz/fuzz_policy.c: libFuzzer target for the policy reader (and a release
 * catalog given as a policy file): any input is a policy, a catalog or an
 * error.  A policy that loads is evaluated against a small fixed fact set
 * and rendered in every report format. */
#include <stdint.h>
#include <stdlib.h>

#include "checks/evaluate.h"
#include "checks/policy.h"
#include "checks/report.h"
#include "fuzz/fuzz_facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fixed_facts[] = {
    "pip.torch", "2.9.0",
    "python.version", "3.11.7",
    "deb.aws-neuronx-dkms", "2.24.7.0",
    "host.instance_family", "trn2",
    "neuron.driver.version", "2.24.7.0",
    NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sp_policy_set ps;
    struct sp_error e = { 0 };
    if (size > SP_POLICY_MAX_BYTES)
        return 0;
    sp_policy_set_init(&ps);
    if (sp_policy_parse(&ps, (const char *)data, size, "fuzz.yaml", &e) == 0) {
        struct factset in, facts;
        fuzz_facts(&in, fixed_facts);
        if (size % 7 == 0)
            factset_set(&in, SP_FACTS_DROPPED_KEY, "3", NULL);
        if (sp_eval_facts(&ps, &in, &facts, &e) == 0) {
            struct sp_report r;
            struct sp_eval_ctx ctx = { &facts, size % 2 ? SP_EVAL_STRICT : 0 };
            sp_report_init(&r);
            if (sp_evaluate(&ps, &ctx, &r, &e) == 0) {
                struct sp_report_meta m = { "m.yaml", "s", NULL, 0, &facts };
                for (int f = SP_FORMAT_TEXT; f <= SP_FORMAT_GITHUB; f++) {
                    char *out = NULL;
                    size_t len = 0;
                    if (sp_report_render(&r, &m, (enum sp_format)f, &out, &len, &e) == 0)
                        free(out);
                }
            }
            sp_report_free(&r);
            factset_free(&facts);
        }
        factset_free(&in);
    }
    sp_policy_set_free(&ps);
    return 0;
}
