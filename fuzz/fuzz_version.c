/* fuzz/fuzz_version.c: libFuzzer target for the version schemes (PEP 440,
 * Debian, RPM, dotted) and specifier sets.  The first byte picks the scheme;
 * the rest is split at the first newline into A and B.  A and B are parsed
 * as versions and compared both ways (the order must be antisymmetric: a
 * broken comparison is a finding, not only a crash); A is parsed as a
 * specifier set and matched against B. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/specifier.h"
#include "checks/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct sp_scheme *const schemes[] = {
        &sp_scheme_pep440, &sp_scheme_deb, &sp_scheme_rpm, &sp_scheme_dotted,
    };
    if (size < 1 || size > 4096)
        return 0;
    const struct sp_scheme *scheme = schemes[data[0] % 4];
    char *text = malloc(size);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *b = strchr(text, '\n');
    if (b)
        *b++ = '\0';
    else
        b = text;
    struct sp_error e = { 0 };
    struct sp_version *va = sp_version_parse(scheme, text, &e);
    struct sp_version *vb = sp_version_parse(scheme, b, &e);
    if (va && vb) {
        for (int how = SP_CMP_FULL; how <= SP_CMP_BASE; how++) {
            if (scheme != &sp_scheme_pep440 && how != SP_CMP_FULL)
                break;
            int ab = sp_version_compare(va, vb, how), ba = sp_version_compare(vb, va, how);
            if (sign(ab) != -sign(ba) || sp_version_compare(va, va, how) != 0)
                abort();
        }
        char lead[256];
        sp_version_leading(va, 1 + data[0] % 4, lead, sizeof lead);
    }
    struct sp_specifier *s = NULL;
    if (sp_specifier_parse(text, scheme, &s, &e) == 0) {
        if (vb)
            (void)sp_specifier_match(s, vb);
        sp_specifier_free(s);
    }
    sp_version_free(va);
    sp_version_free(vb);
    free(text);
    return 0;
}
