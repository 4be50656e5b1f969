/* nl_deck.c -- netlist files -> logical lines -> cards (see nl_deck.h).
 *
 * Physical lines: the first line of the main file is the title; `*` lines and
 * blank lines are dropped; a line starting with `+` continues the previous card
 * (comment lines may sit in between). Each logical line is either handled here
 * (.include/.inc, .lib/.endl, .control/.endc, .end) or parsed by nl_parse_line
 * into an nl_card. Included files are read recursively; a file already open
 * (same device and inode) is a recursive include, unless both are different
 * .lib sections of it (corner libraries include sections of themselves). */
#include "nl_deck.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define NL_MAXINCLUDE 64

typedef struct reader {
    nl_deck *d;
    nsc_report *r;
    const nsc_search_path *inc; /* include search path after the including file's directory */
    nl_parser p;
    struct { dev_t dev; ino_t ino; const char *section; } open[NL_MAXINCLUDE]; /* files being read */
    int nopen;
    int ended;          /* .end seen in the main file */
    size_t bytes;       /* text read so far, every file (<= NL_MAXBYTES) */
    int nread;          /* files read so far (<= NL_MAXREADS) */
    char *buf;          /* current logical line */
    size_t len, cap;
    nl_seg *seg;
    int nseg, capseg;
} reader;

/* Per-file reading state. */
typedef struct source {
    int file;           /* index in d->files */
    const char *dir;    /* directory of the file ("" = current) */
    const char *section;/* .lib section to extract, or NULL for the whole file */
    int insec;          /* inside the wanted section */
    int found;          /* the wanted section was seen */
    int control;        /* inside .control ... .endc */
    int skipsec;        /* inside a .lib section definition not asked for */
    nsc_loc secloc;     /* its `.lib NAME` card: a file not found when no .endl follows */
    char secname[256];
    int main;
    int stop;           /* .end / end of the wanted section */
} source;

static nsc_status read_path(reader *rd, const char *path, const nsc_loc *from, const char *section);

void nl_line_pos(const nl_line *ln, size_t off, int *line, int *col)
{
    int lo = 0, hi = ln->nseg - 1;                     /* last seg with seg.off <= off */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (ln->seg[mid].off <= off) lo = mid;
        else hi = mid - 1;
    }
    *line = ln->seg[lo].line;
    *col = ln->seg[lo].col + (int)(off - ln->seg[lo].off);
}

nsc_loc nl_field_loc(const nl_deck *d, const nl_card *c, const nl_field *f)
{
    nsc_loc loc = { d->files[c->file], f->line, f->col };
    return loc;
}

static int add_file(nl_deck *d, const char *name)
{
    if (nsc_grow((void **)&d->files, &d->capfiles, d->nfiles + 1, sizeof *d->files)) return -1;
    if (!(d->files[d->nfiles] = nsc_strdup(name))) return -1;
    return d->nfiles++;
}

/* ---- the logical line being assembled ---- */

static int line_append(reader *rd, const char *s, size_t n, int line, int col)
{
    size_t need = rd->len + n + 2;
    if (need > rd->cap) {
        size_t cap = rd->cap ? rd->cap : 256;
        while (cap < need) cap *= 2;
        char *b = realloc(rd->buf, cap);
        if (!b) return -1;
        rd->buf = b;
        rd->cap = cap;
    }
    if (rd->len) rd->buf[rd->len++] = '\n';
    if (nsc_grow((void **)&rd->seg, &rd->capseg, rd->nseg + 1, sizeof *rd->seg)) return -1;
    rd->seg[rd->nseg].off = rd->len;
    rd->seg[rd->nseg].line = line;
    rd->seg[rd->nseg].col = col;
    rd->nseg++;
    memcpy(rd->buf + rd->len, s, n);
    rd->len += n;
    rd->buf[rd->len] = 0;
    return 0;
}

