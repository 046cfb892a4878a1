/* Tests of the wire codec: every message round-trips field by field, and every
 * kind of malformed frame a peer could send is refused with the right code and
 * a message naming the field, without crashing or leaking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "rb_dist.h"
#include "rb_pack.h"
#include "rb_proto.h"
#include "rb_proto_int.h"

/* ---- building messages ---- */

static void fill_hist(rb_hist_t *h, unsigned step, uint64_t seed)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
    for (unsigned i = step / 2; i < RB_HIST_NBUCKETS; i += step) {
        h->b[i] = seed + i;
        h->count += h->b[i];
    }
    if (h->count) {
        h->sum = h->count * 1000 + seed;
        h->min = 1 + seed;
        h->max = 1000000000 + seed;
    }
}

static rb_hist_t *new_hist(unsigned step, uint64_t seed)
{
    rb_hist_t *h = malloc(sizeof *h);
    assert_non_null(h);
    fill_hist(h, step, seed);
    return h;
}

static void fill_job_stats(rb_job_stat_t *js, uint32_t n, unsigned step)
{
    for (uint32_t i = 0; i < n; i++) {
        js[i].job = i;
        js[i].bytes = 1000000ull * (i + 1);
        js[i].ops = 1000ull * (i + 1);
        js[i].errors = i + 2;
        js[i].read_bytes = 400000ull * (i + 1) + i;
        js[i].read_ops = 300ull * (i + 1) + i;
        js[i].verify_errors = i + 1;
        js[i].hist = new_hist(step, i);
        /* version 6: job 0 reads only (its read counts may reach the totals) */
        js[i].lat[RB_DIR_READ][RB_LAT_LAT] = new_hist(step, i + 3);
        if (i == 0)
            continue;
        js[i].write_bytes = (js[i].bytes - js[i].read_bytes) / 2;
        js[i].write_ops = (js[i].ops - js[i].read_ops) / 2;
        js[i].trim_bytes = 3;
        js[i].trim_ops = 1;
        js[i].lat[RB_DIR_WRITE][RB_LAT_SLAT] = new_hist(step, i + 5);
        js[i].lat[RB_DIR_WRITE][RB_LAT_CLAT] = new_hist(step, i + 7);
        js[i].ss_state = RB_SS_ATTAINED - (i % 3); /* version 20 */
        js[i].ss_t_ns = 5000000000ull + i;
        js[i].ss_crit = 33328 + i;
        js[i].ss_mean = 2000000000ull + i;
        js[i].lat_depth = 4 + i;            /* version 21 */
        js[i].filesize = (64ull << 30) + i; /* version 22 */
    }
}

/* Version 2 fields of a job, none at its default, each job k of a PLAN different. */
/* n disks' health (version 27), calloc'd: an ATA one read, an NVMe one
 * read, one that could not be, in turn; big: every field at its largest */
static rb_health_t *fill_health(uint32_t n, int big)
{
    rb_health_t *h = calloc(n, sizeof *h);
    assert_non_null(h);
    for (uint32_t i = 0; i < n; i++) {
        rb_health_t *d = &h[i];
        uint64_t na = RB_HEALTH_NA;
        snprintf(d->dev, sizeof d->dev, "/dev/sd%c", 'a' + i % 26);
        if (big)
            memset(d->dev, 'd', sizeof d->dev - 1);
        for (uint64_t *c = &d->reallocated; c <= &d->power_on_hours; c++)
            *c = big ? UINT64_MAX - 1 : na;
        if (i % 3 == 2) {
            snprintf(d->reason, sizeof d->reason, "%s: a loop device has no SMART", d->dev);
            d->no_smart = 1;
            continue;
        }
        snprintf(d->model, sizeof d->model, i % 3 ? "Samsung SSD 970 EVO" : "ST3500418AS");
        snprintf(d->serial, sizeof d->serial, "S%u", 1000 + i);
        snprintf(d->protocol, sizeof d->protocol, i % 3 ? "NVMe" : "ATA");
        d->verdict = i % 3 ? RB_SMART_PASSED : RB_SMART_FAILED;
        d->exit_status = i % 3 ? 0 : 216;
        if (big)
            continue;
        d->temperature = d->temperature_max = 33 + i;
        d->power_on_hours = 17000 + i;
        d->error_log = 56;
        if (i % 3 == 0) {
            d->reallocated = 304;
            d->pending = 8;
            d->offline_unc = 0;
            d->crc_errors = 0;
        } else {
            d->media_errors = 7;
            d->critical_warning = 0;
            d->percentage_used = 4;
            d->available_spare = 100;
            d->spare_threshold = 10;
        }
    }
    return h;
}

static void fill_job_v2(rb_job_spec_t *jb, uint32_t k)
{
    static const rb_rw_t rws[] = {RB_RW_RANDRW, RB_RW_REREAD, RB_RW_RANDWRITE, RB_RW_RW};
    jb->rw = rws[k % 4];
    jb->bs_max = jb->bs * (4 + k);
    if (k == 1) /* the longest strings and patterns */
        memset(jb->filename, 'f', RB_NAME_MAX - 1);
    else
        snprintf(jb->filename, sizeof jb->filename, "shared.%u", k);
    strcpy(jb->ioengine, k % 2 ? "io_uring" : "libaio");
    jb->iodepth = k == 1 ? 65536 : 32 + k;
    jb->rwmixread = k == 3 ? 100 : 70 + k;
    jb->nrfiles = k == 1 ? 65536 : 8 + k;
    jb->filesize = (1ull << 30) + k;
    jb->offset = 4096ull * (k + 1);
    jb->sync_mode = k % 2 ? RB_SYNC_DSYNC : RB_SYNC_SYNC;
    jb->fsync_every = 16 + k;
    jb->fdatasync_every = k == 2 ? UINT32_MAX : 32 + k;
    jb->end_fsync = 1;
    jb->fsync_on_close = (uint8_t)(k % 2);
    jb->ramp_ns = 2000000000ull + k;
    jb->loops = k == 3 ? UINT32_MAX : 3 + k;
    jb->randrepeat = (uint8_t) !(k % 2);
    jb->randseed = UINT64_MAX - k;
    jb->norandommap = 1;
    jb->overwrite = (uint8_t)(k % 2);
    jb->buffer_mode = k % 3 == 2 ? RB_BUF_ZERO : RB_BUF_PATTERN;
    jb->refill_buffers = (uint8_t) !(k % 2);
    jb->pattern_len = k == 1 ? RB_PATTERN_MAX : 3 + k;
    for (uint32_t b = 0; b < jb->pattern_len; b++) /* 0x00 and 0xff among them */
        jb->pattern[b] = (uint8_t)(b * 37 + k * 255);
    jb->verify = RB_VERIFY_CRC32C;
    jb->do_verify = 1;
    jb->verify_fatal = (uint8_t)(k % 2);
    jb->verify_interval = 512ull << k; /* version 17 */
    jb->verify_offset = 48ull + k;
    jb->pattern_ofs = 1ull << k;
    jb->rate = (100ull << 20) + k;
    jb->number_ios = 1000 + k; /* version 5 */
    jb->io_size = (8ull << 20) + k;
    jb->unlink = (uint8_t)(k % 2);
    jb->unlink_each_loop = (uint8_t) !(k % 2);
    jb->startdelay_ns = 1000000000ull + k;
    jb->startdelay_max_ns = 5000000000ull + k;
    jb->offset_increment = (1ull << 20) * (k + 1);
    jb->rate_write = (50ull << 20) + k;
    jb->rate_iops = 1000 + k;
    jb->rate_iops_write = 500 + k;
    jb->meta_readsize = 3901 + k;               /* version 9 */
    jb->thinktime_ns = 20000000ull + k;         /* version 10 */
    jb->bs_trim = jb->bs_trim_max = jb->bs_max; /* version 13 */
    jb->thinktime_spin_ns = 5000000ull + k;
    jb->thinktime_blocks = 16 + k;
    jb->thinktime_issued = (uint8_t)(k % 2);
    jb->read_seed = 7 + k; /* version 15 */
    jb->read_reseed = (uint8_t)(k % 2);
    jb->read_iteration = k;
    jb->size_pct = 1 + k % 100; /* version 16 */
    jb->offset_pct = 100 - k % 100;
    jb->invalidate = (uint8_t)(k % 2);
    jb->fadvise_hint = k % 4;
    jb->fallocate = k % 5; /* version 20 */
    jb->cpus[0] = (uint8_t)(1u << (k % 8));
    jb->cpus_len = 1;
    jb->cpus_split = k % 2;
    jb->rand_dist = RB_DIST_ZONED_ABS; /* version 18 */
    jb->rand_dist_ppm = 1200000 + k;
    jb->nzones_read = 2;
    jb->zones_read[0] = (rb_zone_t){.size = 1u << 20, .access = 60};
    jb->zones_read[1] = (rb_zone_t){.size = (3u << 20) + k, .access = 40};
    jb->nzones_write = jb->nzones_trim = 1;
    jb->zones_write[0] = jb->zones_trim[0] = (rb_zone_t){.size = 4u << 20, .access = 100};
    jb->seq_add = 8192 * (k + 1);
    jb->seq_back = (uint8_t)(k % 2);
    jb->seq_nr = 8 + k;
    jb->seq_identical = (uint8_t) !(k % 2);
    jb->perc_seq_read = 30 + k;
    jb->perc_seq_write = 20;
    jb->perc_seq_trim = 10;
    jb->ba_read = 4096;
    jb->ba_write = 8192 + k;
    jb->ba_trim = 512;
    snprintf(jb->meta_find_name, sizeof jb->meta_find_name, "*0%u*", k); /* version 19 */
    jb->meta_find_size = 3901 + k;
    jb->meta_find_newer = (uint8_t)!k;
    jb->zone_size = 262144 * (k + 1); /* version 20 */
    jb->zone_range = 1048576 + k;
    jb->zone_skip = 3 * 1048576 + k;
    jb->ss_metric = RB_SS_IOPS + k % 4; /* version 20 */
    jb->ss_pct = (uint8_t)(k % 2);
    jb->ss_limit = 5000000 + k;
    jb->ss_dur_ns = (3ull + k) * 1000000000ull;
    jb->ss_ramp_ns = 2000000000ull + k;
    jb->compress_pct = 50 + k; /* version 20 */
    jb->compress_chunk = 4096 + k;
    jb->dedupe_pct = 30 + k;
    jb->scramble = (uint8_t)(k % 2);
    jb->dedupe_mode = RB_DEDUPE_WORKING_SET - k % 2; /* version 21 */
    jb->dedupe_ws_pct = 20 + k;
    jb->dedupe_global = (uint8_t)(k % 2 == 0);
    jb->rate_min = 1048576 + k; /* version 20 */
    jb->rate_min_write = 2097152 + k;
    jb->rate_iops_min = 100 + k;
    jb->rate_iops_min_write = 200 + k;
    jb->rate_cycle_ms = 500 + k;
    jb->exitall = (uint8_t)(k % 2 == 0);
    jb->exit_what = RB_EXIT_STONEWALL + k % 2;
    jb->hipri = (uint8_t)(k % 2);
    jb->sqpoll = (uint8_t)(k % 2 == 0);
    jb->sqpoll_aff = (uint8_t)(k % 2 == 0);
    jb->sqpoll_cpu = 3 + k;
    jb->verify_backlog = 4 + k;
    jb->verify_backlog_batch = 2 + k;
    jb->flow = k % 2 ? 8 : (uint32_t)-2; /* version 21 */
    jb->flow_id = 4 + k;
    jb->flow_sleep_us = 1000 + k;
    snprintf(jb->wait_for, sizeof jb->wait_for, "waitee%u", k);
    jb->ioprio = (2u << RB_IOPRIO_CLASS_SHIFT) | (k % 8); /* version 21 */
    jb->ncmdprio_read = 1;
    jb->cmdprio_read[0] = (rb_cmdprio_t){0, 20 + k, (1u << RB_IOPRIO_CLASS_SHIFT) | (k % 8)};
    jb->ncmdprio_write = 2;
    jb->cmdprio_write[0] = (rb_cmdprio_t){4096, 30, (3u << RB_IOPRIO_CLASS_SHIFT) | 2};
    jb->cmdprio_write[1] = (rb_cmdprio_t){8192 + k, 50, 1u << RB_IOPRIO_CLASS_SHIFT};
    jb->continue_on_error = RB_ERR_CLASS_WRITE + k % 2; /* version 21 */
    jb->ignore_error[0] = (uint8_t)(k % 2); /* reads: EIO or none; writes: ENOSPC and one */
    jb->ignore_error[1] = 2;
    jb->ignore_error[2] = 0;
    jb->ignore_error_len = 3;
    if (k % 2)
        jb->ignore_error[jb->ignore_error_len++] = EIO;
    jb->ignore_error[jb->ignore_error_len++] = ENOSPC;
    jb->ignore_error[jb->ignore_error_len++] = (uint8_t)(200 + k);
    jb->exitall_on_error = (uint8_t)(k % 2);
    jb->write_hint = RB_WRITE_HINT_SHORT + k % 3; /* version 21 */
    jb->fill_device = (uint8_t)(k % 2);
    jb->existing = (uint8_t)(k % 2); /* version 22 */
    jb->nice = k % 2 ? -20 : 19;
    jb->create_on_open = (uint8_t)(k % 2);
    jb->batch_submit = 4 + k;
    jb->batch_cmin = 2 + k;
    jb->batch_cmax = 8 + k;
    jb->depth_low = 3 + k;
    jb->zbd_zone = (256ull << 20) + k; /* version 23 */
    jb->zbd_cap = (128ull << 20) + k;
    jb->zbd_max_open = 32 + k;
    jb->zbd_job_max_open = 4 + k;
    jb->zbd_beyond_wp = (uint8_t)(k % 2);
    jb->zbd_reset_thr = 100000 + k;
    jb->zbd_reset_freq = 500000 + k;
    jb->openfiles = 16 + k;
    jb->lockmem = (1ull << 30) + k;
    jb->fs_nr = k % 2 ? RB_FS_SEQUENTIAL : 8 + k;
    jb->max_lat_read_ns = 1000000ull + k;
    jb->max_lat_write_ns = 2000000ull + k;
    jb->max_lat_trim_ns = 3000000ull + k;
    jb->sfr_every = 16 + k;
    jb->sfr_flags = 2;
    jb->thinktime_iotime_ns = 300000000ull + k;
    jb->create_nofsync = (uint8_t)(k % 2);             /* version 24 */
    jb->network = k % 2 ? RB_NET_INCAST : RB_NET_NONE; /* version 28 */
    if (k % 2)
        snprintf(jb->net_target, sizeof jb->net_target, "node%05u", k);
    jb->pingpong = (uint8_t)(k % 3 == 1);
    snprintf(jb->ioscheduler, sizeof jb->ioscheduler, "mq-deadline");
    jb->lat_target_ns = 18000000ull + k; /* version 21 */
    jb->lat_window_ns = 300000000ull + k;
    jb->lat_pct = 99000000u + k;
    jb->lat_run = (uint8_t)(k % 2);
}

/* Version 3: a metadata step (rw=meta). Job 0 has every meta field away from
 * its default (a delete of files an earlier rename step renamed, in a tree at
 * its deepest); job 1 a stat in flat directories. */
static void fill_job_meta(rb_job_spec_t *jb, uint32_t k)
{
    jb->rw = RB_RW_META;
    jb->meta_op = k ? RB_META_STAT : RB_META_DELETE;
    jb->meta_files = k ? 1000000 + k : UINT64_MAX;
    jb->meta_filesize = k ? 0 : 4096 + 3;
    jb->meta_dirs = k ? 65536 : 7;
    jb->meta_depth = k ? 0 : 16;
    jb->meta_branch = k ? 0 : 3;
    jb->meta_random = 1;
    jb->meta_shared = (uint8_t)!k;
    jb->meta_sync = (uint8_t)!k;
    jb->meta_renamed = (uint8_t)!k;
}

/* Version 4: across nodes, a shared strided file read from K nodes on,
 * stonewalled with wearout and the page cache dropped first. */
/* Version 5: sizes per direction, writes by bssplit weights. */
static void fill_job_v5(rb_job_spec_t *jb, uint32_t k)
{
    jb->bs_max = jb->bs * (16 << k);
    jb->bs_read = jb->bs;
    jb->bs_read_max = jb->bs * 4;
    jb->bs_write = jb->bs * 2;
    jb->bs_write_max = jb->bs_max;
    jb->nbssplit_write = 2;
    jb->bssplit_write[0] = (rb_bs_part_t){jb->bs * 2, 30};
    jb->bssplit_write[1] = (rb_bs_part_t){jb->bs_max, 70};
    jb->nbssplit_read = k; /* none for job 0 */
    if (k)
        jb->bssplit_read[0] = (rb_bs_part_t){jb->bs * 4, 100};
}

static void fill_job_v4(rb_job_spec_t *jb, uint32_t k)
{
    jb->shared_file = 1;
    jb->layout = k % 2 ? RB_LAYOUT_STRIDED : RB_LAYOUT_SEGMENTED;
    jb->transfer = (1ull << 20) * (k + 1);
    jb->read_shift = k == 1 ? UINT32_MAX : k + 1;
    jb->stonewall_ns = 30000000000ull + k;
    jb->wearout = 1;
    jb->drop_caches = 1;
    jb->lustre_stripe_count = k == 1 ? RB_LUSTRE_STRIPE_ALL : k + 2;
    jb->lustre_stripe_size = (1ull << 20) << k;
}

/* Host telemetry of a SAMPLE: an md device over two disks and a NIC, or
 * (big) every array at its bound, every figure at its widest. */
static void fill_telem(rb_msg_sample_t *s, bool big)
{
    s->ntelem = 1;
    s->telem = calloc(1, sizeof *s->telem);
    assert_non_null(s->telem);
    rb_telem_t *t = s->telem;
    *t = (rb_telem_t){.user_pm = 50,
                      .system_pm = 30,
                      .iowait_pm = 170,
                      .idle_pm = 740,
                      .irq_pm = 10,
                      .ncpu = 4,
                      .load1_m = 3250,
                      .ctxt_per_s = 25000,
                      .cached = 8ull << 30,
                      .dirty = 512ull << 20,
                      .writeback = 64ull << 20};
    t->ndevs = big ? RB_TELEM_DEVS : 3;
    for (uint32_t i = 0; i < t->ndevs; i++) {
        rb_telem_dev_t *d = &t->devs[i];
        if (big)
            memset(d->name, 'd', RB_TELEM_NAME_MAX - 1);
        else
            snprintf(d->name, sizeof d->name, i ? "sd%c" : "md0", 'a' + i - 1);
        if (i)
            snprintf(d->parent, sizeof d->parent, "md0");
        d->member = i > 0;
        d->rd_bps = big ? UINT64_MAX : 100 + i;
        d->wr_bps = (100ull << 20) + i;
        d->rd_iops = 7 + i;
        d->wr_iops = 100 + i;
        d->util_pm = i == 1 ? 900 : 600 + (big ? 400 : 0);
        d->qdepth_m = 2500;
        d->await_us = 5000 + i;
        d->rd_bytes = (1ull << 40) + i;
        d->wr_bytes = big ? UINT64_MAX : 1ull << 30;
    }
    t->nnics = big ? RB_TELEM_NICS : 1;
    for (uint32_t i = 0; i < t->nnics; i++) {
        snprintf(t->nics[i].name, sizeof t->nics[i].name, "eth%u", i);
        t->nics[i].rx_bps = 500000000ull + i;
        t->nics[i].tx_bps = i;
        t->nics[i].speed_mbps = i ? 0 : 10000;
    }
}

/* A disk as sysfs would describe it (k: which one). */
static void fill_dev_id(rb_dev_id_t *id, uint32_t k)
{
    snprintf(id->path, sizeof id->path, "/dev/disk/by-id/wwn-0x5000c500a%u", k);
    snprintf(id->name, sizeof id->name, "sd%c", 'b' + k % 20);
    strcpy(id->model, "ST8000NM0055");
    strcpy(id->vendor, "ATA");
    snprintf(id->serial, sizeof id->serial, "ZA1%05u", k);
    strcpy(id->firmware, "SN04");
    id->size = 8001563222016ull;
    id->lbs = 512;
    id->pbs = 4096;
    id->rotational = 1;
    strcpy(id->scheduler, "mq-deadline");
    /* version 14 */
    id->read_ahead_kb = 128 + k;
    id->nr_requests = 256;
    id->queue_depth = k % 2 ? 32 : 0;
    id->access = k % 3;
    snprintf(id->use, sizeof id->use, "%s", k % 3 == 2 ? "" : "mounted at /srv/d");
}

static void cmp_dev_id(const rb_dev_id_t *u, const rb_dev_id_t *v)
{
    assert_string_equal(u->path, v->path);
    assert_string_equal(u->name, v->name);
    assert_string_equal(u->model, v->model);
    assert_string_equal(u->vendor, v->vendor);
    assert_string_equal(u->serial, v->serial);
    assert_string_equal(u->firmware, v->firmware);
    assert_int_equal(u->size, v->size);
    assert_int_equal(u->lbs, v->lbs);
    assert_int_equal(u->pbs, v->pbs);
    assert_int_equal(u->rotational, v->rotational);
    assert_string_equal(u->scheduler, v->scheduler);
    assert_int_equal(u->read_ahead_kb, v->read_ahead_kb);
    assert_int_equal(u->nr_requests, v->nr_requests);
    assert_int_equal(u->queue_depth, v->queue_depth);
    assert_int_equal(u->access, v->access);
    assert_string_equal(u->use, v->use);
}

