/* dev_r.c -- (stub, to be written) */
typedef int nsc_stub_dev_r;
