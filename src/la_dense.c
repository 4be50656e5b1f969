/* la_dense.c -- (stub, to be written) */
typedef int nsc_stub_la_dense;
