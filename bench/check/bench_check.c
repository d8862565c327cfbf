/* bench/check/bench_check.c: time `stackprint check`'s work in a loop:
 * POLICY (file or folder) loaded once, MANIFEST loaded once, then N
 * evaluations, and N evaluations plus the text report.  Prints the time per
 * check, the time to load the policies (with the release catalog when
 * the folder holds one) and the manifest (N/100 runs), and the time to
 * derive the facts policies see (sp_eval_facts: copy and release
 * inference, N/10 runs).
 * Linked with libstackprint.a by bench/check/run; not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "checks/evaluate.h"
#include "checks/policy.h"
#include "checks/report.h"
#include "manifest/manifest.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_check POLICY MANIFEST [N]\n");
        return 2;
    }
    long n = argc > 3 ? atol(argv[3]) : 10000;
    struct sp_policy_set ps;
    struct manifest m;
    struct sp_report r;
    struct sp_error e;
    sp_policy_set_init(&ps);
    sp_report_init(&r);
    if (sp_policy_load(&ps, argv[1], &e) != 0 || manifest_load(argv[2], &m, &e) != 0) {
        fprintf(stderr, "bench_check: %s\n", e.msg);
        return 4;
    }
    struct factset facts;
    if (sp_eval_facts(&ps, &m.facts, &facts, &e) != 0) {
        fprintf(stderr, "bench_check: %s\n", e.msg);
        return 4;
    }
    struct sp_eval_ctx ctx = { .facts = &facts };
    struct sp_report_meta meta = { .manifest = argv[2], .facts = &facts };

    double tl = now();
    long loads = n / 100 > 0 ? n / 100 : 1;
    for (long i = 0; i < loads; i++) {          /* loading, as each process does */
        struct sp_policy_set again;
        struct manifest m2;
        sp_policy_set_init(&again);
        if (sp_policy_load(&again, argv[1], &e) != 0 || manifest_load(argv[2], &m2, &e) != 0)
            return 4;
        sp_policy_set_free(&again);
        manifest_free(&m2);
    }
    double td = now();
    long derives = n / 10 > 0 ? n / 10 : 1;
    for (long i = 0; i < derives; i++) {       /* copy + release inference */
        struct factset f2;
        if (sp_eval_facts(&ps, &m.facts, &f2, &e) != 0)
            return 4;
        factset_free(&f2);
    }
    double t0 = now();
    for (long i = 0; i < n; i++)
        if (sp_evaluate(&ps, &ctx, &r, &e) != 0)
            return 4;
    double t1 = now();
    size_t bytes = 0;
    for (long i = 0; i < n; i++) {
        char *buf;
        size_t len;
        if (sp_evaluate(&ps, &ctx, &r, &e) != 0 ||
            sp_report_render(&r, &meta, SP_FORMAT_TEXT, &buf, &len, &e) != 0)
            return 4;
        bytes += len;
        free(buf);
    }
    double t2 = now();
    printf("check: %zu facts, %zu policies, %zu requirements, %ld runs\n", m.facts.count,
           ps.count, r.count, n);
    printf("check: load policies+manifest %6.1f us (%ld runs; catalog %s)\n", (td - tl) / (double)loads * 1e6,
           loads, ps.catalog ? "included" : "none");
    printf("check: derive facts         %8.1f us per check (copy%s, %ld runs)\n",
           (t0 - td) / (double)derives * 1e6, ps.catalog ? " + release inference" : "", derives);
    printf("check: evaluate             %8.1f us per check\n", (t1 - t0) / (double)n * 1e6);
    printf("check: evaluate + text      %8.1f us per check (%zu bytes of report)\n",
           (t2 - t1) / (double)n * 1e6, bytes / (size_t)n);
    sp_report_free(&r);
    factset_free(&facts);
    manifest_free(&m);
    sp_policy_set_free(&ps);
    return 0;
}
