/* nl_elab.c -- (stub, to be written) */
typedef int nsc_stub_nl_elab;
