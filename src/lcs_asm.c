/* lcs_asm.c -- (stub, to be written) */
typedef int nsc_stub_lcs_asm;