/* first word of the line in lower case into w[0..cap) (stops at blanks and "(=") */
static size_t first_word(const char *s, size_t n, size_t *k, char *w, size_t cap)
{
    size_t i = 0, m = 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    while (i < n && !isspace((unsigned char)s[i]) && s[i] != '(' && s[i] != '=' && s[i] != ';') {
        if (m + 1 < cap) w[m++] = (char)tolower((unsigned char)s[i]);
        i++;
    }
    w[m] = 0;
    *k = i;
    return m;
}

/* Next argument of .include/.lib at *k: "x", 'x' or a word. Returns its start
 * offset, sets [*a, *a + *an) (without quotes); *an = 0 when there is none. */
static size_t next_arg(const char *s, size_t n, size_t *k, const char **a, size_t *an)
{
    size_t i = *k;
    while (i < n && isspace((unsigned char)s[i])) i++;
    size_t start = i;
    *an = 0;
    *a = s + i;
    if (i >= n || s[i] == ';') { *k = i; return start; }
    if (s[i] == '"' || s[i] == '\'') {
        char q = s[i++];
        size_t b = i;
        while (i < n && s[i] != q && s[i] != '\n') i++;
        *a = s + b;
        *an = i - b;
        if (i < n && s[i] == q) i++;
    } else {
        while (i < n && !isspace((unsigned char)s[i]) && s[i] != ';') i++;
        *an = i - start;
    }
    *k = i;
    return start;
}

