/* waves_spill.c -- a table's early rows in a temporary file (waves.h).
 *
 * Invariants: rows [0, row0) are in the file, row i at byte offset
 * i * fcol * 8 as the doubles themselves (read back bit for bit); rows
 * [row0, nrow) are in W->v; nrow - row0 <= cap. A batch is the cap rows in
 * memory, written when the next row comes; so the file grows by whole batches
 * and the memory held is cap rows, whatever the run's length. */
#define _DEFAULT_SOURCE /* pread, pwrite */
#include "waves.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct nsc_spill {
    char *near; /* the file is made beside this path (NULL: in $TMPDIR) */
    char *name; /* its name when created (unlinked at once), for messages */
    int fd;     /* -1 until the first batch */
    long cap;   /* rows held in memory at most */
    int fcol;   /* values per row in the file (W->ncol at the first batch) */
    int err;    /* errno of the last failed write or creation; 0 none */
};

int nsc_waves_spill(nsc_waves *W, long max_rows, const char *path)
{
    struct nsc_spill *sp = calloc(1, sizeof *sp);
    if (!sp || (path && !(sp->near = nsc_strdup(path)))) {
        free(sp);
        return -1;
    }
    sp->fd = -1;
    sp->cap = max_rows > 0 ? max_rows : 1;
    if (sp->cap > 0x7fffffffL) sp->cap = 0x7fffffffL;
    W->sp = sp;
    return 0;
}

void nsc_spill_free(struct nsc_spill *sp)
{
    if (!sp) return;
    if (sp->fd >= 0) close(sp->fd);
    free(sp->near);
    free(sp->name);
    free(sp);
}

long nsc_spill_cap(const struct nsc_spill *sp)
{
    return sp ? sp->cap : 0;
}

int nsc_waves_spill_like(nsc_waves *S, const nsc_waves *W)
{
    return W->sp ? nsc_waves_spill(S, W->sp->cap, W->sp->near) : 0;
}

/* The file, created exclusively and unlinked: beside sp->near, else in $TMPDIR
 * (or /tmp). 0, or -1 with sp->err. */
static int spill_create(struct nsc_spill *sp)
{
    const char *dir = getenv("TMPDIR");
    char *tmpl[2] = { sp->near ? nsc_tmp_template(sp->near) : NULL,
                      nsc_asprintf("%s/nscircuit-spill.XXXXXX", dir && *dir ? dir : "/tmp") };
    for (int k = 0; k < 2 && sp->fd < 0; k++) {
        if (!tmpl[k]) continue;
        sp->fd = mkstemp(tmpl[k]); /* O_CREAT | O_EXCL, mode 0600 */
        sp->err = sp->fd < 0 ? errno : 0;
        free(sp->name);
        sp->name = tmpl[k];
        tmpl[k] = NULL;
        if (sp->fd >= 0) unlink(sp->name); /* gone when the run ends, however it ends */
    }
    free(tmpl[0]);
    free(tmpl[1]);
    if (sp->fd < 0 && !sp->err) sp->err = ENOMEM;
    return sp->fd < 0 ? -1 : 0;
}

/* len bytes of p at offset off; 0, or -1 with errno (a short write is ENOSPC). */
static int write_all(int fd, const char *p, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t w = pwrite(fd, p, len, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = ENOSPC;
            return -1;
        }
        p += w, len -= (size_t)w, off += w;
    }
    return 0;
}

/* len bytes at offset off into p; 0, or -1 with errno (a short file is EIO). */
static int read_all(int fd, char *p, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t g = pread(fd, p, len, off);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) {
            if (g == 0) errno = EIO;
            return -1;
        }
        p += g, len -= (size_t)g, off += g;
    }
    return 0;
}

int nsc_spill_batch(nsc_waves *W)
{
    struct nsc_spill *sp = W->sp;
    if (sp->fd < 0) {
        if (spill_create(sp)) return -1;
        sp->fcol = W->ncol;
    }
    if (W->ncol != sp->fcol) {
        sp->err = EINVAL;
        return -1;
    } /* rows added after nsc_waves_keep */
    size_t rowb = (size_t)sp->fcol * sizeof(double);
    if (write_all(sp->fd, (const char *)W->v, (size_t)(W->nrow - W->row0) * rowb,
                  (off_t)(W->row0 * (long)rowb))) {
        sp->err = errno;
        return -1;
    }
    W->row0 = W->nrow;
    return 0;
}

