/* Agent registry and clock-offset estimation for the coordinator. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_fleet.h"
#include "rb_time.h"

void rb_fleet_init(rb_fleet_t *f, uint32_t nphases)
{
    memset(f, 0, sizeof *f);
    f->nphases = nphases;
}

void rb_fleet_fini(rb_fleet_t *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        rb_node_t *n = &f->nodes[i];
        for (uint32_t p = 0; n->done && p < f->nphases; p++)
            rb_msg_fini(&n->done[p]);
        free(n->done);
    }
    free(f->nodes);
    memset(f, 0, sizeof *f);
}

rb_node_t *rb_fleet_find(rb_fleet_t *f, const char *name)
{
    for (uint32_t i = 0; i < f->n; i++)
        if (strcmp(f->nodes[i].hello.name, name) == 0)
            return &f->nodes[i];
    return NULL;
}

rb_node_t *rb_fleet_add(rb_fleet_t *f, const rb_msg_hello_t *hello, uint64_t now)
{
    if (f->n == f->cap) {
        uint32_t cap = f->cap ? f->cap * 2 : 16;
        rb_node_t *nodes = realloc(f->nodes, cap * sizeof *nodes);
        if (!nodes)
            return NULL;
        f->nodes = nodes;
        f->cap = cap;
    }
    rb_node_t *n = &f->nodes[f->n];
    memset(n, 0, sizeof *n);
    n->done = calloc(f->nphases ? f->nphases : 1, sizeof *n->done);
    if (!n->done)
        return NULL;
    n->hello = *hello;
    n->state = RB_AGENT_SYNCING;
    n->status = RB_NODE_OK;
    n->best_rtt_ns = UINT64_MAX;
    n->last_seen_ns = now;
    f->n++;
    return n;
}

void rb_node_clock_sample(rb_node_t *node, uint64_t t_sent, uint64_t t_agent, uint64_t t_recv)
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

void rb_node_out(rb_node_t *node, rb_node_status_t status, const char *fmt, ...)
{
    va_list ap;
    node->state = RB_AGENT_GONE;
    if (!node->out_ns)
        node->out_ns = rb_mono_ns();
    if (node->status == RB_NODE_OK) {
        node->status = status;
        va_start(ap, fmt);
        vsnprintf(node->error, sizeof node->error, fmt, ap);
        va_end(ap);
    }
}

uint32_t rb_fleet_count(const rb_fleet_t *f, rb_agent_state_t st)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < f->n; i++)
        c += f->nodes[i].state == st;
    return c;
}

uint32_t rb_fleet_active(const rb_fleet_t *f)
{
    return f->n - rb_fleet_count(f, RB_AGENT_GONE);
}
