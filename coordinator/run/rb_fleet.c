/* Agent registry and clock-offset estimation for the coordinator. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_fleet.h"
#include "rb_report.h"
#include "rb_time.h"

void rb_fleet_init(rb_fleet_t *f, uint32_t nphases)
{
    memset(f, 0, sizeof *f);
    f->nphases = nphases;
}

/* The arrays a kept DONE takes from its message, by their names in both:
 * taken by rb_fleet_keep_done, handed back to a message to be freed as
 * decoded by rb_fleet_drop_done. */
#define S_DONE_ARRAYS(X)                                                                           \
    X(nworkers, workers) X(njobs, jobs) X(ndevs, devs) X(ndev_stats, dev_stats) X(nlinks, links)

rb_agg_done_t *rb_fleet_keep_done(rb_msg_done_t *d)
{
    size_t le = strlen(d->error) + 1, lp = strlen(d->error_path) + 1,
           lr = strlen(d->net_refused_by) + 1, lc = 0,
           ll = (size_t)d->ndev_stats * sizeof(rb_lat_summary_t);
    for (uint32_t i = 0; i < d->nworkers; i++)
        lc += rb_pack_checkpts(d->workers[i].checkpts, d->workers[i].ncheckpts, NULL);
    /* one allocation: the record, its devices' latency, checkpoints, texts */
    rb_agg_done_t *k = malloc(sizeof *k + ll + lc + le + lp + lr);
    rb_packed_t *ids = NULL;
    if (!k || (d->ndevs && d->devs && !(ids = rb_pack_array(RB_PACK_DEV, d->devs, d->ndevs)))) {
        free(k);
        return NULL;
    }
    *k = rb_agg_done_of(d);
    k->dev_ids = ids;
    rb_lat_summary_t *lat = (rb_lat_summary_t *)(k + 1);
    k->dev_lat = d->ndev_stats ? lat : NULL;
    for (uint32_t i = 0; i < d->ndev_stats; i++) {
        lat[i] = (rb_lat_summary_t){0};
        if (d->dev_stats[i].hist)
            rb_lat_summary_of(&lat[i], d->dev_stats[i].hist);
        rb_job_stat_drop_hists(&d->dev_stats[i]);
    }
    for (uint32_t i = 0; i < d->njobs; i++)
        rb_job_stat_drop_hists(&d->jobs[i]);
    rb_msg_done_drop_devs(d);
    k->devs = NULL;
    uint8_t *cps = (uint8_t *)(lat + d->ndev_stats);
    char *t = (char *)cps + lc;
    k->cps = d->nworkers ? cps : NULL;
    k->cps_len = lc;
    for (uint32_t i = 0; i < d->nworkers; i++) {
        rb_worker_stat_t *w = &d->workers[i];
        cps += rb_pack_checkpts(w->checkpts, w->ncheckpts, cps);
        rb_worker_stat_drop_checkpts(w);
    }
    k->error = memcpy(t, d->error, le);
    k->error_path = memcpy(t + le, d->error_path, lp);
    k->net_refused_by = memcpy(t + le + lp, d->net_refused_by, lr);
#define S_TAKEN(cnt, arr)                                                                          \
    d->cnt = 0;                                                                                    \
    d->arr = NULL;
    S_DONE_ARRAYS(S_TAKEN) /* the arrays are k's now */
#undef S_TAKEN
    return k;
}

void rb_fleet_drop_done(rb_fleet_node_t *n, uint32_t phase)
{
    if (!n->done || phase >= n->fleet->nphases)
        return;
    rb_agg_done_t *k = n->done[phase];
    if (k) { /* its arrays as a message's, to free them as decoded */
        rb_msg_t m = {.type = RB_MSG_DONE};
#define S_BACK(cnt, arr)                                                                           \
    m.u.done.cnt = k->cnt;                                                                         \
    m.u.done.arr = k->arr;
        S_DONE_ARRAYS(S_BACK)
#undef S_BACK
        rb_msg_fini(&m);
        rb_packed_free(&k->dev_ids);
    }
    free(k);
    n->done[phase] = NULL;
}

int rb_fleet_take_health(rb_fleet_node_t *n, int after, const rb_health_t *h, uint32_t nh)
{
    if (!h)
        return 0;
    rb_packed_t *p = rb_pack_array(RB_PACK_HEALTH, h, nh);
    if (!p)
        return -ENOMEM;
    rb_packed_free(&n->health[after]);
    n->health[after] = p;
    return 0;
}

int rb_fleet_health(const rb_fleet_t *f, rb_report_node_t *nodes)
{
    int rc = 0;
    for (uint32_t i = 0; i < f->n; i++)
        for (int k = 0; k < 2; k++) {
            const rb_packed_t *p = f->nodes[i].health[k];
            nodes[i].health[k] = rb_packed_unpack_all(p);
            nodes[i].nhealth[k] = nodes[i].health[k] ? p->n : 0;
            if (!nodes[i].health[k] && p && p->n)
                rc = -ENOMEM;
        }
    return rc;
}

void rb_fleet_health_free(const rb_fleet_t *f, rb_report_node_t *nodes)
{
    for (uint32_t i = 0; nodes && i < f->n; i++)
        for (int k = 0; k < 2; k++) {
            free((void *)nodes[i].health[k]); /* rb_fleet_health's */
            nodes[i].health[k] = NULL;
            nodes[i].nhealth[k] = 0;
        }
}

void rb_fleet_fini(rb_fleet_t *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        rb_fleet_node_t *n = &f->nodes[i];
        for (uint32_t p = 0; n->done && p < f->nphases; p++)
            rb_fleet_drop_done(n, p);
        free(n->done);
        rb_packed_free(&n->health[0]);
        rb_packed_free(&n->health[1]);
        rb_host_free(&n->hello.hw);
    }
    free(f->nodes);
    rb_names_fini(&f->index);
    memset(f, 0, sizeof *f);
}

