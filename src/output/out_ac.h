/* out_ac.h -- the result of an AC sweep and the writers of the analyses at the
 * operating point (issue 29, out_ac.c): every file atomically (out.h). The
 * analyses (analysis/smallsig.h) fill the result and hand it over as plain data. */
#ifndef NSC_OUT_AC_H
#define NSC_OUT_AC_H

#include "circuit/circuit.h"
#include "out.h"

/* The complex response of probes p[0..np) at each frequency. */
typedef struct nsc_ac_result {
    int nf, np;
    double *f;       /* [nf] Hz */
    double *re, *im; /* [nf * np], row k = frequency k */
    char **name;     /* [np] the probes' names ("v(out)", "i(v1)") */
    char *title;
    double fhalf; /* 0: at the operating point; > 0: the periodic AC, valid up to fhalf = fs/2 */
} nsc_ac_result;
void nsc_ac_result_free(nsc_ac_result *R);

/* The value of part of the phasor (re, im): dB 20 log10 |x|, phase in degrees
 * (atan2, in (-180, 180]), re, im, magnitude. */
double nsc_ac_part(nsc_acpart part, double re, double im);

/* The part of probe q of R at frequency k, or of the ratio probe q / probe d
 * (d >= 0: a loop gain by injection, `vdb(out)/v(fb)`; d < 0: none). */
double nsc_ac_part_ratio(const nsc_ac_result *R, int k, int q, int d, nsc_acpart part);

/* A column of the AC table: part of probe R->re/im[., probe], named name. */
typedef struct nsc_accol {
    int probe;
    int den; /* >= 0: the column is the part of probe / den (`vdb(out)/v(fb)`), -1 none */
    nsc_acpart part;
    const char *name;
} nsc_accol;

/* "# frequency vdb(out) vp(out) ...", a comment line saying the units (dB,
 * degrees), then one row per frequency (%.12e). */
nsc_status nsc_write_ac_dat(const nsc_ac_result *R, const nsc_accol *col, int ncol,
                            const char *path, nsc_report *r);
/* The same columns as CSV: header "frequency,vdb(out),...", rows comma separated. */
nsc_status nsc_write_ac_csv(const nsc_ac_result *R, const nsc_accol *col, int ncol,
                            const char *path, nsc_report *r);
/* ngspice's AC raw file: Plotname "AC Analysis", Flags "complex", variable 0
 * "frequency" (grid=3), then every probe; ASCII values "re,im" (%.15e), or
 * binary (16 little-endian bytes per value). */
nsc_status nsc_write_ac_raw(const nsc_ac_result *R, const char *path, int binary, nsc_report *r);
/* Bode plot of the table datpath: a magnitude panel (every non-phase column)
 * over a phase panel, log frequency axis. */
nsc_status nsc_write_ac_gp(const nsc_accol *col, int ncol, const char *datpath, const char *gppath,
                           const char *pngpath, nsc_report *r);
/* ngspice's DC sweep raw: Plotname "DC transfer characteristic", the sweep
 * variable first (W's column 0), real values. */
nsc_status nsc_write_dc_raw(const nsc_waves *W, const char *path, int binary, nsc_report *r);
/* The DC sweep's picture: voltages and currents over the swept value (column 0;
 * the nsweep first columns are sweep values). */
nsc_status nsc_write_dc_gp(const nsc_waves *W, int nsweep, const char *datpath, const char *gppath,
                           const char *pngpath, nsc_report *r);

#endif
