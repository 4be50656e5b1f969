/* test_sparse.c -- suite `sparse`: triplet -> CSC and the CSC kernels against
 * hand-computed results. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sparse.h"

/* T = [ 1 0 2 ; 0 3 0 ; 4 0 5 ; 0 6 0 ] (4x3) entered out of order with duplicates:
 * (0,0) = 0.5 + 0.5, (2,2) = 2 + 3. */
static nsc_sparse *make_T(void)
{
    nsc_sparse *T = nsc_sp_new(4, 3, 1, 1); /* nzmax 1: forces growth */
    cr_assert_not_null(T);
    cr_assert_eq(nsc_sp_entry(T, 2, 2, 2.0), 0);
    cr_assert_eq(nsc_sp_entry(T, 3, 1, 6.0), 0);
    cr_assert_eq(nsc_sp_entry(T, 0, 0, 0.5), 0);
    cr_assert_eq(nsc_sp_entry(T, 2, 0, 4.0), 0);
    cr_assert_eq(nsc_sp_entry(T, 0, 2, 2.0), 0);
    cr_assert_eq(nsc_sp_entry(T, 1, 1, 3.0), 0);
    cr_assert_eq(nsc_sp_entry(T, 0, 0, 0.5), 0);
    cr_assert_eq(nsc_sp_entry(T, 2, 2, 3.0), 0);
    cr_assert_eq(T->nz, 8);
    return T;
}

Test(sparse, compress_sums_duplicates_sorts_rows)
{
    nsc_sparse *T = make_T();
    nsc_sparse *A = nsc_sp_compress(T);
    cr_assert_not_null(A);
    cr_assert_eq(A->nz, -1);
    int p[] = { 0, 2, 4, 6 }, i[] = { 0, 2, 1, 3, 0, 2 };
    double x[] = { 1, 4, 3, 6, 2, 5 };
    for (int k = 0; k < 4; k++) cr_assert_eq(A->p[k], p[k], "p[%d]", k);
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(A->i[k], i[k], "i[%d]", k);
        cr_assert_eq(A->x[k], x[k], "x[%d]", k);
    }
    cr_assert_eq(nsc_sp_get(A, 2, 2), 5.0);
    cr_assert_eq(nsc_sp_get(A, 3, 1), 6.0);
    cr_assert_eq(nsc_sp_get(A, 1, 0), 0.0);
    cr_assert_eq(nsc_sp_get(A, 3, 2), 0.0);
    double *d = nsc_sp_dense(A);
    double ref[12] = { 1, 0, 4, 0, 0, 3, 0, 6, 2, 0, 5, 0 }; /* column-major */
    for (int k = 0; k < 12; k++) cr_assert_eq(d[k], ref[k], "dense[%d]", k);
    free(d);
    /* out-of-range entries are refused */
    cr_assert_eq(nsc_sp_entry(T, 4, 0, 1.0), -1);
    cr_assert_eq(nsc_sp_entry(T, 0, 3, 1.0), -1);
    nsc_sp_free(A);
    nsc_sp_free(T);
}

Test(sparse, add_union_pattern)
{
    nsc_sparse *T = make_T(), *A = nsc_sp_compress(T);
    nsc_sparse *U = nsc_sp_new(4, 3, 4, 1);
    nsc_sp_entry(U, 1, 0, 10.0); /* new entry */
    nsc_sp_entry(U, 2, 2, -2.5); /* cancels 2*5 */
    nsc_sp_entry(U, 3, 1, 1.0);
    nsc_sparse *B = nsc_sp_compress(U);
    nsc_sparse *C = nsc_sp_add(A, B, 2.0, 4.0); /* C = 2A + 4B */
    cr_assert_not_null(C);
    double ref[4][3] = { { 2, 0, 4 }, { 40, 6, 0 }, { 8, 0, 0 }, { 0, 16, 0 } };
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) cr_assert_eq(nsc_sp_get(C, r, c), ref[r][c], "C(%d,%d)", r, c);
    cr_assert_eq(C->p[3], 7); /* union pattern: the cancelled entry is kept */
    for (int j = 0; j < 3; j++)
        for (int q = C->p[j] + 1; q < C->p[j + 1]; q++) cr_assert_lt(C->i[q - 1], C->i[q]);
    nsc_sparse *S = nsc_sp_new(3, 3, 1, 0);
    cr_assert_null(nsc_sp_add(A, S, 1, 1)); /* shape mismatch */
    nsc_sp_free(S);
    nsc_sp_free(C);
    nsc_sp_free(B);
    nsc_sp_free(U);
    nsc_sp_free(A);
    nsc_sp_free(T);
}

