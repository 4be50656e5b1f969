/* lcp_util.c -- residual and status text of the dense LCP (lcp.h). */
#include <math.h>
#include <stddef.h>
#include "lcp.h"

double nsc_lcp_residual(const nsc_lcp *p, const double *z)
{
    int m = p->m;
    double res = 0;
    for (int i = 0; i < m; i++) {
        double wi = p->q[i]; /* wi = (M z + q)_i */
        for (int j = 0; j < m; j++) wi += p->M[i + (size_t)j * m] * z[j];
        double r = fabs(z[i] < wi ? z[i] : wi); /* |min(z_i, w_i)| */
        if (isnan(z[i]) || isnan(wi)) return NAN;
        if (r > res) res = r;
    }
    return res;
}

const char *nsc_lcp_strstatus(nsc_lcp_status s)
{
    switch (s) {
    case NSC_LCP_OK: return "solved";
    case NSC_LCP_RAY: return "secondary ray (LCP infeasible, or matrix not copositive-plus)";
    case NSC_LCP_MAXITER: return "pivot limit reached (cycling or exponential path)";
    case NSC_LCP_NOSOL: return "no complementary basis gives a solution";
    case NSC_LCP_ENOMEM: return "out of memory";
    case NSC_LCP_EINVAL: return "invalid problem (size, workspace or non-finite data)";
    case NSC_LCP_NEWTON:
        return "the Newton iteration of its smooth B-source functions did not converge, "
               "or a function or its derivative was not finite";
    }
    return "unknown LCP status";
}