/* A message of each type; "big" ones have many entries and full histograms. */
static void build(rb_msg_type_t t, bool big, rb_msg_t *m)
{
    memset(m, 0, sizeof *m);
    m->type = t;
    switch (t) {
    case RB_MSG_HELLO: {
        rb_msg_hello_t *h = &m->u.hello;
        memset(h->name, 'n', RB_NAME_MAX - 1); /* longest allowed */
        strcpy(h->rack, "rack-2");
        strcpy(h->hostname, "node07.example");
        strcpy(h->agent_version, "0.1.0");
        h->pid = 4242;
        h->cores = 128;
        h->ram_bytes = 512ull << 30;
        h->cache_bytes = (300ull << 30) + 7;
        h->nroots = big ? RB_MAX_ROOTS : 2;
        for (uint32_t i = 0; i < h->nroots; i++) {
            snprintf(h->roots[i].path, sizeof h->roots[i].path, "/mnt/disk%u", i);
            h->roots[i].free_bytes = (1ull << 40) + i;
            h->roots[i].total_bytes = UINT64_MAX - i;
            /* version 12: the mount and its disk */
            strcpy(h->roots[i].fs_type, i % 2 ? "xfs" : "fuse.glusterfs");
            snprintf(h->roots[i].source, sizeof h->roots[i].source, "/dev/sd%c1", 'b' + i % 20);
            strcpy(h->roots[i].options, "rw,noatime,attr2,inode64");
            strcpy(h->roots[i].dev_model, "ST8000NM0055");
            snprintf(h->roots[i].dev_serial, sizeof h->roots[i].dev_serial, "ZA%06u", i);
            h->roots[i].dev_rotational = i % 2;
        }
        strcpy(h->kernel, "6.1.0-28-amd64");
        memset(h->cpu_model, 'c', big ? RB_HW_TEXT_MAX - 1 : 40);
        h->nnics = big ? RB_TELEM_NICS : 2;
        for (uint32_t i = 0; i < h->nnics; i++) {
            snprintf(h->nics[i].name, sizeof h->nics[i].name, "ens%u", i);
            h->nics[i].speed_mbps = i ? 100000 : 0;
            snprintf(h->nics[i].mac, sizeof h->nics[i].mac, "52:54:00:12:34:%02x", i);
        }
        /* version 14: every disk of a 48-bay unit, or of the biggest host */
        h->ndevs = big ? RB_MAX_DEVS : 48;
        h->devs = calloc(h->ndevs, sizeof *h->devs);
        assert_non_null(h->devs);
        for (uint32_t k = 0; k < h->ndevs; k++)
            fill_dev_id(&h->devs[k], k);
        h->ndevs_seen = big ? 300 : 0;
        break;
    }
    case RB_MSG_PING:
        m->u.ping.seq = UINT32_MAX;
        m->u.ping.t_coord_ns = 123456789012345ull;
        break;
    case RB_MSG_PONG:
        m->u.pong.seq = 3;
        m->u.pong.t_coord_ns = 111;
        m->u.pong.t_agent_ns = UINT64_MAX;
        break;
    case RB_MSG_PLAN: {
        rb_msg_plan_t *p = &m->u.plan;
        strcpy(p->run_id, "20240101-120000-ab12");
        p->interval_ns = 1000000000;
        p->node_rank = big ? UINT32_MAX - 1 : 2;
        p->nnodes = big ? UINT32_MAX : 16000;
        memset(p->lead, 'l', RB_NAME_MAX - 1);
        p->npeers = big ? RB_MAX_PEERS : 2;
        for (uint32_t i = 0; i < p->npeers; i++) {
            p->peers[i].shift = i + 1;
            snprintf(p->peers[i].name, sizeof p->peers[i].name, "node%05u", 3 + i);
        }
        p->nphases = 3; /* phase 2: metadata steps */
        p->phases = calloc(3, sizeof *p->phases);
        assert_non_null(p->phases);
        for (uint32_t i = 0; i < 3; i++) {
            rb_phase_spec_t *ph = &p->phases[i];
            snprintf(ph->name, sizeof ph->name, "phase%u", i);
            ph->njobs = 2;
            ph->jobs = calloc(2, sizeof *ph->jobs);
            assert_non_null(ph->jobs);
            for (uint32_t j = 0; j < 2; j++) {
                rb_job_spec_t *jb = &ph->jobs[j];
                snprintf(jb->name, sizeof jb->name, "job%u.%u", i, j);
                jb->rw = j ? RB_RW_READ : RB_RW_WRITE;
                jb->bs = 4096u << j;
                jb->size = (16ull << 30) + i;
                jb->numjobs = 1 + i + j;
                jb->direct = (uint8_t)j;
                jb->time_based = (uint8_t)!j;
                jb->runtime_ns = 30000000000ull * i;
                if (i)
                    memset(jb->directory, 'd', RB_PATH_MAX - 1);
                else
                    strcpy(jb->directory, "/mnt/disk0/rb");
                strcpy(jb->filename_format, "$jobname.$jobnum.$filenum");
                fill_job_v2(jb, i * 2 + j);
                if (i == 1) {
                    fill_job_v4(jb, j);
                    fill_job_v5(jb, j);
                    snprintf(jb->device, sizeof jb->device, "/dev/sd%c:/dev/sdz", 'b' + j);
                }
                if (i == 2)
                    fill_job_meta(jb, j);
            }
        }
        p->net_secret_len = big ? RB_NET_SECRET : 16; /* version 28 */
        for (uint32_t i = 0; i < p->net_secret_len; i++)
            p->net_secret[i] = (uint8_t)(0xa5 ^ i);
        break;
    }
    case RB_MSG_READY:
        strcpy(m->u.ready.run_id, "r1");
        m->u.ready.prefill_bytes = 1ull << 35;
        m->u.ready.nhealth = big ? RB_HEALTH_DEVS : 2;
        m->u.ready.health = fill_health(m->u.ready.nhealth, big);
        strcpy(m->u.ready.net_addr, big ? "fd00:1234:5678:9abc:def0:1234:5678:9abc" : "10.77.0.2");
        m->u.ready.net_port = big ? 65535 : 41234;
        break;
    case RB_MSG_REFUSED:
    case RB_MSG_ABORT:
    case RB_MSG_ERROR: {
        rb_msg_reason_t *r = t == RB_MSG_REFUSED ? &m->u.refused
                             : t == RB_MSG_ABORT ? &m->u.abort
                                                 : &m->u.error;
        strcpy(r->run_id, t == RB_MSG_ABORT ? "" : "r1");
        r->code = t == RB_MSG_ERROR ? INT32_MIN : -ENOSPC;
        if (big)
            memset(r->reason, 'x', RB_REASON_MAX - 1);
        else
            strcpy(r->reason, "/mnt/disk0: needs 64 GiB, 12 GiB free");
        break;
    }
    case RB_MSG_GO:
        strcpy(m->u.go.run_id, "r1");
        m->u.go.phase = RB_MAX_PHASES - 1;
        m->u.go.t_go_ns = 5000000000ull;
        m->u.go.offset_ns = big ? INT64_MIN : -1234567;
        m->u.go.done_hold_ns = big ? RB_DONE_HOLD_MAX_NS : 320000000ull; /* version 30 */
        m->u.go.nlinks = big ? RB_NET_LINKS_MAX : 2;                     /* version 28 */
        m->u.go.links = calloc(m->u.go.nlinks, sizeof *m->u.go.links);
        assert_non_null(m->u.go.links);
        for (uint32_t i = 0; i < m->u.go.nlinks; i++) {
            rb_net_link_t *l = &m->u.go.links[i];
            l->job = i % RB_MAX_JOBS;
            l->peer = big ? UINT32_MAX - 1 - i : i + 1;
            l->out = (uint8_t)(i % 2);
            if (l->out) {
                snprintf(l->addr, sizeof l->addr, "10.77.%u.%u", i / 250, 2 + i % 250);
                l->port = 1024 + i;
            }
        }
        break;
    case RB_MSG_SAMPLE: {
        rb_msg_sample_t *s = &m->u.sample;
        strcpy(s->run_id, "r1");
        s->phase = 1;
        s->seq = 17;
        s->t_start_ns = 1000;
        s->t_end_ns = 2000;
        s->njobs = big ? 3 : 1;
        s->jobs = calloc(s->njobs, sizeof *s->jobs);
        assert_non_null(s->jobs);
        fill_job_stats(s->jobs, s->njobs, big ? 9 : 1000);
        if (big) { /* one histogram recorded the real way, one left empty */
            rb_hist_init(s->jobs[1].hist);
            for (uint64_t v = 1; v < 10000000000ull; v = v * 3 + 7)
                rb_hist_record(s->jobs[1].hist, v);
            rb_hist_init(s->jobs[2].hist);
        }
        fill_telem(s, big);
        break;
    }
    case RB_MSG_DONE: {
        rb_msg_done_t *d = &m->u.done;
        strcpy(d->run_id, "r1");
        d->phase = 0;
        d->status = big ? -EIO : 0;
        strcpy(d->error, big ? "/mnt/disk3/job0.0.0: write: Input/output error" : "");
        if (big)
            memset(d->error_path, 'p', RB_PATH_MAX - 1);
        else
            strcpy(d->error_path, "/mnt/disk3/job0.0.0");
        d->error_offset = big ? UINT64_MAX : 1ull << 33;
        d->nworkers = big ? 6 : 2;
        d->workers = calloc(d->nworkers, sizeof *d->workers);
        assert_non_null(d->workers);
        for (uint32_t i = 0; i < d->nworkers; i++) {
            rb_worker_stat_t *w = &d->workers[i];
            w->job = i % 2;
            w->worker = i / 2;
            w->t_start_ns = 1000 + i;
            w->t_end_ns = 9000000000ull + i;
            w->bytes = 10ull << 30;
            w->ops = 2621440;
            w->errors = i + 1;
            w->read_bytes = (i % 2 ? 10ull << 30 : 3ull << 30) + i * (uint64_t) !(i % 2);
            w->read_ops = i % 2 ? 2621440 : 786432 + i;
            if (i % 2 == 0) { /* version 6: the rest written, but for a trim */
                w->write_bytes = w->bytes - w->read_bytes - 4096;
                w->write_ops = w->ops - w->read_ops - 1;
                w->trim_bytes = 4096;
                w->trim_ops = 1;
            }
            w->verify_errors = i;
            w->first_errno = i % 2 ? 28 : 0;
            w->ncheckpts = big ? (i == 0 ? RB_MAX_CHECKPTS : i) : 2;
            if (w->ncheckpts) {
                w->checkpts = calloc(w->ncheckpts, sizeof *w->checkpts);
                assert_non_null(w->checkpts);
            }
            for (uint32_t k = 0; k < w->ncheckpts; k++) {
                w->checkpts[k].t_ns = 1000 + (uint64_t)k / 2 * 100000000; /* equal pairs allowed */
                w->checkpts[k].bytes = (uint64_t)k << 20;
            }
            w->sw_t_ns = i ? 5000000000ull + i : 0;
            w->sw_bytes = (uint64_t)i << 30;
            w->sw_ops = (uint64_t)i << 18;
            w->dev = i % 3;        /* version 12: workers 1, 4 on device 0, 2, 5 on device 1 */
            w->found = w->ops / 2; /* version 14 */
        }
        d->ndevs = d->ndev_stats = 2;
        d->devs = calloc(2, sizeof *d->devs);
        assert_non_null(d->devs);
        for (uint32_t k = 0; k < 2; k++)
            fill_dev_id(&d->devs[k], k);
        d->dev_stats = calloc(2, sizeof *d->dev_stats);
        assert_non_null(d->dev_stats);
        fill_job_stats(d->dev_stats, 2, 1200); /* few buckets: the big DONE's size is its jobs' */
        d->caches_dropped = !big;
        d->drop_status = big ? -EACCES : 0;
        d->njobs = 2;
        d->jobs = calloc(2, sizeof *d->jobs);
        assert_non_null(d->jobs);
        fill_job_stats(d->jobs, 2, big ? 3 : 1200); /* big: ~830 non-empty buckets each */
        d->nlinks = big ? 64 : 2;                   /* version 28 */
        d->links = calloc(d->nlinks, sizeof *d->links);
        assert_non_null(d->links);
        for (uint32_t i = 0; i < d->nlinks; i++) {
            rb_link_stat_t *l = &d->links[i];
            l->job = i % 2;
            l->peer = i + 1;
            l->out = (uint8_t)(i % 2);
            l->streams = 1 + i % RB_NET_STREAMS_MAX;
            l->bytes = (uint64_t)i << 32;
            l->ops = i * 1000ull;
            l->t_start_ns = 1000 + i;
            l->t_end_ns = 9000000000ull + i;
            l->status = i == 1 ? -ECONNRESET : 0;
            if (i == 1)
                strcpy(l->error, "node 2 closed the stream");
        }
        d->net_refused = big ? UINT64_MAX : 1;
        strcpy(d->net_refused_by, "10.77.0.9:41000 (no proof of this run's secret)");
        d->net_retrans = big ? UINT64_MAX - 1 : 17;
        break;
    }
    case RB_MSG_HEARTBEAT:
        m->u.heartbeat.t_ns = 42;
        m->u.heartbeat.removed = big ? UINT64_MAX : 7;                        /* version 25 */
        m->u.heartbeat.period_ns = big ? RB_HEARTBEAT_MAX_NS : 4000000000ull; /* version 29 */
        break;
    case RB_MSG_STONEWALL:
    case RB_MSG_WEAROUT:
        strcpy(m->u.stonewall.run_id, "r1");
        m->u.stonewall.phase = big ? RB_MAX_PHASES - 1 : 3;
        m->u.stonewall.job = big ? RB_MAX_JOBS - 1 : 1;
        m->u.stonewall.ops = big ? UINT64_MAX : 123456;
        break;
    case RB_MSG_END:
        strcpy(m->u.end.run_id, "r1");
        m->u.end.removed_files = 12;
        m->u.end.status = -EACCES;
        m->u.end.nhealth = big ? RB_HEALTH_DEVS : 1;
        m->u.end.health = fill_health(m->u.end.nhealth, big);
        break;
    case RB_MSG_SPACE: {
        rb_msg_space_t *sp = &m->u.space;
        strcpy(sp->run_id, "r1");
        sp->nfs = big ? RB_MAX_ROOTS : 1;
        for (uint32_t i = 0; i < sp->nfs; i++) {
            rb_space_info_t *f = &sp->fs[i];
            if (big)
                memset(f->path, 'd', RB_PATH_MAX - 1);
            else
                strcpy(f->path, "/mnt/disk3");
            f->dev = big ? UINT64_MAX : 0x803;
            f->need_bytes = big ? UINT64_MAX : 150ull << 20;
            f->free_bytes = (253ull << 20) + i;
            f->total_bytes = 1ull << 30;
            if (big) {
                memset(f->fs_type, 't', RB_NAME_MAX - 1);
                memset(f->source, 's', RB_PATH_MAX - 1);
            } else {
                strcpy(f->fs_type, "fuse.glusterfs");
                strcpy(f->source, "gfs1:/vol0");
            }
            f->shared = !big;
            f->reserve_bytes = big ? UINT64_MAX : 51ull << 20;
        }
        break;
    }
    default:
        fail_msg("no builder for type %d", t);
    }
}

static void *encode(const rb_msg_t *m, size_t *len)
{
    void *buf = NULL;
    rb_err_t err = {0};
    int rc = rb_msg_encode(m, &buf, len, &err);
    if (rc != 0)
        fail_msg("encode %s: %d %s", rb_msg_type_name(m->type), rc, err.msg);
    assert_non_null(buf);
    return buf;
}

static void *encode_built(rb_msg_type_t t, bool big, size_t *len)
{
    rb_msg_t m;
    build(t, big, &m);
    void *buf = encode(&m, len);
    rb_msg_fini(&m);
    return buf;
}

static bool is_zero(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i])
            return false;
    return true;
}

/* Decodes and checks the code; on failure checks that m holds nothing but
 * what the frame claimed to be (its type and version: rb_msg_fini frees
 * nothing, the union's other bytes being left as they were, here 0xa5,
 * which AddressSanitizer would catch being freed) and returns the error
 * message in err. */
/* Decodes buf, and again without the fast path (rb_msg_decode_full): the
 * same result, and a message accepted both ways writes the same bytes. */
static int decode(const void *buf, size_t len, rb_msg_t *m, rb_err_t *err)
{
    rb_err_clear(err);
    memset(m, 0xa5, sizeof *m);
    int rc = rb_msg_decode(buf, len, m, err);
    static rb_msg_t full;
    rb_err_t ferr;
    rb_err_clear(&ferr);
    memset(&full, 0x5a, sizeof full);
    int frc = rb_msg_decode_full(buf, len, &full, &ferr);
    if (frc != rc)
        fail_msg("decoded %d, without the fast path %d (%s)", rc, frc, ferr.msg);
    if (rc < 0) {
        assert_true((unsigned)m->type < RB_MSG_COUNT);
        rb_msg_fini(m);
        assert_true(is_zero(m, offsetof(rb_msg_t, u)));
        assert_int_equal(err->code, rc);
        assert_true(err->msg[0] != '\0');
        assert_string_equal(err->msg, ferr.msg);
    } else {
        assert_int_equal(rc, 0);
        assert_int_equal(m->type, full.type);
        assert_int_equal(m->version, full.version);
        void *a = NULL, *b = NULL;
        size_t alen = 0, blen = 0;
        rb_err_t eerr;
        int ea = rb_msg_encode_v(m, m->version, &a, &alen, &eerr);
        int eb = rb_msg_encode_v(&full, full.version, &b, &blen, &eerr);
        assert_int_equal(ea, eb);
        if (ea == 0 && (alen != blen || memcmp(a, b, alen) != 0))
            fail_msg("%s: the fast path's message writes %zu bytes, the full path's %zu, or "
                     "other bytes",
                     rb_msg_type_name(m->type), alen, blen);
        free(a);
        free(b);
        rb_msg_fini(&full);
    }
    return rc;
}

