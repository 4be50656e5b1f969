/* dev_c.c -- (stub, to be written) */
typedef int nsc_stub_dev_c;
