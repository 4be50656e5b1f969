/* rd.h -- readers: waveform files of nscircuit and ngspice -> nsc_waves (time in
 * column 0, one column per signal, names as written in the file). Used by
 * `nscircuit compare`. Errors (unreadable file, malformed content) are NSC_EIO
 * with a message naming the file and, for text, the line. */
#ifndef NSC_RD_H
#define NSC_RD_H

#include <stddef.h>

#include "waves.h"

typedef enum nsc_wfkind {
    NSC_WF_TABLE,  /* columns: nscircuit .dat / .csv, or a table with a header line */
    NSC_WF_WRDATA, /* ngspice wrdata: (time, value) column pairs */
    NSC_WF_RAW,    /* ngspice raw, ASCII values */
    NSC_WF_RAWBIN  /* ngspice raw, binary values */
} nsc_wfkind;

typedef struct nsc_wfinfo {
    nsc_wfkind kind;
    int scale;      /* NSC_SCALE_* of column 0 */
    int named;      /* 0: the file has no signal names; columns are "y1", "y2", ... */
    int nplots;     /* raw: plots in the file (the first transient one is read) */
    int radians;    /* an AC table without names whose phases may be ngspice's radians:
                       once its columns are named, nsc_waves_ac_degrees */
    int incomplete; /* the file says its run did not complete ("# interrupted at ...",
                       "# stopped ...", a raw Title's "[interrupted ...]"), or a raw
                       file holds fewer points than its No. Points */
} nsc_wfinfo;

/* Read path, choosing the reader by content: a file whose first line starts with
 * "Title:" or "Plotname:" is a raw file, anything else a text table. info may be NULL. */
nsc_status nsc_read_waves(const char *path, nsc_waves **out, nsc_wfinfo *info, nsc_report *r);
/* nsc_read_waves taking from a raw file the first plot of scale `scale`
 * (NSC_SCALE_*, -1 any: nsc_read_raw_scale); a text table keeps the scale its
 * column 0's name says, but a name neither time, frequency nor a sweep's
 * ("t") is a transient when scale is NSC_SCALE_TIME. */
nsc_status nsc_read_waves_scale(const char *path, int scale, nsc_waves **out, nsc_wfinfo *info,
                                nsc_report *r);

/* The phase columns (vp(x), ip(x), ph(x)) of AC table W from radians to
 * degrees, unless a phase lies beyond pi (degrees already). */
void nsc_waves_ac_degrees(nsc_waves *W);

/* ngspice raw file (ASCII "Values:" or "Binary:" little-endian doubles), possibly
 * holding several plots: the first plot of scale `scale` (NSC_SCALE_*; -1 any:
 * the first transient, else the first AC, else the first DC sweep) is read: a transient (real, against time), an AC analysis (complex, against
 * frequency: each variable X as two columns, vdb(X) in dB and vp(X) in degrees,
 * ip/idb for currents), a DC sweep (real, against another scale). A truncated
 * file (run interrupted) yields the complete points it holds. */
nsc_status nsc_read_raw_scale(const char *path, const char *data, size_t len, int scale,
                              nsc_waves **out, nsc_wfinfo *info, nsc_report *r);
/* nsc_read_raw_scale of any scale (a transient first) */
nsc_status nsc_read_raw(const char *path, const char *data, size_t len, nsc_waves **out,
                        nsc_wfinfo *info, nsc_report *r);

/* Text table: lines of numbers separated by blanks, commas or semicolons; lines
 * starting with '#', '*', ';' or '%' are comments. Names come from a non-numeric
 * first line (CSV, `wrdata` with wr_vecnames) or from a first comment line with
 * as many words as columns (nscircuit .dat: "# time v(a) ..."). ngspice wrdata's
 * (time, value) pairs are recognised (every even column is time) and reduced to
 * one time column. */
nsc_status nsc_read_table(const char *path, const char *data, size_t len, nsc_waves **out,
                          nsc_wfinfo *info, nsc_report *r);

/* Whole file into *data (malloc'd, NUL-terminated beyond *len). */
nsc_status nsc_read_file(const char *path, char **data, size_t *len, nsc_report *r);

#endif
