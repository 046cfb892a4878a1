/* The agents of a run: who may join (names, --nodes, how many), the wait
 * for them, the order they take (ranks do not depend on who said HELLO
 * first) and the PLAN each one gets. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "rb_accept.h"
#include "rb_auth.h"
#include "rb_join.h"
#include "rb_report.h"
#include "rb_local.h"
#include "rb_log.h"
#include "rb_router.h"
#include "rb_time.h"
#include "rb_units.h"
#include "rb_names.h"
#include "rb_opt.h"
#include "rb_perm.h"

#define S_NAME_CHARS RB_NAMES_CHARS

static int s_wanted(const rb_run_ctx_t *r, const char *name)
{
    if (!r->want)
        return 1;
    const char *p = r->want;
    for (uint32_t i = 0; i < r->nwant; i++, p += strlen(p) + 1)
        if (strcmp(p, name) == 0)
            return 1;
    return 0;
}

/* Two live processes say HELLO under one name (the ROUTER hands the name to
 * the newest connection, so each takes it from the other in turn): the run
 * cannot tell their messages apart. Before the run began it fails; after,
 * the node is out. The process that came back is told. */
static void s_two_of_a_name(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_hello_t *h,
                            const char *id, uint32_t version)
{
    rb_msg_t no = rb_router_reason_msg(r, RB_MSG_ERROR, -EADDRINUSE, "");
    snprintf(no.u.error.reason, sizeof no.u.error.reason,
             "two agents call themselves %s: pid %u on %s and pid %u on %s; give each one a "
             "--name of its own",
             h->name, h->pid, h->hostname, n->before_pid, n->before_host);
    if (r->gathering) {
        rb_run_fail(r, "%s", no.u.error.reason);
    } else if (n->state != RB_AGENT_GONE) {
        rb_warn("%s", no.u.error.reason);
        rb_fleet_node_out(n, RB_NODE_FAILED, "%s", no.u.error.reason);
    } else if (!strstr(n->error, "two agents call themselves")) {
        rb_warn("%s", no.u.error.reason);
        size_t len = strlen(n->error);
        snprintf(n->error + len, sizeof n->error - len, "%s%s", len ? "; " : "", no.u.error.reason);
    }
    rb_router_send_to_v(r, id, strlen(id), version, &no);
}