static char *join_path(const char *dir, const char *name, size_t n)
{
    if (n > 0 && name[0] == '/') return nsc_strndup(name, n);
    if (!dir[0]) return nsc_strndup(name, n);
    return nsc_asprintf("%s/%.*s", dir, (int)n, name);
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int missing(const char *path)
{
    struct stat sb;
    return stat(path, &sb) != 0 && errno == ENOENT;
}

/* The file name [a, a + an) resolved: relative to dir, else in each directory of
 * the search path in order. Sets *found when a regular file exists there; else
 * returns the name relative to dir (malloc'd), NULL when out of memory. */
static char *resolve(const reader *rd, const char *dir, const char *a, size_t an, int *found)
{
    char *path = join_path(dir, a, an);
    *found = path && is_file(path);
    if (!path || *found || a[0] == '/' || !rd->inc) return path;
    for (int k = 0; k < rd->inc->ndir; k++) {
        if (!rd->inc->dir[k] || !rd->inc->dir[k][0]) continue;
        char *p = join_path(rd->inc->dir[k], a, an);
        if (!p) break;
        if (is_file(p)) {
            free(path);
            *found = 1;
            return p;
        }
        free(p);
    }
    return path;
}

/* Error for an include found nowhere: the name and every directory searched. */
static nsc_status not_found(reader *rd, const nsc_loc *loc, const char *dir, const char *a, size_t an)
{
    size_t n = strlen(dir[0] ? dir : ".") + 1;
    for (int k = 0; rd->inc && k < rd->inc->ndir; k++)
        if (rd->inc->dir[k] && rd->inc->dir[k][0]) n += strlen(rd->inc->dir[k]) + 2;
    char *list = malloc(n);
    if (!list) return nsc_oom(rd->r);
    strcpy(list, dir[0] ? dir : ".");
    for (int k = 0; rd->inc && k < rd->inc->ndir; k++)
        if (rd->inc->dir[k] && rd->inc->dir[k][0]) {
            strcat(list, ", ");
            strcat(list, rd->inc->dir[k]);
        }
    nsc_status st = nsc_err(rd->r, NSC_ENETLIST, loc, "cannot open include file '%.*s': not found in %s", (int)an, a, list);
    free(list);
    return st;
}

static nsc_status include(reader *rd, source *src, const nl_line *ln, const char *head, size_t k, int lib)
{
    const char *a, *sec;
    size_t an, secn;
    size_t at = next_arg(ln->text, ln->len, &k, &a, &an);
    nsc_loc loc = { rd->d->files[src->file], 0, 0 };
    nl_line_pos(ln, at, &loc.line, &loc.col);
    if (an == 0) return nsc_err(rd->r, NSC_ENETLIST, &loc, "missing file name after %s", head);
    next_arg(ln->text, ln->len, &k, &sec, &secn);
    int found;
    char *path = resolve(rd, src->dir, a, an, &found);
    if (!path) return nsc_oom(rd->r);
    nsc_status st;
    if (lib && secn == 0) {
        /* `.lib name`: LTspice's include of a whole file when name is one, else a
         * section definition, skipped up to its .endl; a name that can only be
         * a file (quoted, with '.' or '/') or a "section" that no .endl closes
         * is a library file not found (read_text) */
        int quoted = ln->text[at] == '"' || ln->text[at] == '\'';
        if (found) st = read_path(rd, path, &loc, NULL);
        else if (quoted || memchr(a, '.', an) || memchr(a, '/', an) || an >= sizeof src->secname)
            st = missing(path) ? not_found(rd, &loc, src->dir, a, an) : read_path(rd, path, &loc, NULL);
        else {
            src->skipsec = 1;
            src->secloc = loc;
            memcpy(src->secname, a, an);
            src->secname[an] = 0;
            st = NSC_OK;
        }
    } else if (!found && missing(path))
        st = not_found(rd, &loc, src->dir, a, an);
    else if (lib) {
        char *s = nsc_strndup(sec, secn);
        st = s ? read_path(rd, path, &loc, nsc_strlower(s)) : nsc_oom(rd->r);
        free(s);
    } else
        st = read_path(rd, path, &loc, NULL);
    free(path);
    return st;
}

/* A line of a .control block: the card ".ctl COMMAND ARGS..." (nl_dot.c
 * card_ctl runs what it knows and names the others), parsed as a card; a line
 * the card syntax cannot read (shell-like control syntax) becomes ".ctl ?
 * COMMAND", a command not run, and is never an error. k: the first word's end. */
static nsc_status control_line(reader *rd, source *src, const nl_line *ln, size_t k)
{
    size_t k0 = 0;
    while (k0 < ln->len && (ln->text[k0] == ' ' || ln->text[k0] == '\t')) k0++;
    if (k0 >= ln->len || ln->text[k0] == '*' || ln->text[k0] == '#') return NSC_OK;   /* blank, comment */
    nl_deck *d = rd->d;
    if (d->ncard >= NL_MAXCARDS || nsc_grow((void **)&d->card, &d->capcard, d->ncard + 1, sizeof *d->card))
        return nsc_oom(rd->r);
    static const char pre[] = ".ctl ";
    size_t n = sizeof pre - 1 + ln->len - k0;
    char *t = nl_alloc(&d->arena, n + 1);
    if (!t) return nsc_oom(rd->r);
    memcpy(t, pre, sizeof pre - 1);
    memcpy(t + sizeof pre - 1, ln->text + k0, ln->len - k0);
    t[n] = 0;
    /* one segment: offset o of t is column col0 + k0 - 5 + o of the line */
    nl_seg sg = { 0, ln->seg[0].line, ln->seg[0].col + (int)k0 - (int)(sizeof pre - 1) };
    nl_line cl = { t, n, ln->file, &sg, 1 };
    nl_card *c = &d->card[d->ncard];
    nsc_report scratch, *keep = rd->p.r;
    nsc_report_init(&scratch);
    rd->p.r = &scratch;
    int bad = ln->nseg != 1 || nl_parse_line(&rd->p, &cl, c) != NSC_OK || c->nf < 2 || c->f[0].kind != NL_F_WORD
              || c->f[1].kind != NL_F_WORD;                   /* "=k|": the pair .ctl=k, then "|" */
    rd->p.r = keep;
    int oom = scratch.status == NSC_ENOMEM;
    nsc_report_free(&scratch);
    if (oom) return nsc_oom(rd->r);
    if (bad) {                                         /* ".ctl ? word": named as not run */
        size_t wl = k > k0 ? k - k0 : 0;
        nl_field *f = nl_alloc(&d->arena, 3 * sizeof *f);
        char *q = nl_alloc(&d->arena, 2), *wd = nl_alloc(&d->arena, wl + 1);
        if (!f || !q || !wd) return nsc_oom(rd->r);
        strcpy(q, "?");
        memcpy(wd, ln->text + k0, wl);
        wd[wl] = 0;
        int line = ln->seg[0].line, col = ln->seg[0].col + (int)k0;
        f[0] = (nl_field){ NL_F_WORD, line, col, 0, { ".ctl" }, NULL };
        f[1] = (nl_field){ NL_F_WORD, line, col, 0, { q }, NULL };
        f[2] = (nl_field){ NL_F_WORD, line, col, 0, { wd }, NULL };
        *c = (nl_card){ f, 3, src->file };
    }
    d->ncard++;
    return NSC_OK;
}

/* One logical line of file src. */
static nsc_status logical_line(reader *rd, source *src)
{
    nl_line ln = { rd->buf, rd->len, src->file, rd->seg, rd->nseg };
    char w[16];
    size_t k;
    first_word(ln.text, ln.len, &k, w, sizeof w);
    if (src->control) {
        if (!strcmp(w, ".endc")) src->control = 0;
        else return control_line(rd, src, &ln, k);
        return NSC_OK;
    }
    if (src->skipsec) {
        if (!strcmp(w, ".endl")) src->skipsec = 0;
        return NSC_OK;
    }
    if (src->section && !src->insec) {                 /* looking for `.lib section` */
        if (!strcmp(w, ".lib")) {
            const char *a;
            size_t an;
            next_arg(ln.text, ln.len, &k, &a, &an);
            size_t k2 = k;
            const char *b;
            size_t bn;
            next_arg(ln.text, ln.len, &k2, &b, &bn);
            if (bn == 0 && an == strlen(src->section) && !strncasecmp(a, src->section, an))
                src->insec = src->found = 1;
        }
        return NSC_OK;
    }
    if (!strcmp(w, ".endl")) {
        if (src->insec) src->stop = 1;
        return NSC_OK;
    }
    if (!strcmp(w, ".control")) { src->control = 1; return NSC_OK; }
    if (!strcmp(w, ".endc")) return NSC_OK;
    if (!strcmp(w, ".end")) {
        src->stop = 1;
        if (src->main) rd->ended = 1;
        return NSC_OK;
    }
    if (!strcmp(w, ".include") || !strcmp(w, ".inc")) return include(rd, src, &ln, w, k, 0);
    if (!strcmp(w, ".lib")) return include(rd, src, &ln, w, k, 1);

    nl_deck *d = rd->d;
    if (d->ncard >= NL_MAXCARDS) {
        nsc_loc loc = { d->files[src->file], ln.seg[0].line, 1 };
        return nsc_err(rd->r, NSC_ENETLIST, &loc, "netlist too large: more than %d cards", NL_MAXCARDS);
    }
    if (nsc_grow((void **)&d->card, &d->capcard, d->ncard + 1, sizeof *d->card))
        return nsc_oom(rd->r);
    nl_card *c = &d->card[d->ncard];
    if (nl_parse_line(&rd->p, &ln, c)) return rd->r->status;
    if (c->nf == 0) return NSC_OK;
    if (c->f[0].kind != NL_F_WORD) {
        nsc_loc loc = nl_field_loc(d, c, &c->f[0]);
        return nsc_err(rd->r, NSC_ENETLIST, &loc, "expected an element or dot card name at the start of the line");
    }
    d->ncard++;
    return NSC_OK;
}

/* Split text into physical lines, assemble logical lines and process them. */
static nsc_status read_text(reader *rd, source *src, const char *text, size_t n)
{
    size_t i = 0;
    int lineno = 0;
    rd->len = 0;
    rd->nseg = 0;
    while (i < n && !src->stop && !rd->ended) {
        size_t b = i;
        while (i < n && text[i] != '\n') i++;
        size_t e = i;
        if (i < n) i++;                                /* past '\n' */
        if (e > b && text[e - 1] == '\r') e--;
        lineno++;
        if (lineno == 1 && src->main) {                /* the title */
            if (!(rd->d->title = nsc_strndup(text + b, e - b)))
                return nsc_oom(rd->r);
            continue;
        }
        size_t f = b;
        while (f < e && (text[f] == ' ' || text[f] == '\t')) f++;
        if (f == e || text[f] == '*') continue;        /* blank or comment line */
        if (text[f] == '+') {
            if (rd->nseg == 0) {
                nsc_loc loc = { rd->d->files[src->file], lineno, (int)(f - b) + 1 };
                return nsc_err(rd->r, NSC_ENETLIST, &loc, "continuation line '+' without a card before it");
            }
            if (line_append(rd, text + f + 1, e - f - 1, lineno, (int)(f - b) + 2))
                return nsc_oom(rd->r);
            continue;
        }
        if (rd->nseg > 0) {
            if (logical_line(rd, src)) return rd->r->status;
            rd->len = 0;
            rd->nseg = 0;
        }
        if (src->stop || rd->ended) break;
        if (line_append(rd, text + b, e - b, lineno, 1)) return nsc_oom(rd->r);
    }
    if (rd->nseg > 0 && !src->stop && !rd->ended && logical_line(rd, src)) return rd->r->status;
    rd->len = 0;
    rd->nseg = 0;
    if (src->skipsec)                                  /* `.lib NAME` without .endl: NAME was a file */
        return not_found(rd, &src->secloc, src->dir, src->secname, strlen(src->secname));
    return NSC_OK;
}

static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s) return nsc_strdup("");
    if (s == path) return nsc_strdup("/");
    return nsc_strndup(path, (size_t)(s - path));
}

