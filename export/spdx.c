/* export/spdx.c: a manifest as an SPDX 2.3 JSON document (export/bom.h;
 * SPDX specification 2.3, clauses 6 "Document creation information", 7
 * "Package information", 11 "Relationships", and its JSON schema).
 * The subject is a package that the document DESCRIBES; it CONTAINS one
 * package per component, each with its purl as a PACKAGE-MANAGER external
 * reference, so the purls are the same as in the CycloneDX export. */
#include <stdio.h>
#include <string.h>

#include "export/bom.h"
#include "export/json_writer.h"

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

static void package(struct sp_jw *w, const struct sp_bom_component *c, const char *id)
{
    char comment[SP_FACT_KEY_MAX + SP_FACT_VALUE_MAX + 32];
    sp_jw_open(w, NULL, '{');
    sp_jw_string(w, "SPDXID", id);
    sp_jw_string(w, "name", c->name);
    if (c->version)
        sp_jw_string(w, "versionInfo", c->version);
    sp_jw_string(w, "downloadLocation", "NOASSERTION");
    sp_jw_literal(w, "filesAnalyzed", "false");
    sp_jw_string(w, "primaryPackagePurpose", purpose(c->kind));
    if (c->description)
        sp_jw_string(w, "description", c->description);
    snprintf(comment, sizeof comment, "stackprint bom-ref %s", c->ref);
    sp_jw_string(w, "comment", comment);
    if (c->purl) {
        sp_jw_open(w, "externalRefs", '[');
        sp_jw_open(w, NULL, '{');
        sp_jw_string(w, "referenceCategory", "PACKAGE-MANAGER");
        sp_jw_string(w, "referenceType", "purl");
        sp_jw_string(w, "referenceLocator", c->purl);
        sp_jw_close(w, '}');
        sp_jw_close(w, ']');
    }
    sp_jw_close(w, '}');
}

/* The package the document describes: the host or the image. */
static void subject(struct sp_jw *w, const struct sp_bom *b)
{
    sp_jw_open(w, NULL, '{');
    sp_jw_string(w, "SPDXID", "SPDXRef-Subject");
    sp_jw_string(w, "name", b->subject_name);
    sp_jw_string(w, "downloadLocation", "NOASSERTION");
    sp_jw_literal(w, "filesAnalyzed", "false");
    sp_jw_string(w, "primaryPackagePurpose", b->image ? "CONTAINER" : "OTHER");
    if (b->subject_digest) {
        sp_jw_open(w, "checksums", '[');
        sp_jw_pair(w, "algorithm", "SHA256", "checksumValue", b->subject_digest);
        sp_jw_close(w, ']');
    }
    sp_jw_close(w, '}');
}

static void relationship(struct sp_jw *w, const char *from, const char *type, const char *to)
{
    sp_jw_open(w, NULL, '{');
    sp_jw_string(w, "spdxElementId", from);
    sp_jw_string(w, "relationshipType", type);
    sp_jw_string(w, "relatedSpdxElement", to);
    sp_jw_close(w, '}');
}

/* The document's header: version, licence, name, namespace, creation. */
static void header(struct sp_jw *w, const struct manifest *m)
{
    char ns[160], name[SP_FACT_VALUE_MAX + 32], creator[64], comment[200];
    snprintf(ns, sizeof ns, "https://stackprint.dev/spdx/%s",
             strncmp(m->stack_id, "sha256:", 7) == 0 ? m->stack_id + 7 : m->stack_id);
    snprintf(name, sizeof name, "stackprint %s", m->subject);
    snprintf(creator, sizeof creator, "Tool: stackprint-%s", SP_VERSION);
    snprintf(comment, sizeof comment, "stackprint stack_id %s; manifest tool %s", m->stack_id,
             m->tool ? m->tool : "?");
    sp_jw_string(w, "spdxVersion", "SPDX-2.3");
    sp_jw_string(w, "dataLicense", "CC0-1.0");
    sp_jw_string(w, "SPDXID", "SPDXRef-DOCUMENT");
    sp_jw_string(w, "name", name);
    sp_jw_string(w, "documentNamespace", ns);
    sp_jw_open(w, "creationInfo", '{');
    sp_jw_string(w, "created", m->created);
    sp_jw_open(w, "creators", '[');
    sp_jw_string(w, NULL, creator);
    sp_jw_close(w, ']');
    sp_jw_close(w, '}');
    sp_jw_string(w, "comment", comment);
}

int sp_export_spdx(const struct sp_bom *b, char **out, size_t *len, struct sp_error *e)
{
    struct sp_jw w;
    char id[48];
    sp_jw_init(&w, SP_BOM_BYTES_HINT(2 * b->n));
    sp_jw_open(&w, NULL, '{');
    header(&w, b->m);
    sp_jw_open(&w, "packages", '[');
    subject(&w, b);
    for (size_t i = 0; i < b->n; i++) {
        snprintf(id, sizeof id, "SPDXRef-Package-%zu", i + 1);
        package(&w, &b->c[i], id);
    }
    sp_jw_close(&w, ']');
    sp_jw_open(&w, "relationships", '[');
    relationship(&w, "SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Subject");
    for (size_t i = 0; i < b->n; i++) {
        snprintf(id, sizeof id, "SPDXRef-Package-%zu", i + 1);
        relationship(&w, "SPDXRef-Subject", "CONTAINS", id);
    }
    sp_jw_close(&w, ']');
    sp_jw_close(&w, '}');
    return sp_jw_finish(&w, out, len, e);
}
