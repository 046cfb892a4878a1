/* The option readers of sizes that may be a percentage, as fio takes them:
 * io_size (of size), size and offset (of a device, settled by its agent). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "rb_plan_int.h"

/* "N%" (1 to 100, as fio takes it) into *pct: 1, or 0 when val is not a
 * percentage, or -EINVAL said. */
static int s_percent(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                     uint32_t *pct)
{
    size_t n = strlen(val);
    uint64_t v = 0;
    char num[16];
    if (n < 2 || val[n - 1] != '%')
        return 0;
    if (n - 1 >= sizeof num)
        return rb_plan_fail(ps, line, "bad percentage '%.64s' for %s (1%% to 100%%)", val, key);
    memcpy(num, val, n - 1);
    num[n - 1] = '\0';
    if (rb_opt_value_uint(ps, line, key, rb_text_trim(num), 1, 100, &v) < 0)
        return -EINVAL;
    *pct = (uint32_t)v;
    return 1;
}

/* io_size / io_limit: bytes, or "N%" of size (1 to 100, as fio takes it),
 * settled once the job's size is known. */
int rb_opt_value_io_size(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    o->io_size_pct = 0;
    int rc = rb_plan_zone_count(ps, o, opt, val, line);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = s_percent(ps, line, key, val, &o->io_size_pct);
    if (rc != 0) {
        o->spec.io_size = 0;
        return rc < 0 ? rc : 0;
    }
    return rb_opt_value_size(ps, line, key, val, true, &o->spec.io_size);
}

/* size and offset: bytes, or "N%" of each device the job names, which the
 * agent holding it settles (size_pct, offset_pct). */
int rb_opt_value_size_pct(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    bool offset = opt->off == offsetof(rb_job_spec_t, offset);
    uint32_t *pct = offset ? &js->offset_pct : &js->size_pct;
    uint64_t *bytes = offset ? &js->offset : &js->size;
    *pct = 0;
    int rc = rb_plan_zone_count(ps, o, opt, val, line);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = s_percent(ps, line, key, val, pct);
    if (rc != 0) {
        *bytes = 0;
        return rc < 0 ? rc : 0;
    }
    return rb_opt_value_size(ps, line, key, val, offset, bytes);
}

/* fio takes the size of a job without size= from its file as it is. In
 * rackbench a job's files are made anew in the run's own folder, so the file
 * is there only when an earlier phase of the plan writes it: the same
 * filename= in the same directory. new_phase: the job starts a phase of its
 * own. 1 when such a job is found (size 0 then means "the file's size, from
 * the offset on, when the phase starts"), 0 when none is. */
int rb_opt_size_from_file(const rb_plan_parser_t *ps, const rb_job_spec_t *js, bool new_phase)
{
    uint32_t done = new_phase ? ps->nphases : (ps->nphases ? ps->nphases - 1 : 0);
    if (!js->filename[0] || js->device[0] || js->shared_file)
        return 0;
    for (uint32_t p = 0; p < done; p++)
        for (uint32_t j = 0; j < ps->phases[p].njobs; j++) {
            const rb_job_spec_t *w = &ps->phases[p].jobs[j];
            if (rb_rw_writes(w->rw) && !w->device[0] && !w->shared_file &&
                !strcmp(w->filename, js->filename) && !strcmp(w->directory, js->directory))
                return 1;
        }
    return 0;
}