static const char *s_name_at(const void *ctx, uint32_t i)
{
    return ((const rb_fleet_t *)ctx)->nodes[i].hello.name;
}

rb_fleet_node_t *rb_fleet_find(rb_fleet_t *f, const char *name)
{
    uint32_t i = rb_names_find(&f->index, name, s_name_at, f);
    return i == UINT32_MAX ? NULL : &f->nodes[i];
}

void rb_fleet_reindex(rb_fleet_t *f)
{
    rb_names_rebuild(&f->index, f->n, s_name_at, f);
}

static void s_take_hello(rb_fleet_node_t *n, const rb_msg_hello_t *hello)
{
    memcpy(n->hello.name, hello->name, sizeof n->hello.name);
    memcpy(n->hello.rack, hello->rack, sizeof n->hello.rack);
    memcpy(n->hello.hostname, hello->hostname, sizeof n->hello.hostname);
    memcpy(n->hello.agent_version, hello->agent_version, sizeof n->hello.agent_version);
    snprintf(n->hello.build, sizeof n->hello.build, "%s",
             hello->build[0] ? hello->build : hello->agent_version);
    n->hello.pid = hello->pid;
    n->hello.cores = hello->cores;
    n->hello.ram_bytes = hello->ram_bytes;
    n->hello.cache_bytes = hello->cache_bytes;
    rb_host_of_hello(hello, &n->hello.hw); /* without memory, a node without its inventory */
}

rb_fleet_node_t *rb_fleet_add(rb_fleet_t *f, const rb_msg_hello_t *hello, uint64_t now)
{
    if (f->n == f->cap) {
        uint32_t cap = f->cap ? f->cap * 2 : 16;
        rb_fleet_node_t *nodes = realloc(f->nodes, cap * sizeof *nodes);
        if (!nodes)
            return NULL;
        f->nodes = nodes;
        f->cap = cap;
    }
    if (rb_names_grow(&f->index, f->n, s_name_at, f) < 0)
        return NULL;
    rb_fleet_node_t *n = &f->nodes[f->n];
    memset(n, 0, sizeof *n);
    n->done = calloc(f->nphases ? f->nphases : 1, sizeof *n->done);
    if (!n->done)
        return NULL;
    s_take_hello(n, hello);
    n->fleet = f;
    n->state = RB_AGENT_SYNCING;
    n->cleanup = RB_CLEANUP_NONE; /* until its PLAN */
    n->status = RB_NODE_OK;
    n->best_rtt_ns = UINT64_MAX;
    n->last_seen_ns = now;
    rb_fleet_node_said_hello(n, hello);
    rb_names_put(&f->index, f->n, s_name_at, f);
    f->nstate[n->state]++;
    f->n++;
    return n;
}

void rb_fleet_node_rejoin(rb_fleet_node_t *node, const rb_msg_hello_t *hello, uint64_t now)
{
    s_take_hello(node, hello);
    node->status = RB_NODE_OK; /* taken for lost while joining: back */
    node->error[0] = '\0';
    node->out_ns = 0;
    node->offset_ns = 0;
    node->best_rtt_ns = UINT64_MAX;
    node->pings = 0;
    node->last_seen_ns = now;
    rb_fleet_node_set_state(node, RB_AGENT_SYNCING);
}

int rb_fleet_node_said_hello(rb_fleet_node_t *n, const rb_msg_hello_t *hello)
{
    if (hello->pid == n->said_pid && strcmp(hello->hostname, n->said_host) == 0)
        return 0; /* the same process again */
    /* A restarted agent's old process is gone: it never comes back. */
    int back = hello->pid == n->before_pid && strcmp(hello->hostname, n->before_host) == 0;
    n->before_pid = n->said_pid;
    memcpy(n->before_host, n->said_host, sizeof n->before_host);
    n->said_pid = hello->pid;
    snprintf(n->said_host, sizeof n->said_host, "%s", hello->hostname);
    return back;
}

void rb_fleet_node_set_state(rb_fleet_node_t *node, rb_agent_state_t st)
{
    node->fleet->nstate[node->state]--;
    node->fleet->nstate[st]++;
    node->state = st;
}

void rb_fleet_node_clock_sample(rb_fleet_node_t *node, uint64_t t_sent, uint64_t t_agent,
                                uint64_t t_recv)
{
    if (t_recv < t_sent)
        return;
    uint64_t rtt = t_recv - t_sent;
    node->pings++;
    if (rtt < node->best_rtt_ns) {
        node->best_rtt_ns = rtt;
        uint64_t mid = t_sent + rtt / 2;
        node->offset_ns = (int64_t)(t_agent - mid);
    }
}

void rb_fleet_node_out(rb_fleet_node_t *node, rb_node_status_t status, const char *fmt, ...)
{
    va_list ap;
    rb_fleet_node_set_state(node, RB_AGENT_GONE);
    if (!node->out_ns)
        node->out_ns = rb_time_mono_ns();
    if (node->status == RB_NODE_OK) {
        node->status = status;
        va_start(ap, fmt);
        vsnprintf(node->error, sizeof node->error, fmt, ap);
        va_end(ap);
    }
}

uint32_t rb_fleet_count(const rb_fleet_t *f, rb_agent_state_t st)
{
    return st < RB_AGENT_NSTATES ? f->nstate[st] : 0;
}

uint32_t rb_fleet_active(const rb_fleet_t *f)
{
    return f->n - f->nstate[RB_AGENT_GONE];
}
