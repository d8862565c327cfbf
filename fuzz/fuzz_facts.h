/* fuzz/fuzz_facts.h: for targets that evaluate what they parse against a
 * fixed fact set (the release catalog, policies): the facts as a table. */
#ifndef SP_FUZZ_FACTS_H
#define SP_FUZZ_FACTS_H

#include "manifest/facts.h"

/* fuzz_facts: FS initialised here (the caller frees it with factset_free)
 * and given KV's facts: KEY, VALUE pairs, then NULL.  A fact the set
 * refuses (out of memory) is left out: the target only needs some facts. */
static inline void fuzz_facts(struct factset *fs, const char *const *kv)
{
    factset_init(fs);
    for (; *kv != NULL; kv += 2)
        (void)factset_set(fs, kv[0], kv[1], NULL);
}

#endif
