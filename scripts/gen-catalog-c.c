/* scripts/gen-catalog-c.c: the build's generator of the compiled-in release
 * catalog (checks/catalog.h, "the catalog compiled into the binary").
 *
 *   gen-catalog-c CATALOG.yaml OUT.c
 *
 * Reads CATALOG.yaml exactly as `--policy` does (sp_policy_parse: the
 * document must be a release catalog) and writes OUT.c with
 * catalog_write_c(), through a temporary file and a rename.  Exit 0, or 4
 * with one line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalog.h"
#include "checks/policy.h"
#include "manifest/manifest.h"

int main(int argc, char **argv)
{
    struct sp_policy_set ps;
    struct sp_error e = { 0 };
    char *buf = NULL, tmp[4096];
    size_t len = 0;
    int rc = 4;
    if (argc != 3) {
        fprintf(stderr, "usage: gen-catalog-c CATALOG.yaml OUT.c\n");
        return 2;
    }
    sp_policy_set_init(&ps);
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
    if (sp_read_file(argv[1], SP_POLICY_MAX_BYTES, "policy", &buf, &len, &e) != 0 ||
        sp_policy_parse(&ps, buf, len, argv[1], &e) != 0) {
        fprintf(stderr, "gen-catalog-c: %s\n", e.msg);
    } else if (ps.catalog == NULL) {
        fprintf(stderr, "gen-catalog-c: %s: not a release catalog\n", argv[1]);
    } else {
        FILE *fp = fopen(tmp, "w");
        if (fp == NULL || catalog_write_c(ps.catalog, (const unsigned char *)buf, len, fp) != 0 ||
            fclose(fp) != 0 || rename(tmp, argv[2]) != 0)
            fprintf(stderr, "gen-catalog-c: %s: cannot write\n", argv[2]);
        else
            rc = 0;
    }
    free(buf);
    sp_policy_set_free(&ps);
    return rc;
}
