/* export/spdx.c: a manifest as an SPDX 2.3 JSON document (export/bom.h;
 * SPDX specification 2.3, clauses 6 "Document creation information", 7
 * "Package information", 11 "Relationships", and its JSON schema).
 * The subject is a package that the document DESCRIBES; it CONTAINS one
 * package per component, each with its purl as a PACKAGE-MANAGER external
 * reference, so the purls are the same as in the CycloneDX export. */
#include <stdio.h>
#include <string.h>

#include "export/bom.h"

static const char *purpose(enum sp_bom_kind k)
{
    switch (k) {
    case SP_BOM_FRAMEWORK: return "FRAMEWORK";
    case SP_BOM_APPLICATION: return "APPLICATION";
    case SP_BOM_OS: return "OPERATING_SYSTEM";   /* the JSON schema spells it so */
    case SP_BOM_DEVICE: return "DEVICE";
    case SP_BOM_DRIVER: return "OTHER";     /* SPDX 2.3 has no driver purpose */
    case SP_BOM_LIBRARY: break;
    }
    return "LIBRARY";
}

static json_t *package(const struct sp_bom_component *c, const char *id)
{
    char comment[SP_FACT_KEY_MAX + SP_FACT_VALUE_MAX + 32];
    json_t *o = json_pack("{s:s, s:s}", "SPDXID", id, "name", c->name);
    if (o == NULL)
        return NULL;
    if (c->version)
        json_object_set_new(o, "versionInfo", json_string(c->version));
    json_object_set_new(o, "downloadLocation", json_string("NOASSERTION"));
    json_object_set_new(o, "filesAnalyzed", json_false());
    json_object_set_new(o, "primaryPackagePurpose", json_string(purpose(c->kind)));
    if (c->description)
        json_object_set_new(o, "description", json_string(c->description));
    snprintf(comment, sizeof comment, "stackprint bom-ref %s", c->ref);
    json_object_set_new(o, "comment", json_string(comment));
    if (c->purl)
        json_object_set_new(o, "externalRefs",
                            json_pack("[{s:s, s:s, s:s}]", "referenceCategory", "PACKAGE-MANAGER",
                                      "referenceType", "purl", "referenceLocator", c->purl));
    return o;
}

int sp_export_spdx(const struct sp_bom *b, char **out, size_t *len, struct sp_error *e)
{
    const struct manifest *m = b->m;
    char ns[160], name[SP_FACT_VALUE_MAX + 32], creator[64], comment[200];
    snprintf(ns, sizeof ns, "https://stackprint.dev/spdx/%s",
             sp_digest_valid(m->stack_id) ? m->stack_id + SP_DIGEST_PREFIX_LEN : m->stack_id);
    snprintf(name, sizeof name, "stackprint %s", m->subject);
    snprintf(creator, sizeof creator, "Tool: stackprint-%s", SP_VERSION);
    snprintf(comment, sizeof comment, "stackprint stack_id %s; manifest tool %s", m->stack_id,
             m->tool ? m->tool : "?");

    json_t *subject = json_pack("{s:s, s:s, s:s, s:b, s:s}", "SPDXID", "SPDXRef-Subject",
                                "name", b->subject_name, "downloadLocation", "NOASSERTION",
                                "filesAnalyzed", 0, "primaryPackagePurpose",
                                b->image ? "CONTAINER" : "OTHER");
    if (subject && b->subject_digest)
        json_object_set_new(subject, "checksums", json_pack("[{s:s, s:s}]", "algorithm", "SHA256",
                                                            "checksumValue", b->subject_digest));
    json_t *packages = json_array(), *rels = json_array();
    json_array_append_new(packages, subject);
    json_array_append_new(rels, json_pack("{s:s, s:s, s:s}", "spdxElementId", "SPDXRef-DOCUMENT",
                                          "relationshipType", "DESCRIBES",
                                          "relatedSpdxElement", "SPDXRef-Subject"));
    for (size_t i = 0; i < b->n; i++) {
        char id[48];
        snprintf(id, sizeof id, "SPDXRef-Package-%zu", i + 1);
        json_array_append_new(packages, package(&b->c[i], id));
        json_array_append_new(rels, json_pack("{s:s, s:s, s:s}", "spdxElementId", "SPDXRef-Subject",
                                              "relationshipType", "CONTAINS",
                                              "relatedSpdxElement", id));
    }
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:[s]}, s:s, s:o, s:o}",
                            "spdxVersion", "SPDX-2.3", "dataLicense", "CC0-1.0",
                            "SPDXID", "SPDXRef-DOCUMENT", "name", name, "documentNamespace", ns,
                            "creationInfo", "created", m->created, "creators", creator,
                            "comment", comment, "packages", packages, "relationships", rels);
    if (doc == NULL)
        return sp_fail(e, SP_EXIT_INPUT, "export: cannot build the SPDX document");
    return sp_bom_dump(doc, out, len, e);
}
