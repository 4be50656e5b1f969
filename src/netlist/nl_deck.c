/* nl_deck.c -- netlist files -> logical lines -> cards (see nl_deck.h).
 *
 * Physical lines: the first line of the main file is the title; `*` lines and
 * blank lines are dropped; a line starting with `+` continues the previous card
 * (comment lines may sit in between), and so does a line holding only `)`
 * (PSpice, warned); a Ctrl-Z ending a file is dropped. Each logical line is
 * either handled here (.include/.inc, .lib/.endl, .control/.endc, .end,
 * .title) or parsed by nl_parse_line into an nl_card; the analyses other than
 * the transient are kept as their head word alone, and a card of a .subckt
 * body or a .model card that does not parse is kept with its message
 * (deferred_card), an error only where it is used. Every card read is checked
 * for unit slips (1M on R L C, 1kk: warnings). Included files are read
 * recursively; a file already open (same device and inode) is a recursive
 * include, unless both are different .lib sections of it (corner libraries
 * include sections of themselves). */
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
    struct {
        dev_t dev;
        ino_t ino;
        const char *section;
    } open[NL_MAXINCLUDE]; /* files being read */
    int nopen;
    int ended;    /* .end seen in the main file */
    int subdepth; /* .subckt definitions open (a card inside one may wait unparsed) */
    size_t bytes; /* text read so far, every file (<= NL_MAXBYTES) */
    int nread;    /* files read so far (<= NL_MAXREADS) */
    char *buf;    /* current logical line */
    size_t len, cap;
    nl_seg *seg;
    int nseg, capseg;
} reader;

/* Per-file reading state. */
typedef struct source {
    int file;            /* index in d->files */
    const char *dir;     /* directory of the file ("" = current) */
    const char *section; /* .lib section to extract, or NULL for the whole file */
    int insec;           /* inside the wanted section */
    int found;           /* the wanted section was seen */
    int control;         /* inside .control ... .endc */
    int skipsec;         /* inside a .lib section definition not asked for */
    nsc_loc secloc;      /* its `.lib NAME` card: a file not found when no .endl follows */
    char secname[256];
    int main;
    int stop; /* .end / end of the wanted section */
} source;

static nsc_status read_path(reader *rd, const char *path, const nsc_loc *from, const char *section);
static void unit_pitfalls(reader *rd, const nl_line *ln, const nl_card *c);

void nl_line_pos(const nl_line *ln, size_t off, int *line, int *col)
{
    int lo = 0, hi = ln->nseg - 1; /* last seg with seg.off <= off */
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
    if (i >= n || s[i] == ';') {
        *k = i;
        return start;
    }
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
static nsc_status not_found(reader *rd, const nsc_loc *loc, const char *dir, const char *a,
                            size_t an)
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
    nsc_status st = nsc_err(rd->r, NSC_ENETLIST, loc,
                            "cannot open include file '%.*s': not found in %s", (int)an, a, list);
    free(list);
    return st;
}

static nsc_status include(reader *rd, source *src, const nl_line *ln, const char *head, size_t k,
                          int lib)
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
            st = missing(path) ? not_found(rd, &loc, src->dir, a, an)
                               : read_path(rd, path, &loc, NULL);
        else {
            src->skipsec = 1;
            src->secloc = loc;
            memcpy(src->secname, a, an);
            src->secname[an] = 0;
            st = NSC_OK;
        }
    } else if (!found && missing(path)) st = not_found(rd, &loc, src->dir, a, an);
    else if (lib) {
        char *s = nsc_strndup(sec, secn);
        st = s ? read_path(rd, path, &loc, nsc_strlower(s)) : nsc_oom(rd->r);
        free(s);
    } else st = read_path(rd, path, &loc, NULL);
    free(path);
    return st;
}

/* The file name of a .control wrdata / write (f, a word the scanner lower-cased)
 * as written: offset o of t is column col0 + o; ngspice keeps the case. */
static nsc_status ctl_keep_case(nl_deck *d, nl_field *f, const char *t, size_t n, int col0)
{
    size_t len = strlen(f->u.s), o = (size_t)(f->col - col0);
    if (f->col < col0 || o + len > n || strncasecmp(t + o, f->u.s, len)) return NSC_OK;
    char *s = nl_alloc(&d->arena, len + 1);
    if (!s) return NSC_ENOMEM;
    memcpy(s, t + o, len);
    s[len] = 0;
    f->u.s = s;
    return NSC_OK;
}

/* A file name written in single quotes (`wrdata 'out.txt' v(a)`, `print v(a) >
 * 'out.txt'`): the scanner read an expression; ngspice takes the text between
 * the quotes, so f becomes that STRING. Offset o of t is column col0 + o. */
