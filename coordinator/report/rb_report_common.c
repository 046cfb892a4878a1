/* What summary.json, report.txt and report.html say alike (rb_report.h):
 * a phase's IO in a line, its sizes, the nodes that completed it, the
 * nodes and time of a run and which nodes fell silent, units. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_job_spec.h"
#include "rb_report.h"
#include "rb_units.h"

double rb_report_us(uint64_t ns)
{
    return (double)ns / 1e3;
}

/* Per-worker operation rates (ops / own time): sum, min, avg, max. */
void rb_report_op_rates(const rb_phase_agg_t *a, double out[4])
{
    uint32_t n = 0;
    out[0] = out[1] = out[2] = out[3] = 0;
    for (uint32_t i = 0; i < a->nrows; i++) {
        if (a->rows[i].time_s <= 0)
            continue;
        double r = (double)a->rows[i].ops / a->rows[i].time_s;
        out[0] += r;
        out[1] = n == 0 || r < out[1] ? r : out[1];
        out[3] = r > out[3] ? r : out[3];
        n++;
    }
    out[2] = n ? out[0] / n : 0;
}

const char *rb_report_phase_rw(const rb_phase_agg_t *a)
{
    for (uint32_t j = 1; j < a->njobs; j++)
        if (a->jobs[j].rw != a->jobs[0].rw)
            return "mixed";
    return rb_rw_name(a->rw) ? rb_rw_name(a->rw) : "?";
}

char *rb_report_bs(uint64_t bs, uint64_t bs_max, char *buf, size_t len)
{
    char b1[32], b2[32];
    if (bs_max > bs)
        snprintf(buf, len, "bs=%s-%s", rb_units_fmt_size_exact(b1, sizeof b1, bs),
                 rb_units_fmt_size_exact(b2, sizeof b2, bs_max));
    else
        snprintf(buf, len, "bs=%s", rb_units_fmt_size_exact(b1, sizeof b1, bs));
    return buf;
}

char *rb_report_phase_io(const rb_phase_agg_t *a, const rb_phase_spec_t *sp, char *buf, size_t len)
{
    const char *engine = a->njobs ? a->jobs[0].ioengine : "sync";
    unsigned iodepth = a->njobs ? a->jobs[0].iodepth : 1;
    uint64_t bs_max = sp->njobs ? sp->jobs[0].bs_max : 0;
    bool bs = true, direct = true, eng = true, qd = true;
    for (uint32_t j = 1; j < a->njobs; j++) {
        const rb_agg_job_t *x = &a->jobs[j];
        bs &= x->bs == a->jobs[0].bs && (j >= sp->njobs || sp->jobs[j].bs_max == bs_max);
        direct &= j >= sp->njobs || sp->jobs[j].direct == sp->jobs[0].direct;
        eng &= !strcmp(x->ioengine, engine);
        qd &=
            rb_engine_info_depth(x->ioengine, x->iodepth) == rb_engine_info_depth(engine, iodepth);
    }
    char size[80], depth[64];
    if (sp->njobs && sp->jobs[0].network) { /* a network phase: its pattern, not IO */
        const rb_job_spec_t *js = &sp->jobs[0];
        snprintf(buf, len, "network %s%s, %s of %s", rb_net_pattern_name(js->network),
                 js->rw == RB_RW_RW ? " both ways" : "", js->pingpong ? "round trips" : "messages",
                 rb_report_bs(js->bs, 0, size, sizeof size));
        return buf;
    }
    if (!bs)
        snprintf(size, sizeof size, "bs mixed");
    else
        rb_report_bs(a->bs, bs_max, size, sizeof size);
    unsigned kept = rb_engine_info_depth(engine, iodepth);
    if (!qd)
        snprintf(depth, sizeof depth, "qd mixed");
    else if (eng && kept != iodepth)
        snprintf(depth, sizeof depth, "qd%u (iodepth=%u)", kept, iodepth);
    else
        snprintf(depth, sizeof depth, "qd%u", kept);
    snprintf(buf, len, "%s %s %s %s %s", rb_report_phase_rw(a), size,
             !direct     ? "direct and buffered"
             : a->direct ? "direct"
                         : "buffered",
             eng ? engine : "engines mixed", depth);
    return buf;
}

uint32_t rb_report_covered(const rb_phase_agg_t *a)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->nnodes; i++)
        n += a->nodes[i].status == RB_NODE_OK;
    return n;
}

int rb_report_silent(const rb_run_result_t *r, const rb_report_node_t *n)
{
    if (!r->running || !(r->seen_s > 0) || (n->status != RB_NODE_OK && n->status != RB_NODE_CUT))
        return 0;
    double quiet = 2 * r->interval_s > 1 ? 2 * r->interval_s : 1;
    return n->last_sample_s < 0 || r->seen_s - n->last_sample_s > quiet;
}

uint32_t rb_report_nsilent(const rb_run_result_t *r)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        n += rb_report_silent(r, &r->nodes[i]);
    return n;
}

char *rb_report_run_nodes(const rb_run_result_t *r, char *buf, size_t len)
{
    uint32_t ok = 0, silent = rb_report_nsilent(r);
    for (uint32_t i = 0; i < r->nnodes; i++)
        ok += r->nodes[i].status == RB_NODE_OK;
    if (!r->running || !(r->seen_s > 0))
        snprintf(buf, len, "nodes %u (%u ok)  %.1f s", r->nnodes, ok, r->duration_s);
    else
        snprintf(buf, len, "nodes %u seen, %u sending at its end  %.1f s to its last sample",
                 r->nnodes, r->nnodes - silent, r->seen_s);
    return buf;
}

const char *rb_report_build(const rb_run_result_t *r)
{
    return r->build[0] ? r->build : RB_VERSION;
}

/* " (at 12.3 s)" for a node lost then; "" otherwise (static buffer). */
const char *rb_report_lost_at(double s)
{
    static char buf[48];
    if (s < 0)
        return "";
    snprintf(buf, sizeof buf, " (at %.1f s)", s);
    return buf;
}

const char *rb_report_cleanup_name(rb_cleanup_t c)
{
    static const char *const names[] = {NULL, "confirmed", "none needed",
                                        "removed by the coordinator", "not confirmed"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : NULL;
}

char *rb_report_lat_bounds(const rb_lat_bounds_t *b, char *buf, size_t len)
{
    char max[48] = "";
    if (b->max > 0)
        snprintf(max, sizeof max, "  max %.1f", b->max);
    snprintf(buf, len, "p50 %.1f .. %.1f  p99 %.1f .. %.1f%s", b->p50_lo, b->p50_hi, b->p99_lo,
             b->p99_hi, max);
    return buf;
}
