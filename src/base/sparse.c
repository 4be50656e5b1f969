/* sparse.c -- triplet and compressed-column matrices (sparse.h), after CSparse.
 *
 * Invariant of every CSC matrix built here: rows sorted within each column,
 * no duplicates, p[n] = number of entries. */
#include "sparse.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

nsc_sparse *nsc_sp_new(int m, int n, int nzmax, int triplet)
{
    if (m < 0 || n < 0) return NULL;
    if (nzmax < 1) nzmax = 1;
    nsc_sparse *A = nsc_calloc(1, sizeof *A);
    if (!A) return NULL;
    A->m = m;
    A->n = n;
    A->nzmax = nzmax;
    A->nz = triplet ? 0 : -1;
    A->p = nsc_calloc((size_t)(triplet ? nzmax : n + 1), sizeof(int));
    A->i = nsc_calloc((size_t)nzmax, sizeof(int));
    A->x = nsc_calloc((size_t)nzmax, sizeof(double));
    if (!A->p || !A->i || !A->x) {
        nsc_sp_free(A);
        return NULL;
    }
    return A;
}

void nsc_sp_free(nsc_sparse *A)
{
    if (!A) return;
    free(A->p);
    free(A->i);
    free(A->x);
    free(A);
}

/* Grow a triplet matrix to hold nzmax entries. 0 ok, -1 ENOMEM (A untouched). */
static int sp_realloc(nsc_sparse *T, int nzmax)
{
    int *p = nsc_realloc_array(T->p, (size_t)nzmax, sizeof(int));
    if (!p) return -1;
    T->p = p;
    int *i = nsc_realloc_array(T->i, (size_t)nzmax, sizeof(int));
    if (!i) return -1;
    T->i = i;
    double *x = nsc_realloc_array(T->x, (size_t)nzmax, sizeof(double));
    if (!x) return -1;
    T->x = x;
    T->nzmax = nzmax;
    return 0;
}

int nsc_sp_entry(nsc_sparse *T, int i, int j, double x)
{
    if (!T || T->nz < 0 || i < 0 || j < 0 || i >= T->m || j >= T->n) return -1;
    if (T->nz >= T->nzmax && sp_realloc(T, 2 * T->nzmax) != 0) return -1;
    T->i[T->nz] = i;
    T->p[T->nz] = j;
    T->x[T->nz] = x;
    T->nz++;
    return 0;
}

nsc_sparse *nsc_sp_compress(const nsc_sparse *T)
{
    if (!T || T->nz < 0) return NULL;
    int m = T->m, n = T->n, nz = T->nz;
    int *rp = nsc_calloc((size_t)m + 1, sizeof(int));  /* row pointers */
    int *rj = nsc_calloc((size_t)nz + 1, sizeof(int)); /* column of each entry, by row */
    double *rx = nsc_calloc((size_t)nz + 1, sizeof(double));
    int *w = nsc_calloc((size_t)(m > n ? m : n) + 1, sizeof(int));
    nsc_sparse *C = nsc_sp_new(m, n, nz, 0);
    if (!rp || !rj || !rx || !w || !C) {
        free(rp);
        free(rj);
        free(rx);
        free(w);
        nsc_sp_free(C);
        return NULL;
    }
    for (int k = 0; k < nz; k++) rp[T->i[k] + 1]++;
    for (int r = 0; r < m; r++) rp[r + 1] += rp[r]; /* rp = cumsum(row counts) */
    memcpy(w, rp, sizeof(int) * (size_t)m);
    for (int k = 0; k < nz; k++) { /* bucket by row */
        int q = w[T->i[k]]++;
        rj[q] = T->p[k];
        rx[q] = T->x[k];
    }
    for (int k = 0; k < nz; k++) C->p[T->p[k] + 1]++;
    for (int j = 0; j < n; j++) C->p[j + 1] += C->p[j]; /* column pointers */
    memcpy(w, C->p, sizeof(int) * (size_t)n);
    for (int r = 0; r < m; r++) /* rows visited in order: sorted columns */
        for (int q = rp[r]; q < rp[r + 1]; q++) {
            int dst = w[rj[q]]++;
            C->i[dst] = r;
            C->x[dst] = rx[q];
        }
    int cnt = 0; /* sum adjacent duplicates */
    for (int j = 0; j < n; j++) {
        int start = cnt;
        for (int q = C->p[j]; q < C->p[j + 1]; q++) {
            if (cnt > start && C->i[cnt - 1] == C->i[q]) {
                C->x[cnt - 1] += C->x[q];
            } else {
                C->i[cnt] = C->i[q];
                C->x[cnt] = C->x[q];
                cnt++;
            }
        }
        C->p[j] = start;
    }
    C->p[n] = cnt;
    free(rp);
    free(rj);
    free(rx);
    free(w);
    return C;
}

nsc_sparse *nsc_sp_add(const nsc_sparse *A, const nsc_sparse *B, double alpha, double beta)
{
    if (!A || !B || A->nz != -1 || B->nz != -1 || A->m != B->m || A->n != B->n) return NULL;
    int n = A->n;
    nsc_sparse *C = nsc_sp_new(A->m, n, A->p[n] + B->p[n], 0);
    if (!C) return NULL;
    int cnt = 0;
    for (int j = 0; j < n; j++) { /* merge two sorted columns */
        C->p[j] = cnt;
        int pa = A->p[j], pb = B->p[j], ea = A->p[j + 1], eb = B->p[j + 1];
        while (pa < ea || pb < eb) {
            int ia = pa < ea ? A->i[pa] : A->m, ib = pb < eb ? B->i[pb] : B->m;
            if (ia < ib) {
                C->i[cnt] = ia;
                C->x[cnt++] = alpha * A->x[pa++];
            } else if (ib < ia) {
                C->i[cnt] = ib;
                C->x[cnt++] = beta * B->x[pb++];
            } else {
                C->i[cnt] = ia;
                C->x[cnt++] = alpha * A->x[pa++] + beta * B->x[pb++];
            }
        }
    }
    C->p[n] = cnt;
    return C;
}