static nsc_status ctl_unquote(nl_deck *d, nl_field *f, const char *t, size_t n, int col0)
{
    size_t o = (size_t)(f->col - col0);
    if (f->kind != NL_F_EXPR || f->col < col0 || o >= n || t[o] != '\'') return NSC_OK;
    const char *e = memchr(t + o + 1, '\'', n - o - 1);
    if (!e) return NSC_OK;
    size_t len = (size_t)(e - (t + o + 1));
    char *s = nl_alloc(&d->arena, len + 1);
    if (!s) return NSC_ENOMEM;
    memcpy(s, t + o + 1, len);
    s[len] = 0;
    f->kind = NL_F_STRING;
    f->u.s = s;
    f->nsub = 0;
    return NSC_OK;
}

/* The file name field of .control card c (text t[n], column col0 at offset 0):
 * wrdata's and write's first argument, print's after a lone `>` or `>>`, with
 * the case and the single quotes of its text resolved (ctl_keep_case,
 * ctl_unquote). */
static nsc_status ctl_file_name(nl_deck *d, nl_card *c, const char *t, size_t n, int col0)
{
    int at = 0;
    if (nsc_strieq(c->f[1].u.s, "wrdata") || nsc_strieq(c->f[1].u.s, "write")) at = 2;
    else if (nsc_strieq(c->f[1].u.s, "print"))
        for (int i = 2; i + 1 < c->nf && !at; i++)
            if (c->f[i].kind == NL_F_WORD
                && (!strcmp(c->f[i].u.s, ">") || !strcmp(c->f[i].u.s, ">>")))
                at = i + 1;
    if (!at || at >= c->nf) return NSC_OK;
    nl_field *f = &c->f[at];
    if (f->kind == NL_F_WORD) return ctl_keep_case(d, f, t, n, col0);
    return ctl_unquote(d, f, t, n, col0);
}

/* A quoted file name of a .control output (ctl_quoted): its offset in the
 * card's text (-1: none), the name as ngspice 39 opens it, whether a quote is
 * left open (then the name takes the rest of the line) and the command. */
typedef struct {
    int at, open, print;
    char *name;
} ctl_qname;

/* ngspice's control-language word [s, e) of t: '...' taken literally without
 * its quotes, "..." literally with them (cp_lexer); into w (room e - s + 1). */
static void ctl_word(const char *t, size_t s, size_t e, char *w)
{
    size_t m = 0;
    for (int qc = 0; s < e; s++) {
        if (qc ? t[s] == qc : t[s] == '\'' || t[s] == '"') {
            qc = qc ? 0 : t[s];
            if (t[s] == '\'') continue;
        }
        w[m++] = t[s];
    }
    w[m] = 0;
}

/* The file name of `wrdata FILE`, `write FILE` or `print ... > FILE` in the
 * card text t (".ctl COMMAND ..."), where it holds a quote, read as ngspice 39
 * reads it: single quotes removed, double quotes kept by wrdata and write
 * (their file is named with them: `wrdata "a b.txt"` writes `"a b.txt"`)
 * and removed by print's redirection when they enclose the word; a quote not
 * closed runs to the line's end. Its span in t becomes x's (the card grammar
 * reads one word there: put back after the parse); q->at = -1 where there is
 * no such name. 1 when out of memory. */
static int ctl_quoted(nl_deck *d, char *t, size_t n, ctl_qname *q)
{
    size_t i = 5, s, e;
    memset(q, 0, sizeof *q);
    q->at = -1;
    while (i < n && !isspace((unsigned char)t[i])) i++;
    q->print = i - 5 == 5 && !strncasecmp(t + 5, "print", 5);
    if (!q->print && !(i - 5 == 6 && !strncasecmp(t + 5, "wrdata", 6))
        && !(i - 5 == 5 && !strncasecmp(t + 5, "write", 5)))
        return 0;
    for (int qc = 0; q->print && i < n && (qc || t[i] != '>'); i++)
        qc = qc ? (t[i] == qc ? 0 : qc) : t[i] == '\'' || t[i] == '"' ? t[i] : 0;
    if (q->print && i >= n) return 0;
    i += q->print ? (i + 1 < n && t[i + 1] == '>') + 1 : 0; /* past `>` or `>>` */
    while (i < n && isspace((unsigned char)t[i])) i++;
    int qc = 0, has = 0;
    for (s = e = i; e < n && (qc || !isspace((unsigned char)t[e])); e++)
        if (qc ? t[e] == qc : t[e] == '\'' || t[e] == '"') qc = qc ? 0 : t[e], has = 1;
    if (!has) return 0;
    if (!(q->name = nl_alloc(&d->arena, e - s + 1))) return 1;
    ctl_word(t, s, e, q->name);
    size_t len = strlen(q->name);
    if (q->print && len >= 2 && q->name[0] == '"' && q->name[len - 1] == '"')
        memmove(q->name, q->name + 1, len - 2), q->name[len - 2] = 0;
    q->open = qc != 0;
    memset(t + s, 'x', e - s);
    int glued = t[s - 1] == '>'; /* `>'a b'`: `> x...` */
    if (glued) t[s] = ' ';
    q->at = glued && e - s == 1 ? -1 : (int)(s + (size_t)glued);
    return 0;
}

