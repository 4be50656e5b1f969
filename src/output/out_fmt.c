/* out_fmt.c -- printf's %.Pe without printf (out_fmt.h).
 *
 * With D = P + 1 significant digits and e = floor(log10 |x|), the digits are
 * N = round(|x| 10^(D-1-e)), N in [10^(D-1), 10^D), rounded half to even on
 * the exact binary value (glibc's rule).
 *
 * Exact path (0 <= k = D-1-e <= 27, i.e. 10^(D-28) <= |x| < 10^(D-1)): with
 * |x| = m 2^q (m < 2^53), |x| 10^k = m 5^k 2^(q+k) and q + k < 0, so
 * P = m 5^k (< 2^116, one 64 x 64 -> 128-bit product, exact) shifted right by
 * s = -(q+k) gives the integer part, bit s-1 the half and the bits below it
 * the rest: the rounding is decided exactly, ties included.
 *
 * Otherwise y = |x| 10^k is formed in long double with r <= 3 roundings: a
 * product or quotient by an exact power 10^j, j <= 27 (exact when the
 * mantissa has 64 bits or more), and for |k| > 27 one more by 10^(27 i),
 * itself correctly rounded (the exponent range of long double holds every
 * step): |y - y_exact| <= ~r y 2^-LDBL_MANT_DIG < r 10^D 2^-LDBL_MANT_DIG. When
 * the fraction of y is farther than twice that bound from 1/2, the rounding of
 * the exact value is the rounding of y; otherwise snprintf decides. */
#include "out_fmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PMAX 27 /* 10^27 = 2^27 5^27, 5^27 < 2^63: exact in a 64-bit mantissa */

static const long double p10[PMAX + 1] = { 1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                           1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                           1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                           1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L };

#define NBIG 14 /* big[j] = 10^(27 j), j < NBIG, as correctly rounded literals */
static const long double big[NBIG] = { 1e0L,   1e27L,  1e54L,  1e81L,  1e108L, 1e135L, 1e162L,
                                       1e189L, 1e216L, 1e243L, 1e270L, 1e297L, 1e324L, 1e351L };

static const uint64_t u10[17] = { 1ULL,
                                  10ULL,
                                  100ULL,
                                  1000ULL,
                                  10000ULL,
                                  100000ULL,
                                  1000000ULL,
                                  10000000ULL,
                                  100000000ULL,
                                  1000000000ULL,
                                  10000000000ULL,
                                  100000000000ULL,
                                  1000000000000ULL,
                                  10000000000000ULL,
                                  100000000000000ULL,
                                  1000000000000000ULL,
                                  10000000000000000ULL };

/* t, an integer in [2^63, 2^64), as uint64_t: the significand of an x87
 * extended double directly (no control-word change), else a conversion. */
static inline uint64_t integer_part(long double t)
{
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
    uint64_t u;
    memcpy(&u, &t, sizeof u); /* the explicit 64-bit significand */
    return u;
#else
    return (uint64_t)t;
#endif
}

#define POW10_NEG 64 /* pow10d[j + POW10_NEG] = 10^j rounded, -64 <= j <= 22 (exact for j >= 0) */
static const double pow10d[POW10_NEG + 23] = {
    1e-64, 1e-63, 1e-62, 1e-61, 1e-60, 1e-59, 1e-58, 1e-57, 1e-56, 1e-55, 1e-54, 1e-53, 1e-52,
    1e-51, 1e-50, 1e-49, 1e-48, 1e-47, 1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39,
    1e-38, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26,
    1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13,
    1e-12, 1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,
    1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,
    1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22
};

static const char pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* the four digits of g < 10^4 into d[0..3] */
static inline void put4(char *d, uint32_t g)
{
    memcpy(d, pairs + 2 * (g / 100), 2);
    memcpy(d + 2, pairs + 2 * (g % 100), 2);
}

/* The D decimal digits of N < 10^D (D <= 16) into d[0..D-1], most significant
 * first: the low eight as two independent groups of four, the rest four at a time. */
