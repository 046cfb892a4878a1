/* The readers of fio's log options (write_bw_log, write_iops_log,
 * write_lat_log, write_hist_log, log_avg_msec, log_hist_msec,
 * log_hist_coarseness, log_max_value, log_offset, log_unix_epoch,
 * per_job_logs). They change no IO: the coordinator writes the logs from
 * samples.csv and latency.csv (report/rb_fiolog.c), so they stay in the
 * plan's list of logs and never go to an agent. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan_int.h"

/* The longest window log_avg_msec and log_hist_msec take: a day. */
#define S_MAX_AVG_MS 86400000ull

/* log_hist_coarseness's largest: fio's 64 bins of a power of two in one. */
#define S_MAX_COARSENESS 6

/* write_bw_log=PREFIX (bare or empty: the job's name). The logs go into the
 * run folder: a prefix that names another folder is refused. */
int rb_opt_value_log(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                     const char *val, unsigned line)
{
    size_t len = strlen(val);
    if (len >= RB_NAME_MAX)
        return rb_plan_fail(ps, line, "%s: '%.40s...' is longer than %d characters", key, val,
                            RB_NAME_MAX - 1);
    if (strchr(val, '/') || !strcmp(val, ".") || !strcmp(val, ".."))
        return rb_plan_fail(ps, line,
                            "%s: '%s' names a folder: the logs go into the run folder, give a "
                            "file name prefix",
                            key, val);
    for (const char *c = val; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return rb_plan_fail(ps, line, "%s: '%s' holds a control character", key, val);
    char *dst;
    uint8_t bit;
    if (!strcmp(opt->key, "write_bw_log")) {
        dst = o->log.bw;
        bit = RB_PLAN_LOG_BW;
    } else if (!strcmp(opt->key, "write_iops_log")) {
        dst = o->log.iops;
        bit = RB_PLAN_LOG_IOPS;
    } else if (!strcmp(opt->key, "write_hist_log")) {
        dst = o->log.hist;
        bit = RB_PLAN_LOG_HIST;
    } else {
        dst = o->log.lat;
        bit = RB_PLAN_LOG_LAT;
    }
    memcpy(dst, val, len + 1);
    o->log_want |= bit;
    return 0;
}

/* log_avg_msec=N and log_hist_msec=N: a window in ms, 0 .. a day;
 * log_hist_coarseness=N: 0 .. 6. */
int rb_opt_value_log_avg_msec(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                              const char *key, const char *val, unsigned line)
{
    if (!strcmp(opt->key, "log_hist_msec"))
        return rb_opt_value_uint(ps, line, key, val, 0, S_MAX_AVG_MS, &o->log.hist_ms);
    if (!strcmp(opt->key, "log_hist_coarseness")) {
        uint64_t c;
        if (rb_opt_value_uint(ps, line, key, val, 0, S_MAX_COARSENESS, &c) < 0)
            return -EINVAL;
        o->log.coarseness = (uint32_t)c;
        return 0;
    }
    return rb_opt_value_uint(ps, line, key, val, 0, S_MAX_AVG_MS, &o->log.avg_ms);
}

/* log_unix_epoch, log_max_value, log_offset and per_job_logs: booleans. */
int rb_opt_value_log_flag(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    bool b;
    if (rb_opt_value_bool(ps, line, key, val, &b) < 0)
        return -EINVAL;
    if (!strcmp(opt->key, "log_unix_epoch"))
        o->log.unix_epoch = b;
    else if (!strcmp(opt->key, "log_max_value"))
        o->log.max_value = b;
    else if (!strcmp(opt->key, "log_offset"))
        o->log.offset = b;
    else
        o->log_no_per_job = !b;
    return 0;
}

int rb_opt_value_log_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o, uint32_t number)
{
    if (!o->log_want)
        return 0;
    if (ps->nlogs == ps->cap_logs) {
        uint32_t cap = ps->cap_logs ? 2 * ps->cap_logs : 4;
        rb_plan_log_t *grown = realloc(ps->logs, cap * sizeof *grown);
        if (!grown)
            return rb_plan_nomem(ps);
        ps->logs = grown;
        ps->cap_logs = cap;
    }
    rb_plan_log_t *l = &ps->logs[ps->nlogs++];
    *l = o->log;
    snprintf(l->job, sizeof l->job, "%s", o->spec.name);
    l->number = number;
    l->per_job = !o->log_no_per_job;
    /* a log asked for without a prefix is named after the job, as in fio */
    char *const prefix[] = {l->bw, l->iops, l->lat, l->hist};
    for (int k = 0; k < 4; k++) {
        if (!(o->log_want & (1u << k)))
            prefix[k][0] = '\0';
        else if (!prefix[k][0])
            snprintf(prefix[k], RB_NAME_MAX, "%s", o->spec.name);
    }
    /* fio writes a histogram log with no window empty: so does rackbench, and says so */
    if (l->hist[0] && !l->hist_ms) {
        int rc = rb_plan_note(ps, rb_plan_job_line(o, "write_hist_log"),
                              "job '%s': write_hist_log without log_hist_msec: its log stays "
                              "empty, as fio's",
                              l->job);
        if (rc < 0)
            return rc;
    }
    /* the block size of fio's histogram lines: a direction's one size */
    const rb_job_spec_t *js = &o->spec;
    l->bs[0] = js->bs_read == js->bs_read_max ? js->bs_read : 0;
    l->bs[1] = js->bs_write == js->bs_write_max ? js->bs_write : 0;
    l->bs[2] = js->bs_trim == js->bs_trim_max ? js->bs_trim : 0;
    return 0;
}