/* A name for a message: bytes that are not printable as '?'. */
static const char *ctl_shown(nl_deck *d, const char *name)
{
    char *v = nl_alloc(&d->arena, strlen(name) + 1);
    if (!v) return "?";
    size_t k = 0;
    for (; name[k]; k++) v[k] = isprint((unsigned char)name[k]) ? name[k] : '?';
    v[k] = 0;
    return v;
}

/* After the parse: the quoted name (ctl_quoted) into its field, as a STRING,
 * with a warning where ngspice's reading surprises; 1 when the command is not
 * run (wrdata's vectors taken by an open quote, an empty wrdata/write name:
 * ngspice's "too few args"). */
static int ctl_put_name(reader *rd, nl_card *c, const ctl_qname *q, int file, const nl_seg *sg)
{
    nl_deck *d = rd->d;
    int wr = nsc_strieq(c->f[1].u.s, "wrdata"), col = sg->col + q->at;
    nsc_loc loc = { d->files[file], sg->line, col };
    const char *cmd = q->print ? "print" : wr ? "wrdata" : "write", *v = ctl_shown(d, q->name);
    if (!q->print && (!q->name[0] || (q->open && wr))) {
        nsc_warn(rd->r, &loc, "%s: %s (not run, as ngspice 39: too few arguments)", cmd,
                 q->name[0] ? "a quote not closed takes the vectors into the file name"
                            : "an empty file name");
        return 1;
    }
    for (int i = 2; i < c->nf; i++)
        if (c->f[i].col == col && c->f[i].line == sg->line) {
            c->f[i].kind = NL_F_STRING;
            c->f[i].u.s = q->name;
            c->f[i].nsub = 0;
        }
    if (q->open && q->name[0])
        nsc_warn(rd->r, &loc, "%s: a quote not closed: the file name is '%s' (as ngspice 39)", cmd,
                 v);
    else if (!q->print && strchr(q->name, '"'))
        nsc_warn(rd->r, &loc,
                 "%s: the file name '%s' keeps its double quotes (as ngspice 39's %s; single "
                 "quotes are removed)",
                 cmd, v, cmd);
    return 0;
}

/* A line of a .control block: the card ".ctl COMMAND ARGS..." (nl_dot.c
 * card_ctl runs what it knows and names the others), parsed as a card; a line
 * the card syntax cannot read (shell-like control syntax) becomes ".ctl ?
 * COMMAND", a command not run, and is never an error. k: the first word's end. */
