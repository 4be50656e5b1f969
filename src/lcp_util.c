/* lcp_util.c -- (stub, to be written) */
typedef int nsc_stub_lcp_util;
