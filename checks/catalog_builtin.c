/* checks/catalog_builtin.c: the release catalog compiled into the binary;
 * see catalog.h.  The data (build/gen/catalog_data.c) is generated at build
 * time by scripts/gen-catalog-c.c, which reads policies/neuron/catalog.yaml
 * with catalog_load() and writes it with catalog_write_c(): the same parser
 * as a run that reads the file, so the two cannot disagree.  The data is a
 * weak symbol: a program linked without it (the unit tests, the generator
 * itself) always parses. */
#include "checks/catalog.h"

#include <string.h>

extern const struct catalog_embedded sp_catalog_embedded __attribute__((weak));

/* catalog_write_c writes every field of these structs by name: a field added
 * to one of them must be added there too, so the build stops here until it is. */
_Static_assert(sizeof(struct catalog_package) == 5 * sizeof(void *) + 2 * sizeof(size_t),
               "struct catalog_package changed: update catalog_write_c()");
_Static_assert(sizeof(struct catalog_release) == 2 * sizeof(void *) + sizeof(size_t),
               "struct catalog_release changed: update catalog_write_c()");
_Static_assert(sizeof(struct catalog) == 4 * sizeof(void *) + 4 * sizeof(size_t),
               "struct catalog changed: update catalog_write_c()");

int catalog_builtin(const char *buf, size_t len, struct catalog *out)
{
    const struct catalog_embedded *b = &sp_catalog_embedded;
    if (b == NULL || b->catalog == NULL || b->len != len || memcmp(b->source, buf, len) != 0)
        return 0;
    *out = *b->catalog;
    out->builtin = 1;
    return 1;
}

/* S as a C string literal: printable ASCII as is, the rest octal escapes */
static void literal(FILE *fp, const char *s)
{
    if (s == NULL) {
        fputs("NULL", fp);
        return;
    }
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '?')
            fprintf(fp, "\\%c", *p);
        else if (*p >= 0x20 && *p < 0x7f)
            fputc(*p, fp);
        else
            fprintf(fp, "\\%03o", *p);
    }
    fputc('"', fp);
}

static void string_array(FILE *fp, const char *type, const char *name, const char *const *v,
                         size_t n)
{
    if (n == 0)
        return;
    fprintf(fp, "static %s %s[] = {", type, name);
    for (size_t i = 0; i < n; i++) {
        fputs(i % 4 ? " " : "\n    ", fp);
        literal(fp, v[i]);
        fputc(',', fp);
    }
    fputs("\n};\n", fp);
}

int catalog_write_c(const struct catalog *c, const unsigned char *src, size_t len, FILE *fp)
{
    char name[64];
    fputs("/* Generated at build time by scripts/gen-catalog-c.c from the release\n"
          " * catalog (catalog_load, then catalog_write_c): do not edit. */\n"
          "#include <stddef.h>\n\n#include \"checks/catalog.h\"\n\n", fp);
    for (size_t r = 0; r < c->nreleases; r++) {
        const struct catalog_release *rel = &c->releases[r];
        for (size_t p = 0; p < rel->npackages; p++) {
            const struct catalog_package *pk = &rel->packages[p];
            snprintf(name, sizeof name, "in_%zu_%zu", r, p);
            string_array(fp, "char *", name, (const char *const *)pk->instances, pk->ninstances);
            snprintf(name, sizeof name, "py_%zu_%zu", r, p);
            string_array(fp, "char *", name, (const char *const *)pk->pythons, pk->npythons);
        }
        fprintf(fp, "static struct catalog_package pk_%zu[] = {\n", r);
        for (size_t p = 0; p < rel->npackages; p++) {
            const struct catalog_package *pk = &rel->packages[p];
            fputs("    { .name = ", fp);
            literal(fp, pk->name);
            fputs(", .pep503 = ", fp);
            literal(fp, pk->pep503);
            fputs(", .version = ", fp);
            literal(fp, pk->version);
            if (pk->ninstances)
                fprintf(fp, ", .instances = in_%zu_%zu", r, p);
            if (pk->npythons)
                fprintf(fp, ", .pythons = py_%zu_%zu", r, p);
            fprintf(fp, ", .ninstances = %zu, .npythons = %zu },\n", pk->ninstances, pk->npythons);
        }
        if (rel->npackages == 0)
            fputs("    { 0 },\n", fp);
        fputs("};\n", fp);
    }
    fputs("static struct catalog_release releases[] = {\n", fp);
    for (size_t r = 0; r < c->nreleases; r++) {
        fputs("    { .release = ", fp);
        literal(fp, c->releases[r].release);
        fprintf(fp, ", .packages = pk_%zu, .npackages = %zu },\n", r, c->releases[r].npackages);
    }
    fputs("};\n", fp);
    string_array(fp, "const char *", "names", c->names, c->nnames);
    string_array(fp, "const char *", "pep503_names", c->pep503_names, c->npep503_names);
    fputs("static const struct catalog catalog = {\n    .source = ", fp);
    literal(fp, c->source);
    fprintf(fp, ",\n    .releases = releases, .nreleases = %zu,\n", c->nreleases);
    fprintf(fp, "    .names = %s, .nnames = %zu,\n", c->nnames ? "names" : "NULL", c->nnames);
    fprintf(fp, "    .pep503_names = %s, .npep503_names = %zu,\n    .builtin = 1,\n};\n",
            c->npep503_names ? "pep503_names" : "NULL", c->npep503_names);
    fputs("static const unsigned char source[] = {", fp);
    for (size_t i = 0; i < len; i++)
        fprintf(fp, "%s%u,", i % 20 ? "" : "\n", src[i]);
    fprintf(fp, "\n};\nconst struct catalog_embedded sp_catalog_embedded = { &catalog, source, %zu };\n",
            len);
    return ferror(fp) ? -1 : 0;
}