static nsc_status control_line(reader *rd, source *src, const nl_line *ln, size_t k)
{
    size_t k0 = 0;
    while (k0 < ln->len && (ln->text[k0] == ' ' || ln->text[k0] == '\t')) k0++;
    if (k0 >= ln->len || ln->text[k0] == '*' || ln->text[k0] == '#')
        return NSC_OK; /* blank, comment */
    nl_deck *d = rd->d;
    if (d->ncard >= NL_MAXCARDS
        || nsc_grow((void **)&d->card, &d->capcard, d->ncard + 1, sizeof *d->card))
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
    ctl_qname q;
    if (ctl_quoted(d, t, n, &q)) return nsc_oom(rd->r);
    nl_card *c = &d->card[d->ncard];
    nsc_report scratch, *keep = rd->p.r;
    nsc_report_init(&scratch);
    rd->p.r = &scratch;
    int bad = ln->nseg != 1 || nl_parse_line(&rd->p, &cl, c) != NSC_OK || c->nf < 2
              || c->f[0].kind != NL_F_WORD
              || c->f[1].kind != NL_F_WORD; /* "=k|": the pair .ctl=k, then "|" */
    rd->p.r = keep;
    int oom = scratch.status == NSC_ENOMEM;
    nsc_report_free(&scratch);
    if (oom) return nsc_oom(rd->r);
    if (!bad && q.name && ctl_put_name(rd, c, &q, ln->file, &sg)) return NSC_OK; /* dropped */
    if (!bad && c->nf >= 3 && ctl_file_name(d, c, t, n, sg.col)) return nsc_oom(rd->r);
    if (bad) { /* ".ctl ? word": named as not run */
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

/* ---- cards read without the card grammar ---- */

/* `.title TEXT`: the title is the rest of the line as written (ngspice: it
 * replaces the first line), commas, quotes and all. k: the first word's end. */
static nsc_status title_card(reader *rd, const nl_line *ln, size_t k)
{
    size_t b = k, e = ln->len;
    while (b < e && isspace((unsigned char)ln->text[b])) b++;
    while (e > b && isspace((unsigned char)ln->text[e - 1])) e--;
    char *t = nsc_strndup(ln->text + b, e - b);
    if (!t) return nsc_oom(rd->r);
    for (char *q = t; *q; q++)
        if (*q == '\n') *q = ' '; /* continuation lines joined by blanks */
    free(rd->d->title);
    rd->d->title = t;
    return NSC_OK;
}

/* Analyses other than the transient (nl_dot.c skips them with a warning): read
 * unparsed, since their arguments are another simulator's syntax (Xyce's
 * `.sens param=mod1:is`). */
static int skipped_analysis(const char *w)
{
    static const char *const an[] = {
        ".tf", ".noise", ".disto", ".pz", ".sens", ".sp", ".hb", ".backanno"
    }; /* (.ac .dc .four run) */
    for (size_t k = 0; k < sizeof an / sizeof an[0]; k++)
        if (!strcmp(w, an[k])) return 1;
    return 0;
}

/* *c = the card holding only its head word w (lower case) at the line's first
 * word; -1 out of memory. */
static int head_card(reader *rd, const nl_line *ln, nl_card *c, const char *w)
{
    nl_deck *d = rd->d;
    size_t i = 0;
    while (i < ln->len && isspace((unsigned char)ln->text[i])) i++;
    nl_field *f = nl_alloc(&d->arena, sizeof *f);
    char *h = nl_strndup(&d->arena, w, strlen(w), 1);
    if (!f || !h) return -1;
    *f = (nl_field){ NL_F_WORD, 0, 0, 0, { h }, NULL };
    nl_line_pos(ln, i, &f->line, &f->col);
    *c = (nl_card){ f, 1, ln->file };
    return 0;
}

/* Card c parsed from ln with the errors kept aside: NSC_OK; NSC_ENOMEM
 * (reported); else NSC_ENETLIST with *msg (the message without its
 * "FILE:LINE:COL: error: ", in the deck's arena) at *line, *col. */
static nsc_status parse_soft(reader *rd, const nl_line *ln, nl_card *c, const char **msg, int *line,
                             int *col)
{
    nl_deck *d = rd->d;
    nsc_report scratch, *keep = rd->p.r;
    nsc_report_init(&scratch);
    rd->p.r = &scratch;
    nsc_status st = nl_parse_line(&rd->p, ln, c);
    rd->p.r = keep;
    if (!st && c->nf > 0 && c->f[0].kind != NL_F_WORD) {
        nsc_loc loc = nl_field_loc(d, c, &c->f[0]);
        st = nsc_err(&scratch, NSC_ENETLIST, &loc,
                     "expected an element or dot card name at the start of the line");
    }
    if (st && st != NSC_ENOMEM && scratch.error) { /* "FILE:LINE:COL: error: MESSAGE" */
        const char *m = strstr(scratch.error, ": error: "), *q = m;
        int n = 0;
        *line = ln->seg[0].line;
        *col = 1;
        while (q && q > scratch.error && n < 2) /* back over ":COL" and ":LINE" */
            if (*--q == ':') n++;
        if (m && n == 2) sscanf(q, ":%d:%d", line, col);
        if (!m || !(*msg = nl_strndup(&d->arena, m + 9, strlen(m + 9), 0))) st = NSC_ENOMEM;
    } else if (st) st = NSC_ENOMEM;
    nsc_report_free(&scratch);
    return st == NSC_ENOMEM ? nsc_oom(rd->r) : st;
}

/* A card read softly (soft_card) that does not parse, kept for later: a
 * `.model NAME ...` as the card ".model NAME MESSAGE TEXT" (MESSAGE a STRING at
 * the error: nl_model.c makes it an error only for an element that uses the
 * model; TEXT the whole line, read by devices/cards_xspice.c (through the card view) for XSPICE's core with its
 * [ ] vectors); inside a .subckt any other card as ".(unparsed) MESSAGE" (an error
 * once an instance is elaborated, nl_dot.c). 0, or -1 out of memory. */
static int deferred_card(reader *rd, const nl_line *ln, nl_card *c, int model, const char *msg,
                         int line, int col)
{
    nl_deck *d = rd->d;
    size_t i = 0, b, e;
    while (i < ln->len && isspace((unsigned char)ln->text[i])) i++;
    size_t h = i;
    while (i < ln->len && !isspace((unsigned char)ln->text[i])) i++;
    while (i < ln->len && isspace((unsigned char)ln->text[i])) i++;
    for (b = e = i;
         e < ln->len && !isspace((unsigned char)ln->text[e]) && !strchr("(),={}'\";", ln->text[e]);
         e++) {}
    model = model && e > b; /* a .model without its name: as any other card */
    nl_field *f = nl_alloc(&d->arena, 4 * sizeof *f);
    char *name = model ? nl_strndup(&d->arena, ln->text + b, e - b, 1) : NULL;
    char *text = model ? nl_strndup(&d->arena, ln->text, ln->len, 0) : NULL;
    if (!f || (model && (!name || !text))) return -1;
    int l0, c0;
    nl_line_pos(ln, h, &l0, &c0);
    f[0] = (nl_field){ NL_F_WORD, l0, c0, 0, { model ? ".model" : ".(unparsed)" }, NULL };
    if (model) {
        f[1] = (nl_field){ NL_F_WORD, 0, 0, 0, { name }, NULL };
        nl_line_pos(ln, b, &f[1].line, &f[1].col);
    }
    f[1 + model] = (nl_field){ NL_F_STRING, line, col, 0, { msg }, NULL };
    if (model)
        f[3] = (nl_field){
            NL_F_STRING, l0, c0, 0, { text }, NULL
        }; /* its text (devices/cards_xspice.c: core) */
    *c = (nl_card){ f, 2 + 2 * model, ln->file };
    d->ncard++;
    return 0;
}

/* A copy of line ln (in the deck's arena) whose lone '+' tokens (blank or the
 * line's end on both sides, outside quotes, braces and inner parentheses: a
 * vendor card's stray continuation mark, "VTO=1 + KP=2u") are blanks, at the
 * same positions; NULL when it has none (or out of memory: *oom). */
static const char *without_lone_plus(nl_deck *d, const nl_line *ln, int *oom, size_t *first)
{
    char *t = NULL;
    int depth = 0, quote = 0;
    for (size_t i = 0; i < ln->len; i++) {
        char ch = ln->text[i];
        if (quote) {
            quote = ch == quote ? 0 : quote;
            continue;
        }
        if (ch == '\'' || ch == '"') quote = ch;
        else if (ch == '(' || ch == '{') depth += ch == '(' ? 1 : 2;
        else if (ch == ')' || ch == '}') depth -= ch == ')' ? 1 : 2;
        else if (ch == '+' && depth <= 1 && (i == 0 || isspace((unsigned char)ln->text[i - 1]))
                 && (i + 1 == ln->len || isspace((unsigned char)ln->text[i + 1]))) {
            if (!t && !(t = nl_strndup(&d->arena, ln->text, ln->len, 0))) {
                *oom = 1;
                return NULL;
            }
            if (t[i] == '+' && *first == 0) *first = i;
            t[i] = ' ';
        }
    }
    return t;
}

/* A .model card that does not parse, read again without its lone '+' tokens
 * (ngspice: "unrecognized parameter (+) - ignored"): NSC_OK with a warning at
 * the first one when that parses; NSC_ENETLIST when it has none or still does
 * not parse (the first reading's message stands); NSC_ENOMEM. */
static nsc_status model_without_plus(reader *rd, const nl_line *ln, nl_card *c)
{
    int oom = 0, line, col;
    size_t at = 0;
    const char *t = without_lone_plus(rd->d, ln, &oom, &at), *msg = NULL;
    if (oom) return nsc_oom(rd->r);
    if (!t) return NSC_ENETLIST;
    nl_line l2 = *ln;
    l2.text = t;
    nsc_status st = parse_soft(rd, &l2, c, &msg, &line, &col);
    if (st) return st == NSC_ENOMEM ? st : NSC_ENETLIST;
    nl_line_pos(ln, at, &line, &col);
    nsc_loc loc = { rd->d->files[ln->file], line, col };
    nsc_warn(rd->r, &loc, "a lone '+' inside a .model card is ignored (as ngspice does)");
    return NSC_OK;
}

/* A card inside a .subckt definition, or a .model card anywhere: parsed, and
 * when it does not parse (another simulator's syntax in a vendor library:
 * XSPICE's [ ] vectors, a continuation line without its '+') kept unparsed
 * (deferred_card): ngspice never expands a subcircuit nobody instances, nor
 * reads a model nobody uses (issue 28 item 5). At the top level a card other
 * than .model is an error at once. */
static nsc_status soft_card(reader *rd, const nl_line *ln, nl_card *c, int model)
{
    const char *msg = NULL;
    int line = 0, col = 0;
    nsc_status st = parse_soft(rd, ln, c, &msg, &line, &col);
    if (st == NSC_OK) {
        if (c->nf > 0) unit_pitfalls(rd, ln, c), rd->d->ncard++;
        return NSC_OK;
    }
    if (st == NSC_ENOMEM) return st;
    if (model && (st = model_without_plus(rd, ln, c)) != NSC_ENETLIST) {
        if (st == NSC_OK && c->nf > 0) unit_pitfalls(rd, ln, c), rd->d->ncard++;
        return st;
    }
    if (rd->subdepth == 0 && !model) {
        nsc_loc loc = { rd->d->files[ln->file], line, col };
        return nsc_err(rd->r, NSC_ENETLIST, &loc, "%s", msg);
    }
    return deferred_card(rd, ln, c, model, msg, line, col) ? nsc_oom(rd->r) : NSC_OK;
}

/* ---- unit pitfalls (issue 28 item 12): warnings only ---- */

/* Length of the scale factor at the start of letters s (meg, mil, t g k m u n
 * p f a), 0 when none. */
static size_t scale_len(const char *s)
{
    if (!strncasecmp(s, "meg", 3) || !strncasecmp(s, "mil", 3)) return 3;
    return *s && strchr("tgkmunpfaTGKMUNPFA", *s) ? 1 : 0;
}

/* `1kk`, `2.2uu`, `1kmeg`: the letters after a scale factor are ignored by
 * SPICE (units such as 1uF, 1kOhm, 10mV are the intent of most); a second
 * scale factor right after the first is a slip. */
static void double_scale(reader *rd, const nl_line *ln, const char *s, int line, int col)
{
    double v;
    if (!s || !nsc_parse_number(s, &v)) return;
    const char *p = s + strspn(s, "+-0123456789.");
    if ((*p == 'e' || *p == 'E')
        && (isdigit((unsigned char)p[1])
            || ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2]))))
        for (p += 2; isdigit((unsigned char)*p); p++) {}
    size_t k = scale_len(p);
    if (k == 0 || !p[k] || !strchr("tgkmunpTGKMUNP", p[k])) return;
    nsc_loc loc = { rd->d->files[ln->file], line, col };
    nsc_warn(
        rd->r, &loc,
        "'%s' is %g: SPICE ignores the letters after the scale factor '%.*s' (a doubled scale factor?)",
        s, v, (int)k, p);
}

