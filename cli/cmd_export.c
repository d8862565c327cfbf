/* cli/cmd_export.c: stackprint export: a manifest as a CycloneDX 1.6 or
 * SPDX 2.3 JSON bill of materials (stackprint-export(1)).  Reads the
 * manifest strictly (its stack id is checked on read), writes atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "export/bom.h"
#include "manifest/manifest.h"

static const struct sp_command_help export_help = {
    "export",
    "usage: stackprint export [--format cyclonedx|spdx] [-o FILE] MANIFEST\n"
    "Write MANIFEST as a bill of materials.\n",
    23, NULL, SP_OPERANDS_ONE, "MANIFEST is required", "one MANIFEST only",
};

/* --format: cyclonedx or spdx */
static int format_arg(const struct sp_option *o, const char *arg, const char *cmd)
{
    (void)o;
    if (strcmp(arg, "cyclonedx") != 0 && strcmp(arg, "spdx") != 0)
        return sp_usage_error(cmd, "unknown format '%s' (cyclonedx or spdx)", arg);
    return 0;
}

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
    const char *format = "cyclonedx", *out = NULL;
    const struct sp_option opts[] = {
        SP_OPTION_CHECKED('f', "format", "FORMAT", SP_OPT_STRING, &format, 0, format_arg,
                          "cyclonedx (CycloneDX 1.6 JSON, the default) or spdx (SPDX 2.3 JSON)"),
        SP_OPTION_STRING('o', "output", "FILE", &out,
                         "write FILE atomically instead of standard output"),
        SP_OPTION_END,
    };
    int optind, rc = sp_options_parse(&export_help, opts, argc, argv, &optind);
    if (rc != SP_OPTIONS_GO_ON)
        return rc;
    const char *path = argv[optind];
    if (sp_same_file(out, path))
        return sp_usage_error("export", "output '%s' is the manifest; it would be overwritten", out);

    struct sp_error e = { 0 };
    struct manifest m;
    manifest_init(&m);
    char *buf = NULL;
    size_t len = 0;
    rc = SP_EXIT_OK;
    if (manifest_load(path, &m, &e) != 0 || sp_export_render(&m, format, &buf, &len, &e) != 0 ||
        sp_write_output(out, buf, len, &e) != 0)
        rc = sp_error_print(&e);
    free(buf);
    manifest_free(&m);
    return rc;
}