void rb_join_hello(rb_run_ctx_t *r, const char *id, rb_msg_hello_t *h, uint32_t version,
                   uint64_t now)
{
    /* a HELLO whose name is not its sender's routing id speaks for no node */
    rb_fleet_node_t *n = strcmp(id, h->name) == 0 ? rb_fleet_find(&r->fleet, h->name) : NULL;
    if (version >= 24 && h->fingerprint != rb_proto_fingerprint(version)) {
        /* Its version names another schema than this build's: builds of
         * sources that went apart, each saying the same version. */
        rb_msg_t no = rb_router_reason_msg(r, RB_MSG_ERROR, -EPROTO, "");
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "agent %s (build %s) speaks protocol %" PRIu32 " with schema %016" PRIx64
                 ", and this coordinator (build %s) has %016" PRIx64
                 " for it: builds that went apart; run one build on both sides",
                 h->name, h->build, version, h->fingerprint, rb_build_id(),
                 rb_proto_fingerprint(version));
        if (rb_run_reject_tell(r, now, "turned away peer %s: %s", id, no.u.error.reason))
            rb_router_send_to_v(r, id, strlen(id), version, &no);
        return;
    }
    if (n && rb_fleet_node_said_hello(n, h)) {
        s_two_of_a_name(r, n, h, id, version);
        return;
    }
    if (n && h->pid != n->hello.pid && !r->gathering) {
        /* A new process under a known name: the agent restarted mid-run and
         * knows nothing of it. The node is out; the agent is told so. */
        if (n->state != RB_AGENT_GONE) {
            rb_warn("agent %s restarted mid-run (pid %u, now %u): it is lost to this run", h->name,
                    n->hello.pid, h->pid);
            rb_fleet_node_out(n, RB_NODE_LOST, "restarted mid-run (pid %u, now %u)", n->hello.pid,
                              h->pid);
        } else if (!strstr(n->error, "restarted mid-run")) {
            /* Already out (a send found it gone, or it fell silent) before
             * the new process said HELLO: both are said, in their order. */
            rb_warn("agent %s restarted mid-run (pid %u, now %u) after it was out", h->name,
                    n->hello.pid, h->pid);
            size_t len = strlen(n->error);
            snprintf(n->error + len, sizeof n->error - len, "%srestarted mid-run (pid %u, now %u)",
                     len ? "; then it " : "", n->hello.pid, h->pid);
        }
        rb_msg_t over = rb_router_reason_msg(r, RB_MSG_ERROR, -ECANCELED, "");
        snprintf(over.u.error.reason, sizeof over.u.error.reason,
                 "run %s is over for agent %s: it restarted while the run went on", r->run_id,
                 h->name);
        rb_router_send_to_v(r, id, strlen(id), version, &over);
        return;
    }
    if (n && r->gathering && (h->pid != n->hello.pid || n->state == RB_AGENT_GONE)) {
        /* Restarted (or back after it was taken for lost) while the run
         * gathers its nodes: the new process knows nothing of the old one's
         * clock probes, which would otherwise be waited for until --wait ran
         * out. It joins afresh. */
        if (h->pid != n->hello.pid)
            rb_info("agent %s restarted before the run began (pid %u, now %u): it joins again",
                    h->name, n->hello.pid, h->pid);
        else
            rb_info("agent %s is back before the run began: it joins again", h->name);
        rb_fleet_node_rejoin(n, h, now);
        n->hello.version = version;
        rb_router_ping(r, n);
        return;
    }
    if (n) {
        n->last_seen_ns = now;
        return; /* repeated HELLO: it has not heard us yet */
    }
    rb_msg_t no = {.type = RB_MSG_ERROR};
    no.u.error.code = -EPERM;
    if (strcmp(id, h->name) != 0) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "HELLO name '%s' differs from the routing id '%s'", h->name, id);
    } else if (strspn(h->name, S_NAME_CHARS) != strlen(h->name) ||
               strspn(h->rack, S_NAME_CHARS) != strlen(h->rack) || !h->rack[0]) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "node name '%s' or rack '%s' has characters outside [A-Za-z0-9._-]", h->name,
                 h->rack);
    } else if (!r->gathering) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason, "run %s has started without agent %s",
                 r->run_id, h->name);
    } else if (!s_wanted(r, h->name)) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason, "agent %s is not in --nodes",
                 h->name);
    } else if (r->fleet.n >= r->expect) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "agent %s is one more than the %u expected", h->name, r->expect);
    } else {
        n = rb_fleet_add(&r->fleet, h, now);
        if (!n) {
            rb_run_fail(r, "out of memory registering agent %s", h->name);
            return;
        }
        n->hello.version = version;
        rb_info("agent %s (rack %s, host %s, %u cores, build %s, protocol %" PRIu32 ") joined",
                h->name, h->rack, h->hostname, h->cores, n->hello.build, version);
        rb_local_joined(r, h->name);
        rb_router_ping(r, n);
        return;
    }
    if (rb_run_reject_tell(r, now, "turned away peer %s: %s", id, no.u.error.reason))
        rb_router_send_to_v(r, id, strlen(id), version, &no);
}

int rb_join_parse_nodes(rb_run_ctx_t *r, const char *csv)
{
    r->want = strdup(csv);
    if (!r->want)
        return -ENOMEM;
    size_t len = strlen(r->want);
    r->nwant = 0;
    const char *start = r->want;
    for (size_t i = 0; i <= len; i++) {
        if (r->want[i] != ',' && r->want[i] != '\0')
            continue;
        r->want[i] = '\0';
        size_t nl = strlen(start);
        if (nl == 0 || nl >= RB_NAME_MAX || strspn(start, S_NAME_CHARS) != nl)
            return -EINVAL;
        r->nwant++;
        start = r->want + i + 1;
    }
    return 0;
}

