/* out.h -- writers: waveform table -> files. Every file is written to a
 * temporary name in the same directory and renamed into place, so a file is
 * either complete or absent, never half written. */
#ifndef NSC_OUT_H
#define NSC_OUT_H

#include <stdio.h>

#include "waves.h"

typedef enum nsc_format {
    NSC_FMT_DAT, /* gnuplot columns */
    NSC_FMT_CSV,
    NSC_FMT_RAW,    /* ngspice raw file, ASCII values */
    NSC_FMT_RAWBIN, /* ngspice raw file, binary values (little-endian doubles) */
    NSC_FMT_N       /* the number of formats (lines of nsc_formats) */
} nsc_format;

/* The output formats, one line each (out_formats.c, indexed by nsc_format): what
 * the program, the streamed table (out_stream.c) and the .ac/.dc writers ask of a
 * format. A new format is its writers, its enum value and one line there. */
struct nsc_ac_result; /* out_ac.h */
struct nsc_accol;
typedef struct nsc_format_desc {
    const char *name;   /* as --format takes it ("dat") */
    const char *suffix; /* the output's default suffix (".dat"); -o NAME.SUFFIX picks the first
                            format of that suffix */
    int gnuplot; /* 1: the plotting script reads this table itself (else --plot writes a .dat) */
    int raw;     /* an ngspice raw file (nsc_raw_rowfmt rows; every analysis in one file) */
    int binary;  /* raw: binary values */
    char sep;    /* a table (raw 0): its column separator */
    /* the transient's table (nsc_write_dat's arguments) */
    nsc_status (*write)(const nsc_waves *W, const char *path, int threads, nsc_report *r);
    /* the .ac sweep's table: the columns col[0..ncol) of R (a raw file: every probe of R) */
    nsc_status (*write_ac)(const struct nsc_ac_result *R, const struct nsc_accol *col, int ncol,
                           const char *path, nsc_report *r);
    /* the .dc sweep's table W (out_ac.h) */
    nsc_status (*write_dc)(const nsc_waves *W, const char *path, nsc_report *r);
} nsc_format_desc;
extern const nsc_format_desc nsc_formats[NSC_FMT_N];
/* The format named name (case-insensitive; NULL: none), else -1. */
int nsc_format_named(const char *name);
/* The first format whose suffix is sfx (".csv", case-insensitive), else -1. */
int nsc_format_of_suffix(const char *sfx);

/* gnuplot columns: first line "# time v(a) ...", then, when the run ended early,
 * "# stopped at t=...: reason", then rows "%.12e" whitespace separated.
 * threads: how many threads format the rows (out_rows.h: <= 0 one per CPU);
 * the bytes do not depend on it. */
nsc_status nsc_write_dat(const nsc_waves *W, const char *path, int threads, nsc_report *r);
/* ngspice's wrdata: per column "time value" pairs (singlescale: time once,
 * then the values), a first line of the names when vecnames; %.12e. */
nsc_status nsc_write_wrdata(const nsc_waves *W, int singlescale, int vecnames, const char *path,
                            nsc_report *r);
/* ngspice's `print` of vectors (a .control block), as ngspice 39 prints it
 * without its title and date lines: a rule, "Index   time            v(a) ..."
 * (names in 16 columns), a rule, then one line per row: its index and the values
 * in 12 characters (%.6e, %.5e when negative), each followed by a tab; on f (the
 * caller's stream: the program gives stdout). NSC_EOUT when f fails. */
nsc_status nsc_write_print(const nsc_waves *W, FILE *f, nsc_report *r);
/* print VEC... > FILE as ngspice 39 writes it (com_print): blocks of the scale
 * and three columns, each headed by W's title centred in 80 columns and the
 * analysis' name ("Transient Analysis"; ngspice adds the date: left out, so a
 * file depends only on the run), pages of 55 then 58 rows after form feeds.
 * Columns cols[0..n) of W named names[0..n). Write errors are the caller's
 * (ferror on f). */
nsc_status nsc_write_print_pages(const nsc_waves *W, const int *cols, char *const *names, int n,
                                 FILE *f, nsc_report *r);
/* CSV: header "time,v(a),...", rows comma separated; an early end is a first line
 * "# stopped ..." before the header. */
nsc_status nsc_write_csv(const nsc_waves *W, const char *path, int threads, nsc_report *r);
/* ngspice raw file of one real transient plot, header as ngspice 39 writes it:
 *   Title: <W->title>            (an early end is appended: "[stopped at t=...: why]")
 *   Date: Sat Nov 21 21:05:29  2026
 *   Plotname: Transient Analysis
 *   Flags: real
 *   No. Variables: <ncol>
 *   No. Points: <nrow>
 *   Variables:
 *   \t0\ttime\ttime   \t1\tv(a)\tvoltage   \t2\ti(l1)\tcurrent ...
 * then "Values:" with, per point, "<index>\t" and one "\t%.15e\n" per variable
 * (binary == 0), or "Binary:" and nrow * ncol little-endian IEEE doubles, row by
 * row (binary != 0). ngspice's `load` reads both. */
