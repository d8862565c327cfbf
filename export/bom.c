/* export/bom.c: facts to bill-of-materials components (export/bom.h). */
#include "export/bom.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "export/purl.h"

static const char *const frameworks[] = {
    "torch", "torch-neuronx", "torch-xla", "torch-neuron", "neuronx-cc", "neuron-cc",
    "jax", "jax-neuronx", "tensorflow", "tensorflow-neuron", "tensorflow-neuronx",
};

static int is_framework(const char *name)
{
    for (size_t i = 0; i < sizeof frameworks / sizeof *frameworks; i++)
        if (strcmp(name, frameworks[i]) == 0)
            return 1;
    return 0;
}

static const char *get(const struct sp_bom *b, const char *key)
{
    return factset_get(&b->m->facts, key);
}

/* A new component, zeroed, or NULL (ENOMEM). */
static struct sp_bom_component *add(struct sp_bom *b, enum sp_bom_kind kind, const char *ref,
                                    const char *name, const char *version)
{
    if (SP_ARRAY_RESERVE(b->c, b->cap, b->n + 1) != 0)
        return NULL;
    struct sp_bom_component *c = &b->c[b->n];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->ref = strdup(ref);
    c->name = strdup(name);
    c->version = version ? strdup(version) : NULL;
    if (c->ref == NULL || c->name == NULL || (version && c->version == NULL)) {
        free(c->ref);
        free(c->name);
        free(c->version);
        return NULL;
    }
    b->n++;
    return c;
}

/* Property KEY (a fact key) of C when the fact is present. */
static void prop(const struct sp_bom *b, struct sp_bom_component *c, const char *key)
{
    const char *v = get(b, key);
    if (v && c->nprops < SP_BOM_PROPS_MAX) {
        c->props[c->nprops].name = key;
        c->props[c->nprops++].value = v;
    }
}

static void prop_value(struct sp_bom_component *c, const char *name, const char *value)
{
    if (value && c->nprops < SP_BOM_PROPS_MAX) {
        c->props[c->nprops].name = name;
        c->props[c->nprops++].value = value;
    }
}

/* The hardware, driver, OS and interpreter components, in a fixed order. */
static int platform_components(struct sp_bom *b)
{
    struct sp_bom_component *c;
    const char *v;
    if ((v = get(b, "host.os.id"))) {
        if (!(c = add(b, SP_BOM_OS, "os", v, get(b, "host.os.version_id"))))
            return -1;
        c->description = get(b, "host.os.pretty_name");
        prop(b, c, "host.kernel");
        prop(b, c, "host.arch");
    }
    if ((v = get(b, "host.instance_type"))) {
        if (!(c = add(b, SP_BOM_DEVICE, "instance", v, NULL)))
            return -1;
        c->description = "the instance type";
        prop(b, c, "host.instance_family");
        prop(b, c, "host.cloud");
    }
    if ((v = get(b, "neuron.device.count")) && strcmp(v, "0") != 0) {
        const char *kind = get(b, "neuron.device.kind");
        if (!(c = add(b, SP_BOM_DEVICE, "neuron-device", kind ? kind : "neuron", NULL)))
            return -1;
        c->description = "AWS Neuron devices";
        prop(b, c, "neuron.device.count");
        prop(b, c, "neuron.device.pci_id");
        prop(b, c, "neuron.core.count");
        prop(b, c, "neuron.lnc");
    }
    if ((v = get(b, "neuron.driver.version"))) {
        if (!(c = add(b, SP_BOM_DRIVER, "neuron-driver", "neuron", v)))
            return -1;
        c->description = "the loaded Neuron kernel driver";
        prop(b, c, "neuron.driver.dkms");
    }
    if ((v = get(b, "neuron.runtime.version")) && !(c = add(b, SP_BOM_LIBRARY, "libnrt", "libnrt", v)))
        return -1;
    if ((v = get(b, "neuron.collectives.version")) &&
        !(c = add(b, SP_BOM_LIBRARY, "libnccom", "libnccom", v)))
        return -1;
    if ((v = get(b, "efa.device.count")) && strcmp(v, "0") != 0) {
        if (!(c = add(b, SP_BOM_DEVICE, "efa-device", "efa", NULL)))
            return -1;
        c->description = "Elastic Fabric Adapter devices";
        prop(b, c, "efa.device.count");
        prop(b, c, "efa.installer.version");
    }
    if ((v = get(b, "efa.driver.version")) && !(c = add(b, SP_BOM_DRIVER, "efa-driver", "efa", v)))
        return -1;
    if ((v = get(b, "gpu.device.count")) && strcmp(v, "0") != 0) {
        if (!(c = add(b, SP_BOM_DEVICE, "gpu-device", "nvidia-gpu", NULL)))
            return -1;
        prop(b, c, "gpu.device.count");
        prop(b, c, "gpu.device.pci_id");
    }
    if ((v = get(b, "gpu.nvidia.driver")) && !(c = add(b, SP_BOM_DRIVER, "gpu-driver", "nvidia", v)))
        return -1;
    if ((v = get(b, "cuda.toolkit.version")) &&
        !(c = add(b, SP_BOM_LIBRARY, "cuda-toolkit", "cuda-toolkit", v)))
        return -1;
    if ((v = get(b, "python.version"))) {
        if (!(c = add(b, SP_BOM_APPLICATION, "python", "python", v)))
            return -1;
        c->description = "the workload's interpreter";
        prop(b, c, "python.path");
        prop(b, c, "python.prefix");
    }
    return 0;
}

