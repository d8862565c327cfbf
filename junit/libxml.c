/* junit/libxml.c: libxml2 opened with dlopen(3) on first use; see libxml.h. */
#include "junit/libxml.h"

#include <dlfcn.h>
#include <stddef.h>

const struct sp_libxml *sp_libxml(struct sp_error *e)
{
    static struct sp_libxml x;
    static int loaded;
    if (loaded)
        return &x;
    void *h = dlopen(SP_LIBXML_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        sp_fail(e, SP_EXIT_INPUT, "%s", why ? why : SP_LIBXML_SONAME ": cannot be loaded");
        return NULL;
    }
    void *sym;
#define SP_LIBXML_LOAD(name)                                                      \
    if ((sym = dlsym(h, #name)) == NULL) {                                        \
        sp_fail(e, SP_EXIT_INPUT, SP_LIBXML_SONAME ": symbol %s missing", #name); \
        return NULL;                                                              \
    }                                                                             \
    x.name = (__typeof__(name) *)sym;
    SP_LIBXML_FUNCTIONS(SP_LIBXML_LOAD)
#undef SP_LIBXML_LOAD
    x.xmlInitParser();
    loaded = 1;
    return &x;
}