static void expect_bad(const void *buf, size_t len, int code, const char *needle)
{
    rb_msg_t m;
    rb_err_t err;
    int rc = decode(buf, len, &m, &err);
    if (rc == 0)
        rb_msg_fini(&m);
    if (rc != code)
        fail_msg("expected %d, got %d (%s) [%s]", code, rc, err.msg, needle ? needle : "");
    if (needle && !strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

/* ---- comparing messages ---- */

static void cmp_hist(const rb_hist_t *a, const rb_hist_t *b)
{
    static const rb_hist_t empty = {.min = UINT64_MAX};
    assert_non_null(b);
    assert_memory_equal(a ? a : &empty, b, sizeof *b);
}

static void cmp_job_stats(const rb_job_stat_t *a, const rb_job_stat_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(a[i].job, b[i].job);
        assert_int_equal(a[i].bytes, b[i].bytes);
        assert_int_equal(a[i].ops, b[i].ops);
        assert_int_equal(a[i].errors, b[i].errors);
        assert_int_equal(a[i].read_bytes, b[i].read_bytes);
        assert_int_equal(a[i].read_ops, b[i].read_ops);
        assert_int_equal(a[i].verify_errors, b[i].verify_errors);
        cmp_hist(a[i].hist, b[i].hist);
        assert_int_equal(a[i].write_bytes, b[i].write_bytes);
        assert_int_equal(a[i].write_ops, b[i].write_ops);
        assert_int_equal(a[i].trim_bytes, b[i].trim_bytes);
        assert_int_equal(a[i].trim_ops, b[i].trim_ops);
        for (int d = 0; d < RB_NDIRS; d++)
            for (int k = 0; k < RB_NLATS; k++)
                cmp_hist(a[i].lat[d][k], b[i].lat[d][k]);
        assert_int_equal(a[i].ss_state, b[i].ss_state);
        assert_int_equal(a[i].ss_t_ns, b[i].ss_t_ns);
        assert_int_equal(a[i].ss_crit, b[i].ss_crit);
        assert_int_equal(a[i].ss_mean, b[i].ss_mean);
        assert_int_equal(a[i].lat_depth, b[i].lat_depth);
        assert_int_equal(a[i].filesize, b[i].filesize);
    }
}

/* a's na disks' health came through as b's nb: the same, or none for a
 * peer of a version before 27 */
static void cmp_health(const rb_health_t *a, uint32_t na, const rb_health_t *b, uint32_t nb,
                       uint32_t version)
{
    if (version && version < 27) {
        assert_int_equal(nb, 0);
        return;
    }
    assert_int_equal(na, nb);
    for (uint32_t i = 0; i < na; i++)
        assert_memory_equal(&a[i], &b[i], sizeof a[i]);
}

static void cmp_reason(const rb_msg_reason_t *a, const rb_msg_reason_t *b)
{
    assert_string_equal(a->run_id, b->run_id);
    assert_int_equal(a->code, b->code);
    assert_string_equal(a->reason, b->reason);
}

static void cmp_msg(const rb_msg_t *a, const rb_msg_t *b)
{
    assert_int_equal(a->type, b->type);
    assert_int_equal(b->version, RB_PROTO_VERSION);
    switch (a->type) {
    case RB_MSG_HELLO: {
        const rb_msg_hello_t *x = &a->u.hello, *y = &b->u.hello;
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->rack, y->rack);
        assert_string_equal(x->hostname, y->hostname);
        assert_string_equal(x->agent_version, y->agent_version);
        assert_int_equal(x->pid, y->pid);
        assert_int_equal(x->cores, y->cores);
        assert_int_equal(x->ram_bytes, y->ram_bytes);
        assert_int_equal(x->cache_bytes, y->cache_bytes);
        assert_int_equal(x->nroots, y->nroots);
        for (uint32_t i = 0; i < x->nroots; i++) {
            assert_string_equal(x->roots[i].path, y->roots[i].path);
            assert_int_equal(x->roots[i].free_bytes, y->roots[i].free_bytes);
            assert_int_equal(x->roots[i].total_bytes, y->roots[i].total_bytes);
            assert_string_equal(x->roots[i].fs_type, y->roots[i].fs_type);
            assert_string_equal(x->roots[i].source, y->roots[i].source);
            assert_string_equal(x->roots[i].options, y->roots[i].options);
            assert_string_equal(x->roots[i].dev_model, y->roots[i].dev_model);
            assert_string_equal(x->roots[i].dev_serial, y->roots[i].dev_serial);
            assert_int_equal(x->roots[i].dev_rotational, y->roots[i].dev_rotational);
        }
        assert_string_equal(x->kernel, y->kernel);
        assert_string_equal(x->cpu_model, y->cpu_model);
        assert_int_equal(x->nnics, y->nnics);
        for (uint32_t i = 0; i < x->nnics; i++) {
            assert_string_equal(x->nics[i].name, y->nics[i].name);
            assert_int_equal(x->nics[i].speed_mbps, y->nics[i].speed_mbps);
            assert_string_equal(x->nics[i].mac, y->nics[i].mac);
        }
        assert_int_equal(x->ndevs, y->ndevs);
        for (uint32_t k = 0; k < x->ndevs; k++)
            cmp_dev_id(&x->devs[k], &y->devs[k]);
        assert_int_equal(x->ndevs_seen, y->ndevs_seen);
        break;
    }
    case RB_MSG_PING:
        assert_int_equal(a->u.ping.seq, b->u.ping.seq);
        assert_int_equal(a->u.ping.t_coord_ns, b->u.ping.t_coord_ns);
        break;
    case RB_MSG_PONG:
        assert_int_equal(a->u.pong.seq, b->u.pong.seq);
        assert_int_equal(a->u.pong.t_coord_ns, b->u.pong.t_coord_ns);
        assert_int_equal(a->u.pong.t_agent_ns, b->u.pong.t_agent_ns);
        break;
    case RB_MSG_PLAN: {
        const rb_msg_plan_t *x = &a->u.plan, *y = &b->u.plan;
        assert_string_equal(x->run_id, y->run_id);
        assert_int_equal(x->interval_ns, y->interval_ns);
        assert_int_equal(x->node_rank, y->node_rank);
        assert_int_equal(x->nnodes, y->nnodes);
        assert_string_equal(x->lead, y->lead);
        assert_int_equal(x->npeers, y->npeers);
        for (uint32_t i = 0; i < x->npeers; i++) {
            assert_int_equal(x->peers[i].shift, y->peers[i].shift);
            assert_string_equal(x->peers[i].name, y->peers[i].name);
        }
        assert_int_equal(x->net_secret_len, y->net_secret_len);
        assert_memory_equal(x->net_secret, y->net_secret, x->net_secret_len);
        assert_int_equal(x->nphases, y->nphases);
        for (uint32_t i = 0; i < x->nphases; i++) {
            const rb_phase_spec_t *p = &x->phases[i], *q = &y->phases[i];
            assert_string_equal(p->name, q->name);
            assert_int_equal(p->njobs, q->njobs);
            for (uint32_t j = 0; j < p->njobs; j++) {
                const rb_job_spec_t *s = &p->jobs[j], *t = &q->jobs[j];
                char key[80];
                if (rb_proto_job_diff(s, t, key, sizeof key))
                    fail_msg("phases[%u].jobs[%u].%s came back otherwise", i, j, key);
                /* Nothing else in the struct: every byte came back. */
                assert_memory_equal(s, t, sizeof *s);
            }
        }
        break;
    }
    case RB_MSG_READY:
        assert_string_equal(a->u.ready.run_id, b->u.ready.run_id);
        assert_int_equal(a->u.ready.prefill_bytes, b->u.ready.prefill_bytes);
        assert_string_equal(a->u.ready.net_addr, b->u.ready.net_addr);
        assert_int_equal(a->u.ready.net_port, b->u.ready.net_port);
        cmp_health(a->u.ready.health, a->u.ready.nhealth, b->u.ready.health, b->u.ready.nhealth,
                   b->version);
        break;
    case RB_MSG_REFUSED:
        cmp_reason(&a->u.refused, &b->u.refused);
        break;
    case RB_MSG_ABORT:
        cmp_reason(&a->u.abort, &b->u.abort);
        break;
    case RB_MSG_ERROR:
        cmp_reason(&a->u.error, &b->u.error);
        break;
    case RB_MSG_GO:
        assert_string_equal(a->u.go.run_id, b->u.go.run_id);
        assert_int_equal(a->u.go.phase, b->u.go.phase);
        assert_int_equal(a->u.go.t_go_ns, b->u.go.t_go_ns);
        assert_true(a->u.go.offset_ns == b->u.go.offset_ns);
        assert_int_equal(a->u.go.done_hold_ns, b->u.go.done_hold_ns);
        assert_int_equal(a->u.go.nlinks, b->u.go.nlinks);
        for (uint32_t i = 0; i < a->u.go.nlinks; i++) {
            const rb_net_link_t *v = &a->u.go.links[i], *w = &b->u.go.links[i];
            assert_int_equal(v->job, w->job);
            assert_int_equal(v->peer, w->peer);
            assert_int_equal(v->out, w->out);
            assert_string_equal(v->addr, w->addr);
            assert_int_equal(v->port, w->port);
        }
        break;
    case RB_MSG_SAMPLE: {
        const rb_msg_sample_t *x = &a->u.sample, *y = &b->u.sample;
        assert_string_equal(x->run_id, y->run_id);
        assert_int_equal(x->phase, y->phase);
        assert_int_equal(x->seq, y->seq);
        assert_int_equal(x->t_start_ns, y->t_start_ns);
        assert_int_equal(x->t_end_ns, y->t_end_ns);
        assert_int_equal(x->njobs, y->njobs);
        cmp_job_stats(x->jobs, y->jobs, x->njobs);
        assert_int_equal(x->ntelem, y->ntelem);
        if (x->ntelem) /* fixed layout, zeroed beyond the counts: all bytes compare */
            assert_memory_equal(x->telem, y->telem, sizeof *x->telem);
        break;
    }
    case RB_MSG_DONE: {
        const rb_msg_done_t *x = &a->u.done, *y = &b->u.done;
        assert_string_equal(x->run_id, y->run_id);
        assert_int_equal(x->phase, y->phase);
        assert_int_equal(x->status, y->status);
        assert_string_equal(x->error, y->error);
        assert_string_equal(x->error_path, y->error_path);
        assert_int_equal(x->error_offset, y->error_offset);
        assert_int_equal(x->nworkers, y->nworkers);
        for (uint32_t i = 0; i < x->nworkers; i++) {
            const rb_worker_stat_t *v = &x->workers[i], *w = &y->workers[i];
            assert_int_equal(v->job, w->job);
            assert_int_equal(v->worker, w->worker);
            assert_int_equal(v->t_start_ns, w->t_start_ns);
            assert_int_equal(v->t_end_ns, w->t_end_ns);
            assert_int_equal(v->bytes, w->bytes);
            assert_int_equal(v->ops, w->ops);
            assert_int_equal(v->errors, w->errors);
            assert_int_equal(v->read_bytes, w->read_bytes);
            assert_int_equal(v->read_ops, w->read_ops);
            assert_int_equal(v->verify_errors, w->verify_errors);
            assert_int_equal(v->first_errno, w->first_errno);
            assert_int_equal(v->ncheckpts, w->ncheckpts);
            if (v->ncheckpts)
                assert_memory_equal(v->checkpts, w->checkpts, v->ncheckpts * sizeof *v->checkpts);
            assert_int_equal(v->sw_t_ns, w->sw_t_ns);
            assert_int_equal(v->sw_bytes, w->sw_bytes);
            assert_int_equal(v->sw_ops, w->sw_ops);
            assert_int_equal(v->found, w->found);
            assert_int_equal(v->dev, w->dev);
        }
        assert_int_equal(x->ndevs, y->ndevs);
        for (uint32_t k = 0; k < x->ndevs; k++)
            cmp_dev_id(&x->devs[k], &y->devs[k]);
        assert_int_equal(x->ndev_stats, y->ndev_stats);
        cmp_job_stats(x->dev_stats, y->dev_stats, x->ndev_stats);
        assert_int_equal(x->caches_dropped, y->caches_dropped);
        assert_int_equal(x->drop_status, y->drop_status);
        assert_int_equal(x->njobs, y->njobs);
        cmp_job_stats(x->jobs, y->jobs, x->njobs);
        assert_int_equal(x->nlinks, y->nlinks);
        for (uint32_t i = 0; i < x->nlinks; i++) {
            const rb_link_stat_t *v = &x->links[i], *w = &y->links[i];
            assert_int_equal(v->job, w->job);
            assert_int_equal(v->peer, w->peer);
            assert_int_equal(v->out, w->out);
            assert_int_equal(v->streams, w->streams);
            assert_int_equal(v->bytes, w->bytes);
            assert_int_equal(v->ops, w->ops);
            assert_int_equal(v->t_start_ns, w->t_start_ns);
            assert_int_equal(v->t_end_ns, w->t_end_ns);
            assert_int_equal(v->status, w->status);
            assert_string_equal(v->error, w->error);
        }
        assert_int_equal(x->net_refused, y->net_refused);
        assert_string_equal(x->net_refused_by, y->net_refused_by);
        assert_int_equal(x->net_retrans, y->net_retrans);
        break;
    }
    case RB_MSG_HEARTBEAT:
        assert_int_equal(a->u.heartbeat.t_ns, b->u.heartbeat.t_ns);
        assert_int_equal(a->u.heartbeat.removed, b->u.heartbeat.removed);
        assert_int_equal(a->u.heartbeat.period_ns, b->u.heartbeat.period_ns);
        break;
    case RB_MSG_STONEWALL:
    case RB_MSG_WEAROUT:
        assert_string_equal(a->u.stonewall.run_id, b->u.stonewall.run_id);
        assert_int_equal(a->u.stonewall.phase, b->u.stonewall.phase);
        assert_int_equal(a->u.stonewall.job, b->u.stonewall.job);
        assert_int_equal(a->u.stonewall.ops, b->u.stonewall.ops);
        break;
    case RB_MSG_END:
        assert_string_equal(a->u.end.run_id, b->u.end.run_id);
        assert_int_equal(a->u.end.removed_files, b->u.end.removed_files);
        assert_int_equal(a->u.end.status, b->u.end.status);
        cmp_health(a->u.end.health, a->u.end.nhealth, b->u.end.health, b->u.end.nhealth,
                   b->version);
        break;
    case RB_MSG_SPACE:
        assert_string_equal(a->u.space.run_id, b->u.space.run_id);
        assert_int_equal(a->u.space.nfs, b->u.space.nfs);
        /* fixed layout, zeroed beyond the count: all bytes compare */
        assert_memory_equal(a->u.space.fs, b->u.space.fs, a->u.space.nfs * sizeof *a->u.space.fs);
        break;
    default:
        fail_msg("no comparison for type %d", a->type);
    }
}

/* ---- rewriting frames by hand: drop a key or replace a value at a path ---- */

typedef void (*edit_fn)(msgpack_packer *pk, const msgpack_object *orig, const void *arg);

typedef struct edit {
    const char *path; /* "workers[0].checkpts[1][0]" style */
    edit_fn fn;       /* writes the replacement; NULL drops the key */
    const void *arg;  /* for fn */
} edit_t;

static size_t path_key(char *path, size_t plen, const msgpack_object *k)
{
    if (k->type != MSGPACK_OBJECT_STR)
        return plen + (size_t)sprintf(path + plen, "%s?", plen ? "." : "");
    return plen + (size_t)sprintf(path + plen, "%s%.*s", plen ? "." : "", (int)k->via.str.size,
                                  k->via.str.ptr);
}

static void repack(msgpack_packer *pk, const msgpack_object *o, char *path, size_t plen,
                   const edit_t *ed)
{
    if (ed->fn && strcmp(path, ed->path) == 0) {
        ed->fn(pk, o, ed->arg);
        return;
    }
    if (o->type == MSGPACK_OBJECT_MAP) {
        uint32_t keep = o->via.map.size;
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            path_key(path, plen, &o->via.map.ptr[i].key);
            keep -= !ed->fn && strcmp(path, ed->path) == 0;
        }
        msgpack_pack_map(pk, keep);
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            size_t n = path_key(path, plen, &o->via.map.ptr[i].key);
            if (!ed->fn && strcmp(path, ed->path) == 0)
                continue;
            msgpack_pack_object(pk, o->via.map.ptr[i].key);
            repack(pk, &o->via.map.ptr[i].val, path, n, ed);
        }
    } else if (o->type == MSGPACK_OBJECT_ARRAY) {
        msgpack_pack_array(pk, o->via.array.size);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            size_t n = plen + (size_t)sprintf(path + plen, "[%u]", i);
            repack(pk, &o->via.array.ptr[i], path, n, ed);
        }
    } else {
        msgpack_pack_object(pk, *o);
    }
    path[plen] = '\0';
}

static void *edit_frame(const void *buf, size_t len, const edit_t *ed, size_t *out_len)
{
    msgpack_unpacked u;
    msgpack_sbuffer sb;
    msgpack_packer pk;
    char path[512] = "";
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, buf, len, NULL), MSGPACK_UNPACK_SUCCESS);
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    repack(&pk, &u.data, path, 0, ed);
    msgpack_unpacked_destroy(&u);
    *out_len = sb.size;
    return msgpack_sbuffer_release(&sb);
}

/* Edits a valid frame of type t and expects the decoder's verdict. */
static void expect_edit(rb_msg_type_t t, bool big, const edit_t *ed, int code, const char *needle)
{
    size_t len, elen;
    void *buf = encode_built(t, big, &len);
    void *ebuf = edit_frame(buf, len, ed, &elen);
    expect_bad(ebuf, elen, code, needle);
    free(buf);
    free(ebuf);
}

typedef struct ints {
    int n;
    int64_t v[8];
} ints_t;

static void put_int(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    (void)o;
    msgpack_pack_int64(pk, *(const int64_t *)arg);
}

static void put_uint(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    (void)o;
    msgpack_pack_uint64(pk, *(const uint64_t *)arg);
}

static void put_ints(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    const ints_t *a = arg;
    (void)o;
    msgpack_pack_array(pk, (size_t)a->n);
    for (int i = 0; i < a->n; i++)
        msgpack_pack_int64(pk, a->v[i]);
}

static void put_pairs(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    const ints_t *a = arg; /* flat list, packed as [[a,b], [c,d], ...] */
    (void)o;
    msgpack_pack_array(pk, (size_t)a->n / 2);
    for (int i = 0; i + 1 < a->n; i += 2) {
        msgpack_pack_array(pk, 2);
        msgpack_pack_int64(pk, a->v[i]);
        msgpack_pack_int64(pk, a->v[i + 1]);
    }
}

static void put_str_len(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    size_t n = *(const size_t *)arg;
    char *s = malloc(n + 1);
    (void)o;
    memset(s, 'a', n);
    msgpack_pack_str_with_body(pk, s, n);
    free(s);
}

static void put_bin_len(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    size_t n = *(const size_t *)arg;
    uint8_t b[RB_PATTERN_MAX + 8] = {0};
    (void)o;
    assert_true(n <= sizeof b);
    msgpack_pack_bin_with_body(pk, b, n);
}

static void put_str(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    (void)o;
    msgpack_pack_str_with_body(pk, arg, strlen(arg));
}

static void put_nul_str(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    (void)o;
    (void)arg;
    msgpack_pack_str_with_body(pk, "ab\0cd", 5);
}

/* An array of *arg copies of the original array's first element. */
static void put_repeat(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    size_t n = *(const size_t *)arg;
    assert_int_equal(o->type, MSGPACK_OBJECT_ARRAY);
    assert_true(o->via.array.size > 0);
    msgpack_pack_array(pk, n);
    for (size_t i = 0; i < n; i++)
        msgpack_pack_object(pk, o->via.array.ptr[0]);
}

/* The original map with an extra key the decoder does not know. */
static void put_extra_key(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    (void)arg;
    msgpack_pack_map(pk, o->via.map.size + 2);
    msgpack_pack_str_with_body(pk, "future_field", 12);
    msgpack_pack_array(pk, 2);
    msgpack_pack_map(pk, 0);
    msgpack_pack_double(pk, 1.5);
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        msgpack_pack_object(pk, o->via.map.ptr[i].key);
        msgpack_pack_object(pk, o->via.map.ptr[i].val);
    }
    msgpack_pack_int(pk, 7); /* a non-string key is unknown too */
    msgpack_pack_nil(pk);
}

/* A value of another msgpack type than the original. */
static void put_wrong_type(msgpack_packer *pk, const msgpack_object *o, const void *arg)
{
    int variant = *(const int *)arg;
    switch (o->type) {
    case MSGPACK_OBJECT_STR:
        variant ? msgpack_pack_bin_with_body(pk, "x", 1) : msgpack_pack_int(pk, 7);
        break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        variant ? msgpack_pack_double(pk, 1.0) : msgpack_pack_str_with_body(pk, "1", 1);
        break;
    case MSGPACK_OBJECT_BOOLEAN:
        variant ? msgpack_pack_nil(pk) : msgpack_pack_int(pk, 1);
        break;
    case MSGPACK_OBJECT_ARRAY:
        variant ? msgpack_pack_nil(pk) : msgpack_pack_map(pk, 0);
        break;
    case MSGPACK_OBJECT_MAP:
        variant ? msgpack_pack_true(pk) : msgpack_pack_array(pk, 0);
        break;
    case MSGPACK_OBJECT_BIN:
        variant ? msgpack_pack_nil(pk) : msgpack_pack_str_with_body(pk, "x", 1);
        break;
    default:
        fail_msg("unexpected type %d in a valid frame", o->type);
    }
}

/* Paths of every map key (keys != 0) or of every integer (ints != 0) of a frame. */
typedef struct paths {
    int n;
    char p[4096][96];
    msgpack_object_type type[4096];
} paths_t;

static void collect(const msgpack_object *o, char *path, size_t plen, paths_t *out, bool keys)
{
    if (o->type == MSGPACK_OBJECT_MAP) {
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            size_t n = path_key(path, plen, &o->via.map.ptr[i].key);
            const msgpack_object *v = &o->via.map.ptr[i].val;
            bool is_int = v->type == MSGPACK_OBJECT_POSITIVE_INTEGER ||
                          v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER;
            if ((keys || is_int) && out->n < 4096) {
                strcpy(out->p[out->n], path);
                out->type[out->n++] = v->type;
            }
            collect(v, path, n, out, keys);
        }
    } else if (o->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            size_t n = plen + (size_t)sprintf(path + plen, "[%u]", i);
            const msgpack_object *v = &o->via.array.ptr[i];
            if (!keys && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && out->n < 4096) {
                strcpy(out->p[out->n], path);
                out->type[out->n++] = v->type;
            }
            collect(v, path, n, out, keys);
        }
    }
    path[plen] = '\0';
}

static paths_t *frame_paths(const void *buf, size_t len, bool keys)
{
    paths_t *ps = calloc(1, sizeof *ps);
    msgpack_unpacked u;
    char path[512] = "";
    assert_non_null(ps);
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, buf, len, NULL), MSGPACK_UNPACK_SUCCESS);
    collect(&u.data, path, 0, ps, keys);
    msgpack_unpacked_destroy(&u);
    return ps;
}

/* A frame built field by field: {"v": v, "t": t, then the given pairs}. */
static void *hand_frame(int64_t v, const char *t, size_t *len, int npairs, ...)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    va_list ap;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, (size_t)npairs + 2);
    msgpack_pack_str_with_body(&pk, "v", 1);
    msgpack_pack_int64(&pk, v);
    msgpack_pack_str_with_body(&pk, "t", 1);
    msgpack_pack_str_with_body(&pk, t, strlen(t));
    va_start(ap, npairs);
    for (int i = 0; i < npairs; i++) {
        const char *k = va_arg(ap, const char *);
        msgpack_pack_str_with_body(&pk, k, strlen(k));
        msgpack_pack_uint64(&pk, va_arg(ap, uint64_t));
    }
    va_end(ap);
    *len = sb.size;
    return msgpack_sbuffer_release(&sb);
}

static bool is_signed_key(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *k = dot ? dot + 1 : path;
    return !strcmp(k, "code") || !strcmp(k, "status") || !strcmp(k, "offset_ns") ||
           !strcmp(k, "drop_status") || !strcmp(k, "nice");
}