nsc_status nsc_waves_add_error(const nsc_waves *W, nsc_report *r)
{
    const struct nsc_spill *sp = W->sp;
    if (!sp || !sp->err || sp->err == ENOMEM) return nsc_oom(r);
    if (sp->fd < 0)
        return nsc_err(r, NSC_EOUT, NULL,
                       "cannot create a temporary file for the rows beyond memory ('%s'): %s",
                       sp->name ? sp->name : "", strerror(sp->err));
    return nsc_err(r, NSC_EOUT, NULL,
                   "cannot write the rows beyond memory to the temporary '%s' (unlinked): %s",
                   sp->name, strerror(sp->err));
}

nsc_status nsc_waves_read_error(const nsc_waves *W, int e, nsc_report *r)
{
    const char *name = W->sp && W->sp->name ? W->sp->name : "";
    return nsc_err(r, NSC_EOUT, NULL,
                   "cannot read the rows spilled to the temporary '%s' (unlinked): %s", name,
                   strerror(e ? e : EIO));
}

/* Rows [first, first + n) of the file (first + n <= row0) into dst, W->ncol
 * values each: whole rows read at once, then moved down when nsc_waves_keep
 * left fewer columns than the file's (row j goes from j fcol to j ncol <= j fcol:
 * ascending j never overwrites a row not moved yet). */
static int read_file_rows(const nsc_waves *W, long first, long n, double *dst)
{
    const struct nsc_spill *sp = W->sp;
    size_t nc = (size_t)W->ncol, fc = (size_t)sp->fcol;
    while (n > 0) {
        long q = (long)((size_t)n * nc / fc); /* whole file rows that fit in dst */
        if (q < 1) q = 1;
        size_t bytes = q == 1 ? nc * sizeof(double) : (size_t)q * fc * sizeof(double);
        if (read_all(sp->fd, (char *)dst, bytes, (off_t)((size_t)first * fc * sizeof(double))))
            return -1;
        for (long j = 1; q > 1 && nc < fc && j < q; j++)
            memmove(dst + (size_t)j * nc, dst + (size_t)j * fc, nc * sizeof(double));
        first += q, n -= q, dst += (size_t)q * nc;
    }
    return 0;
}

int nsc_waves_read(const nsc_waves *W, long first, long n, double *dst)
{
    size_t nc = (size_t)W->ncol;
    if (first < W->row0) {
        long k = n < W->row0 - first ? n : W->row0 - first;
        if (read_file_rows(W, first, k, dst)) return -1;
        first += k, n -= k, dst += (size_t)k * nc;
    }
    if (n > 0) memcpy(dst, W->v + (size_t)(first - W->row0) * nc, (size_t)n * nc * sizeof(double));
    return 0;
}

double nsc_waves_at(const nsc_waves *W, long i, int k)
{
    if (i >= W->row0) return W->v[(size_t)(i - W->row0) * (size_t)W->ncol + (size_t)k];
    double x;
    off_t off = (off_t)(((size_t)i * (size_t)W->sp->fcol + (size_t)k) * sizeof(double));
    return read_all(W->sp->fd, (char *)&x, sizeof x, off) ? NAN : x;
}

int nsc_wcur_init(nsc_wcur *c, const nsc_waves *W)
{
    memset(c, 0, sizeof *c);
    c->W = W;
    if (!W->sp) return 0;
    c->cap = 65536 / W->ncol > 0 ? 65536 / W->ncol : 1; /* about 512 KiB of rows */
    c->buf = nsc_calloc((size_t)c->cap * (size_t)W->ncol, sizeof(double));
    return c->buf ? 0 : -1;
}

const double *nsc_wcur_row(nsc_wcur *c, long i)
{
    const nsc_waves *W = c->W;
    size_t nc = (size_t)W->ncol;
    if (i >= W->row0) return W->v + (size_t)(i - W->row0) * nc;
    if (i < c->first || i >= c->first + c->n) {
        long f = i / c->cap * c->cap, n = W->row0 - f < c->cap ? W->row0 - f : c->cap;
        if (nsc_waves_read(W, f, n, c->buf)) {
            if (!c->err) c->err = errno ? errno : EIO;
            for (size_t k = 0; k < (size_t)n * nc; k++) c->buf[k] = NAN;
        }
        c->first = f;
        c->n = n;
    }
    return c->buf + (size_t)(i - c->first) * nc;
}

void nsc_wcur_free(nsc_wcur *c)
{
    free(c->buf);
    c->buf = NULL;
}