Test(sparse, transpose_gaxpy_scale)
{
    nsc_sparse *T = make_T(), *A = nsc_sp_compress(T), *At = nsc_sp_transpose(A);
    cr_assert_eq(At->m, 3);
    cr_assert_eq(At->n, 4);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) cr_assert_eq(nsc_sp_get(At, c, r), nsc_sp_get(A, r, c));
    for (int j = 0; j < 4; j++)
        for (int q = At->p[j] + 1; q < At->p[j + 1]; q++) cr_assert_lt(At->i[q - 1], At->i[q]);
    double x[3] = { 1, 2, 3 }, y[4] = { 1, 1, 1, 1 };
    nsc_sp_gaxpy(A, x, y); /* y = 1 + A x = 1 + (7, 6, 19, 12) */
    double ry[4] = { 8, 7, 20, 13 };
    for (int k = 0; k < 4; k++) cr_assert_eq(y[k], ry[k]);
    double u[4] = { 1, -1, 2, 0.5 }, v[3] = { 0, 0, 10 };
    nsc_sp_gatxpy(A, u, v); /* v += A' u = (9, 0, 12) + (0,0,10) */
    cr_assert_eq(v[0], 9.0);
    cr_assert_eq(v[1], 0.0);
    cr_assert_eq(v[2], 22.0);
    double s[4] = { 2, 0, -1, 1 };
    nsc_sp_scale_rows(A, s);
    cr_assert_eq(nsc_sp_get(A, 0, 2), 4.0);
    cr_assert_eq(nsc_sp_get(A, 1, 1), 0.0);
    cr_assert_eq(nsc_sp_get(A, 2, 0), -4.0);
    cr_assert_eq(nsc_sp_get(A, 3, 1), 6.0);
    nsc_sp_free(At);
    nsc_sp_free(A);
    nsc_sp_free(T);
}

Test(sparse, compress_empty_and_zero_kept)
{
    nsc_sparse *T = nsc_sp_new(2, 2, 0, 1);
    nsc_sparse *A = nsc_sp_compress(T);
    cr_assert_eq(A->p[0], 0);
    cr_assert_eq(A->p[2], 0);
    nsc_sp_entry(T, 1, 1, 0.0); /* explicit zero fixes the pattern */
    nsc_sparse *B = nsc_sp_compress(T);
    cr_assert_eq(B->p[2], 1);
    cr_assert_eq(B->i[0], 1);
    nsc_sp_free(A);
    nsc_sp_free(B);
    nsc_sp_free(T);
}

Test(sparse, matrix_market_text)
{
    nsc_sparse *T = make_T(), *A = nsc_sp_compress(T);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(nsc_sp_write_mm(A, f, "test matrix\nsecond line"), 0);
    fclose(f);
    const char *ref = "%%MatrixMarket matrix coordinate real general\n"
                      "% test matrix\n"
                      "% second line\n"
                      "4 3 6\n"
                      "1 1 1\n3 1 4\n2 2 3\n4 2 6\n1 3 2\n3 3 5\n";
    cr_assert_str_eq(buf, ref);
    /* read back: the entries give A again */
    nsc_sparse *R = nsc_sp_new(4, 3, 1, 1);
    char *line = strtok(buf, "\n");
    int header = 0;
    for (; line; line = strtok(NULL, "\n")) {
        if (line[0] == '%') continue;
        int a, b;
        double v;
        if (!header) {
            header = 1;
            continue;
        }
        cr_assert_eq(sscanf(line, "%d %d %lf", &a, &b, &v), 3);
        nsc_sp_entry(R, a - 1, b - 1, v);
    }
    nsc_sparse *RA = nsc_sp_compress(R);
    nsc_sparse *Z = nsc_sp_add(RA, A, 1, -1);
    for (int q = 0; q < Z->p[Z->n]; q++) cr_assert_eq(Z->x[q], 0.0);
    /* full precision */
    nsc_sparse *P = nsc_sp_new(1, 1, 1, 1);
    nsc_sp_entry(P, 0, 0, 0.1);
    nsc_sparse *PC = nsc_sp_compress(P);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    nsc_sp_write_mm(PC, f, NULL);
    fclose(f);
    double back = 0;
    cr_assert_eq(sscanf(strrchr(buf, ' ') + 1, "%lf", &back), 1);
    cr_assert_eq(back, 0.1);
    free(buf);
    nsc_sp_free(P);
    nsc_sp_free(PC);
    nsc_sp_free(Z);
    nsc_sp_free(RA);
    nsc_sp_free(R);
    nsc_sp_free(A);
    nsc_sp_free(T);
}
