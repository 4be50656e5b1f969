/* out_formats.c -- the table of output formats (out.h nsc_formats). */
#include "out.h"
#include "out_ac.h"

static nsc_status write_raw_ascii(const nsc_waves *W, const char *path, int threads, nsc_report *r)
{
    return nsc_write_raw(W, path, 0, threads, r);
}

static nsc_status write_raw_binary(const nsc_waves *W, const char *path, int threads, nsc_report *r)
{
    return nsc_write_raw(W, path, 1, threads, r);
}

static nsc_status write_ac_raw_ascii(const nsc_ac_result *R, const nsc_accol *col, int ncol,
                                     const char *path, nsc_report *r)
{
    return nsc_write_ac_raw(R, path, 0, r); /* every probe: ngspice's raw holds every vector */
}

static nsc_status write_ac_raw_binary(const nsc_ac_result *R, const nsc_accol *col, int ncol,
                                      const char *path, nsc_report *r)
{
    return nsc_write_ac_raw(R, path, 1, r);
}

static nsc_status write_dc_dat(const nsc_waves *W, const char *path, nsc_report *r)
{
    return nsc_write_dat(W, path, 1, r); /* a sweep's few rows: one thread */
}

static nsc_status write_dc_csv(const nsc_waves *W, const char *path, nsc_report *r)
{
    return nsc_write_csv(W, path, 1, r);
}

static nsc_status write_dc_raw_ascii(const nsc_waves *W, const char *path, nsc_report *r)
{
    return nsc_write_dc_raw(W, path, 0, r);
}

static nsc_status write_dc_raw_binary(const nsc_waves *W, const char *path, nsc_report *r)
{
    return nsc_write_dc_raw(W, path, 1, r);
}

/*  name      suffix  gnuplot raw binary sep; writers: transient, .ac, .dc */
const nsc_format_desc nsc_formats[NSC_FMT_N] = {
    [NSC_FMT_DAT] = { "dat", ".dat", 1, 0, 0, ' ', nsc_write_dat, nsc_write_ac_dat, write_dc_dat },
    [NSC_FMT_CSV] = { "csv", ".csv", 0, 0, 0, ',', nsc_write_csv, nsc_write_ac_csv, write_dc_csv },
    [NSC_FMT_RAW] = { "raw", ".raw", 0, 1, 0, 0, write_raw_ascii, write_ac_raw_ascii,
                      write_dc_raw_ascii },
    [NSC_FMT_RAWBIN] = { "rawbin", ".raw", 0, 1, 1, 0, write_raw_binary, write_ac_raw_binary,
                         write_dc_raw_binary },
};

int nsc_format_named(const char *name)
{
    for (int k = 0; name && k < NSC_FMT_N; k++)
        if (nsc_strieq(name, nsc_formats[k].name)) return k;
    return -1;
}

int nsc_format_of_suffix(const char *sfx)
{
    for (int k = 0; sfx && k < NSC_FMT_N; k++)
        if (nsc_strieq(sfx, nsc_formats[k].suffix)) return k;
    return -1;
}
