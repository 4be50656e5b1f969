/* test_spill.c -- a table's rows beyond memory (waves_spill.c), read back bit
 * for bit; the plot statistics of a spilled table in passes (out_stats.c);
 * a full disk while spilling. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "output/out.h"
#include "output/waves.h"
#include "testutil.h"

static char *tmp;
static void setup(void)
{
    tmp = tu_tmpdir();
    cr_assert(tmp);
}
static void teardown(void)
{
    tu_rmdir(tmp);
    free(tmp);
}
TestSuite(spill, .init = setup, .fini = teardown);

/* value k of row i: every bit pattern matters (signed zeros, subnormals,
 * infinities, NaN payloads, heavy ties) */
static double value(long i, int k)
{
    static const double odd[] = { -0.0, 0.0, 4.9e-324, -INFINITY, INFINITY, 1e308 };
    uint64_t u = (uint64_t)i * 0x9e3779b97f4a7c15ULL + (uint64_t)k * 0xbf58476d1ce4e5b9ULL;
    if (k == 0) return 1e-6 * (double)i; /* time */
    if (i % 97 == 3) return odd[(i / 97) % 6];
    if (i % 89 == 5) {
        u = 0x7ff8000000000000ULL | (u & 0xffff);
        double x;
        memcpy(&x, &u, 8);
        return x;
    }
    if (k == 2) return (double)(i % 7); /* ties */
    return sin(1e-3 * (double)i * k) * ldexp(1.0, (int)(u % 40) - 20);
}

static nsc_waves *table(long nrow, long cap, const char *near)
{
    char *names[] = { "v(a)", "v(b)", "i(l1)" };
    nsc_waves *W = nsc_waves_new(names, 3, "t");
    cr_assert(W);
    if (cap > 0) cr_assert_eq(nsc_waves_spill(W, cap, near), 0);
    double row[4];
    for (long i = 0; i < nrow; i++) {
        for (int k = 0; k < 4; k++) row[k] = value(i, k);
        cr_assert_eq(nsc_waves_add(W, row), 0, "row %ld", i);
    }
    return W;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

Test(spill, rows_read_back_bit_for_bit)
{
    char near[1024];
    snprintf(near, sizeof near, "%s/out.dat", tmp);
    nsc_waves *W = table(5000, 37, near);
    cr_assert_eq(W->row0, 4995, "rows in the file: %ld", W->row0); /* 135 batches of 37 */
    cr_assert(W->caprow <= 37, "memory holds %d rows", W->caprow);
    DIR *d = opendir(tmp); /* the file is unlinked */
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) files += e->d_name[0] != '.';
    closedir(d);
    cr_assert_eq(files, 0);
    double *all = malloc(sizeof(double) * 4 * 5000);
    cr_assert_eq(nsc_waves_read(W, 0, 5000, all), 0);
    nsc_wcur c;
    cr_assert_eq(nsc_wcur_init(&c, W), 0);
    for (long i = 4999; i >= 0; i -= 3) { /* any order */
        const double *row = nsc_wcur_row(&c, i);
        for (int k = 0; k < 4; k++) {
            cr_assert(same_bits(all[i * 4 + k], value(i, k)), "row %ld col %d", i, k);
            cr_assert(same_bits(row[k], value(i, k)), "cursor row %ld col %d", i, k);
            cr_assert(same_bits(nsc_waves_at(W, i, k), value(i, k)), "at %ld %d", i, k);
        }
    }
    cr_assert_eq(c.err, 0);
    nsc_wcur_free(&c);
    int cols[] = { 3, 1 };
    nsc_waves *S = nsc_waves_select(W, cols, 2); /* spills as W does */
    cr_assert(S && S->nrow == 5000 && S->row0 > 0);
    nsc_waves_keep(W, 2); /* time and v(a) of the file's rows */
    cr_assert_eq(nsc_waves_read(W, 1, 4998, all), 0);
    for (long i = 1; i < 4999; i++) {
        cr_assert(same_bits(all[(i - 1) * 2], value(i, 0))
                      && same_bits(all[(i - 1) * 2 + 1], value(i, 1)),
                  "kept row %ld", i);
        cr_assert(same_bits(nsc_waves_at(S, i, 1), value(i, 3))
                  && same_bits(nsc_waves_at(S, i, 2), value(i, 1)));
    }
    free(all);
    nsc_waves_free(S);
    nsc_waves_free(W);
}

