/* devices.c -- the table element kind -> device (device.h).
 *
 * Kinds not implemented yet have an entry whose count() is an error naming the
 * element, so adding them is adding dev_<x>.c and replacing their line here. */
#include "device.h"

extern const nsc_device nsc_dev_r, nsc_dev_c, nsc_dev_l, nsc_dev_k, nsc_dev_v, nsc_dev_i,
    nsc_dev_e, nsc_dev_g, nsc_dev_f, nsc_dev_h, nsc_dev_d;

static nsc_status unsupported_count(nsc_dev_ctx *ctx, int ei, nsc_dev_need *need)
{
    const nsc_element *e = &ctx->c->el[ei];
    return nsc_err(ctx->r, NSC_ENETLIST, &e->loc, "%s are not supported yet (%s)",
                   nsc_device_of(e->kind)->what, e->name);
}

static const nsc_device dev_etable = {NSC_EL_ETABLE, "E TABLE sources (PWL VCVS)", 0, unsupported_count, NULL, NULL};
static const nsc_device dev_m = {NSC_EL_M, "MOS transistors", 0, unsupported_count, NULL, NULL};
static const nsc_device dev_s = {NSC_EL_S, "voltage-controlled switches", 0, unsupported_count, NULL, NULL};

static const nsc_device *const table[NSC_EL_NKINDS] = {
    [NSC_EL_R] = &nsc_dev_r, [NSC_EL_C] = &nsc_dev_c, [NSC_EL_L] = &nsc_dev_l,
    [NSC_EL_K] = &nsc_dev_k, [NSC_EL_V] = &nsc_dev_v, [NSC_EL_I] = &nsc_dev_i,
    [NSC_EL_E] = &nsc_dev_e, [NSC_EL_ETABLE] = &dev_etable, [NSC_EL_G] = &nsc_dev_g,
    [NSC_EL_F] = &nsc_dev_f, [NSC_EL_H] = &nsc_dev_h, [NSC_EL_D] = &nsc_dev_d,
    [NSC_EL_M] = &dev_m, [NSC_EL_S] = &dev_s,
};

const nsc_device *nsc_device_of(nsc_elkind kind)
{
    return (unsigned)kind < NSC_EL_NKINDS ? table[kind] : NULL;
}