/* One package component; FACT the fact key, ENV the environment (pip). */
static int package(struct sp_bom *b, const char *fact, const char *type, const char *name,
                   const char *version, const char *env, struct sp_purl *p,
                   struct sp_error *e)
{
    /* the fact key, unique, is the bom-ref */
    int pip = strcmp(type, "pypi") == 0;
    struct sp_bom_component *c = add(b, pip && is_framework(name) ? SP_BOM_FRAMEWORK : SP_BOM_LIBRARY,
                                     fact, name, version);
    if (c == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "export: %s", strerror(ENOMEM));
    p->type = type;
    p->name = name;
    p->version = version;
    if (sp_purl_build(p, &c->purl, e) != 0) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        return sp_fail(e, SP_EXIT_INPUT, "%s: %s", fact, msg);
    }
    prop_value(c, "fact", fact);
    if (env) {
        /* ENV is the caller's buffer: the component keeps its own copy */
        if ((c->env = strdup(env)) == NULL)
            return sp_fail(e, SP_EXIT_INPUT, "export: %s", strerror(ENOMEM));
        prop_value(c, "python.env", c->env);
    }
    if (pip && env && strcmp(env, "workload") == 0 &&
        (strcmp(name, "torch") == 0 || strcmp(name, "torch-neuronx") == 0)) {
        prop(b, c, "torch.backend");
        prop(b, c, "runtime.torch.backend");
        if (strcmp(name, "torch") == 0) {
            prop(b, c, "torch.build.cuda");
            prop(b, c, "torch.build.git");
        }
    }
    return 0;
}

static int package_fact(struct sp_bom *b, const struct fact *f, const char *distro,
                        struct sp_error *e)
{
    const char *k = f->key;
    struct sp_purl p = { 0 };
    char name[SP_FACT_KEY_MAX], env[SP_FACT_KEY_MAX];
    if (strncmp(k, "pip.", 4) == 0) {
        return package(b, k, "pypi", k + 4, f->value, "workload", &p, e);
    }
    if (strncmp(k, "python.env.", 11) == 0) {
        const char *pp = strstr(k + 11, ".pip.");
        if (pp == NULL || pp[5] == '\0' || pp == k + 11)
            return 1;
        snprintf(env, sizeof env, "%.*s", (int)(pp - (k + 11)), k + 11);
        return package(b, k, "pypi", pp + 5, f->value, env, &p, e);
    }
    const char *os = get(b, "host.os.id");
    if (strncmp(k, "deb.", 4) == 0 && os) {
        snprintf(name, sizeof name, "%s", k + 4);
        char *colon = strchr(name, ':');
        if (colon) {
            *colon = '\0';
            p.qualifiers[p.nqualifiers].key = "arch";
            p.qualifiers[p.nqualifiers++].value = colon + 1;
        }
        p.namespace_ = os;
        p.qualifiers[p.nqualifiers].key = "distro";
        p.qualifiers[p.nqualifiers++].value = distro;
        return package(b, k, "deb", name, f->value, NULL, &p, e);
    }
    if (strncmp(k, "rpm.", 4) == 0 && os && strchr(f->value, ',') == NULL) {
        /* "[EPOCH:]VERSION-RELEASE" (rpm -q's form); anything else stays a
         * property, whole */
        const char *ver = f->value, *colon = strchr(f->value, ':');
        char epoch[32] = "";
        if (colon && (size_t)(colon - f->value) < sizeof epoch) {
            snprintf(epoch, sizeof epoch, "%.*s", (int)(colon - f->value), f->value);
            ver = colon + 1;
        }
        p.namespace_ = os;
        p.qualifiers[p.nqualifiers].key = "distro";
        p.qualifiers[p.nqualifiers++].value = distro;
        p.qualifiers[p.nqualifiers].key = "epoch";
        p.qualifiers[p.nqualifiers++].value = epoch;
        return package(b, k, "rpm", k + 4, ver, NULL, &p, e);
    }
    return 1;   /* not a package */
}

