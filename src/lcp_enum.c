/* lcp_enum.c -- (stub, to be written) */
typedef int nsc_stub_lcp_enum;
