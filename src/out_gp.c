/* out_gp.c -- (stub, to be written) */
typedef int nsc_stub_out_gp;
