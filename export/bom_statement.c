/* export/bom_statement.c: the CycloneDX BOM as an in-toto predicate:
 * building, signing and verifying (export/bom_statement.h). */
#include "export/bom_statement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "export/bom.h"
#include "manifest/manifest.h"
#include "manifest/node.h"

#define DIFF_PATH_MAX 256   /* bytes of the "first difference at" path shown */

/* The predicate: the CycloneDX BOM of manifest M (sp_predicate_fn). */
static int bom_json(const struct manifest *m, char **out, size_t *len, struct sp_error *e)
{
    return sp_bom_render(m, SP_BOM_CYCLONEDX, out, len, e);
}

int sp_bom_statement(const char *buf, size_t len, const char *name,
                     char **out, size_t *outlen, struct sp_error *e)
{
    return sp_manifest_statement(buf, len, name, SP_BOM_PREDICATE_TYPE, bom_json,
                                 out, outlen, e);
}

int sp_bom_envelope_claims(const char *env, size_t envlen)
{
    json_error_t je;
    json_t *doc = json_loadb(env, envlen, 0, &je), *stmt = NULL;
    const char *b64 = json_string_value(json_object_get(doc, "payload")), *why = NULL;
    unsigned char *payload = NULL;
    size_t plen = 0;
    int claims = 0;
    if (b64 != NULL && sp_base64_decode(b64, strlen(b64), &payload, &plen, &why) == 0) {
        stmt = json_loadb((const char *)payload, plen, 0, &je);
        const char *ptype = json_string_value(json_object_get(stmt, "predicateType"));
        claims = ptype != NULL && strcmp(ptype, SP_BOM_PREDICATE_TYPE) == 0;
    }
    json_decref(stmt);
    json_decref(doc);
    free(payload);
    return claims;
}

/* Append ".KEY" or "[I]" to PATH (bounded; a long path is cut short). */
static void path_push(char *path, const char *key, size_t index)
{
    size_t n = strlen(path);
    if (key)
        snprintf(path + n, DIFF_PATH_MAX - n, "%s%s", n ? "." : "", key);
    else
        snprintf(path + n, DIFF_PATH_MAX - n, "[%zu]", index);
}

/* 1 when the trees A and B hold the same JSON values (mapping keys in any
 * order: sp_node_parse refuses duplicate keys, so equal counts and every
 * key of A found in B with an equal value is equality); else 0 with PATH
 * (DIFF_PATH_MAX bytes) naming the first difference. */
static int node_equal(const struct sp_node *a, const struct sp_node *b, char *path)
{
    if (a->kind != b->kind || a->count != b->count)
        return 0;
    if (a->kind == SP_NODE_SCALAR)
        return a->quoted == b->quoted && a->json_literal == b->json_literal &&
               strcmp(a->value, b->value) == 0;
    size_t len = strlen(path);
    for (size_t i = 0; i < a->count; i++) {
        const struct sp_node *other = a->kind == SP_NODE_MAP ? sp_node_get(b, a->keys[i], NULL)
                                                             : b->items[i];
        path_push(path, a->kind == SP_NODE_MAP ? a->keys[i] : NULL, i);
        if (other == NULL || !node_equal(a->items[i], other, path))
            return 0;
        path[len] = '\0';
    }
    return 1;
}

/* The predicate check: the statement's predicate is the BOM of MAN. */
static int check_predicate(const struct sp_node *stmt, const char *env_name,
                           const char *man, size_t manlen, const char *man_name,
                           struct sp_error *e)
{
    struct manifest m;
    char *text = NULL, path[DIFF_PATH_MAX] = "";
    size_t len = 0;
    struct sp_node *want = NULL;
    int r = -1;

    manifest_init(&m);
    if (manifest_parse(man, manlen, man_name, &m, e) != 0 ||
        sp_bom_render(&m, SP_BOM_CYCLONEDX, &text, &len, e) != 0 ||
        (want = sp_node_parse(text, len, "the BOM", e)) == NULL)
        goto out;
    const struct sp_node *pred = sp_node_get(stmt, "predicate", NULL);
    if (node_equal(want, pred, path))
        r = 0;
    else
        sp_fail(e, SP_EXIT_VERIFY, "%s: predicate check failed: the predicate is not the "
                "CycloneDX BOM of %s (first difference at %s)", env_name, man_name,
                path[0] ? path : "the top");
out:
    sp_node_free(want);
    free(text);
    manifest_free(&m);
    return r;
}

int sp_bom_verify(const char *env, size_t envlen, const char *env_name,
                  const char *man, size_t manlen, const char *man_name,
                  EVP_PKEY *pub, struct sp_verified *out, struct sp_error *e)
{
    if (sp_verify_statement(env, envlen, env_name, man, manlen, man_name,
                            SP_BOM_PREDICATE_TYPE, pub, out, e) != 0)
        return -1;
    if (check_predicate(out->statement, env_name, man, manlen, man_name, e) != 0) {
        sp_verified_free(out);
        return -1;
    }
    return 0;
}