int rb_join_gather(rb_run_ctx_t *r)
{
    uint64_t deadline = rb_time_mono_ns() + r->o->wait_ns;
    while (!r->failed && !rb_run_interrupted) {
        if (r->fleet.n == r->expect && rb_fleet_count(&r->fleet, RB_AGENT_SYNCED) == r->expect)
            break;
        if (rb_time_mono_ns() > deadline) {
            char missing[RB_REASON_MAX] = "";
            if (r->want) {
                const char *p = r->want;
                for (uint32_t i = 0; i < r->nwant; i++, p += strlen(p) + 1)
                    if (!rb_fleet_find(&r->fleet, p)) {
                        size_t u = strlen(missing);
                        snprintf(missing + u, sizeof missing - u, " %s", p);
                    }
            }
            char refused[RB_REASON_MAX / 2] = "", keys[RB_REASON_MAX / 2];
            uint32_t nref = rb_auth_server_refused(r->auth, keys, sizeof keys);
            if (nref)
                snprintf(refused, sizeof refused, "; refused %u peer%s with unknown keys: %s", nref,
                         nref == 1 ? "" : "s", keys);
            char failed[RB_REASON_MAX / 2], lost[RB_REASON_MAX / 2] = "";
            rb_router_handshakes(r, failed, sizeof failed);
            for (uint32_t i = 0; i < r->fleet.n; i++) {
                const rb_fleet_node_t *n = &r->fleet.nodes[i];
                size_t u = strlen(lost);
                if (n->state == RB_AGENT_GONE && u + strlen(n->hello.name) + 40 < sizeof lost)
                    snprintf(lost + u, sizeof lost - u, "%s%s",
                             u ? " " : "; lost while joining: ", n->hello.name);
            }
            rb_run_fail(r,
                        "%u of %u agents joined (%u with clocks synced) within %.0f s%s%s%s%s%s%s",
                        r->fleet.n, r->expect, rb_fleet_count(&r->fleet, RB_AGENT_SYNCED),
                        (double)r->o->wait_ns / 1e9, missing[0] ? "; missing:" : "", missing, lost,
                        refused, failed, r->nrejects ? "; see the turned-away peers above" : "");
            return -ETIMEDOUT;
        }
        /* A local agent lost while joining does not come back (this run
         * started it); another may: it is waited for until --wait. */
        if (r->o->local && rb_fleet_active(&r->fleet) < r->fleet.n) {
            rb_run_fail(r, "an agent was lost while joining");
            return -EIO;
        }
        rb_router_pump(r, RB_RUN_POLL_MS);
    }
    if (rb_run_interrupted)
        rb_run_fail(r, "interrupted");
    rb_local_drop_keys(r); /* the local agents read theirs when they started */
    r->gathering = 0;
    return r->failed ? -EIO : 0;
}

/* Nodes taking part first, in the order of --nodes (their rank field holds
 * their place in it while sorting), else by name: a run's ranks (and its
 * reports' node order) do not depend on which agent said HELLO first. */
static int s_by_place(const void *a, const void *b)
{
    const rb_fleet_node_t *x = a, *y = b;
    int xin = x->state == RB_AGENT_SYNCED, yin = y->state == RB_AGENT_SYNCED;
    if (xin != yin)
        return xin ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->hello.name, y->hello.name);
}

/* Puts the nodes that take part first, in rank order (rank = index), and
 * lists the read_from shifts the plan uses, once. 0, or -E2BIG with the run
 * failed. Before any phase: nothing holds a node's address yet. */
