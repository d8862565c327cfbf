/* export/cyclonedx.c: a manifest as a CycloneDX 1.6 JSON bill of materials
 * (export/bom.h; ECMA-424 1st edition, CycloneDX 1.6, and its JSON schema
 * bom-1.6.schema.json).  Document: bomFormat, specVersion, serialNumber
 * (urn:uuid, version 5, from the stack id), version 1, metadata (timestamp:
 * the manifest's created; tools; component: the subject, a platform or a
 * container with its manifest digest; properties: stack id, subject, tool
 * and every fact that is not a package), components, and dependencies (the
 * subject depends on every component). */
#include <stdio.h>
#include <string.h>

#include "export/bom.h"
#include "export/json_writer.h"

static const char *type_name(enum sp_bom_kind k)
{
    switch (k) {
    case SP_BOM_FRAMEWORK: return "framework";
    case SP_BOM_APPLICATION: return "application";
    case SP_BOM_OS: return "operating-system";
    case SP_BOM_DEVICE: return "device";
    case SP_BOM_DRIVER: return "device-driver";
    case SP_BOM_LIBRARY: break;
    }
    return "library";
}

/* A property {"name": "stackprint:NAME", "value": VALUE} as an array item. */
static void property(struct sp_jw *w, const char *name, const char *value)
{
    static const char ns[] = "stackprint:";
    char n[sizeof ns + SP_FACT_KEY_MAX];
    size_t len = strnlen(name, SP_FACT_KEY_MAX);     /* a fact key or a fixed name */
    memcpy(n, ns, sizeof ns - 1);
    memcpy(n + sizeof ns - 1, name, len);
    n[sizeof ns - 1 + len] = '\0';
    sp_jw_pair(w, "name", n, "value", value);
}

static void component(struct sp_jw *w, const struct sp_bom_component *c)
{
    sp_jw_open(w, NULL, '{');
    sp_jw_string(w, "type", type_name(c->kind));
    sp_jw_string(w, "bom-ref", c->ref);
    sp_jw_string(w, "name", c->name);
    if (c->version)
        sp_jw_string(w, "version", c->version);
    if (c->description)
        sp_jw_string(w, "description", c->description);
    if (c->purl)
        sp_jw_string(w, "purl", c->purl);
    if (c->nprops) {
        sp_jw_open(w, "properties", '[');
        for (size_t i = 0; i < c->nprops; i++)
            property(w, c->props[i].name, c->props[i].value);
        sp_jw_close(w, ']');
    }
    sp_jw_close(w, '}');
}

/* metadata: timestamp, tools, the subject, the document properties */
static void metadata(struct sp_jw *w, const struct sp_bom *b)
{
    const struct manifest *m = b->m;
    sp_jw_open(w, "metadata", '{');
    sp_jw_string(w, "timestamp", m->created);
    sp_jw_open(w, "tools", '{');
    sp_jw_open(w, "components", '[');
    sp_jw_open(w, NULL, '{');
    sp_jw_string(w, "type", "application");
    sp_jw_string(w, "name", "stackprint");
    sp_jw_string(w, "version", SP_VERSION);
    sp_jw_close(w, '}');
    sp_jw_close(w, ']');
    sp_jw_close(w, '}');
    sp_jw_open(w, "component", '{');
    sp_jw_string(w, "type", b->image ? "container" : "platform");
    sp_jw_string(w, "bom-ref", "subject");
    sp_jw_string(w, "name", b->subject_name);
    if (b->subject_digest) {
        sp_jw_open(w, "hashes", '[');
        sp_jw_pair(w, "alg", "SHA-256", "content", b->subject_digest);
        sp_jw_close(w, ']');
    }
    sp_jw_close(w, '}');
    sp_jw_open(w, "properties", '[');
    property(w, "stack_id", m->stack_id);
    property(w, "subject", m->subject);
    property(w, "tool", m->tool);
    for (size_t i = 0; i < b->nprops; i++)
        property(w, b->props[i]->key, b->props[i]->value);
    sp_jw_close(w, ']');
    sp_jw_close(w, '}');
}

int sp_export_cyclonedx(const struct sp_bom *b, char **out, size_t *len, struct sp_error *e)
{
    char uuid[37], serial[48];
    if (sp_bom_serial_uuid(b->m->stack_id, uuid) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "export: cannot derive the serial number");
    snprintf(serial, sizeof serial, "urn:uuid:%s", uuid);

    struct sp_jw w;
    sp_jw_init(&w, SP_BOM_BYTES_HINT(b->n + b->nprops));
    sp_jw_open(&w, NULL, '{');
    sp_jw_string(&w, "bomFormat", "CycloneDX");
    sp_jw_string(&w, "specVersion", "1.6");
    sp_jw_string(&w, "serialNumber", serial);
    sp_jw_literal(&w, "version", "1");
    metadata(&w, b);
    sp_jw_open(&w, "components", '[');
    for (size_t i = 0; i < b->n; i++)
        component(&w, &b->c[i]);
    sp_jw_close(&w, ']');
    sp_jw_open(&w, "dependencies", '[');
    sp_jw_open(&w, NULL, '{');
    sp_jw_string(&w, "ref", "subject");
    sp_jw_open(&w, "dependsOn", '[');
    for (size_t i = 0; i < b->n; i++)
        sp_jw_string(&w, NULL, b->c[i].ref);
    sp_jw_close(&w, ']');
    sp_jw_close(&w, '}');
    sp_jw_close(&w, ']');
    sp_jw_close(&w, '}');
    return sp_jw_finish(&w, out, len, e);
}
