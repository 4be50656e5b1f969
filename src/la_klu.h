/* la_klu.h -- (stub) */
