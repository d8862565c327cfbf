/* export/cyclonedx.c: a manifest as a CycloneDX 1.6 JSON bill of materials
 * (export/bom.h; ECMA-424 1st edition, CycloneDX 1.6, and its JSON schema
 * bom-1.6.schema.json).  Document: bomFormat, specVersion, serialNumber
 * (urn:uuid, version 5, from the stack id), version 1, metadata (timestamp:
 * the manifest's created; tools; component: the subject, a platform or a
 * container with its manifest digest; properties: stack id, subject, tool
 * and every fact that is not a package), components, and dependencies (the
 * subject depends on every component). */
#include <string.h>

#include "export/bom.h"

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

static json_t *property(const char *name, const char *value)
{
    char n[SP_FACT_KEY_MAX + 16];
    snprintf(n, sizeof n, "stackprint:%s", name);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(n));
    json_object_set_new(o, "value", json_string(value));
    return o;
}

static json_t *component(const struct sp_bom_component *c)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "type", json_string(type_name(c->kind)));
    json_object_set_new(o, "bom-ref", json_string(c->ref));
    json_object_set_new(o, "name", json_string(c->name));
    if (c->version)
        json_object_set_new(o, "version", json_string(c->version));
    if (c->description)
        json_object_set_new(o, "description", json_string(c->description));
    if (c->purl)
        json_object_set_new(o, "purl", json_string(c->purl));
    if (c->nprops) {
        json_t *props = json_array();
        for (size_t i = 0; i < c->nprops; i++)
            json_array_append_new(props, property(c->props[i].name, c->props[i].value));
        json_object_set_new(o, "properties", props);
    }
    return o;
}

int sp_export_cyclonedx(const struct sp_bom *b, char **out, size_t *len, struct sp_error *e)
{
    const struct manifest *m = b->m;
    char uuid[37], serial[48];
    if (sp_bom_serial_uuid(m->stack_id, uuid) != 0)
        return sp_fail(e, SP_EXIT_INPUT, "export: cannot derive the serial number");
    snprintf(serial, sizeof serial, "urn:uuid:%s", uuid);

    json_t *subject = json_pack("{s:s, s:s, s:s}", "type", b->image ? "container" : "platform",
                                "bom-ref", "subject", "name", b->subject_name);
    if (subject && b->subject_digest)
        json_object_set_new(subject, "hashes",
                            json_pack("[{s:s, s:s}]", "alg", "SHA-256", "content", b->subject_digest));
    json_t *props = json_array();
    json_array_append_new(props, property("stack_id", m->stack_id));
    json_array_append_new(props, property("subject", m->subject));
    json_array_append_new(props, property("tool", m->tool));
    for (size_t i = 0; i < b->nprops; i++)
        json_array_append_new(props, property(b->props[i]->key, b->props[i]->value));
    json_t *metadata = json_pack("{s:s, s:{s:[{s:s, s:s, s:s}]}, s:o, s:o}",
                                 "timestamp", m->created,
                                 "tools", "components", "type", "application", "name", "stackprint",
                                 "version", SP_VERSION, "component", subject, "properties", props);
    json_t *components = json_array(), *depends = json_array();
    for (size_t i = 0; i < b->n; i++) {
        json_array_append_new(components, component(&b->c[i]));
        json_array_append_new(depends, json_string(b->c[i].ref));
    }
    json_t *doc = json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:[{s:s, s:o}]}",
                            "bomFormat", "CycloneDX", "specVersion", "1.6", "serialNumber", serial,
                            "version", 1, "metadata", metadata, "components", components,
                            "dependencies", "ref", "subject", "dependsOn", depends);
    if (doc == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "export: cannot build the CycloneDX document");
    return sp_bom_dump(doc, out, len, e);
}