/* ---- tests ---- */

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(rb_msg_type_name(RB_MSG_HELLO), "HELLO");
    assert_string_equal(rb_msg_type_name(RB_MSG_HEARTBEAT), "HEARTBEAT");
    assert_string_equal(rb_msg_type_name(RB_MSG_END), "END");
    assert_string_equal(rb_msg_type_name(RB_MSG_NONE), "?");
    assert_string_equal(rb_msg_type_name(RB_MSG_COUNT), "?");
    assert_string_equal(rb_msg_type_name((rb_msg_type_t)-1), "?");
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++)
        assert_string_not_equal(rb_msg_type_name((rb_msg_type_t)t), "?");
    /* Every access pattern: its wire name, back, and what it does. */
    static const struct {
        rb_rw_t rw;
        const char *name;
        int reads, writes, random;
    } rws[] = {
        {RB_RW_READ, "read", 1, 0, 0},
        {RB_RW_WRITE, "write", 0, 1, 0},
        {RB_RW_RANDREAD, "randread", 1, 0, 1},
        {RB_RW_RANDWRITE, "randwrite", 0, 1, 1},
        {RB_RW_RW, "rw", 1, 1, 0},
        {RB_RW_RANDRW, "randrw", 1, 1, 1},
        {RB_RW_REWRITE, "rewrite", 0, 1, 0},
        {RB_RW_REREAD, "reread", 1, 0, 0},
        {RB_RW_META, "meta", 0, 0, 0}, /* no data IO: its meta_op says what it does */
        {RB_RW_TRIM, "trim", 0, 0, 0}, /* version 13: trims (rb_rw_trims) */
        {RB_RW_RANDTRIM, "randtrim", 0, 0, 1},
        {RB_RW_TRIMWRITE, "trimwrite", 0, 1, 0},
        {RB_RW_RANDTRIMWRITE, "randtrimwrite", 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof rws / sizeof rws[0]; i++) {
        assert_string_equal(rb_rw_name(rws[i].rw), rws[i].name);
        assert_int_equal(rb_rw_parse(rws[i].name), rws[i].rw);
        assert_int_equal(rb_rw_reads(rws[i].rw), rws[i].reads);
        assert_int_equal(rb_rw_writes(rws[i].rw), rws[i].writes);
        assert_int_equal(rb_rw_random(rws[i].rw), rws[i].random);
        assert_int_equal(rb_rw_trims(rws[i].rw), rws[i].rw >= RB_RW_TRIM);
    }
    assert_int_equal(rb_rw_parse("readwrite"), RB_RW_RW);
    assert_string_equal(rb_rw_name(rb_rw_parse("readwrite")), "rw"); /* one name on the wire */
    assert_null(rb_rw_name(RB_RW_NONE));
    assert_null(rb_rw_name((rb_rw_t)14));
    assert_null(rb_rw_name((rb_rw_t)-1));
    assert_false(rb_rw_reads(RB_RW_NONE) || rb_rw_writes(RB_RW_NONE) || rb_rw_random(RB_RW_NONE));
    assert_false(rb_rw_reads((rb_rw_t)14) || rb_rw_writes((rb_rw_t)14) ||
                 rb_rw_random((rb_rw_t)14));
    assert_int_equal(rb_rw_parse("filecreate"), RB_RW_NONE);
    assert_int_equal(rb_rw_parse("READ"), RB_RW_NONE);
    assert_int_equal(rb_rw_parse("read "), RB_RW_NONE);
    assert_int_equal(rb_rw_parse(""), RB_RW_NONE);
    assert_int_equal(rb_rw_parse(NULL), RB_RW_NONE);
    assert_int_equal(rb_rw_parse("create"), RB_RW_NONE); /* a meta_op, not an access pattern */

    /* Every metadata operation: its wire name and back. */
    static const struct {
        rb_meta_op_t op;
        const char *name;
    } ops[] = {
        {RB_META_NONE, "none"},     {RB_META_CREATE, "create"}, {RB_META_STAT, "stat"},
        {RB_META_READ, "read"},     {RB_META_WRITE, "write"},   {RB_META_RENAME, "rename"},
        {RB_META_DELETE, "delete"}, {RB_META_MKDIR, "mkdir"},   {RB_META_STATDIR, "statdir"},
        {RB_META_RMDIR, "rmdir"},   {RB_META_MKTREE, "mktree"}, {RB_META_RMTREE, "rmtree"},
        {RB_META_FIND, "find"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        assert_string_equal(rb_meta_op_name(ops[i].op), ops[i].name);
        assert_int_equal(rb_meta_op_parse(ops[i].name), ops[i].op);
    }
    assert_null(rb_meta_op_name((rb_meta_op_t)13));
    assert_null(rb_meta_op_name((rb_meta_op_t)-1));
    assert_int_equal(rb_meta_op_parse("mkdirs"), RB_META_NONE);
    assert_int_equal(rb_meta_op_parse("unlink"), RB_META_NONE);
    assert_int_equal(rb_meta_op_parse("CREATE"), RB_META_NONE);
    assert_int_equal(rb_meta_op_parse("create "), RB_META_NONE);
    assert_int_equal(rb_meta_op_parse("meta"), RB_META_NONE);
    assert_int_equal(rb_meta_op_parse(""), RB_META_NONE);
    assert_int_equal(rb_meta_op_parse(NULL), RB_META_NONE);
}

static void test_roundtrip_all(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
            rb_msg_t in, out;
            rb_err_t err;
            size_t len;
            build((rb_msg_type_t)t, big, &in);
            void *buf = encode(&in, &len);
            if (decode(buf, len, &out, &err) != 0)
                fail_msg("decode %s: %s", rb_msg_type_name((rb_msg_type_t)t), err.msg);
            cmp_msg(&in, &out);
            rb_msg_fini(&out);
            /* what this build writes takes the fast path */
            if (rb_proto_decode_fast(buf, len, &out) != 0)
                fail_msg("%s%s: not read by the fast path", big ? "big " : "",
                         rb_msg_type_name((rb_msg_type_t)t));
            /* its type is read off its head alone (the coordinator's DONEs wait) */
            assert_int_equal(rb_msg_peek_type(buf, len), t);
            assert_int_equal(rb_msg_peek_type(buf, 8), len > 8 ? RB_MSG_NONE : t);
            cmp_msg(&in, &out);
            /* The same bytes again: encoding is deterministic. */
            size_t len2;
            void *buf2 = encode(&out, &len2);
            assert_int_equal(len, len2);
            assert_memory_equal(buf, buf2, len);
            free(buf);
            free(buf2);
            rb_msg_fini(&in);
            rb_msg_fini(&out);
        }
    }
}

/* The big DONE really carries hundreds of buckets per histogram. */
/* A host kept from its HELLO: every root and device read back as it was
 * said, texts of the whole room their field has too, in a fraction of the
 * room whole records take (64 roots and 64 devices: 200 KiB whole); and
 * drives' health readings kept the same way (rb_pack.h). */
static void test_host_packed(void **state)
{
    (void)state;
    rb_msg_t m;
    build(RB_MSG_HELLO, true, &m);
    rb_msg_hello_t *h = &m.u.hello;
    memset(h->roots[1].path, 'p', sizeof h->roots[1].path - 1);
    memset(h->roots[1].dev_serial, 's', sizeof h->roots[1].dev_serial - 1);
    memset(h->devs[2].path, 'q', sizeof h->devs[2].path - 1);
    memset(h->devs[2].use, 'u', sizeof h->devs[2].use - 1);
    memset(h->devs[3].use, 0, sizeof h->devs[3].use);
    rb_host_t *c = NULL;
    assert_int_equal(rb_host_of_hello(h, &c), 0);
    assert_int_equal(c->nroots, RB_MAX_ROOTS);
    assert_int_equal(c->ndevs, RB_MAX_DEVS);
    assert_int_equal(c->nnics, h->nnics);
    assert_int_equal(c->ndevs_seen, 300);
    assert_string_equal(c->cpu_model, h->cpu_model);
    assert_string_equal(c->kernel, h->kernel);
    assert_true(c->cores == h->cores && c->ram_bytes == h->ram_bytes);
    assert_memory_equal(c->nics, h->nics, h->nnics * sizeof *h->nics);
    rb_root_info_t rt;
    rb_dev_id_t dv;
    for (uint32_t k = 0; k < RB_MAX_ROOTS; k++)
        assert_memory_equal(rb_host_root(c, k, &rt), &h->roots[k], sizeof rt);
    for (uint32_t k = 0; k < RB_MAX_DEVS; k++) {
        cmp_dev_id(rb_host_dev(c, k, &dv), &h->devs[k]);
        assert_memory_equal(&dv, &h->devs[k], sizeof dv);
    }
    assert_null(rb_host_root(c, RB_MAX_ROOTS, &rt));
    assert_null(rb_host_dev(c, RB_MAX_DEVS, &dv));
    assert_true(malloc_usable_size(c) + malloc_usable_size(c->roots_kept) +
                    malloc_usable_size(c->devs_kept) <
                40 * 1024);
    rb_host_free(&c);
    rb_host_free(&c);
    rb_msg_fini(&m);

    /* drives' health readings kept packed: read back whole, a text of its
     * field's whole room too */
    build(RB_MSG_READY, true, &m);
    rb_msg_ready_t *r = &m.u.ready;
    memset(r->health[1].reason, 'r', sizeof r->health[1].reason - 1);
    memset(r->health[2].dev, 0, sizeof r->health[2].dev);
    rb_packed_t *p = rb_pack_array(RB_PACK_HEALTH, r->health, r->nhealth);
    assert_non_null(p);
    assert_int_equal(p->n, r->nhealth);
    rb_health_t *all = rb_packed_unpack_all(p);
    assert_non_null(all);
    assert_memory_equal(all, r->health, r->nhealth * sizeof *all);
    assert_true(malloc_usable_size(p) < r->nhealth * sizeof *all * 3 / 4); /* 127-byte paths */
    /* made record by record, whole or as packed, out of order: the same
     * records, and their texts read in place */
    rb_pack_build_t b = {.kind = RB_PACK_HEALTH};
    for (uint32_t i = r->nhealth; i-- > 0;)
        if (i % 2)
            rb_pack_add(&b, &r->health[i]);
        else
            rb_pack_add_packed(&b, p, i);
    rb_packed_t *q = rb_pack_finish(&b);
    assert_non_null(q);
    assert_int_equal(q->n, r->nhealth);
    for (uint32_t i = 0; i < r->nhealth; i++) {
        rb_health_t one;
        uint32_t from = r->nhealth - 1 - i;
        assert_memory_equal(rb_packed_get(q, i, &one), &r->health[from], sizeof one);
        assert_string_equal(rb_packed_text(q, i, offsetof(rb_health_t, reason)),
                            r->health[from].reason);
        assert_string_equal(rb_packed_text(q, i, offsetof(rb_health_t, dev)), r->health[from].dev);
    }
    assert_null(rb_packed_text(q, 0, offsetof(rb_health_t, reason) + 1)); /* not a text's start */
    assert_null(rb_packed_text(q, q->n, offsetof(rb_health_t, dev)));
    rb_pack_add_packed(&b, q, 0);
    rb_pack_add(&b, &r->health[0]);
    rb_pack_add_packed(&b, q, q->n); /* no such record: the whole build fails */
    assert_null(rb_pack_finish(&b));
    assert_null(rb_pack_finish(&b)); /* none added */
    rb_packed_free(&q);
    /* checkpoints packed as deltas: any values back exactly (a time or a
     * count that went back, the ends of 64 bits), two lists one after the
     * other; a list cut short or longer than the room is refused */
    rb_checkpt_t cp[] = {{0, 0}, {UINT64_MAX, 5}, {3, UINT64_MAX}, {3, 0}, {1000000, 70000}},
                 back[5];
    uint8_t buf[2 * 5 * 2 * 10 + 8];
    size_t one = rb_pack_checkpts(cp, 5, NULL), len = rb_pack_checkpts(cp, 5, buf);
    assert_int_equal(len, one);
    len += rb_pack_checkpts(cp + 4, 1, buf + len);
    assert_true(rb_pack_checkpts(cp + 4, 1, NULL) <= 1 + 3 + 3 + 0); /* small values, small */
    const uint8_t *at = buf;
    size_t left = len;
    assert_int_equal(rb_unpack_checkpts(&at, &left, back, 5), 5);
    assert_memory_equal(back, cp, sizeof cp);
    assert_int_equal(rb_unpack_checkpts(&at, &left, back, 5), 1);
    assert_memory_equal(back, cp + 4, sizeof *cp);
    assert_int_equal(left, 0);
    at = buf;
    left = one - 1;
    assert_int_equal(rb_unpack_checkpts(&at, &left, back, 5), -1);
    at = buf;
    left = one;
    assert_int_equal(rb_unpack_checkpts(&at, &left, back, 4), -1);
    free(all);
    rb_packed_free(&p);
    rb_packed_free(&p);
    assert_null(rb_packed_unpack_all(NULL));
    rb_msg_fini(&m);
}

static void test_done_sparse_hist(void **state)
{
    (void)state;
    rb_msg_t in, out;
    rb_err_t err;
    size_t len, used = 0;
    build(RB_MSG_DONE, true, &in);
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
        used += in.u.done.jobs[0].hist->b[i] != 0;
    assert_true(used >= 500);
    void *buf = encode(&in, &len);
    /* Sparse: far smaller than the dense bucket array. */
    assert_true(len < 2 * sizeof(rb_hist_t) + RB_MAX_CHECKPTS * 20);
    assert_int_equal(decode(buf, len, &out, &err), 0);
    cmp_msg(&in, &out);
    paths_t *ps = frame_paths(buf, len, true);
    bool seen = false;
    for (int i = 0; i < ps->n; i++)
        seen |= strcmp(ps->p[i], "jobs[1].hist.b") == 0;
    assert_true(seen);
    free(ps);
    free(buf);
    rb_msg_fini(&in);
    rb_msg_fini(&out);
}

/* Histograms are kept for the next message and cleared where their
 * decoding wrote: one decoded after another of other buckets holds its own
 * only, also when the one before was added to after its decoding (its
 * counts then say it was: it is cleared whole). */
static void test_hist_reuse(void **state)
{
    (void)state;
    rb_msg_t hi, lo, out;
    rb_err_t err;
    size_t hlen, llen;
    build(RB_MSG_SAMPLE, false, &hi);
    build(RB_MSG_SAMPLE, false, &lo);
    rb_hist_t *h = hi.u.sample.jobs[0].hist, *l = lo.u.sample.jobs[0].hist;
    rb_hist_init(h);
    rb_hist_init(l);
    for (uint64_t v = 1; v <= 300; v++) {
        rb_hist_record(h, v * 7919 * 1000); /* 8 µs .. 2.4 s */
        rb_hist_record(l, v);               /* 1 .. 300 ns */
    }
    void *hbuf = encode(&hi, &hlen), *lbuf = encode(&lo, &llen);
    for (int round = 0; round < 8; round++) {
        assert_int_equal(decode(hbuf, hlen, &out, &err), 0);
        cmp_msg(&hi, &out);
        if (round % 2) /* a value recorded far from its buckets */
            rb_hist_record(out.u.sample.jobs[0].hist, 3);
        rb_msg_fini(&out);
        assert_int_equal(decode(lbuf, llen, &out, &err), 0);
        cmp_msg(&lo, &out); /* every bucket: none of the one before */
        if (round % 2)
            rb_hist_record(out.u.sample.jobs[0].hist, 5000000000ull);
        rb_msg_fini(&out);
    }
    free(hbuf);
    free(lbuf);
    rb_msg_fini(&hi);
    rb_msg_fini(&lo);
}

/* A NULL histogram on the sending side arrives as an empty one. */
static void test_null_hist(void **state)
{
    (void)state;
    rb_msg_t in, out;
    rb_err_t err;
    size_t len;
    build(RB_MSG_SAMPLE, false, &in);
    free(in.u.sample.jobs[0].hist);
    in.u.sample.jobs[0].hist = NULL;
    void *buf = encode(&in, &len);
    assert_int_equal(decode(buf, len, &out, &err), 0);
    assert_non_null(out.u.sample.jobs[0].hist);
    assert_int_equal(out.u.sample.jobs[0].hist->count, 0);
    assert_true(out.u.sample.jobs[0].hist->min == UINT64_MAX);
    free(buf);
    rb_msg_fini(&in);
    rb_msg_fini(&out);
}

static void test_fini_twice(void **state)
{
    (void)state;
    rb_msg_t m;
    rb_err_t err;
    size_t len;
    memset(&m, 0, sizeof m);
    rb_msg_fini(&m);
    rb_msg_fini(NULL);
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
        void *buf = encode_built((rb_msg_type_t)t, true, &len);
        memset(&m, 0, sizeof m); /* decoding touches only its type's member */
        rb_err_clear(&err);
        assert_int_equal(rb_msg_decode(buf, len, &m, &err), 0);
        assert_int_equal(m.type, t);
        rb_msg_fini(&m);
        assert_true(is_zero(&m, sizeof m));
        rb_msg_fini(&m);
        assert_true(is_zero(&m, sizeof m));
        free(buf);
    }
    rb_msg_t p;
    build(RB_MSG_PLAN, false, &p);
    rb_phase_specs_free(&p.u.plan.phases, p.u.plan.nphases);
    assert_null(p.u.plan.phases);
    rb_phase_specs_free(&p.u.plan.phases, p.u.plan.nphases);
    rb_phase_specs_free(NULL, 3);
}

static void test_version(void **state)
{
    (void)state;
    char needle[200];
    size_t len;
    assert_int_equal(RB_PROTO_VERSION, 30);
    assert_int_equal(RB_PROTO_OLDEST, 23);
    assert_int_equal(rb_proto_speak(), RB_PROTO_VERSION);
    /* Below and above the window: refused with both versions and this build. */
    const int64_t outside[] = {1, RB_PROTO_OLDEST - 1, RB_PROTO_VERSION + 1};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        void *buf =
            hand_frame(outside[i], "PING", &len, 2, "seq", (uint64_t)1, "t_coord_ns", (uint64_t)2);
        snprintf(needle, sizeof needle,
                 "PING: protocol version %d from peer, this build (%s) speaks %d .. %d",
                 (int)outside[i], rb_build_id(), RB_PROTO_OLDEST, RB_PROTO_VERSION);
        expect_bad(buf, len, -EPROTO, needle);
        free(buf);
    }
    /* A newer peer may send types we do not know: the version is what matters. */
    void *buf = hand_frame(RB_PROTO_VERSION + 1, "REBALANCE", &len, 0);
    snprintf(needle, sizeof needle, "protocol version %d from peer", RB_PROTO_VERSION + 1);
    expect_bad(buf, len, -EPROTO, needle);
    free(buf);
    /* ... and says its build, when its frame has one (a HELLO of 24 on) */
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    msgpack_pack_str_with_body(&pk, "v", 1);
    msgpack_pack_uint64(&pk, RB_PROTO_VERSION + 1);
    msgpack_pack_str_with_body(&pk, "t", 1);
    msgpack_pack_str_with_body(&pk, "HELLO", 5);
    msgpack_pack_str_with_body(&pk, "build", 5);
    msgpack_pack_str_with_body(&pk, "9.9.9-1-gabc", 12);
    snprintf(needle, sizeof needle, "protocol version %d from peer (build 9.9.9-1-gabc)",
             RB_PROTO_VERSION + 1);
    expect_bad(sb.data, sb.size, -EPROTO, needle);
    msgpack_sbuffer_destroy(&sb);
    /* Every version of the window reads ... */
    for (int64_t v = RB_PROTO_OLDEST; v <= RB_PROTO_VERSION; v++) {
        buf = hand_frame(v, "PING", &len, 2, "seq", (uint64_t)1, "t_coord_ns", (uint64_t)2);
        rb_msg_t m;
        rb_err_t err;
        assert_int_equal(decode(buf, len, &m, &err), 0);
        assert_int_equal(m.version, v);
        rb_msg_fini(&m);
        free(buf);
    }
    /* ... but what a process told to speak an older one does not speak. */
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_proto_set_speak(RB_PROTO_OLDEST, &err), 0);
    buf = hand_frame(RB_PROTO_VERSION, "PING", &len, 2, "seq", (uint64_t)1, "t_coord_ns",
                     (uint64_t)2);
    snprintf(needle, sizeof needle, "protocol version %d from peer, this build (%s) speaks %d",
             RB_PROTO_VERSION, rb_build_id(), RB_PROTO_OLDEST);
    expect_bad(buf, len, -EPROTO, needle);
    free(buf);
    assert_int_equal(rb_proto_set_speak(RB_PROTO_VERSION, &err), 0);
    assert_int_equal(rb_proto_set_speak(RB_PROTO_OLDEST - 1, &err), -EINVAL);
    snprintf(needle, sizeof needle, "this build speaks %d .. %d", RB_PROTO_OLDEST,
             RB_PROTO_VERSION);
    assert_non_null(strstr(err.msg, needle));
    rb_err_clear(&err);
    assert_int_equal(rb_proto_set_speak(RB_PROTO_VERSION + 1, &err), -EINVAL);
    assert_int_equal(rb_proto_speak(), RB_PROTO_VERSION);
    buf = hand_frame(0, "PING", &len, 2, "seq", (uint64_t)1, "t_coord_ns", (uint64_t)2);
    expect_bad(buf, len, -EBADMSG, "'v'");
    free(buf);
    buf = hand_frame(-1, "PING", &len, 2, "seq", (uint64_t)1, "t_coord_ns", (uint64_t)2);
    expect_bad(buf, len, -EBADMSG, "'v'");
    free(buf);
    int variant = 0;
    edit_t ed = {"v", put_wrong_type, &variant};
    expect_edit(RB_MSG_PING, false, &ed, -EBADMSG, "'v'");
    variant = 1;
    expect_edit(RB_MSG_PING, false, &ed, -EBADMSG, "'v'");
}

/* Each protocol version's schema, pinned: a change of the field or message
 * tables (a key, kind, bound, rule or default) without a new version fails
 * here, and two branches that each take the next version collide on its
 * line. A new version adds its line; the lines of older ones never change
 * while they are in the window. */