static int s_rank_nodes(rb_run_ctx_t *r, uint32_t *count, uint32_t *shifts, uint32_t *nshifts)
{
    *nshifts = 0;
    for (uint32_t p = 0; p < r->plan->nphases; p++) {
        for (uint32_t j = 0; j < r->plan->phases[p].njobs; j++) {
            uint32_t k = r->plan->phases[p].jobs[j].read_shift, seen = 0;
            for (uint32_t i = 0; i < *nshifts; i++)
                seen |= shifts[i] == k;
            if (!k || seen || k == RB_READ_RANDOM) /* random: each node's own (s_random) */
                continue;
            if (*nshifts == RB_MAX_PEERS) {
                rb_run_fail(r, "the plan uses more than %d read_from shifts", RB_MAX_PEERS);
                return -E2BIG;
            }
            shifts[(*nshifts)++] = k;
        }
    }
    for (uint32_t i = 0; i < r->fleet.n; i++)
        r->fleet.nodes[i].rank = UINT32_MAX;
    const char *p = r->want;
    for (uint32_t i = 0; p && i < r->nwant; i++, p += strlen(p) + 1) {
        rb_fleet_node_t *n = rb_fleet_find(&r->fleet, p);
        if (n)
            n->rank = i;
    }
    qsort(r->fleet.nodes, r->fleet.n, sizeof *r->fleet.nodes, s_by_place);
    rb_fleet_reindex(&r->fleet);
    *count = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        r->fleet.nodes[i].rank = i;
        *count += r->fleet.nodes[i].state == RB_AGENT_SYNCED;
    }
    return 0;
}

/* The nodes a run needs ready at GO: the largest min_nodes of the plan's
 * acceptance sets, or every node that got the PLAN when no set has one. */
static uint32_t s_min_nodes(const rb_run_ctx_t *r, uint32_t planned)
{
    uint32_t need = 0;
    const rb_accept_t *a = r->plan->accept;
    for (uint32_t i = 0; a && i < a->nsets; i++)
        if (a->sets[i].limit_line[RB_ACCEPT_MIN_NODES] &&
            a->sets[i].limit[RB_ACCEPT_MIN_NODES] > need)
            need = (uint32_t)a->sets[i].limit[RB_ACCEPT_MIN_NODES];
    return need && need < planned ? need : planned;
}

/* A job that reads another node's files (read_from) cannot run without
 * every node that got the PLAN: its name, or NULL. */
static const char *s_needs_every_node(const rb_run_ctx_t *r)
{
    for (uint32_t p = 0; p < r->plan->nphases; p++)
        for (uint32_t j = 0; j < r->plan->phases[p].njobs; j++)
            if (r->plan->phases[p].jobs[j].read_shift)
                return r->plan->phases[p].jobs[j].name;
    return NULL;
}

/* After the wait for READY: 0 when every node that got the PLAN is ready,
 * or when at least need are and the plan can do without the others (they
 * stay in the run as lost, each phase partial); else the run fails (-EIO)
 * naming the nodes lost, and its end tells the others to remove their files. */
