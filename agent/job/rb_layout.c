/* The plan's files on this agent (see rb_layout.h): one hash table keyed by
 * run folder and name, walked phase by phase. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine.h"
#include "rb_layout.h"
#include "rb_sandbox.h"
#include "rb_verify.h"

typedef struct s_ent {
    int used;
    int rundir;
    char name[RB_NAME_MAX * 2 + 16]; /* a shared file's region: "NAME#REGION" */
    uint64_t max_end;                /* largest size any job gives it */
    uint64_t space_end;              /* ... of those the space check counts */
    uint64_t written_end;            /* covered by writes of finished phases or a layout */
    uint64_t pending_end;            /* written by the phase being walked */
    int stamped;                     /* what is written carries verify headers */
    int pending_stamped;
    int removed;         /* an earlier phase's job removed it (unlink) */
    int pending_removed; /* the phase being walked removes it */
} s_ent_t;

struct rb_layout {
    s_ent_t *tab; /* open addressing, cap entries */
    uint64_t cap;
    uint32_t nitems, capitems;
    uint64_t meta_need[RB_SANDBOX_MAX_RUNDIRS]; /* bytes metadata steps create, per run folder */
    rb_layout_item_t *items;
};

static s_ent_t *s_find(rb_layout_t *l, int rundir, const char *name)
{
    uint64_t h = (rb_verify_hash(name) ^ ((uint64_t)rundir * 0x9e3779b97f4a7c15ULL)) & (l->cap - 1);
    for (;;) {
        s_ent_t *e = &l->tab[h];
        if (!e->used) {
            e->used = 1;
            e->rundir = rundir;
            snprintf(e->name, sizeof e->name, "%s", name);
            return e;
        }
        if (e->rundir == rundir && strcmp(e->name, name) == 0)
            return e;
        h = (h + 1) & (l->cap - 1);
    }
}

static int s_add_item(rb_layout_t *l, int rundir, const char *name, const rb_prefill_t *pf)
{
    if (l->nitems == l->capitems) {
        uint32_t cap = l->capitems ? l->capitems * 2 : 16;
        rb_layout_item_t *it = realloc(l->items, cap * sizeof *it);
        if (!it)
            return -ENOMEM;
        l->items = it;
        l->capitems = cap;
    }
    rb_layout_item_t *it = &l->items[l->nitems++];
    it->rundir = rundir;
    snprintf(it->name, sizeof it->name, "%s", name);
    it->pf = *pf;
    return 0;
}

/* Files of one job on this agent: numjobs × nrfiles, or one filename for
 * all its workers; a file shared by every node counts once per worker, as
 * each worker's region of it is tracked on its own. */
static uint32_t s_workers(const rb_job_spec_t *js)
{
    return js->filename[0] && !js->shared_file ? 1 : js->numjobs;
}

static uint32_t s_files(const rb_job_spec_t *js)
{
    return js->filename[0] || js->shared_file ? 1 : (js->nrfiles ? js->nrfiles : 1);
}

/* 1 when the job leaves no files behind (unlink). */
static int s_removes(const rb_job_spec_t *js)
{
    return js->unlink;
}

static int s_needs_layout(const rb_job_spec_t *js)
{
    if (js->create_on_open)
        return 0; /* fio makes such a file when the job opens it */
    const rb_engine_ops_t *ops = rb_engine_find(js->ioengine[0] ? js->ioengine : "sync");
    if (ops && (ops->flags & RB_ENGINE_F_NOEXTEND) && rb_rw_writes(js->rw))
        return 1; /* mmap: a store past the file's end faults; fio lays it out too */
    /* trims, as fio lays files out for them: there is something to discard */
    return rb_rw_reads(js->rw) || js->rw == RB_RW_REWRITE || js->rw == RB_RW_TRIM ||
           js->rw == RB_RW_RANDTRIM || (js->overwrite && rb_rw_writes(js->rw));
}

/* 1 for a job that means to fill the file system, so that its files do not
 * count against the free space: fill_device, or writes that go on after
 * ENOSPC (continue_on_error with ENOSPC in ignore_error's writes). */
