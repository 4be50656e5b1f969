/* la_klu.c -- (stub, to be written) */
typedef int nsc_stub_la_klu;
