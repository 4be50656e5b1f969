/* pwl_exp.c -- the piecewise-linear fit of a junction's forward curve (pwl_exp.h
 * nsc_jfit): the SPICE diode (dev_d.c), and any device built from junctions.
 *
 * The curve v(i) = c + a ln(1 + i/i0) + rs i (i >= 0) is concave. On the
 * geometric knots i_k = i1 rho^k (k = 0..n, rho = (i2/i1)^(1/n)) its chords
 * have decreasing slopes s_k = (v_k+1 - v_k)/(i_k+1 - i_k); the chord of segment
 * k lies below the curve by at most gap_k (at the tangent point i* where
 * v'(i*) = s_k). All chords are raised by delta = max_k gap_k / 2: parallel
 * lines raised alike still meet at the knots' currents, so the fit is the
 * interpolant plus delta, its error +delta at the knots and >= -delta between:
 * |fit - v| <= delta on [i1, i2] (for n = 1 the best uniform line, Chebyshev).
 * The first chord is continued down to i = 0, the last one beyond i2.
 *
 * As a concave sum (nsc_jfit s, knot): v(i) = vf_0 + s_0 i - sum_{k >= 1} (s_k-1 - s_k)
 * max(0, i - knot_k), knot_k = i_k the knots' currents (the first chord's
 * segment starts at knot_0 = 0).
 * As parallel branches (ideal diode, threshold vf_j, resistance r_j): on segment
 * k the total conductance is 1/s_k = sum_{j <= k} 1/r_j, so r_0 = s_0 and
 * 1/r_k = 1/s_k - 1/s_k-1 > 0; branch k starts at the knot's voltage
 * vf_k = v_k + delta (k >= 1) and vf_0 = v_0 + delta - s_0 i_0, where the
 * first chord meets i = 0. */
#include <math.h>
#include <stdio.h>

#include "pwl_exp.h"

static double curve(double c, double a, double i0, double rs, double i)
{
    return c + a * log1p(i / i0) + rs * i;
}

/* The chord's largest distance below the curve on [x, y], slope s. */
static double chord_gap(double c, double a, double i0, double rs, double x, double y, double s)
{
    double t = s > rs ? a / (s - rs) - i0 : x; /* v'(t) = s */
    t = fmin(fmax(t, x), y);
    return curve(c, a, i0, rs, t) - (curve(c, a, i0, rs, x) + s * (t - x));
}

int nsc_jfit_make(double c, double a, double i0, double rs, double i1, double i2, int nseg,
                  nsc_jfit *f)
{
    if (!(nseg >= 1 && nseg <= NSC_JFIT_MAX && i1 > 0 && i2 > i1 && a > 0 && i0 > 0 && rs >= 0
          && isfinite(c) && isfinite(i2)))
        return -1;
    double rho = pow(i2 / i1, 1.0 / nseg), s[NSC_JFIT_MAX], ik[NSC_JFIT_MAX + 1], gap = 0;
    for (int k = 0; k <= nseg; k++) ik[k] = k == nseg ? i2 : i1 * pow(rho, k);
    for (int k = 0; k < nseg; k++) {
        s[k] = (curve(c, a, i0, rs, ik[k + 1]) - curve(c, a, i0, rs, ik[k])) / (ik[k + 1] - ik[k]);
        gap = fmax(gap, chord_gap(c, a, i0, rs, ik[k], ik[k + 1], s[k]));
    }
    f->nseg = nseg;
    f->seen = 0;
    f->c = c;
    f->a = a;
    f->i0 = i0;
    f->rs = rs;
    f->i1 = i1;
    f->i2 = i2;
    f->err = 0.5 * gap;
    for (int k = 0; k < nseg; k++) {
        double vk = curve(c, a, i0, rs, ik[k]) + f->err;
        f->vf[k] = k == 0 ? vk - s[0] * ik[0] : vk;
        f->r[k] = k == 0 ? s[0] : 1.0 / (1.0 / s[k] - 1.0 / s[k - 1]);
        f->s[k] = s[k];
        f->knot[k] = k == 0 ? 0.0 : ik[k];
    }
    return 0;
}

int nsc_jfit_auto(double c, double a, double i0, double rs, double i1, double i2, int nmax,
                  double tol, nsc_jfit *f)
{
    int st = -1;
    for (int n = 1; n <= nmax; n++) /* err falls as n grows: the first n within tol */
        if ((st = nsc_jfit_make(c, a, i0, rs, i1, i2, n, f)) || f->err <= tol) break;
    return st;
}

double nsc_jfit_v(const nsc_jfit *f, double i)
{
    /* on the segment holding i: v = vf_k + (i - sum_{j<k} (v - vf_j)/r_j) ... solved
     * as the branch currents at v; search the segment whose voltage range holds i */
    double g = 0, gv = 0; /* sum 1/r_j, sum vf_j/r_j */
    for (int k = 0; k < f->nseg; k++) {
        g += 1.0 / f->r[k];
        gv += f->vf[k] / f->r[k];
        double v = (i + gv) / g; /* i = sum (v - vf_j)/r_j, j <= k */
        if (k + 1 == f->nseg || v <= f->vf[k + 1]) return v;
    }
    return f->vf[0]; /* not reached */
}

