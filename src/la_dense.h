/* la_dense.h -- (stub) */