static int s_ready_enough(rb_run_ctx_t *r, uint32_t need, uint32_t planned)
{
    uint32_t ready = rb_fleet_count(&r->fleet, RB_AGENT_READY);
    if (ready == planned)
        return 0;
    char lost[RB_REASON_MAX / 2] = "";
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const rb_fleet_node_t *n = &r->fleet.nodes[i];
        size_t u = strlen(lost);
        if (n->rank < planned && n->state == RB_AGENT_GONE && u + 4 < sizeof lost)
            snprintf(lost + u, sizeof lost - u, "%s%s (%s)", u ? ", " : "", n->hello.name,
                     n->error);
    }
    const char *job = s_needs_every_node(r);
    if (ready >= need && ready > 0 && !job && rb_fleet_count(&r->fleet, RB_AGENT_PLANNED) == 0) {
        rb_warn("%u of %u agents became ready; lost before GO: %s; the run goes on with the "
                "ready ones, as [acceptance] min_nodes=%u allows, and every phase is partial",
                ready, planned, lost[0] ? lost : "?", need);
        for (uint32_t i = 0; i < r->fleet.n; i++) {
            rb_fleet_node_t *n = &r->fleet.nodes[i];
            char why[RB_REASON_MAX];
            if (n->rank >= planned || n->state != RB_AGENT_GONE ||
                strncmp(n->error, "lost", 4) == 0)
                continue;
            snprintf(why, sizeof why, "lost before GO, while the nodes laid out their files: %s",
                     n->error);
            snprintf(n->error, sizeof n->error, "%s", why);
        }
        return 0;
    }
    uint32_t left = ready + rb_fleet_count(&r->fleet, RB_AGENT_PLANNED);
    if (job)
        rb_run_fail(r,
                    "%u of %u agents left before GO (lost: %s); job %s reads other nodes' "
                    "files (read_from), so the run cannot go on without them",
                    left, planned, lost[0] ? lost : "?", job);
    else if (need < planned)
        rb_run_fail(r,
                    "%u of %u agents left before GO (lost: %s); [acceptance] min_nodes=%u "
                    "cannot be met",
                    left, planned, lost[0] ? lost : "?", need);
    else
        rb_run_fail(r,
                    "%u of %u agents left before GO (lost: %s); the run needs every node "
                    "(with [acceptance] min_nodes it goes on with the ready ones)",
                    left, planned, lost[0] ? lost : "?");
    return -EIO;
}

/* 1 when entries o and e are one file system: the same device of one host,
 * or one source of a file system type that several hosts mount. */
static int s_same_fs(const rb_run_space_t *o, const rb_run_space_t *e)
{
    if (o->fs.total_bytes != e->fs.total_bytes)
        return 0;
    if (o->fs.shared && e->fs.shared && o->fs.source[0])
        return strcmp(o->fs.fs_type, e->fs.fs_type) == 0 && strcmp(o->fs.source, e->fs.source) == 0;
    return o->fs.dev == e->fs.dev && strcmp(o->host, e->host) == 0;
}

/* The agents of n's host, n's SPACE in: together their phases' IO buffers
 * and lockmem must fit what the host has for them (the most any of them
 * saw, before any of them allocated), or the run fails naming them. */
static void s_join_memory(rb_run_ctx_t *r, const rb_fleet_node_t *n)
{
    uint64_t need = 0, room = 0;
    uint32_t count = 0;
    char names[RB_REASON_MAX / 2] = "", sneed[32], sroom[32];
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const rb_fleet_node_t *o = &r->fleet.nodes[i];
        size_t u = strlen(names);
        if (!o->mem_room || strcmp(o->hello.hostname, n->hello.hostname) != 0)
            continue;
        need += o->mem_need;
        room = o->mem_room > room ? o->mem_room : room;
        count++;
        if (u + 4 < sizeof names)
            snprintf(names + u, sizeof names - u, "%s%s", u ? ", " : "", o->hello.name);
    }
    if (count < 2 || need <= room)
        return; /* one agent alone: it checked itself */
    rb_run_fail(r,
                "nodes %s run on one host (%s): together their IO buffers and lockmem take up to "
                "%s in a phase, and the host has %s for them (half its RAM or its memory "
                "cgroup's limit, or what is available if less): fewer numjobs, a smaller "
                "iodepth, bs or lockmem, or fewer agents on the host",
                names, n->hello.hostname, rb_units_fmt_size(sneed, sizeof sneed, (double)need),
                rb_units_fmt_size(sroom, sizeof sroom, (double)room));
}