static int s_fills(const rb_job_spec_t *js)
{
    if (js->fill_device)
        return 1;
    const uint8_t *list = NULL;
    uint32_t n = rb_job_ignore_list(js, 1, &list);
    if (!(js->continue_on_error & RB_ERR_CLASS_WRITE))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == ENOSPC)
            return 1;
    return 0;
}

/* One walk over the files of job js (worker w's in run folder rundirs[its
 * directory], RB_JOB_RUNDIR): walk 0 records
 * how large each gets and what must be laid out before GO for it; walk 1
 * records what its writes leave for later phases. 0 or -errno with err set. */
static int s_walk_job(rb_layout_t *l, const rb_msg_plan_t *pl, const rb_job_spec_t *js,
                      const int *rundirs, int walk, uint64_t run_hash, rb_err_t *err)
{
    int rundir = rundirs[0];
    uint64_t start = js->offset, end;
    if (!rb_job_uses_files(js) || js->device[0] || js->existing)
        return 0; /* no data moved, raw devices or a file that is there: neither space nor layout */
    if (js->rw == RB_RW_META) {
        /* its steps make their own files: count the space once */
        if (walk == 0 && js->meta_op == RB_META_CREATE)
            l->meta_need[rundir] += (uint64_t)js->numjobs * js->meta_files * js->meta_filesize;
        return 0;
    }
    for (uint32_t w = 0; w < s_workers(js); w++) {
        rundir = rundirs[rb_job_dir_of(js, w)];
        for (uint32_t f = 0; f < s_files(js); f++) {
            char name[RB_NAME_MAX * 2], key[sizeof name + 16];
            /* this node's region of a shared file: its own worker's */
            uint32_t region = pl->node_rank * js->numjobs + w;
            int bad = js->shared_file ? rb_job_shared_name(js, pl->lead, name, sizeof name)
                                      : rb_job_filename(js, w, f, name, sizeof name);
            if (js->shared_file) {
                snprintf(key, sizeof key, "%s#%u", name, region);
                start = js->offset;
                end = rb_job_filesize(js);
            } else {
                /* offset_increment: a file of the job's workers (filename=)
                 * spans all their regions; a worker's own, its own region */
                snprintf(key, sizeof key, "%s", name);
                uint32_t last = js->numjobs ? js->numjobs - 1 : 0;
                start = rb_job_offset(js, w);
                end = rb_job_offset(js, s_workers(js) == 1 ? last : w) + rb_job_filesize(js);
            }
            if (bad < 0)
                return rb_err_set(err, -EINVAL, "job %s: bad file name format '%s'", js->name,
                                  js->filename_format);
            s_ent_t *e = s_find(l, rundir, key);
            if (walk == 1) {
                if (s_removes(js))
                    e->pending_removed = 1;
                if (rb_rw_writes(js->rw)) {
                    if (end > e->pending_end)
                        e->pending_end = end;
                    e->pending_stamped = rb_verify_writes(js);
                }
                continue;
            }
            if (end > e->max_end && !js->fill_device) /* fill_device takes what is free */
                e->max_end = end;
            if (end > e->space_end && !s_fills(js))
                e->space_end = end;
            if (js->create_on_open && !rb_rw_writes(js->rw) && e->written_end < end)
                return rb_err_set(err, -EINVAL,
                                  "job %s reads %s with create_on_open=1, and no earlier phase "
                                  "writes it as far as %llu: its reads would find the file's "
                                  "end (fio fails such a job, EIO)",
                                  js->name, name, (unsigned long long)end);
            int verify = rb_verify_writes(js) && rb_rw_reads(js->rw);
            if (!s_needs_layout(js) || (e->written_end >= end && (!verify || e->stamped)))
                continue;
            if (e->removed)
                return rb_err_set(err, -EINVAL,
                                  "job %s reads %s, which a job of an earlier phase removes "
                                  "(unlink): files are laid out once, before the first phase",
                                  js->name, name);
            rb_prefill_t pf = {.start = start,
                               .end = end,
                               .bs = js->bs,
                               .direct = js->direct,
                               .verify = rb_verify_writes(js),
                               .run_hash = run_hash,
                               .node = pl->node_rank + 1,
                               .shared = js->shared_file,
                               .job = js,
                               .nregions = rb_job_region_count(js, pl->nnodes),
                               .region = region};
            if (s_add_item(l, rundir, name, &pf) < 0)
                return rb_err_set(err, -ENOMEM, "out of memory");
            e->written_end = end;
            e->stamped = pf.verify;
        }
    }
    return 0;
}

