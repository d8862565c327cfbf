/* checks/compare.c: differences between two fact sets; see compare.h.  The
 * direction of a version change comes from the scheme table
 * (checks/version.h); nothing here knows a scheme's rules. */
#include "checks/compare.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "checks/version.h"
#include "common/array.h"

/* The reading order: the longest pattern KEY matches gives its group, and
 * that entry's place in this table orders keys inside the group (so the
 * groups follow each other here in their order).  A pattern ending in '.'
 * matches every key it begins; any other matches itself only.
 * "python.env." matches only the environments' pip.* keys (packages); its
 * other keys are Python's, through "python.". */
static const struct {
    const char *pattern;
    enum sp_group group;
} order[] = {
    { "host.cloud", SP_GROUP_INSTANCE },
    { "host.instance_type", SP_GROUP_INSTANCE },
    { "host.instance_family", SP_GROUP_INSTANCE },
    { "host.instance_id", SP_GROUP_INSTANCE },
    { "host.hostname", SP_GROUP_INSTANCE },
    { "host.arch", SP_GROUP_INSTANCE },
    { "host.kernel", SP_GROUP_INSTANCE },
    { "host.os.", SP_GROUP_INSTANCE },
    { "host.", SP_GROUP_INSTANCE },
    { "neuron.device.kind", SP_GROUP_DEVICES },
    { "neuron.device.count", SP_GROUP_DEVICES },
    { "neuron.device.", SP_GROUP_DEVICES },
    { "neuron.core.", SP_GROUP_DEVICES },
    { "neuron.lnc", SP_GROUP_DEVICES },
    { "efa.device.", SP_GROUP_DEVICES },
    { "gpu.device.", SP_GROUP_DEVICES },
    { "neuron.driver.version", SP_GROUP_DRIVER },
    { "neuron.driver.", SP_GROUP_DRIVER },
    { "deb.aws-neuronx-dkms", SP_GROUP_DRIVER },
    { "rpm.aws-neuronx-dkms", SP_GROUP_DRIVER },
    { "efa.driver.", SP_GROUP_DRIVER },
    { "gpu.nvidia.", SP_GROUP_DRIVER },
    { "gpu.", SP_GROUP_DRIVER },
    { "neuron.sdk.release", SP_GROUP_RUNTIME },
    { "neuron.sdk.", SP_GROUP_RUNTIME },
    { "neuron.runtime.", SP_GROUP_RUNTIME },
    { "deb.aws-neuronx-runtime-lib", SP_GROUP_RUNTIME },
    { "rpm.aws-neuronx-runtime-lib", SP_GROUP_RUNTIME },
    { "neuron.collectives.", SP_GROUP_RUNTIME },
    { "deb.aws-neuronx-collectives", SP_GROUP_RUNTIME },
    { "rpm.aws-neuronx-collectives", SP_GROUP_RUNTIME },
    { "neuron.", SP_GROUP_RUNTIME },
    { "efa.", SP_GROUP_RUNTIME },
    { "cuda.", SP_GROUP_RUNTIME },
    { "pip.neuronx-cc", SP_GROUP_COMPILER },
    { "pip.neuron-cc", SP_GROUP_COMPILER },
    { "neuron.cache.", SP_GROUP_COMPILER },
    { "neuron.neff.", SP_GROUP_COMPILER },
    { "pip.torch", SP_GROUP_TORCH },
    { "torch.backend", SP_GROUP_TORCH },
    { "torch.", SP_GROUP_TORCH },
    { "runtime.torch.backend", SP_GROUP_TORCH },
    { "runtime.torch.", SP_GROUP_TORCH },
    { "runtime.torch_neuronx.", SP_GROUP_TORCH },
    { "runtime.disagreements", SP_GROUP_TORCH },
    { "pip.torch-neuronx", SP_GROUP_TORCH },
    { "pip.torch-xla", SP_GROUP_TORCH },
    { "pip.libneuronxla", SP_GROUP_TORCH },
    { "pip.torch-neuron", SP_GROUP_TORCH },
    { "pip.torchvision", SP_GROUP_TORCH },
    { "python.version", SP_GROUP_PYTHON },
    { "python.path", SP_GROUP_PYTHON },
    { "python.prefix", SP_GROUP_PYTHON },
    { "python.", SP_GROUP_PYTHON },
    { "runtime.", SP_GROUP_PYTHON },
    { "image.ref", SP_GROUP_IMAGE },
    { "image.manifest_digest", SP_GROUP_IMAGE },
    { "image.config_digest", SP_GROUP_IMAGE },
    { "image.", SP_GROUP_IMAGE },
    { "container.", SP_GROUP_IMAGE },
    { "env.", SP_GROUP_ENV },
    { "pip.", SP_GROUP_PACKAGES },
    { "python.env.", SP_GROUP_PACKAGES },     /* only its pip.* keys get here */
    { "deb.", SP_GROUP_PACKAGES },
    { "rpm.", SP_GROUP_PACKAGES },
};
#define ORDER_N (sizeof order / sizeof *order)

static int matches(const char *pattern, const char *key)
{
    size_t n = strlen(pattern);
    if (pattern[n - 1] == '.')
        return strncmp(key, pattern, n) == 0;
    return strcmp(key, pattern) == 0;
}

/* The index in order[] of KEY's entry; ORDER_N when none. */
static size_t entry_of(const char *key)
{
    const char *rest = sp_python_env_rest(key);
    int env_package = rest && strncmp(rest, "pip.", 4) == 0;
    size_t best = ORDER_N, best_len = 0;
    for (size_t i = 0; i < ORDER_N; i++) {
        size_t len = strlen(order[i].pattern);
        if (len <= best_len || !matches(order[i].pattern, key))
            continue;
        if (!env_package && strcmp(order[i].pattern, "python.env.") == 0)
            continue;
        best = i;
        best_len = len;
    }
    return best;
}

