/* out.h -- (stub) */