/* At the end of a phase: what its writes left is there for the next ones. */
static void s_settle_phase(rb_layout_t *l)
{
    for (uint64_t i = 0; i < l->cap; i++) {
        s_ent_t *e = &l->tab[i];
        if (e->used && e->pending_removed) {
            e->written_end = e->pending_end = 0;
            e->stamped = e->pending_stamped = e->pending_removed = 0;
            e->removed = 1;
            continue;
        }
        if (!e->used || !e->pending_end)
            continue;
        if (e->pending_end > e->written_end)
            e->written_end = e->pending_end;
        e->stamped = e->pending_stamped;
        e->pending_end = 0;
        e->removed = 0;
    }
}

rb_layout_t *rb_layout_new(const rb_msg_plan_t *pl, int *const *rundirs, const char *run_id,
                           rb_err_t *err)
{
    uint64_t uses = 0;
    for (uint32_t p = 0; p < pl->nphases; p++)
        for (uint32_t j = 0; j < pl->phases[p].njobs; j++)
            uses += (uint64_t)s_workers(&pl->phases[p].jobs[j]) * s_files(&pl->phases[p].jobs[j]);
    if (uses > RB_LAYOUT_MAX_FILES) {
        rb_err_set(err, -E2BIG, "the plan uses %llu files on this agent, at most %u",
                   (unsigned long long)uses, RB_LAYOUT_MAX_FILES);
        return NULL;
    }
    rb_layout_t *l = calloc(1, sizeof *l);
    if (l) {
        l->cap = 16;
        while (l->cap < 2 * uses)
            l->cap *= 2;
        l->tab = calloc(l->cap, sizeof *l->tab);
    }
    if (!l || !l->tab) {
        rb_layout_destroy(&l);
        rb_err_set(err, -ENOMEM, "out of memory for the plan's file table");
        return NULL;
    }
    uint64_t run_hash = rb_verify_hash(run_id);
    for (uint32_t p = 0; p < pl->nphases; p++) {
        const rb_phase_spec_t *ph = &pl->phases[p];
        /* Two walks: reads of a phase need what earlier phases wrote; its own
         * writes count only for later phases. */
        for (int walk = 0; walk < 2; walk++) {
            for (uint32_t j = 0; j < ph->njobs; j++) {
                if (s_walk_job(l, pl, &ph->jobs[j], &RB_JOB_RUNDIR(rundirs[p], j, 0), walk,
                               run_hash, err) < 0) {
                    rb_layout_destroy(&l);
                    return NULL;
                }
            }
        }
        s_settle_phase(l);
    }
    return l;
}

void rb_layout_destroy(rb_layout_t **p)
{
    if (!p || !*p)
        return;
    free((*p)->tab);
    free((*p)->items);
    free(*p);
    *p = NULL;
}

uint64_t rb_layout_need(const rb_layout_t *l, int rundir)
{
    uint64_t n = rundir >= 0 && rundir < RB_SANDBOX_MAX_RUNDIRS ? l->meta_need[rundir] : 0;
    for (uint64_t i = 0; i < l->cap; i++)
        if (l->tab[i].used && l->tab[i].rundir == rundir)
            n += l->tab[i].space_end;
    return n;
}

uint32_t rb_layout_count(const rb_layout_t *l)
{
    return l->nitems;
}

const rb_layout_item_t *rb_layout_item(const rb_layout_t *l, uint32_t i)
{
    return i < l->nitems ? &l->items[i] : NULL;
}