static void test_fingerprints(void **state)
{
    (void)state;
    static const struct {
        uint32_t version;
        uint64_t fingerprint;
    } pinned[] = {
        {23, 0x06f3309a2388c040ull}, {24, 0xecc7c802ac583e63ull}, {25, 0xc89f91245b3f0eb0ull},
        {26, 0x94f53bb21b1c428bull}, {27, 0x94ce676ca15d5a6bull}, {28, 0x86e4ad474c1bba81ull},
        {29, 0x7086ec3a8222676bull}, {30, 0x23dc2f50cd566193ull},
    };
    assert_int_equal(sizeof pinned / sizeof pinned[0], RB_PROTO_VERSION - RB_PROTO_OLDEST + 1);
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
        uint64_t fp = rb_proto_fingerprint(pinned[i].version);
        if (fp != pinned[i].fingerprint)
            fail_msg("protocol %u's schema is %#018llx, pinned %#018llx: a change of the wire "
                     "tables takes a new RB_PROTO_VERSION and its own line here",
                     pinned[i].version, (unsigned long long)fp,
                     (unsigned long long)pinned[i].fingerprint);
    }
    assert_true(rb_proto_fingerprint(23) != rb_proto_fingerprint(24));
    assert_true(rb_proto_fingerprint(24) != rb_proto_fingerprint(25));
    assert_true(rb_proto_fingerprint(25) != rb_proto_fingerprint(26));
    assert_true(rb_proto_fingerprint(26) != rb_proto_fingerprint(27));
    assert_true(rb_proto_fingerprint(27) != rb_proto_fingerprint(28));
    assert_true(rb_proto_fingerprint(28) != rb_proto_fingerprint(29));
    assert_true(rb_proto_fingerprint(29) != rb_proto_fingerprint(30));
    /* a key of a version this build does not say yet would travel in none */
    if (rb_proto_newest_since() > RB_PROTO_VERSION)
        fail_msg("a key arrives in protocol %u, and RB_PROTO_VERSION is %d",
                 rb_proto_newest_since(), RB_PROTO_VERSION);
}

/* The frozen frames of every version of the window (tests/unit/frames/vN,
 * written once by the build that introduced N: `proto-corpus --frozen`):
 * each decodes as that version, and this build writes it back in that
 * version byte for byte, as that build did. */
static void test_frozen_frames(void **state)
{
    (void)state;
    static const char *const types[] = {"HELLO", "PLAN", "DONE"};
    for (uint32_t v = RB_PROTO_OLDEST; v <= RB_PROTO_VERSION; v++) {
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/v%u/%s.msgpack", RB_TEST_FRAMES, v, types[t]);
            FILE *f = fopen(path, "rb");
            if (!f)
                fail_msg("%s: %s (every version of the window keeps its frames)", path,
                         strerror(errno));
            static char frame[1 << 20];
            size_t len = fread(frame, 1, sizeof frame, f);
            fclose(f);
            rb_msg_t m;
            rb_err_t err;
            if (decode(frame, len, &m, &err) != 0)
                fail_msg("%s: %s", path, err.msg);
            assert_int_equal(m.version, v);
            assert_string_equal(rb_msg_type_name(m.type), types[t]);
            void *buf;
            size_t blen;
            rb_err_clear(&err);
            assert_int_equal(rb_msg_encode_v(&m, v, &buf, &blen, &err), 0);
            if (blen != len || memcmp(buf, frame, len) != 0)
                fail_msg("%s: written back in protocol %u, %zu bytes differ from the frozen %zu",
                         path, v, blen, len);
            free(buf);
            rb_msg_fini(&m);
        }
    }
}

/* A key newer than the version written is left out, and reads as its
 * default; one that holds something cannot be said in that version. */
static void test_version_fields(void **state)
{
    (void)state;
    rb_msg_t m, d;
    rb_err_t err;
    void *buf;
    size_t len;
    build(RB_MSG_HELLO, false, &m);
    snprintf(m.u.hello.build, sizeof m.u.hello.build, "0.1.0-1-gabc");
    m.u.hello.fingerprint = rb_proto_fingerprint(24);
    rb_err_clear(&err);
    assert_int_equal(rb_msg_encode_v(&m, 23, &buf, &len, &err), 0);
    assert_int_equal(decode(buf, len, &d, &err), 0);
    assert_int_equal(d.version, 23);
    assert_string_equal(d.u.hello.build, ""); /* only informs: left out */
    assert_int_equal(d.u.hello.fingerprint, 0);
    assert_string_equal(d.u.hello.name, m.u.hello.name);
    rb_msg_fini(&d);
    free(buf);
    assert_int_equal(rb_msg_encode_v(&m, 22, &buf, &len, &err), -EINVAL);
    rb_msg_fini(&m);
    /* A PLAN with the network phases' secret cannot be said in 27, named. */
    build(RB_MSG_PLAN, false, &m);
    rb_err_clear(&err);
    assert_int_equal(rb_msg_encode_v(&m, 27, &buf, &len, &err), -EPROTONOSUPPORT);
    assert_non_null(strstr(err.msg, "net_secret"));
    assert_non_null(strstr(err.msg, "(it arrived in 28)"));
    /* A job that sets a field newer than 23 cannot be said in 23: the first
     * such field is named (the fields of 28 left at their defaults). */
    m.u.plan.net_secret_len = 0;
    for (uint32_t p = 0; p < m.u.plan.nphases; p++)
        for (uint32_t j = 0; j < m.u.plan.phases[p].njobs; j++) {
            rb_job_spec_t *jb = &m.u.plan.phases[p].jobs[j];
            jb->network = RB_NET_NONE;
            jb->net_target[0] = '\0';
            jb->pingpong = 0;
        }
    const char *first = NULL;
    for (uint32_t p = 0; p < m.u.plan.nphases && !first; p++)
        for (uint32_t j = 0; j < m.u.plan.phases[p].njobs && !first; j++) {
            rb_proto_newer_t nf[4];
            if (rb_proto_job_newer(&m.u.plan.phases[p].jobs[j], 23, nf, 4) > 0) {
                assert_int_equal(nf[0].since, 24);
                first = nf[0].key;
            }
        }
    assert_non_null(first); /* the test's PLAN sets a field of 24 */
    rb_err_clear(&err);
    assert_int_equal(rb_msg_encode_v(&m, 23, &buf, &len, &err), -EPROTONOSUPPORT);
    assert_non_null(strstr(err.msg, first));
    assert_non_null(strstr(err.msg, "set, and protocol 23 has no such key (it arrived in 24)"));
    rb_err_clear(&err);
    assert_int_equal(rb_msg_encode_v(&m, 24, &buf, &len, &err), 0);
    free(buf);
    rb_msg_fini(&m);
}

static void test_unknown_type(void **state)
{
    (void)state;
    size_t len;
    void *buf = hand_frame(RB_PROTO_VERSION, "NOPE", &len, 1, "seq", (uint64_t)1);
    expect_bad(buf, len, -EBADMSG, "unknown type 'NOPE'");
    assert_int_equal(rb_msg_peek_type(buf, len), RB_MSG_NONE);
    free(buf);
    buf = hand_frame(RB_PROTO_VERSION + 1, "DONE", &len, 1, "seq", (uint64_t)1);
    assert_int_equal(rb_msg_peek_type(buf, len), RB_MSG_NONE); /* a version out of the window */
    free(buf);
    buf = hand_frame(RB_PROTO_VERSION, "", &len, 0);
    expect_bad(buf, len, -EBADMSG, "unknown type ''");
    free(buf);
    buf = hand_frame(RB_PROTO_VERSION, "ping", &len, 2, "seq", (uint64_t)1, "t_coord_ns",
                     (uint64_t)2);
    expect_bad(buf, len, -EBADMSG, "unknown type 'ping'");
    free(buf);
    buf = hand_frame(RB_PROTO_VERSION, "PINGX", &len, 2, "seq", (uint64_t)1, "t_coord_ns",
                     (uint64_t)2);
    expect_bad(buf, len, -EBADMSG, "unknown type 'PINGX'");
    free(buf);
    buf =
        hand_frame(RB_PROTO_VERSION, "PIN", &len, 2, "seq", (uint64_t)1, "t_coord_ns", (uint64_t)2);
    expect_bad(buf, len, -EBADMSG, "unknown type 'PIN'");
    free(buf);
}

static void test_not_a_map(void **state)
{
    (void)state;
    const uint8_t array[] = {0x92, 0x01, 0x02};
    const uint8_t integer[] = {0x05};
    const uint8_t str[] = {0xa1, 'v'};
    const uint8_t empty_map[] = {0x80};
    expect_bad(array, sizeof array, -EBADMSG, "expected a map");
    expect_bad(integer, sizeof integer, -EBADMSG, "expected a map");
    expect_bad(str, sizeof str, -EBADMSG, "expected a map");
    expect_bad(empty_map, sizeof empty_map, -EBADMSG, "field 'v': missing");
    expect_bad(array, 0, -EBADMSG, "empty");
    expect_bad(NULL, 0, -EBADMSG, "empty");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    size_t len;
    void *buf = hand_frame(RB_PROTO_VERSION, "PING", &len, 3, "seq", (uint64_t)1, "t_coord_ns",
                           (uint64_t)2, "seq", (uint64_t)1);
    expect_bad(buf, len, -EBADMSG, "PING: field 'seq': given 2 times");
    free(buf);
}

/* A key this build does not know in that version is refused by name, in
 * every map: a receiver never ignores what it was asked to do. */
static void test_unknown_keys_refused(void **state)
{
    (void)state;
    static const char *const where[] = {"", "phases[1]", "phases[0].jobs[1]"};
    static const char *const named[] = {"PLAN: field 'future_field'",
                                        "PLAN: field 'phases[1].future_field'",
                                        "PLAN: field 'phases[0].jobs[1].future_field'"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        edit_t ed = {where[i], put_extra_key, NULL};
        expect_edit(RB_MSG_PLAN, false, &ed, -EBADMSG, named[i]);
        char needle[64];
        snprintf(needle, sizeof needle, "unknown key in protocol %d", RB_PROTO_VERSION);
        expect_edit(RB_MSG_PLAN, false, &ed, -EBADMSG, needle);
    }
    edit_t ed = {"jobs[0].hist", put_extra_key, NULL};
    expect_edit(RB_MSG_DONE, false, &ed, -EBADMSG, "DONE: field 'jobs[0].hist.future_field'");
    ed.path = "workers[1]";
    expect_edit(RB_MSG_DONE, false, &ed, -EBADMSG, "workers[1].future_field");
}

/* Every key of every map of every message type is required. */
static void test_missing_each_key(void **state)
{
    (void)state;
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
        size_t len;
        void *buf = encode_built((rb_msg_type_t)t, false, &len);
        paths_t *ps = frame_paths(buf, len, true);
        assert_true(ps->n >= 3);
        for (int i = 0; i < ps->n; i++) {
            char needle[160];
            edit_t ed = {ps->p[i], NULL, NULL};
            size_t elen;
            void *ebuf = edit_frame(buf, len, &ed, &elen);
            if (strcmp(ps->p[i], "t") == 0)
                snprintf(needle, sizeof needle, "field 't': missing");
            else if (strcmp(ps->p[i], "v") == 0)
                snprintf(needle, sizeof needle, "field 'v': missing");
            else
                snprintf(needle, sizeof needle, "%s: field '%s': missing",
                         rb_msg_type_name((rb_msg_type_t)t), ps->p[i]);
            expect_bad(ebuf, elen, -EBADMSG, needle);
            free(ebuf);
        }
        free(ps);
        free(buf);
    }
}

/* Every value of every message type, replaced by a value of another type. */
static void test_wrong_type_each_key(void **state)
{
    (void)state;
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
        size_t len;
        void *buf = encode_built((rb_msg_type_t)t, false, &len);
        paths_t *ps = frame_paths(buf, len, true);
        for (int i = 0; i < ps->n; i++) {
            for (int variant = 0; variant < 2; variant++) {
                char needle[160];
                edit_t ed = {ps->p[i], put_wrong_type, &variant};
                snprintf(needle, sizeof needle, "field '%s': expected", ps->p[i]);
                expect_edit((rb_msg_type_t)t, false, &ed, -EBADMSG, needle);
            }
        }
        free(ps);
        free(buf);
    }
}

/* Every unsigned integer, map value or array element, made negative. */
static void test_negative_each_uint(void **state)
{
    (void)state;
    const int64_t minus_one = -1;
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
        size_t len;
        void *buf = encode_built((rb_msg_type_t)t, false, &len);
        paths_t *ps = frame_paths(buf, len, false);
        for (int i = 0; i < ps->n; i++) {
            edit_t ed = {ps->p[i], put_int, &minus_one};
            int code = is_signed_key(ps->p[i]) ? 0 : -EBADMSG;
            char needle[160];
            bool in_pair = strstr(ps->p[i], "checkpts[") && ps->p[i][strlen(ps->p[i]) - 1] == ']';
            snprintf(needle, sizeof needle, "field '%s': expected", ps->p[i]);
            expect_edit((rb_msg_type_t)t, false, &ed, code,
                        code && !in_pair && strcmp(ps->p[i], "v") ? needle : NULL);
        }
        free(ps);
        free(buf);
    }
}