enum sp_group sp_group_of(const char *key)
{
    size_t i = entry_of(key);
    return i < ORDER_N ? order[i].group : SP_GROUP_OTHER;
}

int sp_reading_cmp(const char *a, const char *b)
{
    size_t ia = entry_of(a), ib = entry_of(b);
    if (ia != ib)
        return ia < ib ? -1 : 1;
    return strcmp(a, b);
}

static int ends_with(const char *s, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    return n >= t && memcmp(s + n - t, tail, t) == 0;
}

int sp_compare_is_version(const char *key)
{
    static const char *const exact[] = {
        "gpu.nvidia.driver", "torch.build.cuda", "neuron.sdk.release",
    };
    if (sp_scheme_for_key(key) != &sp_scheme_dotted)
        return 1;                      /* pip, deb, rpm, Python's versions */
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcmp(key, exact[i]) == 0)
            return 1;
    const char *dot = strrchr(key, '.');
    const char *last = dot ? dot + 1 : key;
    size_t n = strlen(last);
    return strcmp(last, "version") == 0 || strcmp(last, "version_id") == 0 ||
           ends_with(last, n, "_version");
}

enum sp_change sp_compare_values(const char *key, const char *old_value,
                                 const char *new_value)
{
    if (old_value == NULL && new_value == NULL)
        return SP_CHANGES;
    if (old_value == NULL)
        return SP_CHANGE_ADDED;
    if (new_value == NULL)
        return SP_CHANGE_REMOVED;
    if (strcmp(old_value, new_value) == 0)
        return SP_CHANGES;
    if (!sp_compare_is_version(key))
        return SP_CHANGE_CHANGED;
    const struct sp_scheme *s = sp_scheme_for_key(key);
    struct sp_error e;
    struct sp_version *a = sp_version_parse(s, old_value, &e);
    struct sp_version *b = a ? sp_version_parse(s, new_value, &e) : NULL;
    enum sp_change c = SP_CHANGE_CHANGED;
    if (a && b) {
        int r = sp_version_compare(a, b, SP_CMP_FULL);
        c = r < 0 ? SP_CHANGE_UPGRADED : r > 0 ? SP_CHANGE_DOWNGRADED : SP_CHANGE_CHANGED;
    }
    sp_version_free(a);
    sp_version_free(b);
    return c;
}

int sp_compare_ignored(const char *key, const struct sp_compare_opts *o)
{
    unsigned flags = o ? o->flags : 0;
    if (!(flags & SP_COMPARE_ALL) && fact_is_volatile(key))
        return 1;
    for (size_t i = 0; o && i < o->nignore; i++)
        if (fnmatch(o->ignore[i], key, 0) == 0)
            return 1;
    return 0;
}

void sp_diff_init(struct sp_diff *d)
{
    memset(d, 0, sizeof *d);
}

void sp_diff_free(struct sp_diff *d)
{
    free(d->items);
    sp_diff_init(d);
}

static int push(struct sp_diff *d, const char *key, const char *a, const char *b,
                enum sp_change c)
{
    if (SP_ARRAY_RESERVE(d->items, d->cap, d->count + 1) != 0)
        return -1;
    size_t r = entry_of(key);
    d->items[d->count++] = (struct sp_difference){
        .key = key, .old_value = a, .new_value = b, .change = c,
        .group = r < ORDER_N ? (unsigned)order[r].group : SP_GROUP_OTHER,
        .rank = (unsigned)r,
    };
    d->counts[c]++;
    return 0;
}

static int by_reading(const void *pa, const void *pb)
{
    const struct sp_difference *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return strcmp(a->key, b->key);
}

int sp_compare(const struct factset *old, const struct factset *new_,
               const struct sp_compare_opts *o, struct sp_diff *d, struct sp_error *e)
{
    d->count = 0;
    memset(d->counts, 0, sizeof d->counts);
    size_t i = 0, j = 0;
    while (i < old->count || j < new_->count) {
        const struct fact *a = i < old->count ? &old->facts[i] : NULL;
        const struct fact *b = j < new_->count ? &new_->facts[j] : NULL;
        int c = a == NULL ? 1 : b == NULL ? -1 : strcmp(a->key, b->key);
        const char *key = c <= 0 ? a->key : b->key;
        const char *va = c <= 0 ? a->value : NULL, *vb = c >= 0 ? b->value : NULL;
        i += c <= 0;
        j += c >= 0;
        if (sp_compare_ignored(key, o))
            continue;
        enum sp_change ch = sp_compare_values(key, va, vb);
        if (ch != SP_CHANGES && push(d, key, va, vb, ch) != 0)
            return sp_fail(e, SP_EXIT_INPUT, "out of memory");
    }
    if (o && (o->flags & SP_COMPARE_ALL) && o->old_created && o->new_created &&
        strcmp(o->old_created, o->new_created) != 0 && !sp_compare_ignored("created", o) &&
        push(d, "created", o->old_created, o->new_created, SP_CHANGE_CHANGED) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "out of memory");
    if (d->count > 1)
        qsort(d->items, d->count, sizeof *d->items, by_reading);
    return 0;
}

const char *sp_change_name(enum sp_change c)
{
    static const char *const names[] = {
        "added", "removed", "upgraded", "downgraded", "changed",
    };
    return c < SP_CHANGES ? names[c] : "unchanged";
}

const char *sp_group_name(enum sp_group g)
{
    static const char *const names[] = {
        "instance", "devices", "driver", "runtime", "compiler", "torch",
        "python", "image", "environment", "packages", "other",
    };
    return g < SP_GROUPS ? names[g] : "other";
}
