/* fingerprint/probes/probe_neff.c: compiled Neuron artifacts the user names
 * (neuron.neff.NNN.*; doc/DOMAIN.md section 9): each NEFF file given with
 * --neff FILE, then every *.neff under --artifacts DIR (sorted bytewise,
 * at most NEFF_DEPTH_MAX folders deep and NEFF_FILES_MAX files).
 *
 * Only what is certain is recorded: the path, the size in bytes and the
 * SHA-256 of the whole file (OpenSSL, streamed through the root).  The
 * NEFF header's fields are not read: the public material does not confirm
 * a layout (doc/DOMAIN.md section 9 says what was found), so the compiler
 * version and target that built a NEFF are never guessed.  An empty file,
 * a directory, a link loop or an unreadable file is a warning. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fingerprint/probes/probe.h"

#define NEFF_FILES_MAX 10000          /* NEFF files recorded */
#define NEFF_DEPTH_MAX 8              /* folders below --artifacts searched */
#define NEFF_SIZE_MAX (64ull << 30)   /* bytes hashed of one NEFF */

struct neff_walk {
    unsigned count;
    unsigned empty;                  /* 0-byte files seen */
    char first_empty[SP_ROOT_PATH_MAX];
    int full;
};

static int hash_chunk(void *c, const char *chunk, size_t n)
{
    return EVP_DigestUpdate(c, chunk, n) == 1 ? 0 : 1;
}

/* Record the NEFF at PATH as number ++W->count; -1 only for ENOMEM. */
static int one(struct probe_ctx *ctx, struct neff_walk *w, const char *path, const char *how)
{
    struct root_stat st;
    if (root_stat(ctx->root, path, 1, &st) != 0) {
        probe_warn_errno(ctx, "neuron.neff", path, errno);
        return 0;
    }
    if (st.type != ROOT_T_FILE) {
        factset_warn(ctx->facts, "neuron.neff: %s: not a regular file; not recorded", path);
        return 0;
    }
    if (w->count >= NEFF_FILES_MAX) {
        if (!w->full)
            factset_warn(ctx->facts, "neuron.neff: more than %d NEFF files; the rest are not "
                         "recorded", NEFF_FILES_MAX);
        w->full = 1;
        return 0;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(md);
        return -1;
    }
    if (root_scan_file(ctx->root, path, NEFF_SIZE_MAX, hash_chunk, md) != 0) {
        int err = errno;
        EVP_MD_CTX_free(md);
        if (err == ENOMEM)
            return -1;
        probe_warn_errno(ctx, "neuron.neff", path, err);
        return 0;
    }
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned dl = 0;
    int ok = EVP_DigestFinal_ex(md, d, &dl) == 1;
    EVP_MD_CTX_free(md);
    if (!ok)
        return -1;
    char hex[2 * EVP_MAX_MD_SIZE + 1], key[64], size[32];
    for (unsigned i = 0; i < dl; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    snprintf(size, sizeof size, "%llu", (unsigned long long)st.size);
    unsigned n = ++w->count;
    snprintf(key, sizeof key, "neuron.neff.%05u.path", n);
    if (probe_set(ctx, key, path, how) != 0)
        return -1;
    snprintf(key, sizeof key, "neuron.neff.%05u.size", n);
    if (probe_set(ctx, key, size, path) != 0)
        return -1;
    snprintf(key, sizeof key, "neuron.neff.%05u.sha256", n);
    if (probe_set(ctx, key, hex, path) != 0)
        return -1;
    if (st.size == 0 && w->empty++ == 0)
        snprintf(w->first_empty, sizeof w->first_empty, "%s", path);
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Every *.neff under DIR, DEPTH folders down so far. */
static int walk(struct probe_ctx *ctx, struct neff_walk *w, const char *dir, int depth)
{
    char **names;
    size_t n;
    if (root_list_dir(ctx->root, dir, &names, &n) != 0) {
        if (errno == ENOMEM)
            return -1;
        probe_warn_errno(ctx, "neuron.neff", dir, errno);
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0 && !w->full; i++) {
        char p[SP_ROOT_PATH_MAX];
        struct root_stat st;
        if (sp_path_join(p, sizeof p, dir, names[i]) != 0 || root_stat(ctx->root, p, 0, &st) != 0)
            continue;
        if (st.type == ROOT_T_DIR) {
            if (ends_with(names[i], ".neff"))
                factset_warn(ctx->facts, "neuron.neff: %s: not a regular file; not recorded", p);
            if (depth < NEFF_DEPTH_MAX)
                rc = walk(ctx, w, p, depth + 1);
            else
                factset_warn(ctx->facts, "neuron.neff: %s: deeper than %d folders; not searched",
                             p, NEFF_DEPTH_MAX);
        } else if (ends_with(names[i], ".neff")) {
            rc = one(ctx, w, p, "found under --artifacts");
        }
    }
    root_names_free(names, n);
    return rc;
}

int probe_neff(struct probe_ctx *ctx, struct sp_error *e)
{
    struct neff_walk w;
    memset(&w, 0, sizeof w);
    int rc = 0;
    for (size_t i = 0; i < ctx->nneff && rc == 0; i++)
        rc = one(ctx, &w, ctx->neff[i], "--neff");
    if (rc == 0 && ctx->artifacts) {
        if (!root_is_dir(ctx->root, ctx->artifacts))
            probe_warn_errno(ctx, "neuron.neff", ctx->artifacts,
                             root_exists(ctx->root, ctx->artifacts) ? ENOTDIR : ENOENT);
        else
            rc = walk(ctx, &w, ctx->artifacts, 0);
    }
    if (rc == 0 && w.empty)   /* one warning, however many: the cap stays for the rest */
        factset_warn(ctx->facts, "neuron.neff: %s: empty; no NEFF is 0 bytes%s", w.first_empty,
                     w.empty > 1 ? " (and more empty files: see the .size facts)" : "");
    return rc == 0 ? 0 : sp_fail(e, SP_EXIT_INPUT, "neuron.neff: %s", strerror(ENOMEM));
}