int nsc_sp_add_into(const nsc_sparse *A, const nsc_sparse *B, double alpha, double beta,
                    nsc_sparse *C, int drop0)
{
    if (!A || !B || !C || A->m != B->m || A->n != B->n || C->n != A->n || C->m != A->m) return -1;
    int t = 0;
    for (int j = 0; j < A->n; j++) { /* merge two sorted columns, as nsc_sp_add */
        if (C->p[j] != t) return -1;
        int pa = A->p[j], pb = B->p[j], ea = A->p[j + 1], eb = B->p[j + 1];
        while (pa < ea || pb < eb) {
            int ia = pa < ea ? A->i[pa] : A->m, ib = pb < eb ? B->i[pb] : B->m,
                i = ia < ib ? ia : ib;
            double v = ia < ib   ? alpha * A->x[pa++]
                       : ib < ia ? beta * B->x[pb++]
                                 : alpha * A->x[pa++] + beta * B->x[pb++];
            if (drop0 && v == 0) continue;
            if (t >= C->p[j + 1] || C->i[t] != i) return -1;
            C->x[t++] = v;
        }
    }
    return C->p[A->n] == t ? 0 : -1;
}

nsc_sparse *nsc_sp_transpose(const nsc_sparse *A)
{
    if (!A || A->nz != -1) return NULL;
    int m = A->m, n = A->n, nnz = A->p[n];
    nsc_sparse *C = nsc_sp_new(n, m, nnz, 0);
    int *w = nsc_calloc((size_t)m + 1, sizeof(int));
    if (!C || !w) {
        nsc_sp_free(C);
        free(w);
        return NULL;
    }
    for (int k = 0; k < nnz; k++) C->p[A->i[k] + 1]++;
    for (int r = 0; r < m; r++) C->p[r + 1] += C->p[r];
    memcpy(w, C->p, sizeof(int) * (size_t)m);
    for (int j = 0; j < n; j++) /* columns in order: rows of C sorted */
        for (int q = A->p[j]; q < A->p[j + 1]; q++) {
            int dst = w[A->i[q]]++;
            C->i[dst] = j;
            C->x[dst] = A->x[q];
        }
    free(w);
    return C;
}

void nsc_sp_gaxpy(const nsc_sparse *A, const double *x, double *y)
{
    for (int j = 0; j < A->n; j++)
        for (int q = A->p[j]; q < A->p[j + 1]; q++)
            y[A->i[q]] += A->x[q] * x[j]; /* y += A(:,j)*x(j) */
}

void nsc_sp_gatxpy(const nsc_sparse *A, const double *x, double *y)
{
    for (int j = 0; j < A->n; j++) {
        double s = 0;
        for (int q = A->p[j]; q < A->p[j + 1]; q++) s += A->x[q] * x[A->i[q]];
        y[j] += s; /* y(j) += A(:,j)'*x */
    }
}

double nsc_sp_get(const nsc_sparse *A, int i, int j)
{
    if (!A || A->nz != -1 || j < 0 || j >= A->n) return 0;
    int lo = A->p[j], hi = A->p[j + 1] - 1;
    while (lo <= hi) { /* rows sorted: bisection */
        int mid = lo + (hi - lo) / 2;
        if (A->i[mid] == i) return A->x[mid];
        if (A->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

void nsc_sp_scale_rows(nsc_sparse *A, const double *s)
{
    for (int q = 0; q < A->p[A->n]; q++) A->x[q] *= s[A->i[q]]; /* A = diag(s)*A */
}

double *nsc_sp_dense(const nsc_sparse *A)
{
    if (!A || A->nz != -1) return NULL;
    double *d = nsc_calloc((size_t)A->m * (size_t)A->n + 1, sizeof(double));
    if (!d) return NULL;
    for (int j = 0; j < A->n; j++)
        for (int q = A->p[j]; q < A->p[j + 1]; q++) d[(size_t)j * A->m + A->i[q]] += A->x[q];
    return d;
}

int nsc_sp_write_mm(const nsc_sparse *A, FILE *f, const char *comment)
{
    if (!A || A->nz != -1 || !f) return -1;
    if (fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n") < 0) return -1;
    if (comment) { /* one '%' line per comment line */
        const char *s = comment;
        while (*s) {
            const char *e = strchr(s, '\n');
            int len = e ? (int)(e - s) : (int)strlen(s);
            if (fprintf(f, "%% %.*s\n", len, s) < 0) return -1;
            s += len;
            if (*s == '\n') s++;
        }
    }
    if (fprintf(f, "%d %d %d\n", A->m, A->n, A->p[A->n]) < 0) return -1;
    for (int j = 0; j < A->n; j++)
        for (int q = A->p[j]; q < A->p[j + 1]; q++)
            if (fprintf(f, "%d %d %.17g\n", A->i[q] + 1, j + 1, A->x[q]) < 0) return -1;
    return ferror(f) ? -1 : 0;
}

/* binary search of column j (rows sorted) */
int nsc_sp_pos(const nsc_sparse *A, int i, int j)
{
    int lo = A->p[j], hi = A->p[j + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (A->i[mid] == i) return mid;
        if (A->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}