int sp_bom_build(const struct manifest *m, struct sp_bom *b, struct sp_error *e)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->image = strncmp(m->subject ? m->subject : "", "image:", 6) == 0;
    const char *ref = factset_get(&m->facts, "image.ref");
    b->subject_name = b->image && ref ? ref : m->subject;
    const char *md = factset_get(&m->facts, "image.manifest_digest");
    if (b->image && sp_digest_valid(md))
        b->subject_digest = md + SP_DIGEST_PREFIX_LEN;
    if (platform_components(b) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "export: %s", strerror(ENOMEM));
    char distro[256] = "";
    const char *os = factset_get(&m->facts, "host.os.id");
    const char *osv = factset_get(&m->facts, "host.os.version_id");
    if (os && osv)
        snprintf(distro, sizeof distro, "%s-%s", os, osv);
    if (m->facts.count && (b->props = calloc(m->facts.count, sizeof *b->props)) == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "export: %s", strerror(ENOMEM));
    for (size_t i = 0; i < m->facts.count; i++) {
        int r = package_fact(b, &m->facts.facts[i], distro, e);
        if (r < 0)
            return -1;
        if (r > 0)
            b->props[b->nprops++] = &m->facts.facts[i];
    }
    return 0;
}

void sp_bom_free(struct sp_bom *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->c[i].ref);
        free(b->c[i].name);
        free(b->c[i].version);
        free(b->c[i].purl);
        free(b->c[i].env);
    }
    free(b->c);
    free(b->props);
    memset(b, 0, sizeof *b);
}

int sp_bom_serial_uuid(const char *stack_id, char out[37])
{
    /* RFC 9562 section 5.5: SHA-1 over the namespace's 16 bytes and the
     * name; version 5 in the top nibble of octet 6, variant 10 in octet 8.
     * The namespace is the URL namespace of RFC 9562 section 6.6. */
    static const unsigned char ns_url[16] = {
        0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1,
        0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8,
    };
    char name[128];
    int nl = snprintf(name, sizeof name, "https://stackprint.dev/stack/%s", stack_id);
    if (nl < 0 || (size_t)nl >= sizeof name)
        return -1;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
             EVP_DigestUpdate(ctx, ns_url, sizeof ns_url) &&
             EVP_DigestUpdate(ctx, name, (size_t)nl) && EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    if (!ok || mdlen < 16)
        return -1;
    md[6] = (unsigned char)((md[6] & 0x0f) | 0x50);
    md[8] = (unsigned char)((md[8] & 0x3f) | 0x80);
    char *o = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        o += sprintf(o, "%02x", md[i]);
    }
    return 0;
}

int sp_bom_render(const struct manifest *m, enum sp_bom_format format, char **out, size_t *len,
                  struct sp_error *e)
{
    struct sp_bom b;
    int rc = sp_bom_build(m, &b, e);
    if (rc == 0)
        rc = format == SP_BOM_SPDX ? sp_export_spdx(&b, out, len, e)
                                   : sp_export_cyclonedx(&b, out, len, e);
    sp_bom_free(&b);
    return rc;
}