static void test_out_of_range(void **state)
{
    (void)state;
    const uint64_t u32_over = (uint64_t)UINT32_MAX + 1, phases = RB_MAX_PHASES, jobs = RB_MAX_JOBS,
                   workers = RB_MAX_WORKERS, numjobs = RB_MAX_WORKERS + 1, u32_max = UINT32_MAX,
                   one = 1, i64_over = (uint64_t)INT64_MAX + 1, fill = RB_MAX_WORKERS - 3,
                   overfill = RB_MAX_WORKERS - 2, rank_over = 16000, zero = 0;
    const int64_t i32_under = (int64_t)INT32_MIN - 1, i32_min = INT32_MIN;
    struct {
        rb_msg_type_t t;
        edit_t ed;
        int code;
        const char *needle;
    } cases[] = {
        {RB_MSG_PING, {"seq", put_uint, &u32_over}, -EBADMSG, "PING: field 'seq': 4294967296"},
        {RB_MSG_PING, {"seq", put_uint, &u32_max}, 0, NULL},
        {RB_MSG_PLAN,
         {"node_rank", put_uint, &rank_over},
         -EBADMSG,
         "PLAN: field 'node_rank': 16000, not below nnodes 16000"},
        {RB_MSG_PLAN, {"nnodes", put_uint, &zero}, -EBADMSG, "'nnodes': 0 out of range"},
        {RB_MSG_HELLO, {"pid", put_uint, &u32_over}, -EBADMSG, "'pid'"},
        {RB_MSG_GO, {"phase", put_uint, &phases}, -EBADMSG, "GO: field 'phase': 256 out of range"},
        {RB_MSG_GO, {"offset_ns", put_uint, &i64_over}, -EBADMSG, "'offset_ns'"},
        {RB_MSG_SAMPLE, {"phase", put_uint, &phases}, -EBADMSG, "'phase'"},
        {RB_MSG_SAMPLE, {"jobs[0].job", put_uint, &jobs}, -EBADMSG, "'jobs[0].job'"},
        {RB_MSG_DONE, {"workers[1].worker", put_uint, &workers}, -EBADMSG, "'workers[1].worker'"},
        {RB_MSG_DONE, {"workers[1].job", put_uint, &jobs}, -EBADMSG, "'workers[1].job'"},
        {RB_MSG_DONE, {"status", put_uint, &one}, -EBADMSG, "DONE: field 'status'"},
        {RB_MSG_END, {"status", put_uint, &one}, -EBADMSG, "END: field 'status'"},
        {RB_MSG_REFUSED, {"code", put_int, &i32_under}, -EBADMSG, "REFUSED: field 'code'"},
        {RB_MSG_ABORT, {"code", put_int, &i32_min}, 0, NULL},
        {RB_MSG_PLAN,
         {"phases[1].jobs[0].numjobs", put_uint, &numjobs},
         -EBADMSG,
         "PLAN: field 'phases[1].jobs[0].numjobs': 4097 out of range (max 4096)"},
        /* phase 1's other job has numjobs 3: the phase's workers must stay within 4096 */
        {RB_MSG_PLAN, {"phases[1].jobs[0].numjobs", put_uint, &fill}, 0, NULL},
        {RB_MSG_PLAN,
         {"phases[1].jobs[0].numjobs", put_uint, &overfill},
         -EBADMSG,
         "PLAN: field 'phases[1].jobs': numjobs add up to 4097 workers, more than 4096"},
        {RB_MSG_PLAN,
         {"phases[1].jobs[1].rw", put_str, "filecreate"},
         -EBADMSG,
         "'phases[1].jobs[1].rw': unknown access pattern 'filecreate' (one of \"read\", "
         "\"write\", \"randread\", \"randwrite\", \"rw\", \"randrw\", \"rewrite\", \"reread\", "
         "\"meta\", \"trim\", \"randtrim\", \"trimwrite\", \"randtrimwrite\")"},
        {RB_MSG_PLAN,
         {"phases[1].jobs[1].rw", put_str, "a-very-long-pattern-name"},
         -EBADMSG,
         "'phases[1].jobs[1].rw'"},
        {RB_MSG_PLAN,
         {"phases[0].jobs[0].direct", put_uint, &one},
         -EBADMSG,
         "'phases[0].jobs[0].direct': expected boolean"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(cases[i].t, false, &cases[i].ed, cases[i].code, cases[i].needle);
}

static void test_oversized_string(void **state)
{
    (void)state;
    const size_t name_ok = RB_NAME_MAX - 1, name_over = RB_NAME_MAX, path_over = RB_PATH_MAX,
                 reason_ok = RB_REASON_MAX - 1, reason_over = RB_REASON_MAX + 500;
    struct {
        rb_msg_type_t t;
        edit_t ed;
        int code;
        const char *needle;
    } cases[] = {
        {RB_MSG_HELLO,
         {"name", put_str_len, &name_over},
         -EBADMSG,
         "HELLO: field 'name': string of 64 bytes, longer than its bound of 63"},
        {RB_MSG_HELLO, {"name", put_str_len, &name_ok}, 0, NULL},
        {RB_MSG_HELLO,
         {"roots[1].path", put_str_len, &path_over},
         -EBADMSG,
         "'roots[1].path': string of 1024 bytes, longer than its bound of 1023"},
        {RB_MSG_DONE, {"error", put_str_len, &reason_over}, -EBADMSG, "'error'"},
        {RB_MSG_ERROR, {"reason", put_str_len, &reason_ok}, 0, NULL},
        {RB_MSG_ERROR, {"reason", put_str_len, &reason_over}, -EBADMSG, "1023"},
        {RB_MSG_PLAN,
         {"phases[1].jobs[1].directory", put_str_len, &path_over},
         -EBADMSG,
         "'phases[1].jobs[1].directory'"},
        {RB_MSG_PLAN, {"run_id", put_str_len, &name_over}, -EBADMSG, "'run_id'"},
        {RB_MSG_PLAN,
         {"phases[0].jobs[1].filename_format", put_str_len, &name_over},
         -EBADMSG,
         "'phases[0].jobs[1].filename_format'"},
        {RB_MSG_READY,
         {"run_id", put_nul_str, NULL},
         -EBADMSG,
         "READY: field 'run_id': string "
         "contains a NUL byte"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(cases[i].t, false, &cases[i].ed, cases[i].code, cases[i].needle);
}

static void test_oversized_array(void **state)
{
    (void)state;
    const size_t phases = RB_MAX_PHASES, phases_over = RB_MAX_PHASES + 1,
                 jobs_over = RB_MAX_JOBS + 1, roots_over = RB_MAX_ROOTS + 1,
                 workers_over = RB_MAX_WORKERS + 1, checkpts_over = RB_MAX_CHECKPTS + 1;
    struct {
        rb_msg_type_t t;
        edit_t ed;
        int code;
        const char *needle;
    } cases[] = {
        {RB_MSG_PLAN, {"phases", put_repeat, &phases}, 0, NULL},
        {RB_MSG_PLAN,
         {"phases", put_repeat, &phases_over},
         -EBADMSG,
         "PLAN: field 'phases': 257 entries, more than the bound of 256"},
        {RB_MSG_PLAN, {"phases[1].jobs", put_repeat, &jobs_over}, -EBADMSG, "'phases[1].jobs'"},
        {RB_MSG_HELLO, {"roots", put_repeat, &roots_over}, -EBADMSG, "'roots': 65 entries"},
        {RB_MSG_SAMPLE, {"jobs", put_repeat, &jobs_over}, -EBADMSG, "'jobs': 257 entries"},
        {RB_MSG_DONE, {"workers", put_repeat, &workers_over}, -EBADMSG, "'workers': 4097"},
        {RB_MSG_DONE,
         {"workers[0].checkpts", put_repeat, &checkpts_over},
         -EBADMSG,
         "'workers[0].checkpts': 1025 entries"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(cases[i].t, false, &cases[i].ed, cases[i].code, cases[i].needle);
}

static void test_bad_hist(void **state)
{
    (void)state;
    /* The small SAMPLE's first histogram: buckets 500 and 1500, count 2000. */
    rb_msg_t m;
    build(RB_MSG_SAMPLE, false, &m);
    const rb_hist_t *h = m.u.sample.jobs[0].hist;
    const uint64_t count_plus = h->count + 1, big_min = h->max + 1;
    const ints_t out_of_range = {2, {RB_HIST_NBUCKETS, (int64_t)h->count}};
    const ints_t last_ok = {2, {RB_HIST_NBUCKETS - 1, (int64_t)h->count}};
    const ints_t repeated = {4, {5, 1, 5, (int64_t)h->count - 1}};
    const ints_t decreasing = {4, {7, 1, 3, (int64_t)h->count - 1}};
    const ints_t zero = {4, {3, 0, 7, (int64_t)h->count}};
    const ints_t odd = {3, {3, (int64_t)h->count, 9}};
    const ints_t short_sum = {2, {3, (int64_t)h->count - 1}};
    rb_msg_fini(&m);
    struct {
        edit_t ed;
        int code;
        const char *needle;
    } cases[] = {
        {{"jobs[0].hist.b", put_ints, &last_ok}, 0, NULL},
        {{"jobs[0].hist.b", put_ints, &out_of_range},
         -EBADMSG,
         "SAMPLE: field 'jobs[0].hist.b[0]': 2496 out of range (max 2495)"},
        {{"jobs[0].hist.b", put_ints, &repeated},
         -EBADMSG,
         "'jobs[0].hist.b[2]': bucket index 5 not above the previous 5"},
        {{"jobs[0].hist.b", put_ints, &decreasing},
         -EBADMSG,
         "'jobs[0].hist.b[2]': bucket index 3 not above the previous 7"},
        {{"jobs[0].hist.b", put_ints, &zero}, -EBADMSG, "'jobs[0].hist.b[1]': empty bucket"},
        {{"jobs[0].hist.b", put_ints, &odd}, -EBADMSG, "'jobs[0].hist.b': odd length"},
        {{"jobs[0].hist.b", put_ints, &short_sum},
         -EBADMSG,
         "'jobs[0].hist.count': 2"}, /* count n, but the buckets sum to n-1 */
        {{"jobs[0].hist.count", put_uint, &count_plus}, -EBADMSG, "the buckets sum to"},
        {{"jobs[0].hist.min", put_uint, &big_min}, 0, NULL}, /* tolerated, see rb_proto.c */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(RB_MSG_SAMPLE, false, &cases[i].ed, cases[i].code, cases[i].needle);

    /* Bucket counts whose sum overflows 64 bits cannot match any count. */
    const ints_t overflow = {4, {1, INT64_MAX, 2, INT64_MAX}};
    const ints_t b_over = {6, {1, INT64_MAX, 2, INT64_MAX, 3, 2}};
    edit_t ed = {"jobs[0].hist.b", put_ints, &overflow};
    expect_edit(RB_MSG_SAMPLE, false, &ed, -EBADMSG, "'jobs[0].hist.count'");
    ed.arg = &b_over;
    expect_edit(RB_MSG_SAMPLE, false, &ed, -EBADMSG, "more than");
}

static void test_checkpts(void **state)
{
    (void)state;
    const ints_t decreasing = {4, {100, 1, 99, 2}};
    const ints_t equal = {4, {100, 1, 100, 2}};
    const ints_t triple = {3, {1, 2, 3}};
    edit_t ed = {"workers[1].checkpts", put_pairs, &decreasing};
    expect_edit(RB_MSG_DONE, false, &ed, -EBADMSG,
                "DONE: field 'workers[1].checkpts[1].t_ns': 99 before the previous");
    ed.arg = &equal;
    expect_edit(RB_MSG_DONE, false, &ed, 0, NULL);
    ed.path = "workers[1].checkpts[0]";
    ed.fn = put_ints;
    ed.arg = &triple;
    expect_edit(RB_MSG_DONE, false, &ed, -EBADMSG, "'workers[1].checkpts[0]': expected [t_ns");
}

/* Job j of phase i at its longest encoding: every string at its bound, every
 * integer and enum name at its widest, the largest pattern. A data job is the
 * longest: "randwrite" and meta_op "none" outweigh "meta" and "rename", and
 * the meta fields may be at their widest whatever rw is. */
static void fill_job_max(rb_job_spec_t *jb, uint32_t i, uint32_t j)
{
    memset(jb->name, 'n', RB_NAME_MAX - 1);
    snprintf(jb->name, 12, "j%u_%u", i, j); /* kept distinct, still 63 bytes */
    jb->name[strlen(jb->name)] = 'n';
    jb->rw = RB_RW_RANDWRITE;
    jb->bs = jb->bs_max = UINT64_MAX;
    jb->bs_read = jb->bs_read_max = jb->bs_write = jb->bs_write_max = UINT64_MAX;
    jb->bs_trim = jb->bs_trim_max = UINT64_MAX;
    jb->nbssplit_read = jb->nbssplit_write = RB_BSSPLIT_MAX;
    for (uint32_t k = 0; k < RB_BSSPLIT_MAX; k++)
        jb->bssplit_read[k] = jb->bssplit_write[k] =
            (rb_bs_part_t){UINT64_MAX, k ? 1 : 100 - (RB_BSSPLIT_MAX - 1)};
    jb->size = UINT64_MAX;
    jb->numjobs = RB_MAX_WORKERS / RB_MAX_JOBS;
    jb->runtime_ns = UINT64_MAX;
    memset(jb->directory, 'd', RB_PATH_MAX - 1);
    memset(jb->filename_format, 'F', RB_NAME_MAX - 1);
    memset(jb->filename, 'f', RB_NAME_MAX - 1);
    memset(jb->device, 'v', RB_PATH_MAX - 1);
    memset(jb->ioengine, 'e', RB_ENGINE_NAME_MAX - 1);
    jb->iodepth = 65536;
    jb->rwmixread = 100;
    jb->nrfiles = 65536;
    jb->filesize = jb->offset = jb->ramp_ns = jb->randseed = jb->rate = UINT64_MAX;
    jb->number_ios = jb->io_size = jb->offset_increment = UINT64_MAX;
    jb->rate_write = jb->rate_iops = jb->rate_iops_write = jb->meta_readsize = UINT64_MAX;
    jb->thinktime_ns = jb->thinktime_spin_ns = UINT64_MAX;
    jb->thinktime_blocks = UINT32_MAX;
    jb->thinktime_issued = 1;
    jb->read_seed = UINT64_MAX;
    jb->read_reseed = 1;
    jb->read_iteration = UINT32_MAX;
    jb->size_pct = jb->offset_pct = 100;
    jb->invalidate = 1;
    jb->fadvise_hint = RB_FADVISE_RANDOM;
    jb->fallocate = RB_FALLOC_TRUNCATE;
    memset(jb->cpus, 0xff, sizeof jb->cpus);
    jb->cpus_len = RB_CPUS_BYTES;
    jb->cpus_split = 1;
    jb->rand_dist = RB_DIST_COUNT - 1;
    jb->rand_dist_ppm = RB_DIST_PPM_MAX;
    jb->nzones_read = jb->nzones_write = jb->nzones_trim = RB_ZONES_MAX;
    for (int z = 0; z < RB_ZONES_MAX; z++)
        jb->zones_read[z] = jb->zones_write[z] = jb->zones_trim[z] =
            (rb_zone_t){.size = UINT64_MAX, .access = 100};
    jb->seq_add = UINT64_MAX;
    jb->seq_back = jb->seq_identical = 1;
    jb->seq_nr = UINT32_MAX;
    jb->perc_seq_read = jb->perc_seq_write = jb->perc_seq_trim = 100;
    jb->ba_read = jb->ba_write = jb->ba_trim = UINT64_MAX;
    jb->zone_size = jb->zone_range = jb->zone_skip = UINT64_MAX;
    jb->startdelay_ns = jb->startdelay_max_ns = UINT64_MAX;
    jb->unlink = jb->unlink_each_loop = 1;
    jb->sync_mode = RB_SYNC_DSYNC;
    jb->fsync_every = jb->fdatasync_every = jb->loops = UINT32_MAX;
    jb->buffer_mode = RB_BUF_PATTERN;
    jb->pattern_len = RB_PATTERN_MAX;
    memset(jb->pattern, 0xa5, RB_PATTERN_MAX);
    jb->verify = RB_VERIFY_CRC32C;
    jb->meta_op = RB_META_NONE;
    jb->meta_files = jb->meta_filesize = UINT64_MAX;
    jb->meta_dirs = jb->meta_branch = 65536;
    jb->meta_depth = 16;
    jb->shared_file = jb->wearout = jb->drop_caches = 1;
    jb->layout = RB_LAYOUT_SEGMENTED; /* the longer name */
    jb->transfer = jb->stonewall_ns = UINT64_MAX;
    jb->read_shift = UINT32_MAX;
    jb->lustre_stripe_count = RB_LUSTRE_STRIPE_ALL;
    jb->lustre_stripe_size = UINT64_MAX & ~(uint64_t)0xffff; /* a multiple of 64 KiB */
    jb->ss_metric = RB_SS_IOPS_SLOPE;                        /* the longest name */
    jb->ss_pct = 1;
    jb->ss_limit = jb->ss_ramp_ns = UINT64_MAX;
    jb->ss_dur_ns = RB_SS_DUR_MAX_S * 1000000000ull;
    jb->compress_pct = jb->dedupe_pct = 100;
    jb->compress_chunk = UINT64_MAX;
    jb->scramble = 1;
    jb->dedupe_mode = RB_DEDUPE_WORKING_SET;
    jb->dedupe_ws_pct = 100;
    jb->dedupe_global = 1;
    jb->rate_min = jb->rate_min_write = UINT64_MAX;
    jb->rate_iops_min = jb->rate_iops_min_write = UINT64_MAX;
    jb->rate_cycle_ms = UINT32_MAX;
    jb->exitall = 1;
    jb->exit_what = RB_EXIT_ALL;
    jb->hipri = jb->sqpoll = jb->sqpoll_aff = 1;
    jb->sqpoll_cpu = RB_CPUS_MAX - 1;
    jb->verify_backlog = jb->verify_backlog_batch = UINT32_MAX;
    jb->flow = jb->flow_sleep_us = UINT32_MAX;
    jb->flow_id = INT32_MAX;
    memset(jb->wait_for, 'w', sizeof jb->wait_for - 1);
    jb->ioprio = RB_IOPRIO_MAX;
    jb->ncmdprio_read = jb->ncmdprio_write = RB_CMDPRIO_MAX;
    for (uint32_t k = 0; k < RB_CMDPRIO_MAX; k++)
        jb->cmdprio_read[k] = jb->cmdprio_write[k] = (rb_cmdprio_t){UINT64_MAX, 100, RB_IOPRIO_MAX};
    jb->continue_on_error = RB_ERR_CLASS_ALL;
    jb->ignore_error_len = sizeof jb->ignore_error; /* full lists, every errno 255 */
    memset(jb->ignore_error, 0xff, sizeof jb->ignore_error);
    memset(jb->ignore_error, RB_IGNORE_ERR_MAX, 3);
    jb->exitall_on_error = 1;
    jb->write_hint = RB_WRITE_HINT_EXTREME;
    jb->fill_device = 1;
    memset(jb->ioscheduler, 'k', sizeof jb->ioscheduler - 1);
    jb->lat_target_ns = jb->lat_window_ns = UINT64_MAX;
    jb->lat_pct = RB_LAT_PCT_MAX;
    jb->lat_run = 1;
    jb->existing = 1;
    jb->nice = -20; /* the widest a legal one encodes */
    jb->create_on_open = 1;
    jb->batch_submit = jb->batch_cmin = jb->batch_cmax = jb->depth_low = RB_IODEPTH_MAX;
    jb->zbd_zone = jb->zbd_cap = UINT64_MAX;
    jb->zbd_max_open = jb->zbd_job_max_open = RB_ZBD_MAX_OPEN;
    jb->zbd_beyond_wp = 1;
    jb->zbd_reset_thr = jb->zbd_reset_freq = 1000000;
    jb->openfiles = RB_NRFILES_MAX;
    jb->lockmem = UINT64_MAX;
    jb->fs_nr = RB_FS_SEQUENTIAL;
    jb->max_lat_read_ns = jb->max_lat_write_ns = jb->max_lat_trim_ns = UINT64_MAX;
    jb->sfr_every = UINT32_MAX;
    jb->sfr_flags = 7;
    jb->thinktime_iotime_ns = UINT64_MAX;
}

/* A PLAN of nphases phases of njobs jobs each, every job at its longest
 * encoding and every other array at its bound, encoded (into *out, with its
 * length) and decoded back, the last job compared with the first. */
static size_t s_max_plan(uint32_t nphases, uint32_t njobs)
{
    rb_msg_t m;
    rb_err_t err = {0};
    void *out = NULL;
    size_t olen = 0;
    build(RB_MSG_PLAN, false, &m);
    rb_phase_specs_free(&m.u.plan.phases, m.u.plan.nphases);
    memset(m.u.plan.run_id, 'r', RB_NAME_MAX - 1);
    m.u.plan.interval_ns = UINT64_MAX;
    m.u.plan.node_rank = UINT32_MAX - 1;
    m.u.plan.nnodes = UINT32_MAX;
    memset(m.u.plan.lead, 'l', RB_NAME_MAX - 1);
    m.u.plan.npeers = RB_MAX_PEERS;
    for (uint32_t k = 0; k < RB_MAX_PEERS; k++) {
        m.u.plan.peers[k].shift = UINT32_MAX - k;
        memset(m.u.plan.peers[k].name, 'q', RB_NAME_MAX - 1);
    }
    m.u.plan.nphases = nphases;
    m.u.plan.phases = calloc(nphases, sizeof *m.u.plan.phases);
    assert_non_null(m.u.plan.phases);
    for (uint32_t i = 0; i < nphases; i++) {
        rb_phase_spec_t *p = &m.u.plan.phases[i];
        memset(p->name, 'p', RB_NAME_MAX - 1);
        p->njobs = njobs;
        p->jobs = calloc(njobs, sizeof *p->jobs);
        assert_non_null(p->jobs);
        for (uint32_t j = 0; j < njobs; j++)
            fill_job_max(&p->jobs[j], i, j);
    }
    assert_int_equal(rb_msg_encode(&m, &out, &olen, &err), 0);
    rb_msg_t back;
    assert_int_equal(rb_msg_decode(out, olen, &back, &err), 0);
    assert_int_equal(back.u.plan.nphases, nphases);
    const rb_job_spec_t *first = &m.u.plan.phases[0].jobs[0];
    const rb_job_spec_t *last = &back.u.plan.phases[nphases - 1].jobs[njobs - 1];
    assert_string_equal(last->directory, first->directory);
    assert_memory_equal(last->pattern, first->pattern, RB_PATTERN_MAX);
    assert_int_equal(last->rate, UINT64_MAX);
    assert_int_equal(last->meta_filesize, UINT64_MAX);
    assert_int_equal(last->meta_depth, 16);
    assert_string_equal(last->name, m.u.plan.phases[nphases - 1].jobs[njobs - 1].name);
    rb_msg_fini(&back);
    free(out);
    rb_msg_fini(&m);
    return olen;
}

/* Bytes of a msgpack array header of n elements. */
static size_t s_array_header(size_t n)
{
    return n < 16 ? 1 : n < 65536 ? 3 : 5;
}

/* The length of the largest legal PLAN from what one job and one phase
 * add (every maximal job encodes to the same length: names are kept at
 * their longest) and the headers of arrays at their bounds; *job and
 * *phase get those two. */
static size_t s_largest_plan(size_t *job, size_t *phase)
{
    size_t one = s_max_plan(1, 1);
    *job = s_max_plan(1, 2) - one;
    *phase = s_max_plan(2, 1) - one;
    return one + (RB_MAX_PHASES - 1) * *phase + (size_t)RB_MAX_PHASES * (RB_MAX_JOBS - 1) * *job +
           (s_array_header(RB_MAX_PHASES) - 1) +
           (size_t)RB_MAX_PHASES * (s_array_header(RB_MAX_JOBS) - 1);
}

static void test_oversized_frame(void **state)
{
    (void)state;
    size_t len = (size_t)RB_PROTO_MAX_FRAME + 1;
    char *buf = calloc(1, len);
    assert_non_null(buf);
    expect_bad(buf, len, -EMSGSIZE, "exceeds");
    free(buf);

    /* The frame limit holds the largest legal PLAN: every array at its bound,
     * every job at its longest encoding. Its length is reckoned, not built
     * (test_largest_frame_built, in the nightly run, builds it). */
    size_t job, phase, largest = s_largest_plan(&job, &phase);
    print_message("largest PLAN: %zu bytes (%zu a job, %zu a phase of one job), limit %u\n",
                  largest, job, phase, RB_PROTO_MAX_FRAME);
    /* about 9400 bytes per job (64 bssplit sizes each way, a device list of 1023 characters,
     * 16 zones of random_distribution per direction, 8 cmdprio entries each way), 585 MiB in
     * all: RB_PROTO_MAX_FRAME is 640 MiB since version 21 (512 MiB since version 17). */
    assert_true(job > 8000 && phase > job);
    assert_true(largest > (520u << 20) && largest <= RB_PROTO_MAX_FRAME);
}

/* test_proto --largest-frame (the nightly run: 3.4 GiB and half a minute):
 * the largest PLAN built, encoded and decoded whole, its length exactly what
 * test_oversized_frame's arithmetic says. */
static void test_largest_frame_built(void **state)
{
    (void)state;
    size_t job, phase, largest = s_largest_plan(&job, &phase);
    assert_int_equal(s_max_plan(RB_MAX_PHASES, RB_MAX_JOBS), largest);
}

static void test_truncated(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        size_t len;
        void *buf = encode_built(RB_MSG_DONE, big, &len);
        for (size_t n = 0; n < len; n++) {
            char *copy = malloc(n ? n : 1); /* exact size, so ASan sees any overread */
            memcpy(copy, buf, n);
            expect_bad(copy, n, -EBADMSG, NULL);
            free(copy);
        }
        free(buf);
    }
}

static void test_trailing(void **state)
{
    (void)state;
    size_t len;
    void *buf = encode_built(RB_MSG_HEARTBEAT, false, &len);
    char *two = malloc(2 * len);
    memcpy(two, buf, len);
    memcpy(two + len, buf, len);
    expect_bad(two, 2 * len, -EBADMSG, "trailing");
    two[len] = (char)0xc0; /* nil */
    expect_bad(two, len + 1, -EBADMSG, "1 trailing byte");
    free(two);
    free(buf);
}

/* Headers announcing far more than the frame holds, and deep nesting. */
static void test_hostile_headers(void **state)
{
    (void)state;
    const uint8_t huge_array[] = {0x83, 0xa1, 'v',  0x03, 0xa1, 't',  0xa4, 'P',
                                  'L',  'A',  'N',  0xa6, 'p',  'h',  'a',  's',
                                  'e',  's',  0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0};
    const uint8_t huge_map[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'v', 0x03};
    const uint8_t huge_str[] = {0x81, 0xa1, 'v', 0xdb, 0xff, 0xff, 0xff, 0xf0, 'x'};
    const uint8_t reserved[] = {0x81, 0xa1, 'v', 0xc1};
    uint8_t deep[200];
    memset(deep, 0x91, sizeof deep); /* [[[[...]]]] */
    deep[sizeof deep - 1] = 0x01;
    /* Refused by the pre-scan ("... at byte N"), before msgpack-c allocates anything. */
    expect_bad(huge_array, sizeof huge_array, -EBADMSG, "msgpack at byte 18 of 24");
    expect_bad(huge_map, sizeof huge_map, -EBADMSG, "msgpack at byte 0 of 8");
    expect_bad(huge_str, sizeof huge_str, -EBADMSG, "msgpack at byte 3 of 9");
    expect_bad(reserved, sizeof reserved, -EBADMSG, "msgpack at byte 3 of 4");
    expect_bad(deep, sizeof deep, -EBADMSG, "msgpack at byte 16 of 200");
}

static uint64_t s_rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return s_rng;
}

static void check_any(const void *buf, size_t len)
{
    rb_msg_t m;
    rb_err_t err;
    int rc = decode(buf, len, &m, &err);
    assert_true(rc == 0 || rc == -EBADMSG || rc == -EPROTO);
    if (rc == 0) {
        /* Whatever was accepted must encode again within its bounds. */
        void *again;
        size_t alen;
        assert_int_equal(rb_msg_encode(&m, &again, &alen, &err), 0);
        free(again);
        rb_msg_fini(&m);
    }
}

static void test_garbage(void **state)
{
    (void)state;
    uint8_t buf[512];
    /* Random bytes, and random bytes behind a plausible message-map start. */
    for (int i = 0; i < 4000; i++) {
        size_t len = next_rand() % sizeof buf;
        for (size_t j = 0; j < len; j++)
            buf[j] = (uint8_t)next_rand();
        if (i % 2 && len > 12)
            memcpy(buf, "\x84\xa1v\x03\xa1t\xa4PING", 12); /* v: RB_PROTO_VERSION */
        check_any(buf, len);
    }
    /* Valid frames of every type with a few bytes changed, cut or extended. */
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
        size_t len;
        uint8_t *frame = encode_built((rb_msg_type_t)t, false, &len);
        uint8_t *copy = malloc(len + 8);
        for (int i = 0; i < 1500; i++) {
            size_t n = len;
            memcpy(copy, frame, len);
            for (size_t j = len; j < len + 8; j++)
                copy[j] = (uint8_t)next_rand();
            for (int k = 1 + (int)(next_rand() % 4); k > 0; k--) {
                uint64_t r = next_rand();
                if (r % 3 == 0)
                    copy[r / 3 % len] = (uint8_t)(r >> 40);
                else if (r % 3 == 1)
                    copy[r / 3 % len] ^= (uint8_t)(1u << (r >> 40) % 8);
                else
                    copy[r / 3 % len] = (uint8_t[]){0x00, 0x7f, 0xff, 0xc0, 0xcc, 0xdc,
                                                    0xdd, 0xde, 0xdf, 0xd9, 0xa0}[(r >> 40) % 11];
            }
            if (i % 10 == 0)
                n = next_rand() % (len + 8);
            check_any(copy, n);
        }
        free(copy);
        free(frame);
    }
}

static void expect_einval(const rb_msg_t *m, const char *needle)
{
    rb_err_t err = {0};
    void *buf = (void *)1;
    size_t len = 1;
    int rc = rb_msg_encode(m, &buf, &len, &err);
    if (rc != -EINVAL)
        fail_msg("expected -EINVAL for '%s', got %d (%s)", needle, rc, err.msg);
    assert_null(buf);
    assert_int_equal(len, 0);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_encode_invalid(void **state)
{
    (void)state;
    rb_msg_t m;

    memset(&m, 0, sizeof m);
    expect_einval(&m, "unknown type");
    m.type = RB_MSG_COUNT;
    expect_einval(&m, "unknown type");

    build(RB_MSG_HELLO, false, &m);
    memset(m.u.hello.rack, 'r', sizeof m.u.hello.rack);
    expect_einval(&m, "HELLO: field 'rack': not NUL-terminated within its 64 bytes");
    rb_msg_fini(&m);
    build(RB_MSG_HELLO, false, &m);
    m.u.hello.nroots = RB_MAX_ROOTS + 1;
    expect_einval(&m, "HELLO: field 'roots': 65 entries, more than the bound of 64");
    m.u.hello.nroots = 1;
    rb_msg_fini(&m);
    build(RB_MSG_HELLO, false, &m);
    memset(m.u.hello.roots[1].path, 'p', sizeof m.u.hello.roots[1].path);
    expect_einval(&m, "'roots[1].path'");
    memset(m.u.hello.roots[1].path, 0, sizeof m.u.hello.roots[1].path);
    rb_msg_fini(&m);

    build(RB_MSG_GO, false, &m);
    m.u.go.phase = RB_MAX_PHASES;
    expect_einval(&m, "GO: field 'phase': 256 out of range (max 255)");
    m.u.go.phase = 0;
    m.u.go.links[1].port = 65536; /* version 28 */
    expect_einval(&m, "GO: field 'links[1].port': 65536 out of range (max 65535)");
    rb_msg_fini(&m);

    build(RB_MSG_END, false, &m);
    m.u.end.status = 5;
    expect_einval(&m, "END: field 'status'");
    rb_msg_fini(&m);

    build(RB_MSG_PLAN, false, &m);
    m.u.plan.phases[1].jobs[0].rw = RB_RW_NONE;
    expect_einval(&m, "PLAN: field 'phases[1].jobs[0].rw': unknown access pattern");
    m.u.plan.phases[1].jobs[0].rw = RB_RW_READ;
    m.u.plan.phases[1].jobs[1].direct = 2;
    expect_einval(&m, "'phases[1].jobs[1].direct'");
    m.u.plan.phases[1].jobs[1].direct = 1;
    /* version 20: steady state's window is whole seconds, its criterion one of four */
    uint64_t dur = m.u.plan.phases[1].jobs[0].ss_dur_ns;
    m.u.plan.phases[1].jobs[0].ss_dur_ns = 1500000000;
    expect_einval(&m, "'phases[1].jobs[0].ss_dur_ns': 1500000000, not a whole number of seconds");
    m.u.plan.phases[1].jobs[0].ss_dur_ns = (RB_SS_DUR_MAX_S + 1) * 1000000000ull;
    expect_einval(&m, "'phases[1].jobs[0].ss_dur_ns'");
    m.u.plan.phases[1].jobs[0].ss_dur_ns = dur;
    m.u.plan.phases[1].jobs[0].ss_metric = RB_SS_BW_SLOPE + 1;
    expect_einval(&m, "'phases[1].jobs[0].ss_metric'");
    m.u.plan.phases[1].jobs[0].ss_metric = RB_SS_NONE;
    expect_einval(&m, "'phases[1].jobs[0].ss_metric': 0, no criterion");
    m.u.plan.phases[1].jobs[0].ss_metric = RB_SS_BW;
    /* version 20: sqthread_poll_cpu is a CPU of a cpu_set_t */
    m.u.plan.phases[1].jobs[0].sqpoll_cpu = RB_CPUS_MAX;
    expect_einval(&m, "'phases[1].jobs[0].sqpoll_cpu'");
    m.u.plan.phases[1].jobs[0].sqpoll_cpu = RB_CPUS_MAX - 1;
    m.u.plan.phases[1].jobs[0].dedupe_mode = RB_DEDUPE_WORKING_SET + 1;
    expect_einval(&m, "'phases[1].jobs[0].dedupe_mode'");
    m.u.plan.phases[1].jobs[0].dedupe_mode = RB_DEDUPE_WORKING_SET;
    m.u.plan.phases[1].jobs[0].dedupe_ws_pct = 101;
    expect_einval(&m, "'phases[1].jobs[0].dedupe_ws_pct'");
    m.u.plan.phases[1].jobs[0].dedupe_ws_pct = 100;
    /* version 21: a latency target needs its window; a percentile up to 100 */
    m.u.plan.phases[1].jobs[0].lat_target_ns = 1000000;
    m.u.plan.phases[1].jobs[0].lat_window_ns = 0;
    expect_einval(&m, "latency_target without latency_window");
    m.u.plan.phases[1].jobs[0].lat_window_ns = 1000000;
    m.u.plan.phases[1].jobs[0].lat_pct = RB_LAT_PCT_MAX + 1;
    expect_einval(&m, "'phases[1].jobs[0].lat_pct'");
    m.u.plan.phases[1].jobs[0].lat_pct = RB_LAT_PCT_MAX;
    m.u.plan.phases[1].jobs[0].hipri = 2;
    expect_einval(&m, "'phases[1].jobs[0].hipri'");
    m.u.plan.phases[1].jobs[0].hipri = 1;
    /* version 21: an IO priority is class << 13 | level, a cmdprio share 1 .. 100 */
    m.u.plan.phases[1].jobs[0].ioprio = RB_IOPRIO_MAX + 1;
    expect_einval(&m, "'phases[1].jobs[0].ioprio'");
    m.u.plan.phases[1].jobs[0].ioprio = 8; /* class 0, level 8 */
    expect_einval(&m, "'phases[1].jobs[0].ioprio': 8 is no IO priority");
    m.u.plan.phases[1].jobs[0].ioprio = RB_IOPRIO_MAX;
    m.u.plan.phases[1].jobs[0].cmdprio_read[0].prio = 7;
    expect_einval(&m, "7 is no IO priority");
    m.u.plan.phases[1].jobs[0].cmdprio_read[0].prio = 1u << RB_IOPRIO_CLASS_SHIFT;
    m.u.plan.phases[1].jobs[0].cmdprio_read[0].perc = 101;
    expect_einval(&m, "perc");
    m.u.plan.phases[1].jobs[0].cmdprio_read[0].perc = 20;
    m.u.plan.phases[1].jobs[0].write_hint = RB_WRITE_HINT_EXTREME + 1;
    expect_einval(&m, "'phases[1].jobs[0].write_hint'");
    m.u.plan.phases[1].jobs[0].write_hint = RB_WRITE_HINT_EXTREME;
    m.u.plan.phases[1].jobs[0].fill_device = 2;
    expect_einval(&m, "'phases[1].jobs[0].fill_device'");
    m.u.plan.phases[1].jobs[0].fill_device = 1;
    m.u.plan.phases[0].jobs[1].numjobs = RB_MAX_WORKERS + 1;
    expect_einval(&m, "'phases[0].jobs[1].numjobs'");
    m.u.plan.phases[0].jobs[1].numjobs = RB_MAX_WORKERS;
    expect_einval(&m, "PLAN: field 'phases[0].jobs': numjobs add up to 4097 workers");
    m.u.plan.phases[0].jobs[1].numjobs = 1;
    m.u.plan.phases[1].njobs = RB_MAX_JOBS + 1;
    expect_einval(&m, "'phases[1].jobs': 257 entries");
    m.u.plan.phases[1].njobs = 2;
    m.u.plan.nphases = RB_MAX_PHASES + 1;
    expect_einval(&m, "'phases': 257 entries");
    m.u.plan.nphases = 3;
    rb_msg_fini(&m);
    build(RB_MSG_PLAN, false, &m);
    rb_phase_specs_free(&m.u.plan.phases, m.u.plan.nphases); /* count left, array gone */
    expect_einval(&m, "'phases': 3 entries but no array");
    m.u.plan.nphases = 0;

    build(RB_MSG_SAMPLE, false, &m);
    m.u.sample.jobs[0].hist->count++;
    expect_einval(&m, "SAMPLE: field 'jobs[0].hist.count'");
    m.u.sample.jobs[0].hist->count--;
    m.u.sample.jobs[0].job = RB_MAX_JOBS;
    expect_einval(&m, "'jobs[0].job'");
    rb_msg_fini(&m);

    /* version 12: a DONE's workers and device figures name devices it lists */
    build(RB_MSG_DONE, false, &m);
    m.u.done.workers[1].dev = 3;
    expect_einval(&m, "DONE: field 'workers[1]': dev 3 names none of 2 devices");
    m.u.done.workers[1].dev = RB_MAX_DEVS + 1;
    expect_einval(&m, "'workers[1].dev'");
    m.u.done.workers[1].dev = 1;
    m.u.done.dev_stats[1].job = 2;
    expect_einval(&m, "DONE: field 'dev_stats[1]': job 2 names none of 2 devices");
    m.u.done.dev_stats[1].job = 1;
    m.u.done.devs[0].path[0] = 0;
    expect_einval(&m, "'devs[0].path'");
    rb_msg_fini(&m);

    build(RB_MSG_DONE, false, &m);
    m.u.done.workers[1].checkpts[1].t_ns = m.u.done.workers[1].checkpts[0].t_ns - 1;
    expect_einval(&m, "DONE: field 'workers[1].checkpts[1].t_ns': 999 before the previous");
    m.u.done.workers[1].checkpts[1].t_ns += 1;
    m.u.done.workers[1].ncheckpts = RB_MAX_CHECKPTS + 1;
    expect_einval(&m, "'workers[1].checkpts': 1025 entries");
    m.u.done.workers[1].ncheckpts = 2;
    m.u.done.workers[0].worker = RB_MAX_WORKERS;
    expect_einval(&m, "'workers[0].worker'");
    m.u.done.workers[0].worker = 0;
    m.u.done.nworkers = RB_MAX_WORKERS + 1;
    expect_einval(&m, "'workers': 4097 entries");
    m.u.done.nworkers = 2;
    rb_msg_fini(&m);
}

/* The keys directly under prefix in a frame of type t are exactly the
 * space-separated keys, in that order. */
static void expect_keys(rb_msg_type_t t, const char *prefix, const char *keys)
{
    size_t len, plen = strlen(prefix);
    char got[2048] = "";
    void *buf = encode_built(t, false, &len);
    paths_t *ps = frame_paths(buf, len, true);
    for (int i = 0; i < ps->n; i++) {
        const char *p = ps->p[i];
        if (plen && (strncmp(p, prefix, plen) != 0 || p[plen] != '.'))
            continue;
        const char *k = plen ? p + plen + 1 : p;
        if (strpbrk(k, ".[") || !strcmp(k, "v") || !strcmp(k, "t"))
            continue;
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? " " : "", k);
    }
    if (strcmp(got, keys) != 0)
        fail_msg("%s '%s': keys\n  %s\nexpected\n  %s", rb_msg_type_name(t), prefix, got, keys);
    free(ps);
    free(buf);
}

/* Version 2's to 6's keys are on the wire, in every job, so that
 * test_missing_each_key and the other per-key tests, which walk the keys of
 * real frames, cover each of them (on a metadata job, with values away from
 * their defaults). */
static void test_v6_keys(void **state)
{
    (void)state;
    const char *job_stat = "job bytes ops errors read_bytes read_ops verify_errors hist "
                           "write_bytes write_ops trim_bytes trim_ops read_lat read_slat "
                           "read_clat write_lat write_slat write_clat trim_lat trim_slat trim_clat "
                           "ss_state ss_t_ns ss_crit ss_mean lat_depth filesize";
    /* The job's keys are the table's (RB_JOB_FIELDS): each one must be set
     * away from its default by some job of the test's PLANs, so that every
     * check above sees it travel. */
    for (size_t i = 0; i < rb_proto_job_nfields(); i++) {
        bool set = false;
        for (int big = 0; big < 2 && !set; big++) {
            rb_msg_t pm;
            build(RB_MSG_PLAN, big, &pm);
            for (uint32_t p = 0; p < pm.u.plan.nphases && !set; p++)
                for (uint32_t j = 0; j < pm.u.plan.phases[p].njobs && !set; j++)
                    set = !rb_proto_job_field_default(i, &pm.u.plan.phases[p].jobs[j]);
            rb_msg_fini(&pm);
        }
        if (!set)
            fail_msg("job field '%s' is at its default in every job of the test's PLANs: give "
                     "fill_job a value for it",
                     rb_proto_job_field(i, NULL, NULL));
    }
    expect_keys(RB_MSG_PLAN, "",
                "run_id interval_ns node_rank nnodes lead peers phases net_secret");
    expect_keys(RB_MSG_PLAN, "peers[1]", "shift name");
    expect_keys(RB_MSG_PLAN, "phases[2]", "name jobs");
    expect_keys(RB_MSG_SAMPLE, "jobs[0]", job_stat);
    expect_keys(RB_MSG_SAMPLE, "telem[0]",
                "user_pm system_pm iowait_pm idle_pm irq_pm ncpu load1_m ctxt_per_s cached dirty "
                "writeback devs nics");
    expect_keys(RB_MSG_SAMPLE, "telem[0].devs[1]",
                "name parent member rd_bps wr_bps rd_iops wr_iops util_pm qdepth_m await_us "
                "rd_bytes wr_bytes");
    expect_keys(RB_MSG_SAMPLE, "telem[0].nics[0]", "name rx_bps tx_bps speed_mbps");
    expect_keys(RB_MSG_DONE, "jobs[1]", job_stat);
    expect_keys(RB_MSG_DONE, "workers[1]",
                "job worker t_start_ns t_end_ns bytes ops errors read_bytes read_ops "
                "verify_errors write_bytes write_ops trim_bytes trim_ops checkpts sw_t_ns "
                "sw_bytes sw_ops dev found first_errno");
    expect_keys(RB_MSG_DONE, "devs[1]",
                "path name model vendor serial firmware size lbs pbs rotational scheduler "
                "read_ahead_kb nr_requests queue_depth access use");
    expect_keys(RB_MSG_DONE, "dev_stats[0]", job_stat);
    expect_keys(RB_MSG_DONE, "",
                "run_id phase status error error_path error_offset workers jobs caches_dropped "
                "drop_status devs dev_stats links net_refused net_refused_by net_retrans");
    expect_keys(RB_MSG_STONEWALL, "", "run_id phase job ops");
    expect_keys(RB_MSG_HELLO, "",
                "name rack hostname agent_version pid cores ram_bytes cache_bytes roots kernel "
                "cpu_model nics devs ndevs_seen build fingerprint");
    expect_keys(RB_MSG_HELLO, "devs[1]",
                "path name model vendor serial firmware size lbs pbs rotational scheduler "
                "read_ahead_kb nr_requests queue_depth access use");
    expect_keys(RB_MSG_HELLO, "roots[1]",
                "path free_bytes total_bytes fs_type source options dev_model dev_serial "
                "dev_rotational");
    expect_keys(RB_MSG_HELLO, "nics[1]", "name speed_mbps mac");

    /* The pattern is msgpack bin of exactly pattern_len bytes. */
    rb_msg_t m;
    size_t len;
    build(RB_MSG_PLAN, false, &m);
    const rb_job_spec_t *jb = &m.u.plan.phases[0].jobs[1];
    void *buf = encode(&m, &len);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    assert_int_equal(msgpack_unpack_next(&u, buf, len, NULL), MSGPACK_UNPACK_SUCCESS);
    unsigned times = 0;
    const msgpack_object *o = &u.data;
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object_kv *kv = &o->via.map.ptr[i];
        if (kv->key.via.str.size != 6 || memcmp(kv->key.via.str.ptr, "phases", 6) != 0)
            continue;
        const msgpack_object *j1 = &kv->val.via.array.ptr[0].via.map.ptr[1].val.via.array.ptr[1];
        for (uint32_t k = 0; k < j1->via.map.size; k++) {
            const msgpack_object_kv *f = &j1->via.map.ptr[k];
            if (f->key.via.str.size == 7 && memcmp(f->key.via.str.ptr, "pattern", 7) == 0) {
                assert_int_equal(f->val.type, MSGPACK_OBJECT_BIN);
                assert_int_equal(f->val.via.bin.size, jb->pattern_len);
                assert_memory_equal(f->val.via.bin.ptr, jb->pattern, jb->pattern_len);
                times++;
            }
        }
    }
    assert_int_equal(times, 1);
    msgpack_unpacked_destroy(&u);
    free(buf);
    rb_msg_fini(&m);
}

/* Enums travel as their names, exactly: no other spelling, no other case. */
static void test_enum_strings(void **state)
{
    (void)state;
    struct {
        const char *path;
        const char *value;
        const char *needle; /* NULL: accepted */
    } cases[] = {
        {"phases[0].jobs[0].rw", "randread", NULL},
        {"phases[0].jobs[0].rw", "rewrite", NULL},
        {"phases[0].jobs[0].rw", "readwrite",
         "'phases[0].jobs[0].rw': unknown access pattern "
         "'readwrite'"},
        {"phases[0].jobs[0].rw", "READ", "unknown access pattern 'READ'"},
        {"phases[0].jobs[0].rw", "", "unknown access pattern ''"},
        {"phases[0].jobs[0].rw", "randread-and-then-some-more-bytes-than-forty-shown",
         "unknown access pattern 'randread-and-then-some-more-bytes-than-...'"},
        {"phases[0].jobs[0].sync_mode", "none", NULL},
        {"phases[0].jobs[0].sync_mode", "dsync", NULL},
        {"phases[0].jobs[0].sync_mode", "fsync",
         "PLAN: field 'phases[0].jobs[0].sync_mode': unknown sync mode 'fsync' (one of \"none\", "
         "\"sync\", \"dsync\")"},
        {"phases[1].jobs[1].sync_mode", "1", "'phases[1].jobs[1].sync_mode': unknown sync mode"},
        {"phases[0].jobs[0].buffer_mode", "random", NULL},
        {"phases[0].jobs[0].buffer_mode", "zero", NULL},
        {"phases[0].jobs[0].buffer_mode", "zeros",
         "'phases[0].jobs[0].buffer_mode': unknown buffer mode 'zeros' (one of \"random\", "
         "\"zero\", \"pattern\")"},
        {"phases[1].jobs[0].buffer_mode", "pattern", NULL}, /* a "zero" job that has a pattern */
        {"phases[0].jobs[0].verify", "none", NULL},
        {"phases[0].jobs[0].verify", "md5", NULL},
        {"phases[0].jobs[0].verify", "sha3-256",
         "'phases[0].jobs[0].verify': unknown verify method 'sha3-256' (one of \"none\", "
         "\"crc32c\", \"md5\""},
        {"phases[0].jobs[0].verify", "CRC32C", "unknown verify method 'CRC32C'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        edit_t ed = {cases[i].path, put_str, cases[i].value};
        expect_edit(RB_MSG_PLAN, false, &ed, cases[i].needle ? -EBADMSG : 0, cases[i].needle);
    }
}

/* A job's ranges, file names, size range and pattern. */
static void test_job_rules(void **state)
{
    (void)state;
    const uint64_t zero = 0, one = 1, u32_over = (uint64_t)UINT32_MAX + 1, mix_max = 100,
                   mix_over = 101, depth_max = 65536, depth_over = 65537, bs_eq = 16384,
                   bs_over = 16385;
    const size_t pat_max = RB_PATTERN_MAX, pat_over = RB_PATTERN_MAX + 1, empty = 0,
                 name_ok = RB_NAME_MAX - 1, name_over = RB_NAME_MAX,
                 engine_ok = RB_ENGINE_NAME_MAX - 1, engine_over = RB_ENGINE_NAME_MAX;
    const char *j0 = "phases[0].jobs[0]"; /* bs 4096, bs_max 16384, buffer_mode "pattern" */
    struct {
        const char *key; /* under j0 */
        edit_fn fn;
        const void *arg;
        const char *needle; /* NULL: accepted */
    } cases[] = {
        {"rwmixread", put_uint, &mix_max, NULL},
        {"rwmixread", put_uint, &zero, NULL},
        {"rwmixread", put_uint, &mix_over,
         "PLAN: field 'phases[0].jobs[0].rwmixread': 101 out of range (max 100)"},
        {"iodepth", put_uint, &one, NULL},
        {"iodepth", put_uint, &depth_max, NULL},
        {"iodepth", put_uint, &zero,
         "'phases[0].jobs[0].iodepth': 0 out of range (min 1, max 65536)"},
        {"iodepth", put_uint, &depth_over, "'phases[0].jobs[0].iodepth': 65537 out of range"},
        {"nrfiles", put_uint, &depth_max, NULL},
        {"nrfiles", put_uint, &zero,
         "'phases[0].jobs[0].nrfiles': 0 out of range (min 1, max 65536)"},
        {"nrfiles", put_uint, &depth_over, "'phases[0].jobs[0].nrfiles': 65537 out of range"},
        {"loops", put_uint, &one, NULL},
        {"loops", put_uint, &zero,
         "'phases[0].jobs[0].loops': 0 out of range (min 1, max 4294967295)"},
        {"loops", put_uint, &u32_over, "'phases[0].jobs[0].loops': 4294967296 out of range"},
        {"fsync_every", put_uint, &zero, NULL},
        {"fsync_every", put_uint, &u32_over, "'phases[0].jobs[0].fsync_every'"},
        {"fdatasync_every", put_uint, &u32_over, "'phases[0].jobs[0].fdatasync_every'"},
        {"bs", put_uint, &bs_eq, NULL},
        {"bs", put_uint, &bs_over, "'phases[0].jobs[0].bs_max': 16384, below bs 16385"},
        {"bs_max", put_uint, &one, "'phases[0].jobs[0].bs_max': 1, below bs 4096"},
        {"pattern", put_bin_len, &pat_max, NULL},
        {"pattern", put_bin_len, &pat_over,
         "'phases[0].jobs[0].pattern': 65 bytes, more than the bound of 64"},
        {"pattern", put_bin_len, &empty,
         "'phases[0].jobs[0].pattern': empty, but buffer_mode is \"pattern\""},
        {"pattern", put_str, "abc", "'phases[0].jobs[0].pattern': expected binary, got string"},
        {"filename", put_str, "", NULL},
        {"filename", put_str, "...", NULL},
        {"filename", put_str_len, &name_ok, NULL},
        {"filename", put_str_len, &name_over,
         "'phases[0].jobs[0].filename': string of 64 bytes, longer than its bound of 63"},
        {"filename", put_str, "a/b", "'phases[0].jobs[0].filename': contains '/'"},
        {"filename", put_str, "/etc", "'phases[0].jobs[0].filename': contains '/'"},
        {"filename", put_str, "..", "'phases[0].jobs[0].filename': '.' and '..' are not"},
        {"filename", put_str, ".", "'phases[0].jobs[0].filename': '.' and '..' are not"},
        {"ioengine", put_str, "null", NULL},
        {"ioengine", put_str_len, &engine_ok, NULL},
        {"ioengine", put_str_len, &engine_over,
         "'phases[0].jobs[0].ioengine': string of 16 bytes, longer than its bound of 15"},
        {"ioengine", put_str, "", "'phases[0].jobs[0].ioengine': empty"},
        {"ioengine", put_str, "./libfoo.so", "'phases[0].jobs[0].ioengine': contains '/'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[96];
        snprintf(path, sizeof path, "%s.%s", j0, cases[i].key);
        edit_t ed = {path, cases[i].fn, cases[i].arg};
        expect_edit(RB_MSG_PLAN, false, &ed, cases[i].needle ? -EBADMSG : 0, cases[i].needle);
    }
    /* An empty pattern is fine when buffer_mode is not "pattern" (phase 1 job 0: "zero"). */
    edit_t ed = {"phases[1].jobs[0].pattern", put_bin_len, &empty};
    expect_edit(RB_MSG_PLAN, false, &ed, 0, NULL);
}

/* Reads are part of all IO: read_bytes <= bytes and read_ops <= ops, in job
 * stats (SAMPLE, DONE) and per worker (DONE). verify_errors counts blocks and
 * is not bounded by errors. */
static void test_read_counts(void **state)
{
    (void)state;
    /* SAMPLE jobs[0]: bytes 1000000, ops 1000, read_bytes 400000, read_ops 300.
     * DONE workers[1]: bytes 10 GiB, ops 2621440, read_bytes and read_ops equal to them. */
    const uint64_t b0 = 1000000, b0_over = 1000001, o0 = 1000, o0_over = 1001, zero = 0,
                   big = UINT64_MAX, w_over = (10ull << 30) + 1, w_ops_over = 2621441;
    struct {
        rb_msg_type_t t;
        edit_t ed;
        const char *needle; /* NULL: accepted */
    } cases[] = {
        {RB_MSG_SAMPLE, {"jobs[0].read_bytes", put_uint, &b0}, NULL},
        {RB_MSG_SAMPLE,
         {"jobs[0].read_bytes", put_uint, &b0_over},
         "SAMPLE: field 'jobs[0].read_bytes': 1000001, more than bytes 1000000"},
        {RB_MSG_SAMPLE, {"jobs[0].read_ops", put_uint, &o0}, NULL},
        {RB_MSG_SAMPLE,
         {"jobs[0].read_ops", put_uint, &o0_over},
         "SAMPLE: field 'jobs[0].read_ops': 1001, more than ops 1000"},
        {RB_MSG_SAMPLE, {"jobs[0].bytes", put_uint, &zero}, "'jobs[0].read_bytes': 400000, more"},
        {RB_MSG_SAMPLE, {"jobs[0].verify_errors", put_uint, &big}, NULL},
        {RB_MSG_DONE,
         {"jobs[1].read_bytes", put_uint, &big},
         "DONE: field 'jobs[1].read_bytes': 18446744073709551615, more than bytes 2000000"},
        {RB_MSG_DONE,
         {"jobs[1].ops", put_uint, &zero},
         "DONE: field 'jobs[1].read_ops': 601, more"},
        {RB_MSG_DONE,
         {"workers[1].read_bytes", put_uint, &w_over},
         "DONE: field 'workers[1].read_bytes': 10737418241, more than bytes 10737418240"},
        {RB_MSG_DONE,
         {"workers[1].read_ops", put_uint, &w_ops_over},
         "DONE: field 'workers[1].read_ops': 2621441, more than ops 2621440"},
        {RB_MSG_DONE, {"workers[0].bytes", put_uint, &zero}, "'workers[0].read_bytes'"},
        {RB_MSG_DONE, {"workers[0].verify_errors", put_uint, &big}, NULL},
        {RB_MSG_DONE, {"error_offset", put_uint, &big}, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(cases[i].t, false, &cases[i].ed, cases[i].needle ? -EBADMSG : 0,
                    cases[i].needle);
    const size_t path_ok = RB_PATH_MAX - 1, path_over = RB_PATH_MAX;
    edit_t ed = {"error_path", put_str_len, &path_ok};
    expect_edit(RB_MSG_DONE, false, &ed, 0, NULL);
    ed.arg = &path_over;
    expect_edit(RB_MSG_DONE, false, &ed, -EBADMSG,
                "DONE: field 'error_path': string of 1024 bytes, longer than its bound of 1023");
}

/* The sender refuses what the receiver would: version 2's fields. */
static void test_encode_invalid_v2(void **state)
{
    (void)state;
    rb_msg_t m;
    build(RB_MSG_PLAN, false, &m);
    rb_job_spec_t *jb = &m.u.plan.phases[1].jobs[1];
    jb->rw = (rb_rw_t)14;
    expect_einval(&m, "PLAN: field 'phases[1].jobs[1].rw': unknown access pattern 14");
    jb->rw = RB_RW_RANDRW;
    jb->sync_mode = (rb_sync_mode_t)3;
    expect_einval(&m, "'phases[1].jobs[1].sync_mode': unknown sync mode 3");
    jb->sync_mode = RB_SYNC_NONE;
    jb->buffer_mode = (rb_buf_mode_t)7;
    expect_einval(&m, "'phases[1].jobs[1].buffer_mode': unknown buffer mode 7");
    jb->buffer_mode = RB_BUF_RANDOM;
    jb->verify = (rb_verify_t)14;
    expect_einval(&m, "'phases[1].jobs[1].verify': unknown verify method 14");
    jb->verify = RB_VERIFY_NONE;
    jb->pattern_len = RB_PATTERN_MAX + 1;
    expect_einval(&m, "'phases[1].jobs[1].pattern': 65 bytes, more than the bound of 64");
    jb->pattern_len = 0; /* fine with buffer_mode "random" */
    jb->buffer_mode = RB_BUF_PATTERN;
    expect_einval(&m, "'phases[1].jobs[1].pattern': empty, but buffer_mode is \"pattern\"");
    jb->buffer_mode = RB_BUF_ZERO;
    jb->iodepth = 0;
    expect_einval(&m, "'phases[1].jobs[1].iodepth': 0 out of range (min 1, max 65536)");
    jb->iodepth = 65537;
    expect_einval(&m, "'phases[1].jobs[1].iodepth': 65537 out of range");
    jb->iodepth = 1;
    jb->rwmixread = 101;
    expect_einval(&m, "'phases[1].jobs[1].rwmixread': 101 out of range (max 100)");
    jb->rwmixread = 0;
    jb->nrfiles = 0;
    expect_einval(&m, "'phases[1].jobs[1].nrfiles': 0 out of range (min 1");
    jb->nrfiles = 1;
    jb->loops = 0;
    expect_einval(&m, "'phases[1].jobs[1].loops': 0 out of range (min 1");
    jb->loops = 1;
    uint64_t bs_max = jb->bs_max;
    jb->bs_max = jb->bs - 1;
    expect_einval(&m, "'phases[1].jobs[1].bs_max': 8191, below bs 8192");
    jb->bs_max = bs_max;
    jb->bs_write = jb->bs + 512;
    expect_einval(&m, "'phases[1].jobs[1].bs_write': the IO sizes of writes (8704 to 256k) are "
                      "not multiples of the smallest IO size, 8k");
    jb->bs_write = jb->bs * 2;
    jb->bssplit_write[1].perc = 60;
    expect_einval(&m, "'phases[1].jobs[1].bs_write': bssplit weights add up to 90, not 100");
    jb->bssplit_write[1].perc = 70;
    strcpy(jb->filename, "../x");
    expect_einval(&m, "'phases[1].jobs[1].filename': contains '/'");
    strcpy(jb->filename, "..");
    expect_einval(&m, "'phases[1].jobs[1].filename': '.' and '..' are not file names");
    jb->filename[0] = '\0';
    memset(jb->ioengine, 'e', sizeof jb->ioengine);
    expect_einval(&m, "'phases[1].jobs[1].ioengine': not NUL-terminated within its 16 bytes");
    jb->ioengine[0] = '\0';
    expect_einval(&m, "'phases[1].jobs[1].ioengine': empty");
    strcpy(jb->ioengine, "sync");
    void *buf;
    size_t len;
    rb_err_t err = {0};
    assert_int_equal(rb_msg_encode(&m, &buf, &len, &err), 0); /* every field back in bounds */
    free(buf);
    rb_msg_fini(&m);

    build(RB_MSG_SAMPLE, false, &m);
    m.u.sample.jobs[0].read_bytes = m.u.sample.jobs[0].bytes + 1;
    expect_einval(&m, "SAMPLE: field 'jobs[0].read_bytes': 1000001, more than bytes 1000000");
    m.u.sample.jobs[0].read_bytes = 0;
    m.u.sample.jobs[0].read_ops = m.u.sample.jobs[0].ops + 1;
    expect_einval(&m, "SAMPLE: field 'jobs[0].read_ops': 1001, more than ops 1000");
    rb_msg_fini(&m);

    /* version 6: reads, writes and trims are parts of all IO, their sum too */
    build(RB_MSG_SAMPLE, true, &m);
    rb_job_stat_t *j1 = &m.u.sample.jobs[1];
    j1->write_bytes = j1->bytes - j1->read_bytes; /* with trim_bytes 3: 3 too many */
    expect_einval(&m, "SAMPLE: field 'jobs[1].trim_bytes': 3, more than the 0 bytes the "
                      "directions before it leave of 2000000");
    j1->trim_bytes = 0;
    j1->write_ops = j1->ops + 1;
    expect_einval(&m, "SAMPLE: field 'jobs[1].write_ops'");
    j1->write_ops = 0;
    assert_int_equal(rb_msg_encode(&m, &buf, &len, &err), 0);
    free(buf);
    rb_msg_fini(&m);

    build(RB_MSG_DONE, false, &m);
    m.u.done.workers[1].read_ops = m.u.done.workers[1].ops + 1;
    expect_einval(&m, "DONE: field 'workers[1].read_ops': 2621441, more than ops 2621440");
    m.u.done.workers[1].read_ops = 0;
    m.u.done.jobs[0].read_bytes = UINT64_MAX;
    expect_einval(&m, "DONE: field 'jobs[0].read_bytes'");
    m.u.done.jobs[0].read_bytes = 0;
    memset(m.u.done.error_path, 'p', sizeof m.u.done.error_path);
    expect_einval(&m, "DONE: field 'error_path': not NUL-terminated within its 1024 bytes");
    m.u.done.error_path[0] = '\0';
    rb_msg_fini(&m);
}

/* Version 3's metadata steps: meta_op is one of its names, present exactly when
 * rw is "meta" (the error names meta_op either way), and the tree and
 * directory counts stay within their bounds. */
static void test_meta_rules(void **state)
{
    (void)state;
    const uint64_t zero = 0, one = 1, u64_max = UINT64_MAX, depth_max = 16, depth_over = 17,
                   dirs_max = 65536, dirs_over = 65537;
    struct {
        const char *path;
        edit_fn fn;
        const void *arg;
        const char *needle; /* NULL: accepted */
    } cases[] = {
        /* phases[2].jobs[0]: rw "meta", meta_op "delete"; [1]: "meta", "stat" */
        {"phases[2].jobs[0].meta_op", put_str, "create", NULL},
        {"phases[2].jobs[0].meta_op", put_str, "stat", NULL},
        {"phases[2].jobs[0].meta_op", put_str, "read", NULL},
        {"phases[2].jobs[0].meta_op", put_str, "write", NULL},
        {"phases[2].jobs[0].meta_op", put_str, "rename", NULL},
        {"phases[2].jobs[1].meta_op", put_str, "delete", NULL},
        {"phases[2].jobs[0].meta_op", put_str, "mkdir", NULL},
        {"phases[2].jobs[0].meta_op", put_str, "mkdirs",
         "PLAN: field 'phases[2].jobs[0].meta_op': unknown metadata operation 'mkdirs' (one of "
         "\"none\", \"create\", \"stat\", \"read\", \"write\", \"rename\", \"delete\", "
         "\"mkdir\", \"statdir\", \"rmdir\", \"mktree\", \"rmtree\", \"find\")"},
        {"phases[2].jobs[0].meta_op", put_str, "CREATE",
         "'phases[2].jobs[0].meta_op': unknown metadata operation 'CREATE'"},
        {"phases[2].jobs[0].meta_op", put_str, "", "unknown metadata operation ''"},
        {"phases[2].jobs[0].meta_op", put_str, "meta", "unknown metadata operation 'meta'"},
        /* rw "meta" exactly when meta_op is not "none"; the error names meta_op */
        {"phases[2].jobs[0].meta_op", put_str, "none",
         "PLAN: field 'phases[2].jobs[0].meta_op': none, but rw is meta"},
        {"phases[2].jobs[1].rw", put_str, "read",
         "PLAN: field 'phases[2].jobs[1].meta_op': stat, but rw is read"},
        {"phases[0].jobs[0].meta_op", put_str, "create",
         "PLAN: field 'phases[0].jobs[0].meta_op': create, but rw is randrw"},
        {"phases[1].jobs[1].rw", put_str, "meta",
         "PLAN: field 'phases[1].jobs[1].meta_op': none, but rw is meta"},
        {"phases[0].jobs[0].meta_op", put_str, "none", NULL},
        {"phases[2].jobs[1].rw", put_str, "meta", NULL},
        /* bounds */
        {"phases[2].jobs[0].meta_depth", put_uint, &zero, NULL},
        {"phases[2].jobs[1].meta_depth", put_uint, &depth_max, NULL},
        {"phases[2].jobs[0].meta_depth", put_uint, &depth_over,
         "PLAN: field 'phases[2].jobs[0].meta_depth': 17 out of range (max 16)"},
        {"phases[0].jobs[1].meta_depth", put_uint, &depth_over,
         "'phases[0].jobs[1].meta_depth': 17 out of range (max 16)"},
        {"phases[2].jobs[0].meta_dirs", put_uint, &dirs_max, NULL},
        {"phases[2].jobs[0].meta_dirs", put_uint, &zero, NULL},
        {"phases[2].jobs[0].meta_dirs", put_uint, &dirs_over,
         "'phases[2].jobs[0].meta_dirs': 65537 out of range (max 65536)"},
        {"phases[2].jobs[0].meta_branch", put_uint, &dirs_max, NULL},
        {"phases[2].jobs[0].meta_branch", put_uint, &dirs_over,
         "'phases[2].jobs[0].meta_branch': 65537 out of range (max 65536)"},
        {"phases[2].jobs[1].meta_files", put_uint, &u64_max, NULL},
        {"phases[2].jobs[1].meta_files", put_uint, &zero, NULL},
        {"phases[2].jobs[1].meta_filesize", put_uint, &u64_max, NULL},
        {"phases[2].jobs[0].meta_random", put_uint, &one,
         "'phases[2].jobs[0].meta_random': expected boolean"},
        {"phases[2].jobs[0].meta_renamed", put_str, "true",
         "'phases[2].jobs[0].meta_renamed': expected boolean"},
        {"phases[2].jobs[0].meta_files", put_str, "1000",
         "'phases[2].jobs[0].meta_files': expected"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        edit_t ed = {cases[i].path, cases[i].fn, cases[i].arg};
        expect_edit(RB_MSG_PLAN, false, &ed, cases[i].needle ? -EBADMSG : 0, cases[i].needle);
    }
    /* A version 2 job, without the meta keys, is refused (and a version 2
     * peer is refused before that, by "v"). */
    edit_t ed = {"phases[0].jobs[0].meta_op", NULL, NULL};
    expect_edit(RB_MSG_PLAN, false, &ed, -EBADMSG,
                "PLAN: field 'phases[0].jobs[0].meta_op': missing");
}

/* The sender refuses what the receiver would: version 3's fields. */
static void test_encode_invalid_v3(void **state)
{
    (void)state;
    rb_msg_t m;
    build(RB_MSG_PLAN, false, &m);
    rb_job_spec_t *data = &m.u.plan.phases[1].jobs[0]; /* rw "randwrite" */
    rb_job_spec_t *meta = &m.u.plan.phases[2].jobs[0]; /* rw "meta", meta_op "delete" */
    meta->meta_op = (rb_meta_op_t)13;
    expect_einval(&m, "PLAN: field 'phases[2].jobs[0].meta_op': unknown metadata operation 13");
    meta->meta_op = RB_META_NONE;
    expect_einval(&m, "PLAN: field 'phases[2].jobs[0].meta_op': none, but rw is meta");
    meta->meta_op = RB_META_RENAME;
    data->meta_op = RB_META_CREATE;
    expect_einval(&m, "PLAN: field 'phases[1].jobs[0].meta_op': create, but rw is randwrite");
    data->meta_op = RB_META_NONE;
    meta->rw = RB_RW_WRITE;
    expect_einval(&m, "'phases[2].jobs[0].meta_op': rename, but rw is write");
    meta->rw = RB_RW_META;
    meta->meta_depth = 17;
    expect_einval(&m, "'phases[2].jobs[0].meta_depth': 17 out of range (max 16)");
    meta->meta_depth = 16;
    meta->meta_dirs = 65537;
    expect_einval(&m, "'phases[2].jobs[0].meta_dirs': 65537 out of range (max 65536)");
    meta->meta_dirs = 65536;
    meta->meta_branch = 65537;
    expect_einval(&m, "'phases[2].jobs[0].meta_branch': 65537 out of range (max 65536)");
    meta->meta_branch = 0;
    meta->meta_shared = 2;
    expect_einval(&m, "'phases[2].jobs[0].meta_shared': 2 is not 0 or 1");
    meta->meta_shared = 0;
    meta->meta_renamed = 0xff;
    expect_einval(&m, "'phases[2].jobs[0].meta_renamed': 255 is not 0 or 1");
    meta->meta_renamed = 1;
    void *buf;
    size_t len;
    rb_err_t err = {0};
    assert_int_equal(rb_msg_encode(&m, &buf, &len, &err), 0); /* every field back in bounds */
    free(buf);
    rb_msg_fini(&m);
}

#ifdef RB_PROTO_CORPUS
/* proto-corpus DIR: writes one frame of every message type, small and big,
 * to DIR/TYPE-small and DIR/TYPE-big: the fuzzer's seed corpus
 * (tests/fuzz/corpus/proto). The same builders as the tests, another main:
 * a generator is no test case. */
int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--frozen") == 0) {
        /* DIR/vN/{HELLO,PLAN,DONE}.msgpack of this build's version, once */
        static const rb_msg_type_t types[] = {RB_MSG_HELLO, RB_MSG_PLAN, RB_MSG_DONE};
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            char path[4096];
            size_t len;
            snprintf(path, sizeof path, "%s/v%d/%s.msgpack", argv[2], RB_PROTO_VERSION,
                     rb_msg_type_name(types[t]));
            void *buf = encode_built(types[t], false, &len);
            FILE *f = fopen(path, "wbx"); /* frozen: never written over */
            if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
                fprintf(stderr, "proto-corpus: cannot write %s (a frozen frame is written once)\n",
                        path);
                return 1;
            }
            free(buf);
        }
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: proto-corpus DIR | --frozen FRAMES_DIR\n");
        return 2;
    }
    for (int big = 0; big < 2; big++) {
        for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
            char path[4096];
            size_t len;
            void *buf = encode_built((rb_msg_type_t)t, big, &len);
            snprintf(path, sizeof path, "%s/%s-%s", argv[1], rb_msg_type_name((rb_msg_type_t)t),
                     big ? "big" : "small");
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
                fprintf(stderr, "proto-corpus: cannot write %s\n", path);
                return 1;
            }
            free(buf);
        }
    }
    return 0;
}
#else
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--largest-frame") == 0) {
        const struct CMUnitTest largest[] = {cmocka_unit_test(test_largest_frame_built)};
        return cmocka_run_group_tests_name("proto largest frame", largest, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_roundtrip_all),
        cmocka_unit_test(test_host_packed),
        cmocka_unit_test(test_done_sparse_hist),
        cmocka_unit_test(test_hist_reuse),
        cmocka_unit_test(test_null_hist),
        cmocka_unit_test(test_fini_twice),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_unknown_type),
        cmocka_unit_test(test_not_a_map),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_unknown_keys_refused),
        cmocka_unit_test(test_fingerprints),
        cmocka_unit_test(test_frozen_frames),
        cmocka_unit_test(test_version_fields),
        cmocka_unit_test(test_missing_each_key),
        cmocka_unit_test(test_wrong_type_each_key),
        cmocka_unit_test(test_negative_each_uint),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_oversized_string),
        cmocka_unit_test(test_oversized_array),
        cmocka_unit_test(test_bad_hist),
        cmocka_unit_test(test_checkpts),
        cmocka_unit_test(test_oversized_frame),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_trailing),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_encode_invalid),
        cmocka_unit_test(test_v6_keys),
        cmocka_unit_test(test_enum_strings),
        cmocka_unit_test(test_job_rules),
        cmocka_unit_test(test_read_counts),
        cmocka_unit_test(test_encode_invalid_v2),
        cmocka_unit_test(test_meta_rules),
        cmocka_unit_test(test_encode_invalid_v3),
    };
    return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
#endif