nsc_status nsc_write_raw(const nsc_waves *W, const char *path, int binary, int threads,
                         nsc_report *r);
/* gnuplot script plotting datpath (a .dat written by nsc_write_dat): one panel per
 * quantity kind (voltages, currents) sharing the time axis, scaled to a readable
 * unit (ns, us, ms, s); the `set terminal`/`set output` lines name pngpath so
 * `gnuplot script` renders it. */
nsc_status nsc_write_gp(const nsc_waves *W, const char *datpath, const char *gppath,
                        const char *pngpath, nsc_report *r);
/* The same, the script drawing every k-th row only (gnuplot's `every k`, k =
 * ceil(rows / maxrows); maxrows 0: all): a batch run's preview (a .control
 * block's plot), whose rendering time grows with the rows drawn. */
#define NSC_GP_PREVIEW_ROWS 4000
nsc_status nsc_write_gp_thin(const nsc_waves *W, const char *datpath, const char *gppath,
                             const char *pngpath, long maxrows, nsc_report *r);
/* Run gnuplot (NSC_GNUPLOT) on a script; its output file is produced atomically
 * by the script's own set output. Error names the command on failure. */
nsc_status nsc_render_gp(const char *gppath, nsc_report *r);
/* The same for the script of the table W (nsc_write_gp): a table of more than
 * NSC_GP_ENVELOPE rows is drawn from its envelope, each run of consecutive rows
 * as its extremes (the .dat and the script stay whole: `gnuplot script` draws
 * every row). */
#define NSC_GP_ENVELOPE 8000
/* The envelope's rows (as a .dat's, without its header) into f: the rows cut
 * into runs of k = ceil(nrow / (NSC_GP_ENVELOPE / 2)), each run as two rows, at
 * its first and at its last time, holding per column the run's smallest and
 * largest value in the order they occur (NaN where a run has no number). 0, or
 * -1 when a spilled row could not be read or f not written. */
int nsc_gp_envelope(FILE *f, const nsc_waves *W);
nsc_status nsc_render_gp_waves(const char *gppath, const nsc_waves *W, nsc_report *r);

/* gnuplot helpers: a time axis unit for times up to tmax (*scale = 1, 1e3, 1e6,
 * ...; *unit "s", "ms", "µs", "ns", "ps"); a scale 10^(3k) bringing maxabs into
 * [1, 1000) with its SI prefix ("m", "µ", "" ...); s as a single-quoted gnuplot
 * string (quotes doubled, control characters blanked, at most 200 characters). */
void nsc_time_unit(double tmax, double *scale, const char **unit);
double nsc_unit_scale(double maxabs, const char **prefix);
void nsc_gp_quote(FILE *f, const char *s);
/* A file name as a gnuplot string, exactly (a quote written twice; no length
 * limit). Only for names that pass nsc_gp_name_ok (no control character):
 * nsc_gp_names_check refuses the others with NSC_EOUT. */
void nsc_gp_path(FILE *f, const char *s);
int nsc_gp_name_ok(const char *s);
nsc_status nsc_gp_names_check(const char *const *names, int n, nsc_report *r);
/* The script lines every nscircuit gnuplot script starts with: outfile (pngpath's
 * base name unless the caller set it), the PNG terminal 1000 x height, datafile
 * (datpath's base name), grid, key and margins. */
void nsc_gp_preamble(FILE *f, const char *pngpath, const char *datpath, int height);
/* ---- plot rules (out_axis.c), shared by the waveform and sweep pictures ----
 * A trace's statistics over its finite values: min, max, the NSC_PLOT_QLO and
 * NSC_PLOT_QHI quantiles (the k-th smallest with k = floor(q (n-1)) for the
 * low one, ceil(q (n-1)) for the high one), and its jumps: consecutive finite
 * rows that differ by more than half of qhi - qlo, when qhi - qlo is more than
 * NSC_PLOT_NOISE of the values' magnitude (round-off on a constant, 1.8 V +-
 * 1e-16, has none); first and last: its first and last finite values. */
#define NSC_PLOT_QLO 0.005
#define NSC_PLOT_QHI 0.995
#define NSC_PLOT_MARGIN 0.05     /* of the trimmed span, each side of a clipped range */
#define NSC_PLOT_SWITCH_JUMPS 10 /* a trace with this many jumps is switching */
#define NSC_PLOT_NOISE 1e-9      /* of max(|qlo|, |qhi|): a smaller trimmed range has no jumps */
typedef struct nsc_trace_stat {
    double min, max, qlo, qhi;
    long jumps;
    size_t nfinite;
    double first, last;
} nsc_trace_stat;
/* Half the trimmed range of s when it counts jumps (above NSC_PLOT_NOISE of
 * the magnitude), else 0. */
