/* out_fmt.h -- fast number formatting for the table writers (out_dat.c, out_raw.c). */
#ifndef NSC_OUT_FMT_H
#define NSC_OUT_FMT_H

/* Write x as printf("%.*e", prec, x) writes it, byte for byte, into buf (at
 * least 32 bytes; not NUL-terminated), and return the number of bytes. The
 * correctly rounded digits (half to even) come from exact 128-bit integer
 * arithmetic when 10^(prec-27) <= |x| < 10^prec, else from one or two
 * extended-precision products when they decide the rounding, else from snprintf
 * (near-ties outside that range, non-finite x, prec > 15). 0 <= prec. */
int nsc_fmt_e(char *buf, double x, int prec);

/* ngspice's raw-file date into buf (out_raw.c): asctime's form, SOURCE_DATE_EPOCH
 * (UTC) instead of the clock when set. */
#include <stddef.h>
void nsc_raw_date(char *buf, size_t n);

#endif