void rb_join_space(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_space_t *sp)
{
    if (n->state != RB_AGENT_PLANNED || strcmp(sp->run_id, r->run_id) != 0)
        return;
    n->mem_need = sp->mem_need;
    n->mem_room = sp->mem_room;
    s_join_memory(r, n);
    for (uint32_t k = 0; k < sp->nfs && k < RB_MAX_ROOTS; k++) {
        const rb_space_info_t *f = &sp->fs[k];
        if (!f->need_bytes)
            continue;
        if (r->nspace == r->space_cap) {
            uint32_t cap = r->space_cap ? 2 * r->space_cap : 16;
            rb_run_space_t *p = realloc(r->space, cap * sizeof *p);
            if (!p) {
                rb_run_fail(r, "out of memory");
                return;
            }
            r->space = p;
            r->space_cap = cap;
        }
        rb_run_space_t *e = &r->space[r->nspace++];
        e->node = (uint32_t)(n - r->fleet.nodes);
        snprintf(e->node_name, sizeof e->node_name, "%s", n->hello.name);
        snprintf(e->host, sizeof e->host, "%s", n->hello.hostname);
        e->fs = *f;
        /* the file system of this entry, over every node that reported it */
        uint64_t need = 0, fr = 0, reserve = 0;
        uint32_t nodes = 0;
        for (uint32_t i = 0; i < r->nspace; i++) {
            const rb_run_space_t *o = &r->space[i];
            if (!s_same_fs(o, e))
                continue;
            need += o->fs.need_bytes;
            /* the freest reading: the one taken before any node laid out */
            fr = o->fs.free_bytes > fr ? o->fs.free_bytes : fr;
            reserve = o->fs.reserve_bytes > reserve ? o->fs.reserve_bytes : reserve;
            nodes++;
        }
        if (nodes < 2 || (need <= fr && fr - need >= reserve))
            continue;                       /* one node alone: its agent checked it */
        char names[RB_REASON_MAX / 2] = ""; /* in rank order, whoever reported first */
        for (uint32_t idx = 0; idx < r->fleet.n; idx++)
            for (uint32_t i = 0; i < r->nspace; i++) {
                const rb_run_space_t *o = &r->space[i];
                size_t u = strlen(names);
                if (o->node != idx || !s_same_fs(o, e) || u + 4 >= sizeof names)
                    continue;
                snprintf(names + u, sizeof names - u, "%s%s", u ? ", " : "", o->node_name);
                break;
            }
        char sneed[32], sfree[32], sres[32];
        if (f->shared && f->source[0])
            rb_run_fail(r,
                        "the file system of %s (%s %s, mounted on every host) is shared by "
                        "nodes %s: together the plan needs %s there, %s are free and %s must "
                        "stay free (--reserve)",
                        f->path, f->fs_type, f->source, names,
                        rb_units_fmt_size(sneed, sizeof sneed, (double)need),
                        rb_units_fmt_size(sfree, sizeof sfree, (double)fr),
                        rb_units_fmt_size(sres, sizeof sres, (double)reserve));
        else
            rb_run_fail(r,
                        "the file system of %s (device %u:%u on host %s) is shared by nodes %s: "
                        "together the plan needs %s there, %s are free and %s must stay free "
                        "(--reserve)",
                        f->path, major((dev_t)f->dev), minor((dev_t)f->dev), e->host, names,
                        rb_units_fmt_size(sneed, sizeof sneed, (double)need),
                        rb_units_fmt_size(sfree, sizeof sfree, (double)fr),
                        rb_units_fmt_size(sres, sizeof sres, (double)reserve));
        return;
    }
}

/* The cycles of the plan's read_from=random jobs through count nodes, one
 * per seed: *cycles gets nseeds × count entries (caller frees; NULL with
 * none). 0, or -E2BIG / -ENOMEM with the run failed. */
static int s_random_cycles(rb_run_ctx_t *r, uint32_t count, uint32_t **cycles, uint32_t *nseeds)
{
    uint64_t seeds[RB_MAX_PEERS];
    *nseeds = 0;
    *cycles = NULL;
    for (uint32_t p = 0; p < r->plan->nphases; p++)
        for (uint32_t j = 0; j < r->plan->phases[p].njobs; j++) {
            const rb_job_spec_t *js = &r->plan->phases[p].jobs[j];
            uint32_t seen = 0;
            for (uint32_t i = 0; i < *nseeds; i++)
                seen |= seeds[i] == rb_job_read_seed(js);
            if (js->read_shift != RB_READ_RANDOM || seen)
                continue;
            if (*nseeds == RB_MAX_PEERS) {
                rb_run_fail(r, "the plan uses more than %d read_from_seed values", RB_MAX_PEERS);
                return -E2BIG;
            }
            seeds[(*nseeds)++] = rb_job_read_seed(js);
        }
    if (!*nseeds || !count)
        return 0;
    *cycles = malloc((size_t)*nseeds * count * sizeof **cycles);
    if (!*cycles) {
        rb_run_fail(r, "out of memory");
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < *nseeds; i++)
        rb_perm_cycle(*cycles + (size_t)i * count, count, seeds[i]);
    return 0;
}

