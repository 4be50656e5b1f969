/* out.h -- writers: waveform table -> files. Every file is written to a
 * temporary name in the same directory and renamed into place, so a file is
 * either complete or absent, never half written. */
#ifndef NSC_OUT_H
#define NSC_OUT_H

#include "waves.h"

typedef enum nsc_format { NSC_FMT_DAT, NSC_FMT_CSV } nsc_format;

/* gnuplot columns: first line "# time v(a) ...", then, when the run ended early,
 * "# stopped at t=...: reason", then rows "%.12e" whitespace separated. */
nsc_status nsc_write_dat(const nsc_waves *W, const char *path, nsc_report *r);
/* CSV: header "time,v(a),...", rows comma separated; an early end is a first line
 * "# stopped ..." before the header. */
nsc_status nsc_write_csv(const nsc_waves *W, const char *path, nsc_report *r);
/* gnuplot script plotting datpath (a .dat written by nsc_write_dat): one panel per
 * quantity kind (voltages, currents) sharing the time axis; the `set terminal`/
 * `set output` lines name pngpath so `gnuplot script` renders it. */
nsc_status nsc_write_gp(const nsc_waves *W, const char *datpath, const char *gppath,
                        const char *pngpath, nsc_report *r);
/* Run gnuplot (NSC_GNUPLOT) on a script; its output file is produced atomically
 * by the script's own set output. Error names the command on failure. */
nsc_status nsc_render_gp(const char *gppath, nsc_report *r);

/* Write text to path atomically (temp + rename). */
nsc_status nsc_write_atomic(const char *path, const char *data, size_t len, nsc_report *r);

#endif
