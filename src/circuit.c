/* circuit.c -- (stub, to be written) */
typedef int nsc_stub_circuit;
