/* lcs_dump.c -- (stub, to be written) */
typedef int nsc_stub_lcs_dump;
