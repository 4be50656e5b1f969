/* stepper.h -- (stub) */
