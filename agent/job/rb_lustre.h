/* Lustre striping of an agent's run folders: the plan's lustre_stripe_count
 * and lustre_stripe_size become `lfs setstripe -c N -S SIZE DIR` when DIR is
 * on Lustre, and a note when it is not. */
#ifndef RB_LUSTRE_H
#define RB_LUSTRE_H

#include <stdint.h>

#include "rb_err.h"

/* statfs f_type of a Lustre client mount (LL_SUPER_MAGIC). */
#define RB_LUSTRE_MAGIC 0x0BD00BD0

/* 1 if dir is on Lustre, 0 if not, -errno (err set) if statfs fails. */
int rb_lustre_is_on(const char *dir, rb_err_t *err);

/* Runs lfs setstripe on dir (count 0 or size 0: that one left out;
 * RB_LUSTRE_STRIPE_ALL as -1) when dir is on Lustre: returns 1 when
 * applied, 0 when dir is not on Lustre (nothing run), -errno with err set
 * when lfs is missing or fails. The lfs binary is the only external
 * command an agent runs (docs/security.md). */
int rb_lustre_setstripe(const char *dir, uint32_t count, uint64_t size, rb_err_t *err);

#endif