/* The statistics that set the plot's ranges: the same numbers, to the bit, from
 * the passes over a spilled table as from the table in memory (more values than
 * one collecting pass takes, so the quantiles are narrowed by histograms). */
Test(spill, plot_statistics_as_in_memory)
{
    long n = 150000;
    nsc_waves *M = table(n, 0, NULL), *S = table(n, 1000, tmp);
    cr_assert(S->row0 > 0 && M->row0 == 0);
    nsc_trace_stat a[4], b[4];
    cr_assert_eq(nsc_trace_stats(M, a), 0);
    cr_assert_eq(nsc_trace_stats(S, b), 0);
    for (int k = 1; k < 4; k++) {
        cr_assert(a[k].nfinite > 65536 && a[k].nfinite == b[k].nfinite, "column %d: %zu finite", k,
                  a[k].nfinite);
        cr_assert(same_bits(a[k].min, b[k].min) && same_bits(a[k].max, b[k].max),
                  "column %d min/max", k);
        cr_assert(a[k].qlo == b[k].qlo && a[k].qhi == b[k].qhi,
                  "column %d quantiles %.17g %.17g vs %.17g %.17g", k, a[k].qlo, a[k].qhi, b[k].qlo,
                  b[k].qhi);
        cr_assert_eq(a[k].jumps, b[k].jumps, "column %d jumps", k);
    }
    cr_assert(a[2].qlo == 0 && a[2].qhi == 6); /* the ties column: 0..6 */
    nsc_waves_free(M);
    nsc_waves_free(S);
}

/* The same with fewer values than one collecting pass takes: a column's two
 * quantiles collect its values once, in blocks of rows column by column, and
 * the high one selects from its own copy in row order (out_stats.c
 * arm_all/settle_all); the numbers as in memory and as one column alone. */
Test(spill, plot_statistics_collected_at_once_as_in_memory)
{
    long n = 30000;
    nsc_waves *M = table(n, 0, NULL), *S = table(n, 777, tmp);
    cr_assert(S->row0 > 0 && S->row0 < n);
    nsc_trace_stat a[4], b[4], o;
    cr_assert_eq(nsc_trace_stats(M, a), 0);
    cr_assert_eq(nsc_trace_stats(S, b), 0);
    for (int k = 1; k < 4; k++) {
        cr_assert_eq(nsc_trace_stat_of(M->v + k, (size_t)n, 4, &o), 0);
        cr_assert(b[k].nfinite < 65536 && b[k].nfinite == o.nfinite, "column %d", k);
        cr_assert(same_bits(b[k].min, o.min) && same_bits(b[k].max, o.max), "column %d", k);
        cr_assert(a[k].qlo == b[k].qlo && a[k].qhi == b[k].qhi && o.qlo == b[k].qlo
                      && o.qhi == b[k].qhi && b[k].qlo < b[k].qhi,
                  "column %d quantiles %.17g %.17g vs %.17g %.17g", k, b[k].qlo, b[k].qhi, o.qlo,
                  o.qhi);
        cr_assert(a[k].jumps == b[k].jumps && o.jumps == b[k].jumps, "column %d jumps", k);
    }
    nsc_waves_free(M);
    nsc_waves_free(S);
}

/* A full disk (here: the file size limit) while spilling is an error naming
 * the temporary and the system's reason, not rows silently dropped. */
Test(spill, full_disk_is_an_error)
{
    signal(SIGXFSZ, SIG_IGN); /* write fails with EFBIG instead */
    struct rlimit rl = { 64 << 10, 64 << 10 };
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    char near[1024];
    snprintf(near, sizeof near, "%s/out.dat", tmp);
    char *names[] = { "v(a)" };
    nsc_waves *W = nsc_waves_new(names, 1, "t");
    cr_assert_eq(nsc_waves_spill(W, 100, near), 0);
    double row[2] = { 0, 1 };
    long i = 0;
    while (i < 100000 && nsc_waves_add(W, row) == 0) i++;
    cr_assert(i < 100000 && i >= (64 << 10) / 16, "failed after %ld rows", i);
    nsc_report r;
    nsc_report_init(&r);
    cr_assert_eq(nsc_waves_add_error(W, &r), NSC_EOUT);
    cr_assert(strstr(r.error, strerror(EFBIG)) && strstr(r.error, tmp), "%s", r.error);
    nsc_report_free(&r);
    nsc_waves_free(W);
}
