/* test_fmt.c -- nsc_fmt_e against printf's %.12e and %.15e: random doubles over
 * every magnitude the writers meet and beyond, exact ties and near-ties (odd
 * 14-digit numerators over powers of two), carries into the next power of ten,
 * zeros, non-finite values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output/out_fmt.h"

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* 1 when nsc_fmt_e(x, prec) equals snprintf("%.*e"); prints the first mismatch */
static int same(double x, int prec)
{
    char a[64], b[64];
    int la = nsc_fmt_e(a, x, prec);
    int lb = snprintf(b, sizeof b, "%.*e", prec, x);
    a[la] = 0;
    if (la == lb && strcmp(a, b) == 0) return 1;
    cr_log_error("x = %a: nsc_fmt_e '%s', printf '%s'", x, a, b);
    return 0;
}

Test(fmt, random_doubles_all_magnitudes)
{
    long bad = 0;
    for (int k = 0; k < 300000; k++) {
        uint64_t u = next_u64();
        double x;
        if (k % 2) { /* any finite bit pattern */
            memcpy(&x, &u, 8);
            if (!isfinite(x)) continue;
        } else { /* circuit-like: 1e-18 .. 1e6 */
            x = ldexp((double)(u >> 11) / 9007199254740992.0 + 0.5, (int)(u % 84) - 60);
            if (u & 1) x = -x;
        }
        bad += !same(x, 12) + !same(x, 15);
    }
    cr_assert_eq(bad, 0, "%ld mismatches", bad);
}

Test(fmt, ties_carries_and_specials)
{
    /* exact decimal ties at 13 significant digits are binary fractions: n + 1/2 scaled */
    const double xs[] = { 0.0,
                          -0.0,
                          1.0,
                          -1.0,
                          9.9999999999995,
                          9.99999999999949,
                          9.9999999999999995,
                          1.00000000000005,
                          0.5,
                          0.25,
                          0.125,
                          1e-300,
                          4.9406564584124654e-324,
                          1.7976931348623157e308,
                          123456789012.5,
                          1234567890123.5,
                          2.5,
                          0.0625,
                          1e22,
                          1e23,
                          5e-324,
                          1e100,
                          1e-100,
                          999999999999.5,
                          3.0517578125e-05 };
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        cr_expect(same(xs[k], 12));
        cr_expect(same(xs[k], 15));
        cr_expect(same(xs[k], 0));
        cr_expect(same(xs[k], 3));
    }
    for (long n = 1; n < 20000; n++) { /* (n + 1/2) 2^-j: exact ties */
        double x = ldexp((double)n * 2 + 1, -(int)(n % 9) - 1);
        cr_expect(same(x, 12));
        cr_expect(same(x, 4));
    }
    long bad = 0;
    for (int k = 0; k < 100000; k++) { /* 14-digit odd numerators: ties at 13 digits */
        uint64_t n = 1000000000000ULL + next_u64() % 4000000000000ULL; /* (2n+1)/2^(j+1), j = 0.. */
        int j = k % 40;
        double x = ldexp((double)(2 * n + 1), -1 - j) * (k & 1 ? 1 : 1e-9);
        bad += !same(x, 12) + !same(x, 13) + !same(x, 15);
    }
    cr_expect_eq(bad, 0, "%ld mismatches near ties", bad);
    cr_expect(same(INFINITY, 12));
    cr_expect(same(-INFINITY, 12));
    cr_expect(same(NAN, 12));
    char b[64];
    int len = nsc_fmt_e(b, 1.5, 12);
    b[len] = 0;
    cr_assert_str_eq(b, "1.500000000000e+00");
}
