/* cli/cmd_export.c: stackprint export: a manifest as a CycloneDX 1.6 or
 * SPDX 2.3 JSON bill of materials (stackprint-export(1)).  Reads the
 * manifest strictly (its stack id is checked on read), writes atomically. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "export/bom.h"
#include "manifest/manifest.h"

static const char export_usage[] =
    "usage: stackprint export [--format cyclonedx|spdx] [-o FILE] MANIFEST\n"
    "Write MANIFEST as a bill of materials.\n"
    "options:\n"
    "  -f, --format FORMAT  cyclonedx (CycloneDX 1.6 JSON, the default) or spdx (SPDX 2.3 JSON)\n"
    "  -o, --output FILE    write FILE atomically instead of standard output\n"
    "  -h, --help           show this help\n";

/* sp_export_render: manifest M as FORMAT ("cyclonedx" or "spdx") into a
 * malloc'd buffer; shared with probe --format cyclonedx. */
int sp_export_render(const struct manifest *m, const char *format, char **out, size_t *len,
                     struct sp_error *e)
{
    return sp_bom_render(m, strcmp(format, "spdx") == 0 ? SP_BOM_SPDX : SP_BOM_CYCLONEDX,
                         out, len, e);
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "cyclonedx", *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "cyclonedx") != 0 && strcmp(optarg, "spdx") != 0)
                return sp_usage_error("export", "unknown format '%s' (cyclonedx or spdx)", optarg);
            format = optarg;
            break;
        case 'o': out = optarg; break;
        case 'h': fputs(export_usage, stdout); return SP_EXIT_OK;
        case ':': return sp_usage_error("export", "option '%s' needs a value", argv[optind - 1]);
        default: return sp_usage_error("export", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return sp_usage_error("export", optind < argc ? "one MANIFEST only" : "MANIFEST is required");
    const char *path = argv[optind];
    if (sp_same_file(out, path))
        return sp_usage_error("export", "output '%s' is the manifest; it would be overwritten", out);

    struct sp_error e = { 0 };
    struct manifest m;
    manifest_init(&m);
    char *buf = NULL;
    size_t len = 0;
    int rc = SP_EXIT_OK;
    if (manifest_load(path, &m, &e) != 0 || sp_export_render(&m, format, &buf, &len, &e) != 0 ||
        sp_write_output(out, buf, len, &e) != 0)
        rc = sp_error_print(&e);
    free(buf);
    manifest_free(&m);
    return rc;
}