double nsc_jfit_tangent_gap(const nsc_jfit *f, double i)
{
    if (!(f->a > 0 && i > 0)) return 0;
    int k = 0; /* the chord holding i: the last knot below it */
    while (k + 1 < f->nseg && f->knot[k + 1] < i) k++;
    return f->a / (f->i0 + i) + f->rs - f->s[k];
}

/* "10 mA" for 0.01 (the prefixes f..k, 4 significant digits). */
static void amps(double i, char *buf, size_t n)
{
    static const char *const pre[] = { "f", "p", "n", "u", "m", "", "k" };
    int e = 5;
    while (e > 0 && fabs(i) < 1.0 - 1e-12) {
        i *= 1e3;
        e--;
    }
    while (e < 6 && fabs(i) >= 1e3) {
        i /= 1e3;
        e++;
    }
    snprintf(buf, n, "%.4g %sA", i, pre[e]);
}

void nsc_jfit_range(const nsc_jfit *f, char *buf, size_t n)
{
    char a[32], b[32];
    amps(f->i1, a, sizeof a);
    amps(f->i2, b, sizeof b);
    snprintf(buf, n, "%s..%s", a, b);
}

void nsc_st_jfit(nsc_builder *b, const nsc_jfit *f, int j)
{
    /* a fitted curve (a > 0) whose every slope s_q > 0: i(v) is continuous,
     * each pair's change a continuous kink (lcs.h pair_cont); a card's own
     * VF/RON lines stay events (RON = 0: the ideal diode's current jumps) */
    int cont = f->a > 0 && f->s[f->nseg - 1] > 0;
    for (int q = 0; cont && q < f->nseg; q++) nsc_st_cont(b, j + q);
    nsc_st(b, NSC_ST_D, j, j, f->s[0]); /* y_0 += vf_0 + s_0 lambda_0 */
    nsc_st_e0(b, j, f->vf[0]);
    for (int q = 1; q < f->nseg; q++) {
        nsc_st(b, NSC_ST_D, j, j + q, -(f->s[q - 1] - f->s[q])); /* y_0 -= c_q mu_q */
        nsc_st(b, NSC_ST_D, j + q, j + q, 1.0); /* y_q = mu_q - lambda_0 + knot_q */
        nsc_st(b, NSC_ST_D, j + q, j, -1.0);
        nsc_st_e0(b, j + q, f->knot[q]);
    }
}

/* The least current a junction conducts at for its fits to follow it (1 nA):
 * below it the junction is off to every circuit here, and its fit is left be
 * (nsc_jfit_outside, nsc_jfit_refit, nsc_jfit_band: a 741's bias diode at
 * 10..30 pA band refitted on 9 segments made the next pass fail at 0.6 us). */
#define JFIT_ON 1e-9

int nsc_jfit_outside(const nsc_jfit *f, double ip, double *off)
{
    if (!(f->a > 0 && ip > JFIT_ON)) return 0;
    *off = nsc_jfit_v(f, ip) - curve(f->c, f->a, f->i0, f->rs, ip);
    return fabs(*off) > 2 * f->err && fabs(*off) > 0.01;
}

/* f's curve on [lo, hi] by nseg chords, or (nseg 0) by the fewest odd count
 * (at most NSC_JFIT_MAX - 1: the band's centre mid-chord, never on a knot: an
 * operating point on a knot flips that knot's pair at every step) within tol,
 * into g: 0, or -1 (nsc_jfit_make's). */
static int odd_fit(const nsc_jfit *f, double lo, double hi, int nseg, double tol, nsc_jfit *g)
{
    int st = -1;
    if (nseg > 0) return nsc_jfit_make(f->c, f->a, f->i0, f->rs, lo, hi, nseg, g);
    for (int n = 1; n <= NSC_JFIT_MAX; n += 2)
        if ((st = nsc_jfit_make(f->c, f->a, f->i0, f->rs, lo, hi, n, g)) || g->err <= tol) break;
    return st;
}

