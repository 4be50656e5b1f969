/* out_fmt.c -- printf's %.Pe without printf (out_fmt.h).
 *
 * With D = P + 1 significant digits and e = floor(log10 |x|), the digits are
 * N = round(|x| 10^(D-1-e)), N in [10^(D-1), 10^D), rounded half to even on
 * the exact binary value (glibc's rule). y = |x| 10^k (k = D-1-e) is formed in
 * long double with r <= 3 roundings: a product or quotient by an exact power
 * 10^j, j <= 27 (exact when the mantissa has 64 bits or more), and for |k| > 27
 * one more by 10^(27 i), itself correctly rounded (the exponent range of long
 * double holds every step): |y - y_exact| <= ~r y 2^-LDBL_MANT_DIG < r 10^D
 * 2^-LDBL_MANT_DIG. When the fraction of y is farther than twice that bound
 * from 1/2, the rounding of the exact value is the rounding of y; otherwise
 * snprintf decides. */
#include "out_fmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PMAX 27    /* 10^27 = 2^27 5^27, 5^27 < 2^63: exact in a 64-bit mantissa */

static const long double p10[PMAX + 1] = {
    1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L,
    1e26L, 1e27L
};

#define NBIG 14    /* big[j] = 10^(27 j), j < NBIG, as correctly rounded literals */
static const long double big[NBIG] = {
    1e0L, 1e27L, 1e54L, 1e81L, 1e108L, 1e135L, 1e162L, 1e189L, 1e216L, 1e243L, 1e270L, 1e297L,
    1e324L, 1e351L
};

static const uint64_t u10[17] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL
};

/* t, an integer in [2^63, 2^64), as uint64_t: the significand of an x87
 * extended double directly (no control-word change), else a conversion. */
static inline uint64_t integer_part(long double t)
{
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
    uint64_t u;
    memcpy(&u, &t, sizeof u);                                    /* the explicit 64-bit significand */
    return u;
#else
    return (uint64_t)t;
#endif
}

static const char pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The D decimal digits of N < 10^D (D <= 16) into d[0..D-1], most significant
 * first: two at a time, in 32-bit halves. */
static void put_digits(char *d, uint64_t N, int D)
{
    if (D < 8) {
        for (int q = D - 1; q >= 0; q--) { d[q] = (char)('0' + N % 10); N /= 10; }
        return;
    }
    uint32_t hi = (uint32_t)(N / 100000000u), lo = (uint32_t)(N % 100000000u);
    for (int q = D - 2; q >= D - 8; q -= 2) {                    /* the low 8 digits */
        memcpy(d + q, pairs + 2 * (lo % 100), 2);
        lo /= 100;
    }
    int q = D - 10;
    for (; q >= 0; q -= 2) {                                     /* the high D - 8 digits */
        memcpy(d + q, pairs + 2 * (hi % 100), 2);
        hi /= 100;
    }
    if (q == -1) d[0] = (char)('0' + hi);
}

static int slow(char *buf, double x, int prec)
{
    char tmp[64];
    int len = snprintf(tmp, sizeof tmp, "%.*e", prec, x);
    if (len < 0) len = 0;
    if (len > 63) len = 63;
    memcpy(buf, tmp, (size_t)len);
    return len;
}

int nsc_fmt_e(char *buf, double x, int prec)
{
    int D = prec + 1;
    if (prec < 0 || D > 16 || LDBL_MANT_DIG < 64 || !isfinite(x)) return slow(buf, x, prec);
    char *p = buf;
    if (signbit(x)) *p++ = '-';
    double ax = fabs(x);
    if (ax == 0) {
        *p++ = '0';
        if (prec > 0) { *p++ = '.'; memset(p, '0', (size_t)prec); p += prec; }
        memcpy(p, "e+00", 4);
        return (int)(p - buf) + 4;
    }
    int e2;
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    if (bits >> 52) e2 = (int)(bits >> 52) - 1022;               /* normal: 2^(e2-1) <= ax < 2^e2 */
    else frexp(ax, &e2);
    int e = (int)floor((e2 - 1) * 0.30102999566398120);          /* e or e - 1 */
    uint64_t N = 0;
    for (int tries = 0; tries < 3; tries++) {
        int k = D - 1 - e, r = 0;
        long double y = ax;                                      /* y = |x| 10^k, r roundings */
        if (k > PMAX || k < -PMAX) {                             /* 10^(27 j) correctly rounded: */
            int j = (k > 0 ? k : -k) / PMAX;                     /* one rounding, one product */
            if (j >= NBIG) return slow(buf, x, prec);
            y = k > 0 ? y * big[j] : y / big[j];
            k += k > 0 ? -j * PMAX : j * PMAX;
            r += 2;
        }
        if (k >= 0) y *= p10[k];
        else y /= p10[-k];
        r++;
        if (y >= p10[D]) { e++; continue; }                       /* estimate one too low */
        if (y < p10[D - 1]) { e--; continue; }
        long double margin = r * p10[D] * LDBL_EPSILON;          /* 2 r 10^D 2^-LDBL_MANT_DIG */
        /* t = 2^63 + round(y): the addition rounds y to an integer (to nearest
         * even: the rounding wanted, unless y is within margin of a tie) */
        long double t = y + 0x1p63L, fr = y - (t - 0x1p63L);
        if (fabsl(fabsl(fr) - 0.5L) <= margin) return slow(buf, x, prec);   /* near a tie */
        N = integer_part(t) - (1ULL << 63);
        if (N == u10[D]) { N = u10[D - 1]; e++; }                 /* 9.99..95 -> 1.00..0 e+1 */
        break;
    }
    if (N == 0) return slow(buf, x, prec);
    char dig[17];
    put_digits(dig, N, D);
    *p++ = dig[0];
    if (prec > 0) { *p++ = '.'; memcpy(p, dig + 1, (size_t)prec); p += prec; }
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    int ae = e < 0 ? -e : e;
    if (ae >= 100) { *p++ = (char)('0' + ae / 100); ae %= 100; }
    *p++ = (char)('0' + ae / 10);
    *p++ = (char)('0' + ae % 10);
    return (int)(p - buf);
}