/* Whole file into *buf (malloc'd), 0 or errno (EFBIG: more than max bytes). */
static int slurp(const char *path, size_t max, char **buf, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return errno ? errno : EIO;
    size_t cap = 65536, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b) { fclose(fp); return ENOMEM; }
        len += fread(b + len, 1, cap - len, fp);
        if (len > max) { fclose(fp); free(b); return EFBIG; }
        if (len < cap) break;
        char *nb = cap > ((size_t)-1) / 2 ? NULL : realloc(b, cap * 2);
        if (!nb) free(b);
        b = nb;
        cap *= 2;
    }
    int err = ferror(fp) ? EIO : 0;
    fclose(fp);
    if (err) { free(b); return err; }
    *buf = b;
    *n = len;
    return 0;
}

/* Read the file at path: the main file when from == NULL, else an include
 * (from = position of the file name). The logical line being assembled by the
 * including file is already processed, so rd->buf is free. */
static nsc_status read_path(reader *rd, const char *path, const nsc_loc *from, const char *section)
{
    struct stat sb;
    int err = stat(path, &sb) ? errno : 0;
    if (!err && S_ISDIR(sb.st_mode)) err = EISDIR;
    if (err) {
        if (!from) return nsc_err(rd->r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(err));
        return nsc_err(rd->r, NSC_ENETLIST, from, "cannot open include file '%s': %s", path, strerror(err));
    }
    if (from && !S_ISREG(sb.st_mode))                  /* not /dev/zero, a FIFO, ... */
        return nsc_err(rd->r, NSC_ENETLIST, from, "cannot open include file '%s': not a regular file", path);
    for (int k = 0; k < rd->nopen; k++)                /* same file and section already open */
        if (rd->open[k].dev == sb.st_dev && rd->open[k].ino == sb.st_ino &&
            (rd->open[k].section == section || (rd->open[k].section && section && !strcmp(rd->open[k].section, section))))
            return nsc_err(rd->r, NSC_ENETLIST, from, "recursive include of '%s'", path);
    if (rd->nopen == NL_MAXINCLUDE)
        return nsc_err(rd->r, NSC_ENETLIST, from, "includes nested deeper than %d files", NL_MAXINCLUDE);
    if (++rd->nread > NL_MAXREADS)
        return nsc_err(rd->r, NSC_ENETLIST, from, "netlist too large: more than %d file reads (each .include/.lib counted every time it is read)", NL_MAXREADS);
    char *text = NULL;
    size_t n = 0;
    if ((err = slurp(path, NL_MAXBYTES - rd->bytes, &text, &n))) {
        if (err == ENOMEM) return nsc_oom(rd->r);
        if (err == EFBIG)
            return nsc_err(rd->r, NSC_ENETLIST, from, "netlist too large: more than %zu MiB of text%s",
                           NL_MAXBYTES >> 20, from ? " (with every include, counted each time it is read)" : "");
        if (!from) return nsc_err(rd->r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(err));
        return nsc_err(rd->r, NSC_ENETLIST, from, "cannot open include file '%s': %s", path, strerror(err));
    }
    rd->bytes += n;
    source src = { 0 };
    char *dir = dir_of(path);
    src.file = add_file(rd->d, path);
    if (!dir || src.file < 0) {
        free(text);
        free(dir);
        return nsc_oom(rd->r);
    }
    src.dir = dir;
    src.section = section;
    src.main = from == NULL;
    rd->open[rd->nopen].dev = sb.st_dev;
    rd->open[rd->nopen].ino = sb.st_ino;
    rd->open[rd->nopen].section = section;
    rd->nopen++;
    nsc_status st = read_text(rd, &src, text, n);
    rd->nopen--;
    if (!st && section && !src.found)
        st = nsc_err(rd->r, NSC_ENETLIST, from, "no section '%s' in library '%s'", section, path);
    free(text);
    free(dir);
    return st;
}