/* Node i's peers: the plan's shifts, then the node each random cycle gives
 * it (as a shift), once each. 0, or -E2BIG with the run failed. */
static int s_node_peers(rb_run_ctx_t *r, rb_msg_plan_t *pl, uint32_t i, uint32_t count,
                        const uint32_t *shifts, uint32_t nshifts, const uint32_t *cycles,
                        uint32_t nseeds)
{
    uint32_t all[2 * RB_MAX_PEERS], n = 0;
    for (uint32_t k = 0; k < nshifts; k++)
        all[n++] = shifts[k];
    for (uint32_t c = 0; c < nseeds; c++) {
        uint32_t k = (cycles[(size_t)c * count + i] + count - i) % count, seen = 0;
        for (uint32_t x = 0; x < n; x++)
            seen |= all[x] == k;
        if (k && !seen)
            all[n++] = k;
    }
    if (n > RB_MAX_PEERS) {
        rb_run_fail(r, "the plan uses more than %d read_from shifts", RB_MAX_PEERS);
        return -E2BIG;
    }
    pl->npeers = n;
    for (uint32_t k = 0; k < n; k++) {
        pl->peers[k].shift = all[k];
        snprintf(pl->peers[k].name, sizeof pl->peers[k].name, "%s",
                 r->fleet.nodes[(uint32_t)((i + (uint64_t)all[k]) % count)].hello.name);
    }
    return 0;
}

/* The plan option that fills the job field at off ("lockmem"), or the
 * field's wire key when no option names it. */
static const char *s_option_of(const rb_proto_newer_t *f)
{
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        if (o->size && o->off == f->off)
            return o->key;
    }
    return f->key;
}

/* Every node of an older protocol than the plan needs: refused before any
 * PLAN goes out, each node and option named ("node07 speaks protocol 23
 * (build 0.1.0); job 'w' of phase 2 sets lockmem, which needs protocol 24").
 * 0, or -EPROTONOSUPPORT having failed the run. */
static int s_check_versions(rb_run_ctx_t *r, uint32_t count)
{
    uint32_t bad = 0;
    char first[RB_REASON_MAX] = "";
    for (uint32_t i = 0; i < count; i++) {
        const rb_fleet_node_t *n = &r->fleet.nodes[i];
        if (n->hello.version >= RB_PROTO_VERSION)
            continue;
        char what[RB_REASON_MAX] = "";
        size_t used = 0;
        uint32_t needs = 0;
        for (uint32_t p = 0; p < r->plan->nphases; p++) {
            const rb_phase_spec_t *ph = &r->plan->phases[p];
            for (uint32_t j = 0; j < ph->njobs; j++) {
                rb_proto_newer_t f[8];
                int k = rb_proto_job_newer(&ph->jobs[j], n->hello.version, f, 8);
                for (int x = 0; x < k && x < 8; x++) {
                    needs = f[x].since > needs ? f[x].since : needs;
                    if (used < sizeof what)
                        used += (size_t)snprintf(what + used, sizeof what - used,
                                                 "%sjob '%s' of phase %" PRIu32
                                                 " sets %s, which needs protocol %" PRIu32,
                                                 used ? "; " : "", ph->jobs[j].name, p + 1,
                                                 s_option_of(&f[x]), f[x].since);
                }
            }
        }
        if (!needs)
            continue;
        char line[RB_REASON_MAX];
        snprintf(line, sizeof line, "%s speaks protocol %" PRIu32 " (build %s): %s", n->hello.name,
                 n->hello.version, n->hello.build, what);
        rb_error("%s", line);
        if (!bad++)
            snprintf(first, sizeof first, "%s", line);
    }
    if (!bad)
        return 0;
    rb_run_fail(r, "the plan asks for what %" PRIu32 " node%s cannot do: %s%s", bad,
                bad == 1 ? "" : "s", first, bad > 1 ? " (and the others above)" : "");
    return -EPROTONOSUPPORT;
}