int nsc_jfit_band(nsc_jfit *f, double imin, double ip, int nseg)
{
    if (!(f->a > 0 && isfinite(ip) && imin > JFIT_ON && ip >= imin && imin >= ip / NSC_JFIT_BELOW))
        return 0;
    double ic = sqrt(imin * ip), tol = NSC_JFIT_BAND_MIN; /* the band's centre */
    double off = fabs(nsc_jfit_v(f, ic) - curve(f->c, f->a, f->i0, f->rs, ic));
    int level = ip < NSC_JFIT_BAND_SWING * imin; /* constant: no small signal, its level only */
    if (level && off <= NSC_JFIT_POINT_TOL) return 0;
    if (!level) tol = fmin(0.01, fmax(tol, NSC_JFIT_BAND_FRAC * f->a * log(ip / imin)));
    if (!level && f->i1 <= imin && f->i2 >= ip && f->err <= 1.5 * tol)
        return 0; /* fine enough there already */
    nsc_jfit g;   /* centred on ic, mid-chord */
    if (odd_fit(f, imin / NSC_JFIT_ABOVE, NSC_JFIT_ABOVE * ip, nseg, tol, &g)
        || (level && !(fabs(nsc_jfit_v(&g, ic) - curve(f->c, f->a, f->i0, f->rs, ic)) < off)))
        return 0;
    *f = g;
    return 1;
}

int nsc_jfit_point(nsc_jfit *f, double ip)
{
    if (!(f->a > 0 && isfinite(ip) && ip > JFIT_ON)) return 0;
    double off = fabs(nsc_jfit_v(f, ip) - curve(f->c, f->a, f->i0, f->rs, ip));
    nsc_jfit g;
    if (off <= NSC_JFIT_POINT_TOL
        || odd_fit(f, ip / NSC_JFIT_ABOVE, NSC_JFIT_ABOVE * ip, 0, NSC_JFIT_POINT_TOL, &g)
        || !(fabs(nsc_jfit_v(&g, ip) - curve(f->c, f->a, f->i0, f->rs, ip)) < off))
        return 0;
    g.seen = f->seen;
    *f = g;
    return 1;
}

int nsc_jfit_follow(nsc_jfit *f, double pk, int point, int nseg, int nmax, double tol)
{
    double ip = nsc_jfit_seen(f, pk, NULL);
    if (nsc_jfit_refit(f, ip, nseg, nmax, ip != pk ? NSC_JFIT_SEEN_TOL : tol)) {
        f->seen = ip != pk;
        return 1;
    }
    return point && ip == pk && f->seen ? nsc_jfit_point(f, ip) : 0;
}

double nsc_jfit_seen(const nsc_jfit *f, double pk, double *v)
{
    if (!(f->a > 0 && pk < -NSC_JFIT_YSEEN)) return pk;
    double vj = f->vf[0] + pk, i = f->i0 * expm1((vj - f->c) / f->a);
    if (v) *v = vj;
    /* with RS: Newton on g(i) = c + a ln(1 + i/i0) + rs i - vj (concave,
     * rising) from the current without it, where g = rs i >= 0: the first
     * step lands in (0, root] (it moves by less than i), the next ones rise
     * to the root from below */
    for (int k = 0; k < 60 && f->rs > 0 && i > 0; k++) {
        double g = curve(f->c, f->a, f->i0, f->rs, i) - vj, d = f->a / (f->i0 + i) + f->rs;
        if (!(fabs(g) > 1e-14 * fabs(vj))) break;
        i -= g / d;
    }
    return i > 0 ? i : 0;
}

void nsc_jfit_seen_text(const nsc_jfit *f, double pk, char *buf, size_t n)
{
    double v = 0;
    if (nsc_jfit_seen(f, pk, &v) != pk)
        snprintf(buf, n, " (the SPICE junction's at %.4g V, where the fit conducts none)", v);
    else if (n > 0) buf[0] = 0;
}

const char *nsc_jfit_where(const nsc_jfit *f, double ip)
{
    if (!(ip >= f->i1 && ip <= f->i2)) return "left the range";
    return fabs(nsc_jfit_v(f, ip) - curve(f->c, f->a, f->i0, f->rs, ip)) > 0.01
               ? "lies where it is more than 10 mV off, in the range"
               : "is an operating point where it is more than 0.1 mV off (a fit made from the "
                 "junction's voltage), in the range";
}

int nsc_jfit_refit(nsc_jfit *f, double ip, int nseg, int nmax, double tol)
{
    if (!(f->a > 0 && ip > JFIT_ON)) return 0;
    int in = ip >= f->i1 && ip <= f->i2;
    double off = nsc_jfit_v(f, ip) - curve(f->c, f->a, f->i0, f->rs, ip);
    if (!(fabs(off) > 0.01 && (in || fabs(off) > f->err)))
        return 0; /* felt, and worse than inside (left), */
    double lo = ip > f->i2 ? f->i1 : ip / NSC_JFIT_BELOW,
           hi = NSC_JFIT_ABOVE * ip; /* or inside a coarse fit: */
    nsc_jfit g;                      /* the range seen, room for the re-run's peak */
    int st = nseg > 0 ? nsc_jfit_make(f->c, f->a, f->i0, f->rs, lo, hi, nseg, &g)
                      : nsc_jfit_auto(f->c, f->a, f->i0, f->rs, lo, hi, nmax, tol, &g);
    if (st || (in && !(fabs(nsc_jfit_v(&g, ip) - curve(f->c, f->a, f->i0, f->rs, ip)) < fabs(off))))
        return 0;
    *f = g;
    return 1;
}