static void expr_scales(reader *rd, const nl_line *ln, const nl_expr *x)
{
    if (!x) return;
    if (x->op == NL_X_NUM) double_scale(rd, ln, x->name, x->line, x->col);
    if (x->op == NL_X_CALL)
        for (const nl_expr *a = x->a; a; a = a->next) expr_scales(rd, ln, a);
    else {
        expr_scales(rd, ln, x->a);
        expr_scales(rd, ln, x->b);
    }
    if (x->op == NL_X_COND) expr_scales(rd, ln, x->c);
}

static void field_scales(reader *rd, const nl_line *ln, const nl_field *f, int n)
{
    for (int i = 0; i < n; i++) {
        if (f[i].kind == NL_F_WORD) double_scale(rd, ln, f[i].u.s, f[i].line, f[i].col);
        else if (f[i].kind == NL_F_EXPR) expr_scales(rd, ln, f[i].u.x);
        if (f[i].nsub) field_scales(rd, ln, f[i].sub, f[i].nsub);
    }
}

/* The value field f of an R, L or C card written with the scale factor 'M'
 * in capitals alone (`1M`): SPICE reads milli, the writer most likely meant
 * mega (1Meg). The card is lower case by now: the line's text shows the case. */
static void milli_for_mega(reader *rd, const nl_line *ln, const nl_card *c, const nl_field *f)
{
    double v;
    if (f->kind != NL_F_WORD || !nsc_parse_number(f->u.s, &v)) return;
    size_t n = strlen(f->u.s);
    if (n < 2 || f->u.s[n - 1] != 'm' || !strchr("0123456789.", f->u.s[n - 2])) return;
    for (int k = ln->nseg - 1; k >= 0; k--)
        if (ln->seg[k].line == f->line) {
            size_t off = ln->seg[k].off + (size_t)(f->col - ln->seg[k].col) + n - 1;
            if (off < ln->len && ln->text[off] == 'M') {
                static const char *const what[] = { "resistor", "inductor", "capacitor" };
                static const char *const unit[] = { "Ohm", "H", "F" };
                int w = c->f[0].u.s[0] == 'r' ? 0 : c->f[0].u.s[0] == 'l' ? 1 : 2;
                nsc_loc loc = { rd->d->files[ln->file], f->line, f->col };
                nsc_warn(rd->r, &loc, "%s %s = %.*s is %g %s: M is milli in SPICE (1Meg is 1e6)",
                         what[w], c->f[0].u.s, (int)n, ln->text + off + 1 - n, v, unit[w]);
            }
            return;
        }
}

