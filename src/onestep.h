/* onestep.h -- (stub) */