int rb_join_send_plan(rb_run_ctx_t *r)
{
    rb_msg_t m = {.type = RB_MSG_PLAN};
    rb_msg_plan_t *pl = &m.u.plan;
    rb_fleet_node_t *order = r->fleet.nodes;
    uint32_t count = 0, shifts[RB_MAX_PEERS], nshifts = 0;
    if (s_rank_nodes(r, &count, shifts, &nshifts) < 0 || s_check_versions(r, count) < 0)
        return -EIO;
    /* [rack NAME] sections place nodes in racks, over the agents' --rack */
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const char *rack = rb_plan_rack_of(r->plan, r->fleet.nodes[i].hello.name);
        if (rack)
            snprintf(r->fleet.nodes[i].hello.rack, sizeof r->fleet.nodes[i].hello.rack, "%s", rack);
    }
    for (uint32_t k = 0; k < r->plan->nracks; k++)
        for (uint32_t i = 0; i < r->plan->racks[k].nnodes; i++)
            if (!rb_fleet_find(&r->fleet, r->plan->racks[k].nodes[i]))
                rb_warn("[rack %s] lists node %s, which is not in this run", r->plan->racks[k].name,
                        r->plan->racks[k].nodes[i]);
    snprintf(pl->run_id, sizeof pl->run_id, "%s", r->run_id);
    pl->interval_ns = r->plan->interval_ns;
    pl->nphases = r->plan->nphases;
    pl->phases = r->plan->phases;
    pl->nnodes = count ? count : 1;
    if (count)
        snprintf(pl->lead, sizeof pl->lead, "%s", order[0].hello.name);
    r->nranked = count;
    if (rb_join_net_plan(r, pl) < 0)
        return -EIO;
    uint32_t *cycles = NULL, nseeds = 0;
    if (s_random_cycles(r, count, &cycles, &nseeds) < 0)
        return -EIO;
    for (uint32_t i = 0; i < count; i++) /* too many peers fails before any PLAN */
        if (s_node_peers(r, pl, i, count, shifts, nshifts, cycles, nseeds) < 0) {
            free(cycles);
            return -EIO;
        }
    for (uint32_t i = 0; i < count; i++) {
        rb_fleet_node_t *n = &order[i];
        pl->node_rank = i;
        (void)s_node_peers(r, pl, i, count, shifts, nshifts, cycles, nseeds);
        rb_fleet_node_set_state(n, RB_AGENT_PLANNED);
        n->cleanup = RB_CLEANUP_UNCONFIRMED; /* it makes files now, until its END */
        n->mem_need = n->mem_room = 0;       /* until its SPACE says */
        rb_router_send(r, n, &m);
    }
    free(cycles);
    /* Wait for every READY, or until too few nodes are left to go on: the
     * others are then aborted at once, their layout stopped. */
    uint32_t need = s_min_nodes(r, count);
    while (!r->failed && !rb_run_interrupted) {
        uint32_t planned = rb_fleet_count(&r->fleet, RB_AGENT_PLANNED);
        if (planned == 0 || planned + rb_fleet_count(&r->fleet, RB_AGENT_READY) < need)
            break;
        rb_router_pump(r, RB_RUN_POLL_MS);
    }
    if (rb_run_interrupted)
        rb_run_fail(r, "interrupted");
    if (r->failed)
        return -EIO;
    return s_ready_enough(r, need, count);
}