/* The unit pitfalls of card c (read from ln). */
static void unit_pitfalls(reader *rd, const nl_line *ln, const nl_card *c)
{
    field_scales(rd, ln, c->f + 1, c->nf - 1);
    char h = c->f[0].u.s[0];
    if (h != 'r' && h != 'l' && h != 'c') return;
    for (int i = 3; i < c->nf && i <= 4; i++) milli_for_mega(rd, ln, c, &c->f[i]);
}

/* LTspice's `.meas NAME PARAM expr`: the last blank between PARAM and its
 * expression becomes '=', the form the card grammar reads as an expression
 * (`PARAM=expr`); lengths and positions are unchanged. s[0..n): the line. */
static void meas_param_eq(char *s, size_t n)
{
    for (size_t i = 1; i + 6 < n; i++) {
        if (!isspace((unsigned char)s[i - 1]) || strncasecmp(s + i, "param", 5)
            || !isspace((unsigned char)s[i + 5]))
            continue;
        size_t j = i + 5;
        while (j < n && isspace((unsigned char)s[j])) j++;
        if (j < n && s[j] != '=') s[j - 1] = '=';
        return;
    }
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
    if (src->section && !src->insec) { /* looking for `.lib section` */
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
    if (!strcmp(w, ".control")) {
        src->control = 1;
        return NSC_OK;
    }
    if (!strcmp(w, ".endc")) return NSC_OK;
    if (!strcmp(w, ".end")) {
        src->stop = 1;
        if (src->main) rd->ended = 1;
        return NSC_OK;
    }
    if (!strcmp(w, ".include") || !strcmp(w, ".inc")) return include(rd, src, &ln, w, k, 0);
    if (!strcmp(w, ".lib")) return include(rd, src, &ln, w, k, 1);
    if (!strcmp(w, ".title")) return title_card(rd, &ln, k);

    nl_deck *d = rd->d;
    if (d->ncard >= NL_MAXCARDS) {
        nsc_loc loc = { d->files[src->file], ln.seg[0].line, 1 };
        return nsc_err(rd->r, NSC_ENETLIST, &loc, "netlist too large: more than %d cards",
                       NL_MAXCARDS);
    }
    if (nsc_grow((void **)&d->card, &d->capcard, d->ncard + 1, sizeof *d->card))
        return nsc_oom(rd->r);
    nl_card *c = &d->card[d->ncard];
    if (skipped_analysis(w))
        return head_card(rd, &ln, c, w) ? nsc_oom(rd->r) : (d->ncard++, NSC_OK);
    if (!strcmp(w, ".meas") || !strcmp(w, ".measure")) meas_param_eq(rd->buf, rd->len);
    int sub = !strcmp(w, ".subckt"), ends = !strcmp(w, ".ends");
    if ((rd->subdepth > 0 && !sub && !ends) || !strcmp(w, ".model"))
        return soft_card(rd, &ln, c, !strcmp(w, ".model"));
    if (nl_parse_line(&rd->p, &ln, c)) return rd->r->status;
    if (c->nf == 0) return NSC_OK;
    if (c->f[0].kind != NL_F_WORD) {
        nsc_loc loc = nl_field_loc(d, c, &c->f[0]);
        return nsc_err(rd->r, NSC_ENETLIST, &loc,
                       "expected an element or dot card name at the start of the line");
    }
    rd->subdepth += sub - (ends && rd->subdepth > 0);
    unit_pitfalls(rd, &ln, c);
    d->ncard++;
    return NSC_OK;
}

/* The length of text without a DOS end-of-file mark: a Ctrl-Z (0x1a) after
 * which only blanks and Ctrl-Z follow (vendor libraries written on DOS end
 * with one); a Ctrl-Z elsewhere stays an invalid character. */
static size_t dos_eof(const char *text, size_t n)
{
    size_t k = n;
    while (k > 0 && (isspace((unsigned char)text[k - 1]) || text[k - 1] == 0x1a)) k--;
    const char *z = memchr(text + k, 0x1a, n - k);
    return z ? (size_t)(z - text) : n;
}

/* 1 when the physical line s[0..n) (from its first non-blank) is a lone ')',
 * blanks and a `;` comment aside: PSpice's model card closed on its own line. */
static int closing_paren(const char *s, size_t n)
{
    size_t i = 1;
    if (n == 0 || s[0] != ')') return 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    return i == n || s[i] == ';';
}

/* Split text into physical lines, assemble logical lines and process them. */
static nsc_status read_text(reader *rd, source *src, const char *text, size_t n)
{
    size_t i = 0;
    int lineno = 0;
    rd->len = 0;
    rd->nseg = 0;
    n = dos_eof(text, n);
    while (i < n && !src->stop && !rd->ended) {
        size_t b = i;
        while (i < n && text[i] != '\n') i++;
        size_t e = i;
        if (i < n) i++; /* past '\n' */
        if (e > b && text[e - 1] == '\r') e--;
        lineno++;
        if (lineno == 1 && src->main) { /* the title */
            if (!(rd->d->title = nsc_strndup(text + b, e - b))) return nsc_oom(rd->r);
            continue;
        }
        size_t f = b;
        while (f < e && (text[f] == ' ' || text[f] == '\t')) f++;
        if (f == e || text[f] == '*') continue; /* blank or comment line */
        int paren = rd->nseg > 0 && closing_paren(text + f, e - f);
        if (paren) {
            nsc_loc loc = { rd->d->files[src->file], lineno, (int)(f - b) + 1 };
            nsc_warn(rd->r, &loc,
                     "a line holding only ')' continues the card before it (PSpice); write '+ )'");
        }
        if (paren || text[f] == '+') {
            size_t t = f + !paren; /* the text continued: past the '+' */
            if (rd->nseg == 0) {
                nsc_loc loc = { rd->d->files[src->file], lineno, (int)(f - b) + 1 };
                return nsc_err(rd->r, NSC_ENETLIST, &loc,
                               "continuation line '+' without a card before it");
            }
            if (line_append(rd, text + t, e - t, lineno, (int)(t - b) + 1)) return nsc_oom(rd->r);
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
    if (src->skipsec) /* `.lib NAME` without .endl: NAME was a file */
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
        if (!b) {
            fclose(fp);
            return ENOMEM;
        }
        len += fread(b + len, 1, cap - len, fp);
        if (len > max) {
            fclose(fp);
            free(b);
            return EFBIG;
        }
        if (len < cap) break;
        char *nb = cap > ((size_t)-1) / 2 ? NULL : realloc(b, cap * 2);
        if (!nb) free(b);
        b = nb;
        cap *= 2;
    }
    int err = ferror(fp) ? EIO : 0;
    fclose(fp);
    if (err) {
        free(b);
        return err;
    }
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
        if (!from)
            return nsc_err(rd->r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(err));
        return nsc_err(rd->r, NSC_ENETLIST, from, "cannot open include file '%s': %s", path,
                       strerror(err));
    }
    if (from && !S_ISREG(sb.st_mode)) /* not /dev/zero, a FIFO, ... */
        return nsc_err(rd->r, NSC_ENETLIST, from,
                       "cannot open include file '%s': not a regular file", path);
    for (int k = 0; k < rd->nopen; k++) /* same file and section already open */
        if (rd->open[k].dev == sb.st_dev && rd->open[k].ino == sb.st_ino
            && (rd->open[k].section == section
                || (rd->open[k].section && section && !strcmp(rd->open[k].section, section))))
            return nsc_err(rd->r, NSC_ENETLIST, from, "recursive include of '%s'", path);
    if (rd->nopen == NL_MAXINCLUDE)
        return nsc_err(rd->r, NSC_ENETLIST, from, "includes nested deeper than %d files",
                       NL_MAXINCLUDE);
    if (++rd->nread > NL_MAXREADS)
        return nsc_err(
            rd->r, NSC_ENETLIST, from,
            "netlist too large: more than %d file reads (each .include/.lib counted every time it is read)",
            NL_MAXREADS);
    char *text = NULL;
    size_t n = 0;
    if ((err = slurp(path, NL_MAXBYTES - rd->bytes, &text, &n))) {
        if (err == ENOMEM) return nsc_oom(rd->r);
        if (err == EFBIG)
            return nsc_err(rd->r, NSC_ENETLIST, from,
                           "netlist too large: more than %zu MiB of text%s", NL_MAXBYTES >> 20,
                           from ? " (with every include, counted each time it is read)" : "");
        if (!from)
            return nsc_err(rd->r, NSC_EIO, NULL, "cannot read '%s': %s", path, strerror(err));
        return nsc_err(rd->r, NSC_ENETLIST, from, "cannot open include file '%s': %s", path,
                       strerror(err));
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

nsc_status nl_deck_read_file(nl_deck *d, const char *path, const nsc_search_path *inc,
                             nsc_report *r)
{
    reader rd;
    nsc_status st = reader_init(&rd, d, inc, r);
    if (!st) st = read_path(&rd, path, NULL, NULL);
    reader_free(&rd);
    return st;
}

nsc_status nl_deck_read_string(nl_deck *d, const char *text, const char *name,
                               const nsc_search_path *inc, nsc_report *r)
{
    reader rd;
    nsc_status st = reader_init(&rd, d, inc, r);
    source src = { 0 };
    src.dir = "";
    src.main = 1;
    if (!st && (src.file = add_file(d, name ? name : "<string>")) < 0) st = nsc_oom(r);
    size_t n = strlen(text);
    if (!st && n > NL_MAXBYTES)
        st = nsc_err(r, NSC_ENETLIST, NULL, "netlist too large: more than %zu MiB of text",
                     NL_MAXBYTES >> 20);
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
