/* lcs_probe.c -- (stub, to be written) */
typedef int nsc_stub_lcs_probe;
