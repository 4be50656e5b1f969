/* out_fmt.h -- fast number formatting for the table writers (out_dat.c, out_raw.c). */
#ifndef NSC_OUT_FMT_H
#define NSC_OUT_FMT_H

/* Write x as printf("%.*e", prec, x) writes it, byte for byte, into buf (at
 * least 32 bytes; not NUL-terminated), and return the number of bytes. The
 * correctly rounded digits come from one extended-precision product when that
 * product decides the rounding, else from snprintf (ties and near-ties, very
 * large or small exponents, non-finite x, prec > 16). 0 <= prec. */
int nsc_fmt_e(char *buf, double x, int prec);

#endif