static void put_digits(char *d, uint64_t N, int D)
{
    int q = D;
    if (q >= 8) {
        uint32_t lo = (uint32_t)(N % 100000000u);
        N /= 100000000u;
        put4(d + q - 4, lo % 10000);
        put4(d + q - 8, lo / 10000);
        q -= 8;
    }
    uint32_t hi = (uint32_t)N;
    for (; q >= 4; q -= 4) {
        put4(d + q - 4, hi % 10000);
        hi /= 10000;
    }
    for (; q > 0; q--) {
        d[q - 1] = (char)('0' + hi % 10);
        hi /= 10;
    }
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static const uint64_t pow5[28] = { 1ULL,
                                   5ULL,
                                   25ULL,
                                   125ULL,
                                   625ULL,
                                   3125ULL,
                                   15625ULL,
                                   78125ULL,
                                   390625ULL,
                                   1953125ULL,
                                   9765625ULL,
                                   48828125ULL,
                                   244140625ULL,
                                   1220703125ULL,
                                   6103515625ULL,
                                   30517578125ULL,
                                   152587890625ULL,
                                   762939453125ULL,
                                   3814697265625ULL,
                                   19073486328125ULL,
                                   95367431640625ULL,
                                   476837158203125ULL,
                                   2384185791015625ULL,
                                   11920928955078125ULL,
                                   59604644775390625ULL,
                                   298023223876953125ULL,
                                   1490116119384765625ULL,
                                   7450580596923828125ULL };

/* N = round(|x| 10^(D-1-e)) exactly, e adjusted when the estimate was one off;
 * 0 outside the exact path (k = D-1-e outside [0, 27], or |x| subnormal). */
static uint64_t digits_exact(uint64_t bits, int D, int *ep)
{
    uint64_t E = bits >> 52, m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    if (E == 0) return 0;
    int e = *ep;
    for (int tries = 0; tries < 3; tries++) {
        int k = D - 1 - e, s = 1075 - (int)E - k; /* |x| 10^k = P 2^-s */
        if (k < 0 || k > 27 || s < 1 || s > 127) return 0;
        u128 P = (u128)m * pow5[k], q = P >> s; /* P < 2^116 */
        if (q >> 64) return 0;
        uint64_t N = (uint64_t)q;
        if (N >= u10[D]) {
            e++;
            continue;
        } /* estimate one too low */
        if (N < u10[D - 1]) {
            e--;
            continue;
        }
        u128 rest = P - (q << s), half = (u128)1 << (s - 1);
        N += rest > half || (rest == half && (N & 1)); /* half to even */
        if (N == u10[D]) {
            N = u10[D - 1];
            e++;
        } /* 9.99..95 -> 1.00..0 e+1 */
        *ep = e;
        return N;
    }
    return 0;
}
#else
static uint64_t digits_exact(uint64_t bits, int D, int *ep)
{
    (void)bits, (void)D, (void)ep;
    return 0;
}
#endif

static int slow(char *buf, double x, int prec)
{
    char tmp[64];
    int len = snprintf(tmp, sizeof tmp, "%.*e", prec, x);
    if (len < 0) len = 0;
    if (len > 63) len = 63;
    memcpy(buf, tmp, (size_t)len);
    return len;
}

/* The D digits of |x| = ax, d0.d1.. 10^*e, by long double scaling when
 * digits_exact could not (*e the estimate, corrected by at most 3 retries);
 * 0 when the scaled value lies within its rounding error of a tie, or the
 * scale is out of the tables' range (then the caller formats it slowly). */
static uint64_t digits_scaled(double ax, int D, int *e)
{
    for (int tries = 0; tries < 3; tries++) {
        int k = D - 1 - *e, r = 0;
        long double y = ax;                  /* y = |x| 10^k, r roundings */
        if (k > PMAX || k < -PMAX) {         /* 10^(27 j) correctly rounded: */
            int j = (k > 0 ? k : -k) / PMAX; /* one rounding, one product */
            if (j >= NBIG) return 0;
            y = k > 0 ? y * big[j] : y / big[j];
            k += k > 0 ? -j * PMAX : j * PMAX;
            r += 2;
        }
        if (k >= 0) y *= p10[k];
        else y /= p10[-k];
        r++;
        if (y >= p10[D]) {
            ++*e;
            continue;
        } /* estimate one too low */
        if (y < p10[D - 1]) {
            --*e;
            continue;
        }
        long double margin = r * p10[D] * LDBL_EPSILON; /* 2 r 10^D 2^-LDBL_MANT_DIG */
        /* t = 2^63 + round(y): the addition rounds y to an integer (to nearest
         * even: the rounding wanted, unless y is within margin of a tie) */
        long double t = y + 0x1p63L, fr = y - (t - 0x1p63L);
        if (fabsl(fabsl(fr) - 0.5L) <= margin) return 0; /* near a tie */
        uint64_t N = integer_part(t) - (1ULL << 63);
        if (N == u10[D]) {
            N = u10[D - 1];
            ++*e;
        } /* 9.99..95 -> 1.00..0 e+1 */
        return N;
    }
    return 0;
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
        if (prec > 0) {
            *p++ = '.';
            memset(p, '0', (size_t)prec);
            p += prec;
        }
        memcpy(p, "e+00", 4);
        return (int)(p - buf) + 4;
    }
    int e2;
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    if (bits >> 52) e2 = (int)(bits >> 52) - 1022; /* normal: 2^(e2-1) <= ax < 2^e2 */
    else frexp(ax, &e2);
    double le = (e2 - 1) * 0.30102999566398120;
    int e = (int)le;
    if (le < e) e--; /* floor: e or e - 1 */
    if (e + 1 >= -POW10_NEG && e + 1 <= 22 && ax >= pow10d[e + 1 + POW10_NEG])
        e++; /* e, or a retry */
    uint64_t N = digits_exact(bits, D, &e);
    if (N == 0) N = digits_scaled(ax, D, &e);
    if (N == 0) return slow(buf, x, prec);
    put_digits(p + 1, N, D); /* d0 d1 .. at p[1..D] */
    p[0] = p[1];
    if (prec > 0) {
        p[1] = '.';
        p += D + 1;
    } /* d0 . d1 .. */
    else
        p += 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    int ae = e < 0 ? -e : e;
    if (ae >= 100) {
        *p++ = (char)('0' + ae / 100);
        ae %= 100;
    }
    memcpy(p, pairs + 2 * ae, 2);
    p += 2;
    return (int)(p - buf);
}
