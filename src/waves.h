/* waves.h -- (stub) */
