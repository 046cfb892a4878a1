/* The reader and print of fio's sync_file_range option: which of
 * sync_file_range(2)'s flags, and after how many writes. What it does is in
 * agent/workloads/rb_data_files.c (rb_data_sync_files) and docs/plan.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"

/* fio's names of the flags, in the kernel's order: SYNC_FILE_RANGE_WAIT_BEFORE
 * (1), SYNC_FILE_RANGE_WRITE (2), SYNC_FILE_RANGE_WAIT_AFTER (4). */
static const char *const s_flags[] = {"wait_before", "write", "wait_after"};

/* sync_file_range=FLAGS:N: FLAGS a comma-separated list of fio's names, N
 * the writes between calls (fio's default 1 when left out). */
int rb_opt_value_sync_file_range(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                 const char *key, const char *val, unsigned line)
{
    (void)opt;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", val);
    char *colon = strchr(buf, ':');
    uint64_t every = 1;
    if (colon) {
        *colon = '\0';
        if (rb_opt_value_uint(ps, line, key, colon + 1, 1, UINT32_MAX, &every) < 0)
            return -EINVAL;
    }
    uint32_t flags = 0;
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        tok = rb_text_trim(tok);
        size_t i = 0;
        while (i < 3 && strcmp(tok, s_flags[i]))
            i++;
        if (i == 3)
            return rb_plan_fail(ps, line,
                                "bad flag '%.32s' for %s (wait_before, write or wait_after, "
                                "joined by commas, then :N)",
                                tok, key);
        flags |= 1u << i;
    }
    o->spec.sfr_flags = flags;
    o->spec.sfr_every = (uint32_t)every;
    return 0;
}

void rb_opt_print_sync_file_range(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                  FILE *f)
{
    (void)gd;
    if (!js->sfr_every)
        return;
    fprintf(f, "%s=", opt->key);
    for (unsigned i = 0, n = 0; i < 3; i++)
        if (js->sfr_flags & (1u << i))
            fprintf(f, "%s%s", n++ ? "," : "", s_flags[i]);
    fprintf(f, ":%" PRIu32 "\n", js->sfr_every);
}