static nsc_status reader_init(reader *rd, nl_deck *d, const nsc_search_path *inc, nsc_report *r)
{
    memset(rd, 0, sizeof *rd);
    rd->d = d;
    rd->inc = inc;
    rd->r = r;
    rd->p.deck = d;
    rd->p.r = r;
    if (nl_lex_init(&rd->p)) return nsc_oom(r);
    return NSC_OK;
}

static void reader_free(reader *rd)
{
    nl_lex_destroy(&rd->p);
    free(rd->p.stk);
    free(rd->buf);
    free(rd->seg);
}

nsc_status nl_deck_read_file(nl_deck *d, const char *path, const nsc_search_path *inc, nsc_report *r)
{
    reader rd;
    nsc_status st = reader_init(&rd, d, inc, r);
    if (!st) st = read_path(&rd, path, NULL, NULL);
    reader_free(&rd);
    return st;
}

nsc_status nl_deck_read_string(nl_deck *d, const char *text, const char *name, const nsc_search_path *inc,
                               nsc_report *r)
{
    reader rd;
    nsc_status st = reader_init(&rd, d, inc, r);
    source src = { 0 };
    src.dir = "";
    src.main = 1;
    if (!st && (src.file = add_file(d, name ? name : "<string>")) < 0)
        st = nsc_oom(r);
    size_t n = strlen(text);
    if (!st && n > NL_MAXBYTES)
        st = nsc_err(r, NSC_ENETLIST, NULL, "netlist too large: more than %zu MiB of text", NL_MAXBYTES >> 20);
    if (!st) st = read_text(&rd, &src, text, n);
    reader_free(&rd);
    return st;
}

void nl_deck_free(nl_deck *d)
{
    nl_arena_free(&d->arena);
    free(d->title);
    for (int k = 0; k < d->nfiles; k++) free(d->files[k]);
    free(d->files);
    free(d->card);
    memset(d, 0, sizeof *d);
}
