/* out_dat.c -- (stub, to be written) */
typedef int nsc_stub_out_dat;
