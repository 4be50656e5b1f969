#!/usr/bin/env python3
"""Exact-rational Lemke (covering vector e, lexicographic ratio test with exact
ties) on a dumped LCP: line 1 `m status iter`, then q (m), then M column-major.
Checks the answer exactly (z >= 0, w = Mz + q >= 0, z_i w_i = 0) and prints
`i z_i w_i` rounded to 17 digits. usage: lemke_exact.py DUMP > DUMP_exact.txt"""
import sys
from fractions import Fraction as Fr

d = open(sys.argv[1]).read().split()
m = int(d[0])
q = [Fr(float(x)) for x in d[3:3 + m]]
M = [[Fr(float(d[3 + m + i + j * m])) for j in range(m)] for i in range(m)]
T = [[Fr(int(i == k)) for k in range(m)] + [-M[i][j] for j in range(m)] + [Fr(-1), q[i]]
     for i in range(m)]
basis = list(range(m))


def pivot(r, v):
    p = T[r][v]
    T[r] = [x / p for x in T[r]]
    for i in range(m):
        if i != r and T[i][v] != 0:
            f = T[i][v]
            T[i] = [a - f * b for a, b in zip(T[i], T[r])]
    basis[r] = v


r = max(i for i in range(m) if q[i] <= min(q))
pivot(r, 2 * m)
enter = m + r
for it in range(100 * (m + 1)):
    cand = [i for i in range(m) if T[i][enter] > 0]
    if not cand:
        sys.exit("ray")
    th = min(T[i][-1] / T[i][enter] for i in cand)
    tied = [i for i in cand if T[i][-1] / T[i][enter] == th]
    z0 = [i for i in tied if basis[i] == 2 * m]
    rr = z0[0] if z0 else min(tied, key=lambda i: [x / T[i][enter] for x in T[i][:m]])
    leave = basis[rr]
    pivot(rr, enter)
    if leave == 2 * m:
        break
    enter = leave + m if leave < m else leave - m
else:
    sys.exit("iteration limit")
z = [Fr(0)] * m
for i in range(m):
    if m <= basis[i] < 2 * m:
        z[basis[i] - m] = T[i][-1]
w = [q[i] + sum(M[i][j] * z[j] for j in range(m)) for i in range(m)]
assert all(x >= 0 for x in z) and all(x >= 0 for x in w) and all(a * b == 0 for a, b in zip(z, w))
for i in range(m):
    print(i, "%.17g" % float(z[i]), "%.17g" % float(w[i]))
