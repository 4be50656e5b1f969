/* device.h -- (stub) */