double nsc_trace_half(const nsc_trace_stat *s);
size_t nsc_quantile_index(size_t n, double q);
/* Of v[0], v[stride], ... v[(n-1) stride]; -1 out of memory, else 0. */
int nsc_trace_stat_of(const double *v, size_t n, size_t stride, nsc_trace_stat *s);
/* The same of nk <= NSC_STAT_COLS neighbouring columns v + k (k < nk) into
 * s[k], gathered in one pass over the rows (a row-major table: each row's
 * values of the nk columns share a cache line, where one column at a time
 * reads a line per value), with at most NSC_STAT_WORDS doubles of copies
 * (fewer columns at once for long tables; one: nsc_trace_stat_of's single
 * copy, as many bytes as before). -1 out of memory, else 0. */
#define NSC_STAT_COLS 8
#define NSC_STAT_WORDS ((size_t)1 << 20)
int nsc_trace_stat_cols(const double *v, size_t n, size_t stride, int nk, nsc_trace_stat *s);
/* st[k] of every column k >= 1 of W (st[0] unused), the same numbers as
 * nsc_trace_stat_of; a spilled table in passes over its rows with memory
 * bounded whatever their number (out_stats.c). -1 out of memory, -2 a spilled
 * row could not be read (errno), else 0. */
int nsc_trace_stats(const nsc_waves *W, nsc_trace_stat *st);
/* The k-th smallest of a[0..n) (0 <= k < n), a reordered. */
double nsc_select_kth(double *a, size_t n, size_t k);
/* Switching: at least NSC_PLOT_SWITCH_JUMPS jumps, i.e. the trace crosses more
 * than half of its 0.5-99.5 % range between two rows that often (a PWM node,
 * a gate, a sawtooth's flyback; not a smooth wave sampled 7 or more rows a
 * period), or at least 2 jumps and back within half that range of its first
 * value at the end (a gate over one or a few steady periods, a pulse; not a
 * start-up step). */
int nsc_trace_switching(const nsc_trace_stat *s);
/* The y range of a panel of traces s[0..n): the full [min, max], unless the
 * 0.5-99.5 % range is under a third of it and at least 1/1000 of it: then that
 * range widened by NSC_PLOT_MARGIN of itself on each side (within [min, max]),
 * and *clipped = 1: a short start-up spike does not set the scale, its lines
 * run to the panel's edge. No finite value: [0, 1]. */
void nsc_robust_range(const nsc_trace_stat *s, int n, double *lo, double *hi, int *clipped);
/* Ticks of [lo, hi]: step = 1, 2 or 5 x 10^k, the smallest >= (hi - lo) / nticks;
 * the range widened to multiples of it; digits: the %g precision that writes every
 * multiple of step in range distinctly. A constant lo = hi gets a band of 10 % of
 * it (1 around 0). */
typedef struct nsc_ticks {
    double lo, hi, step;
    int digits;
} nsc_ticks;
nsc_ticks nsc_ticks_of(double lo, double hi, int nticks);
/* "set Xtics STEP", "set format X '%.Dg'" (and "set Xrange [lo:hi]" of the
 * ticks when setrange) for axis 'x' or 'y'. */
void nsc_gp_ticks(FILE *f, char axis, double lo, double hi, int nticks, int setrange);

/* Write text to path atomically (temp + rename). */
/* The state changes logged in W->ev (--events), atomically. */
nsc_status nsc_write_events(const nsc_waves *W, const char *path, nsc_report *r);
nsc_status nsc_write_atomic(const char *path, const char *data, size_t len, nsc_report *r);

/* An output stream on "path.XXXXXX" in the destination's directory: open, write
 * to f, then close(ok): renamed onto path when ok and no write failed, else
 * removed (NSC_EIO naming path). */
/* An output file written completely or not at all: a temporary created
 * exclusively (mkstemp) beside it, renamed over it on success. A path that
 * exists and is not a regular file (/dev/null, a FIFO, a terminal) is written
 * directly and never renamed over (tmp = NULL). Errors: NSC_EOUT naming the file. */
typedef struct nsc_afile {
    FILE *f;
    char *tmp;
    const char *path; /* the file written: the link's target when given a symbolic link */
    char *own;        /* that target (owned), else NULL */
} nsc_afile;
nsc_status nsc_afile_open(nsc_afile *a, const char *path, nsc_report *r);
nsc_status nsc_afile_close(nsc_afile *a, int ok, nsc_report *r);

/* "1.5 ms", "20 V", "-3.3 uA": x in engineering notation with 4 significant
 * digits and an SI prefix before unit (unit may be ""). buf of size n. */
const char *nsc_eng(double x, const char *unit, char *buf, size_t n);

#endif
