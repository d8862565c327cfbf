/* fingerprint/probes/probe_util.c: the Neuron device table, EC2 instance type
 * rules and version syntax checks shared by the host probes.  Reads nothing. */
#include "fingerprint/probes/probe_util.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

/* doc/DOMAIN.md section 1 (aws-neuron-driver neuron_pci.c, neuron_device.h). */
static const struct neuron_kind kinds[] = {
    { 0x7064, "inferentia", "Inferentia", 4 },
    { 0x7065, "inferentia", "Inferentia", 4 },
    { 0x7066, "inferentia", "Inferentia", 4 },
    { 0x7067, "inferentia", "Inferentia", 4 },
    { 0x7164, "trainium", "Trainium", 2 },
    { 0x7264, "inferentia2", "Inferentia2", 2 },
    { 0x7364, "trainium2", "Trainium2", 8 },
    { 0x7564, "trainium3", "Trainium3", 8 },
    { 0x7565, "trainium3", "Trainium3", 8 },
};

const struct neuron_kind *neuron_kind_by_id(unsigned id)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].device_id == id)
            return &kinds[i];
    return NULL;
}

const struct neuron_kind *neuron_kind_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcasecmp(kinds[i].kind, name) == 0 ||
            strcasecmp(kinds[i].device_name, name) == 0)
            return &kinds[i];
    return NULL;
}

int efa_device_id(unsigned id)
{
    return id >= 0xefa0 && id <= 0xefa3;
}

int instance_type_valid(const char *s)
{
    size_t n = strlen(s);
    const char *dot = strchr(s, '.');
    if (n == 0 || n > SP_INSTANCE_TYPE_MAX || dot == NULL || dot == s ||
        dot[1] == '\0' || strchr(dot + 1, '.') || !islower((unsigned char)s[0]))
        return 0;
    for (const char *p = s; p < dot; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
            return 0;
    for (const char *p = dot + 1; *p; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p))
            return 0;
    return 1;
}

int instance_family(const char *type, char *out, size_t outsz)
{
    size_t i = 0;
    while (islower((unsigned char)type[i]))
        i++;
    size_t letters = i;
    while (isdigit((unsigned char)type[i]))
        i++;
    if (letters == 0 || i == letters || i >= outsz)
        return -1;
    memcpy(out, type, i);
    out[i] = '\0';
    return 0;
}

int instance_id_valid(const char *s)
{
    size_t n = strlen(s);
    if (strncmp(s, "i-", 2) != 0 || (n != 2 + 8 && n != 2 + 17))
        return 0;
    for (const char *p = s + 2; *p; p++)
        if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f'))
            return 0;
    return 1;
}

int probe_set_instance(struct probe_ctx *ctx, const char *type, const char *evidence)
{
    char family[SP_INSTANCE_TYPE_MAX + 1];
    if (probe_set(ctx, "host.instance_type", type, evidence) != 0)
        return -1;
    if (instance_family(type, family, sizeof family) != 0) {
        factset_warn(ctx->facts, "host.instance_family: %s: instance type '%s' does not "
                     "start with letters and digits; family not recorded", evidence, type);
        return 0;
    }
    return probe_set(ctx, "host.instance_family", family, evidence);
}

int version_is_numeric(const char *s, int minparts)
{
    int parts = 0;
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return 0;
    for (const char *p = s; *p;) {
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
        parts++;
        if (*p == '.') {
            p++;
            if (*p == '\0')
                return 0;
        } else if (*p) {
            return 0;
        }
    }
    return parts >= minparts;
}

int version_looks_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128 || !isdigit((unsigned char)s[0]))
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr(".+~-_:", *p))
            return 0;
    return 1;
}
