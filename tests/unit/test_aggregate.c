/* The metric definitions of docs/metrics.md, checked on hand-made DONE
 * messages whose figures can be worked out on paper, and the clock-offset
 * estimate of the fleet. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_aggregate.h"
#include "rb_table.h"
#include "rb_compare.h"
#include "rb_csv.h"
#include "rb_disks.h"
#include "rb_drives.h"
#include "rb_findings.h"
#include "rb_fleet.h"
#include "rb_json.h"
#include "rb_netfig.h"
#include "rb_nodefam.h"
#include "rb_report.h"
#include "rb_result.h"

#define MB  1000000ULL
#define SEC 1000000000ULL

static rb_job_spec_t s_job = {.name = "w", .rw = RB_RW_WRITE, .bs = 1 << 20, .numjobs = 1};
static rb_phase_spec_t s_phase = {.name = "w", .njobs = 1, .jobs = &s_job};

static rb_worker_stat_t s_worker(uint64_t start, uint64_t end, uint64_t bytes)
{
    return (rb_worker_stat_t){
        .t_start_ns = start, .t_end_ns = end, .bytes = bytes, .ops = bytes / MB};
}

/* A DONE's devices kept packed (as the coordinator keeps them until the
 * phase's figures) make the same disks as the records themselves. */
static void test_disks_packed(void **state)
{
    (void)state;
    rb_dev_id_t devs[2] = {0};
    for (int k = 0; k < 2; k++) {
        snprintf(devs[k].path, sizeof devs[k].path, "/dev/disk/by-id/nvme-M1_S%d", k);
        snprintf(devs[k].name, sizeof devs[k].name, "nvme%dn1", k);
        snprintf(devs[k].model, sizeof devs[k].model, "M1");
        snprintf(devs[k].serial, sizeof devs[k].serial, "S%d", k);
        devs[k].size = 3840ull * 1000 * 1000 * 1000;
        devs[k].lbs = 512;
        devs[k].pbs = 4096;
    }
    rb_worker_stat_t w[2] = {s_worker(10 * SEC, 11 * SEC, 100 * MB),
                             s_worker(10 * SEC, 12 * SEC, 100 * MB)};
    w[0].dev = 1;
    w[1].dev = 2;
    rb_hist_t h;
    rb_hist_init(&h);
    rb_hist_record(&h, 1000);
    rb_job_stat_t js = {.bytes = 200 * MB, .ops = 200, .hist = &h};
    rb_job_stat_t ds[2] = {{.job = 0, .bytes = 100 * MB, .ops = 100},
                           {.job = 1, .bytes = 100 * MB, .ops = 100}};
    rb_agg_done_t whole = {.nworkers = 2,
                           .workers = w,
                           .njobs = 1,
                           .jobs = &js,
                           .ndevs = 2,
                           .devs = devs,
                           .ndev_stats = 2,
                           .dev_stats = ds};
    rb_agg_done_t cut = whole;
    cut.devs = NULL;
    rb_packed_t *ids = rb_pack_array(RB_PACK_DEV, devs, 2);
    assert_non_null(ids);
    cut.dev_ids = ids;
    rb_agg_input_t in[] = {{.name = "a", .rack = "r1", .status = RB_NODE_OK, .done = &whole},
                           {.name = "b", .rack = "r1", .status = RB_NODE_OK, .done = &cut}};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&s_phase, in, 2, &a), 0);
    assert_int_equal(a.ndisks, 4);
    for (uint32_t i = 0; i < a.ndisks; i++) {
        const rb_agg_disk_t *x = &a.disks[i];
        if (strcmp(x->node, "a") != 0)
            continue;
        uint32_t j;
        for (j = 0; j < a.ndisks; j++)
            if (!strcmp(a.disks[j].node, "b") && !strcmp(a.disks[j].id.name, x->id.name))
                break;
        assert_true(j < a.ndisks);
        /* each row's whole identity is kept (block sizes too), its path in it */
        rb_dev_id_t ia, ib;
        const rb_dev_id_t *dv = &devs[x->id.name[4] - '0'];
        assert_memory_equal(rb_disks_id(&a, i, &ia), dv, sizeof *dv);
        assert_memory_equal(rb_disks_id(&a, j, &ib), dv, sizeof *dv);
        assert_string_equal(x->id.path, dv->path);
        assert_string_equal(a.disks[j].id.path, dv->path);
        assert_float_equal(a.disks[j].bw, x->bw, 1e-9);
        assert_int_equal(a.disks[j].family_n, 4);
    }
    rb_aggregate_phase_fini(&a);
    rb_packed_free(&ids);
}

/* A DONE as the coordinator keeps it until the figures (its texts copied,
 * its workers' checkpoints packed, its arrays taken over) makes the same
 * figures as the DONE itself, to the byte; it is freed with its node's
 * phase. */
static void test_done_kept(void **state)
{
    (void)state;
    rb_msg_done_t m = {.status = -5, .nworkers = 3, .workers = calloc(3, sizeof *m.workers)};
    assert_non_null(m.workers);
    snprintf(m.error, sizeof m.error, "write /x at offset 4096: Input/output error");
    snprintf(m.error_path, sizeof m.error_path, "/x");
    m.error_offset = 4096;
    snprintf(m.net_refused_by, sizeof m.net_refused_by, "10.0.0.9:41234 (no proof)");
    /* three workers of uneven progress, one of them without checkpoints */
    for (uint32_t i = 0; i < 3; i++) {
        m.workers[i] = s_worker(SEC + i * SEC / 3, 5 * SEC + i * SEC, (100 + 37 * i) * MB);
        m.workers[i].ncheckpts = i == 2 ? 0 : 40 + i;
        m.workers[i].checkpts = calloc(41, sizeof(rb_checkpt_t));
        for (uint32_t k = 0; k < m.workers[i].ncheckpts; k++)
            m.workers[i].checkpts[k] = (rb_checkpt_t){
                m.workers[i].t_start_ns + (k + 1) * SEC / 10 + k * k * 1000, k * k * 61 * 1024};
    }
    rb_agg_done_t whole = rb_agg_done_of(&m);
    rb_agg_input_t in = {.name = "n1", .rack = "r", .status = RB_NODE_OK, .done = &whole};
    rb_phase_agg_t a, b;
    assert_int_equal(rb_aggregate_phase(&s_phase, &in, 1, &a), 0);
    assert_true(a.stonewall_bw > 0);

    rb_agg_done_t *k = rb_fleet_keep_done(&m);
    assert_non_null(k);
    assert_int_equal(m.nworkers, 0);
    assert_null(m.workers);
    assert_int_equal(k->nworkers, 3);
    assert_non_null(k->cps);
    assert_true(k->cps_len < 82 * 16 / 2); /* not 16 bytes a point */
    for (uint32_t i = 0; i < 3; i++)
        assert_null(k->workers[i].checkpts);
    assert_string_equal(k->error, "write /x at offset 4096: Input/output error");
    assert_string_equal(k->net_refused_by, "10.0.0.9:41234 (no proof)");
    in.done = k;
    assert_int_equal(rb_aggregate_phase(&s_phase, &in, 1, &b), 0);
    assert_true(b.stonewall_bw == a.stonewall_bw);
    assert_true(b.stonewall_s == a.stonewall_s);
    assert_int_equal(b.nodes[0].status, RB_NODE_FAILED);
    assert_string_equal(b.nodes[0].error, "write /x at offset 4096: Input/output error");
    assert_string_equal(b.error_path, "/x");
    assert_int_equal(b.error_offset, 4096);
    rb_aggregate_phase_fini(&a);
    rb_aggregate_phase_fini(&b);

    rb_fleet_t f;
    rb_msg_hello_t h = {.name = "n1", .rack = "r"};
    rb_fleet_init(&f, 1);
    rb_fleet_node_t *n = rb_fleet_add(&f, &h, 0);
    assert_non_null(n);
    n->done[0] = k;
    rb_fleet_drop_done(n, 0);
    assert_null(n->done[0]);
    rb_fleet_fini(&f);
    rb_msg_t rest = {.type = RB_MSG_DONE, .u.done = m};
    rb_msg_fini(&rest);
}

/* Two nodes, one worker each. Node b's clock runs 100 s ahead of the coordinator.
 * w1: 0..1 s, 100 MB.  w2: 0.5..2 s, 300 MB, steady (checkpoints on a line). */
static void test_definitions(void **state)
{
    (void)state;
    rb_checkpt_t cp2[] = {
        {100 * SEC + SEC / 2, 0}, {100 * SEC + SEC, 100 * MB}, {100 * SEC + 2 * SEC, 300 * MB}};
    rb_worker_stat_t w1 = s_worker(10 * SEC, 11 * SEC, 100 * MB);
    rb_worker_stat_t w2 = s_worker(100 * SEC + 10 * SEC + SEC / 2, 100 * SEC + 12 * SEC, 300 * MB);
    for (int i = 0; i < 3; i++)
        cp2[i].t_ns += 10 * SEC;
    w2.checkpts = cp2;
    w2.ncheckpts = 3;
    rb_hist_t h1, h2;
    rb_hist_init(&h1);
    rb_hist_init(&h2);
    for (int i = 0; i < 100; i++)
        rb_hist_record(&h1, 1000);
    for (int i = 0; i < 300; i++)
        rb_hist_record(&h2, 5000);
    rb_job_stat_t j1 = {.bytes = 100 * MB, .ops = 100, .hist = &h1};
    rb_job_stat_t j2 = {.bytes = 300 * MB, .ops = 300, .hist = &h2};
    rb_agg_done_t d1 = {.nworkers = 1, .workers = &w1, .njobs = 1, .jobs = &j1};
    rb_agg_done_t d2 = {.nworkers = 1, .workers = &w2, .njobs = 1, .jobs = &j2};
    rb_agg_input_t in[] = {
        {"a", "r1", 0, RB_NODE_OK, &d1, 0, 200000, 0, 0, 0, 0, NULL},
        {"b", "r1", (int64_t)(100 * SEC), RB_NODE_OK, &d2, 0, 1000000, 0, 0, 0, 0, NULL}};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&s_phase, in, 2, &a), 0);
    assert_float_equal(a.clock_error_s, 0.0005, 1e-12); /* b's half round trip */
    /* a node that sent no DONE: its poor offset (10 ms round trip) does not count */
    rb_agg_input_t in3[] = {
        in[0], in[1], {"c", "r1", 0, RB_NODE_LOST, NULL, 0, 10000000, 0, 0, 0, 0, NULL}};
    rb_phase_agg_t a3;
    assert_int_equal(rb_aggregate_phase(&s_phase, in3, 3, &a3), 0);
    assert_float_equal(a3.clock_error_s, 0.0005, 1e-12);
    assert_float_equal(a3.start_skew_s, 0.5, 1e-9);
    rb_aggregate_phase_fini(&a3);
    assert_int_equal(a.bytes, 400 * MB);
    assert_int_equal(a.ops, 400);
    assert_int_equal(a.nworkers, 2);
    /* parent sees: 400 MB over 2 s (first start 10 s, last end 12 s) */
    assert_float_equal(a.window_s, 2.0, 1e-9);
    assert_float_equal(a.aggregate_bw, 200.0 * MB, 1);
    /* children see: 100 MB/s + 300 MB / 1.5 s */
    assert_float_equal(a.sum_of_rates_bw, 300.0 * MB, 1);
    assert_float_equal(a.worker_bw_min, 100.0 * MB, 1);
    assert_float_equal(a.worker_bw_max, 200.0 * MB, 1);
    assert_float_equal(a.worker_bw_avg, 150.0 * MB, 1);
    /* stonewall: at 11 s, w1 has 100 MB and w2 100 MB, over 1 s */
    assert_float_equal(a.stonewall_s, 1.0, 1e-9);
    assert_float_equal(a.stonewall_bw, 200.0 * MB, 1);
    assert_float_equal(a.start_skew_s, 0.5, 1e-9);
    assert_float_equal(a.iops, 200.0, 1e-6);
    assert_int_equal(a.hist.count, 400);
    assert_true(a.aggregate_bw <= a.sum_of_rates_bw);
    assert_int_equal(a.nnodes, 2);
    assert_float_equal(a.nodes[1].bw, 200.0 * MB, 1); /* 300 MB over 1.5 s */
    assert_float_equal(a.nodes[1].window_s, 1.5, 1e-9);
    assert_int_equal(a.partial, 0);
    rb_aggregate_phase_fini(&a);
    rb_aggregate_phase_fini(&a);
}

/* The coordinator merges each DONE's histograms as it arrives and frees
 * them: aggregating DONEs without histograms, then adding their sum, gives
 * the same latency figures, per job and per phase, as DONEs that kept them. */
static void test_hists_merged_on_arrival(void **state)
{
    (void)state;
    rb_job_spec_t jobs[2] = {{.name = "a", .rw = RB_RW_READ, .bs = 4096, .numjobs = 1},
                             {.name = "b", .rw = RB_RW_READ, .bs = 4096, .numjobs = 1}};
    rb_phase_spec_t ph = {.name = "p", .njobs = 2, .jobs = jobs};
    rb_hist_t h[3][2];
    rb_job_stat_t js[3][2];
    rb_worker_stat_t ws[3][2];
    rb_agg_done_t d[3];
    rb_agg_input_t in[3];
    for (int n = 0; n < 3; n++) {
        for (int j = 0; j < 2; j++) {
            rb_hist_init(&h[n][j]);
            for (int k = 0; k < 50 + 40 * n; k++)
                rb_hist_record(&h[n][j], (uint64_t)(1000 * (n + 1) * (j + 1) + 37 * k));
            js[n][j] = (rb_job_stat_t){.job = (uint32_t)j, .bytes = MB, .hist = &h[n][j]};
            js[n][j].lat[RB_DIR_READ][RB_LAT_LAT] = &h[n][j];
            ws[n][j] = s_worker(SEC, 2 * SEC, MB);
            ws[n][j].job = (uint32_t)j;
        }
        d[n] = (rb_agg_done_t){.nworkers = 2, .workers = ws[n], .njobs = 2, .jobs = js[n]};
        in[n] = (rb_agg_input_t){.name = n == 0   ? "x"
                                         : n == 1 ? "y"
                                                  : "z",
                                 .rack = "r",
                                 .done = &d[n]};
    }
    rb_phase_agg_t kept, merged;
    assert_int_equal(rb_aggregate_phase(&ph, in, 3, &kept), 0);
    rb_lat_set_t *sum = calloc(2, sizeof *sum), *node = malloc(sizeof *node);
    rb_node_lat_t nl[3];
    assert_non_null(sum);
    assert_non_null(node);
    for (int j = 0; j < 2; j++)
        rb_lat_set_init(&sum[j]);
    for (int n = 0; n < 3; n++) {
        rb_lat_set_init(node);
        for (int j = 0; j < 2; j++) {
            rb_lat_set_add_stat(&sum[j], &js[n][j]);
            rb_lat_set_add_stat(node, &js[n][j]);
            js[n][j].hist = NULL;
            js[n][j].lat[RB_DIR_READ][RB_LAT_LAT] = NULL;
        }
        rb_lat_node_of(&nl[n], node);
        in[n].lat = &nl[n]; /* as the coordinator sums each DONE on arrival */
    }
    assert_int_equal(rb_aggregate_phase(&ph, in, 3, &merged), 0);
    assert_int_equal(merged.hist.count, 0); /* nothing in the DONEs any more */
    rb_aggregate_add_hists(&merged, sum, 2);
    assert_memory_equal(merged.lat, kept.lat, sizeof kept.lat);
    for (int n = 0; n < 3; n++) {
        assert_memory_equal(&merged.nodes[n].lat, &kept.nodes[n].lat, sizeof kept.nodes[n].lat);
        assert_int_equal(merged.nodes[n].lat.all.count, 2 * (50 + 40 * n));
    }
    assert_int_equal(merged.cluster.lat.all.p99, kept.cluster.lat.all.p99);
    assert_int_equal(kept.racks[0].lat.dir[RB_DIR_READ].count, 2 * (50 + 90 + 130));
    free(sum);
    free(node);
    assert_int_equal(merged.hist.count, kept.hist.count);
    assert_int_equal(merged.hist.count, 2 * (50 + 90 + 130));
    assert_int_equal(merged.hist.min, kept.hist.min);
    assert_int_equal(merged.hist.max, kept.hist.max);
    assert_memory_equal(&merged.hist, &kept.hist, sizeof kept.hist);
    for (int j = 0; j < 2; j++) {
        assert_memory_equal(merged.jobs[j].hist, kept.jobs[j].hist, sizeof *kept.jobs[j].hist);
        assert_memory_equal(merged.jobs[j].lats, kept.jobs[j].lats, sizeof *kept.jobs[j].lats);
        assert_int_equal(rb_hist_percentile(merged.jobs[j].hist, 99),
                         rb_hist_percentile(kept.jobs[j].hist, 99));
    }
    assert_true(rb_hist_percentile(merged.jobs[1].hist, 50) >
                rb_hist_percentile(merged.jobs[0].hist, 50));
    rb_aggregate_phase_fini(&kept);
    rb_aggregate_phase_fini(&merged);
}

/* Per direction: a 70/30 mix on two racks of one node each. Each
 * direction's bytes, ops and rates add up node -> rack -> cluster over the
 * same windows as the totals; its histograms merge apart from the other's;
 * each node's latency is its own (node b is 10 x slower); summary.json
 * holds them. */
static void test_directions(void **state)
{
    (void)state;
    rb_job_spec_t job = {.name = "mix", .rw = RB_RW_RANDRW, .bs = 4096, .numjobs = 1};
    rb_phase_spec_t ph = {.name = "mix", .njobs = 1, .jobs = &job};
    rb_hist_t h[2][RB_NDIRS][RB_NLATS], all[2];
    rb_job_stat_t js[2];
    rb_worker_stat_t ws[2];
    rb_agg_done_t d[2];
    rb_agg_input_t in[2];
    for (int n = 0; n < 2; n++) {
        uint64_t slow = n ? 10 : 1;
        js[n] = (rb_job_stat_t){.bytes = 1000 * 4096, .ops = 1000, .hist = &all[n]};
        rb_hist_init(&all[n]);
        for (int dd = 0; dd < RB_NDIRS; dd++) {
            for (int k = 0; k < RB_NLATS; k++) {
                rb_hist_init(&h[n][dd][k]);
                js[n].lat[dd][k] = &h[n][dd][k];
            }
        }
        for (int i = 0; i < 1000; i++) {
            int dd = i % 10 < 7 ? RB_DIR_READ : RB_DIR_WRITE;
            uint64_t lat = slow * (dd == RB_DIR_READ ? 100000 : 300000), slat = slow * 1000;
            rb_hist_record(&all[n], lat);
            rb_hist_record(&h[n][dd][RB_LAT_LAT], lat);
            rb_hist_record(&h[n][dd][RB_LAT_SLAT], slat);
            rb_hist_record(&h[n][dd][RB_LAT_CLAT], lat - slat);
        }
        ws[n] = s_worker(SEC, 3 * SEC, 1000 * 4096);
        ws[n].ops = 1000;
        ws[n].read_bytes = 700 * 4096;
        ws[n].read_ops = 700;
        ws[n].write_bytes = 300 * 4096;
        ws[n].write_ops = 300;
        d[n] = (rb_agg_done_t){.nworkers = 1, .workers = &ws[n], .njobs = 1, .jobs = &js[n]};
        in[n] = (rb_agg_input_t){.name = n ? "b" : "a", .rack = n ? "r2" : "r1", .done = &d[n]};
    }
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&ph, in, 2, &a), 0);
    assert_int_equal(a.dir[RB_DIR_READ].bytes, 2 * 700 * 4096);
    assert_int_equal(a.dir[RB_DIR_WRITE].ops, 600);
    assert_int_equal(a.dir[RB_DIR_TRIM].ops, 0);
    assert_float_equal(a.dir[RB_DIR_READ].iops, 1400 / 2.0, 1e-9); /* over the 2 s window */
    assert_float_equal(a.dir[RB_DIR_WRITE].bw, 600 * 4096 / 2.0, 1e-6);
    assert_float_equal(a.dir[RB_DIR_READ].iops + a.dir[RB_DIR_WRITE].iops, a.iops, 1e-9);
    assert_int_equal(a.jobs[0].dir[RB_DIR_READ].ops, 1400);
    assert_int_equal(a.racks[1].dir[RB_DIR_WRITE].ops, 300);
    assert_int_equal(a.cluster.dir[RB_DIR_READ].ops, 1400);
    assert_int_equal(a.lat[RB_DIR_READ][RB_LAT_LAT].count, 1400);
    assert_int_equal(a.lat[RB_DIR_WRITE][RB_LAT_SLAT].count, 600);
    assert_int_equal(a.jobs[0].lats->dir[RB_DIR_WRITE][RB_LAT_CLAT].count, 600);
    /* reads of node a took 100 us, writes 300 us: apart, not mixed */
    assert_true(rb_hist_percentile(&a.lat[RB_DIR_READ][RB_LAT_LAT], 50) <
                rb_hist_percentile(&a.lat[RB_DIR_WRITE][RB_LAT_LAT], 50));
    const rb_node_lat_t *la = &a.nodes[0].lat, *lb = &a.nodes[1].lat;
    assert_int_equal(la->all.count, 1000);
    assert_int_equal(la->dir[RB_DIR_READ].count, 700);
    assert_true(la->dir[RB_DIR_READ].p50 > 99000 && la->dir[RB_DIR_READ].p50 < 101000);
    assert_true(lb->all.p50 > 9 * la->all.p50); /* b's own, 10 x slower */
    assert_true(lb->all.max > 2900000 && lb->all.max <= 3000000);
    assert_int_equal(a.racks[1].lat.all.p99, lb->all.p99);
    assert_int_equal(a.cluster.lat.all.count, 2000);

    /* summary.json and back */
    rb_run_result_t r = {.run_id = "t", .nphases = 1, .phases = &a, .specs = &ph};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(rb_report_json(&r, f), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"directions\""));
    assert_non_null(strstr(buf, "\"slat_hist\""));
    rb_json_t *doc = rb_json_parse(buf, len, NULL);
    assert_non_null(doc);
    const rb_json_t *p0 = rb_json_at(rb_json_get(doc, "phases"), 0);
    const rb_json_t *rd = rb_json_get(rb_json_get(p0, "directions"), "read");
    assert_int_equal((uint64_t)rb_json_num(rb_json_get(rd, "ops"), 0), 1400);
    assert_int_equal(
        rb_json_type(rb_json_get(rb_json_get(rb_json_get(p0, "directions"), "trim"), "slat_us")),
        RB_JSON_NULL);
    const rb_json_t *nb = rb_json_at(rb_json_get(p0, "nodes"), 1);
    assert_float_equal(rb_json_num(rb_json_get(rb_json_get(nb, "lat_us"), "p99.9"), 0),
                       (double)lb->all.p999 / 1e3, 1e-9);
    rb_json_free(&doc);
    free(buf);
    rb_aggregate_phase_fini(&a);
}

/* Interpolation between checkpoints, before start and after end. */
static void test_bytes_at(void **state)
{
    (void)state;
    rb_checkpt_t cp[] = {{2 * SEC, 10}, {4 * SEC, 50}};
    rb_worker_stat_t w = s_worker(1 * SEC, 5 * SEC, 60);
    w.checkpts = cp;
    w.ncheckpts = 2;
    assert_float_equal(rb_aggregate_worker_bytes_at(&w, 0, 0), 0, 1e-9);
    assert_float_equal(rb_aggregate_worker_bytes_at(&w, 0, 1 * SEC + SEC / 2), 5, 1e-9);
    assert_float_equal(rb_aggregate_worker_bytes_at(&w, 0, 3 * SEC), 30, 1e-9);
    assert_float_equal(rb_aggregate_worker_bytes_at(&w, 0, 4 * SEC + SEC / 2), 55, 1e-9);
    assert_float_equal(rb_aggregate_worker_bytes_at(&w, 0, 9 * SEC), 60, 1e-9);
    /* the same on a node whose clock is 1 s behind */
    assert_float_equal(rb_aggregate_worker_bytes_at(&w, -(int64_t)SEC, 4 * SEC), 30, 1e-9);
}

/* A node without DONE, and one that failed: the phase is partial, the others count. */
static void test_partial(void **state)
{
    (void)state;
    rb_worker_stat_t w1 = s_worker(SEC, 2 * SEC, 10 * MB);
    rb_agg_done_t d1 = {.nworkers = 1, .workers = &w1};
    rb_agg_done_t d3 = {
        .status = -5, .nworkers = 0, .error = "write /x at offset 0: Input/output error"};
    rb_agg_input_t in[] = {{"a", "r", 0, RB_NODE_OK, &d1, 0, 0, 0, 0, 0, 0, NULL},
                           {"b", "r", 0, RB_NODE_LOST, NULL, 0, 0, 0, 0, 0, 0, NULL},
                           {"c", "r", 0, RB_NODE_OK, &d3, 0, 0, 0, 0, 0, 0, NULL}};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&s_phase, in, 3, &a), 0);
    assert_int_equal(a.partial, 1);
    assert_int_equal(a.bytes, 10 * MB);
    assert_int_equal(a.nodes[1].status, RB_NODE_LOST);
    assert_int_equal(a.nodes[2].status, RB_NODE_FAILED);
    assert_string_equal(a.nodes[2].error, d3.error);
    assert_float_equal(a.aggregate_bw, 10.0 * MB, 1);
    rb_aggregate_phase_fini(&a);
}

/* A node lost mid-phase sent no DONE, but its samples of the phase hold
 * 6 MB in 3 s: its row shows them (it said 0 B, issue 19 item 9); the
 * phase's figures and the roll-ups count only the node that reported. */
static void test_lost_node_bytes_from_samples(void **state)
{
    (void)state;
    rb_worker_stat_t w1 = s_worker(SEC, 2 * SEC, 10 * MB);
    rb_agg_done_t d1 = {.nworkers = 1, .workers = &w1};
    rb_agg_input_t in[] = {{"a", "r", 0, RB_NODE_OK, &d1, 0, 0, 0, 0, 0, 0, NULL},
                           {.name = "b",
                            .rack = "r",
                            .status = RB_NODE_LOST,
                            .sampled_bytes = 6 * MB,
                            .sampled_ops = 6,
                            .sampled_first_ns = SEC,
                            .sampled_last_ns = 4 * SEC}};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&s_phase, in, 2, &a), 0);
    assert_int_equal(a.partial, 1);
    assert_int_equal(a.nodes[1].status, RB_NODE_LOST);
    assert_int_equal(a.nodes[1].bytes, 6 * MB);
    assert_int_equal(a.nodes[1].ops, 6);
    assert_float_equal(a.nodes[1].window_s, 3.0, 1e-9);
    assert_float_equal(a.nodes[1].bw, 2.0 * MB, 1);
    assert_int_equal(a.nodes[1].workers, 0);
    assert_int_equal(a.bytes, 10 * MB);
    assert_float_equal(a.aggregate_bw, 10.0 * MB, 1);
    assert_int_equal(a.cluster.nodes, 1);
    assert_int_equal(a.cluster.bytes, 10 * MB);
    rb_aggregate_phase_fini(&a);
}

/* stonewall_time: two workers stopped at their stonewall (4 s after a 10 s
 * start) with 40 and 30 ops, wear-out took both to 40; a third finished
 * first with 10. The stonewall figure counts what was done at the stops. */
static void test_stonewall_time(void **state)
{
    (void)state;
    rb_job_spec_t j = s_job;
    j.stonewall_ns = 4 * SEC;
    j.wearout = 1;
    rb_phase_spec_t ph = {.name = "w", .njobs = 1, .jobs = &j};
    rb_worker_stat_t w[3] = {s_worker(10 * SEC, 16 * SEC, 40 * MB),
                             s_worker(10 * SEC, 17 * SEC, 40 * MB),
                             s_worker(10 * SEC, 12 * SEC, 10 * MB)};
    w[0].sw_t_ns = 14 * SEC;
    w[0].sw_ops = 40;
    w[0].sw_bytes = 40 * MB;
    w[1].sw_t_ns = 14 * SEC;
    w[1].sw_ops = 30;
    w[1].sw_bytes = 30 * MB;
    w[1].worker = 1;
    w[2].worker = 2;
    rb_agg_done_t d = {.nworkers = 3, .workers = w};
    rb_agg_input_t in[] = {{"a", "r", 0, RB_NODE_OK, &d, 0, 0, 0, 0, 0, 0, NULL}};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&ph, in, 1, &a), 0);
    assert_int_equal(a.sw_limit_ns, 4 * SEC);
    assert_true(a.wearout);
    assert_int_equal(a.sw_stopped, 2);
    assert_int_equal(a.sw_bytes, 80 * MB);
    assert_int_equal(a.sw_ops, 80);
    assert_int_equal(a.sw_ops_min, 10);
    assert_int_equal(a.sw_ops_max, 40);
    assert_float_equal(a.sw_s, 4.0, 1e-9);
    assert_float_equal(a.sw_bw, 20.0 * MB, 1e-3);
    /* the phase's own figures are the wear-out's: 90 MB in 7 s */
    assert_int_equal(a.bytes, 90 * MB);
    assert_float_equal(a.window_s, 7.0, 1e-9);
    rb_aggregate_phase_fini(&a);
}

/* The judgement on the phase's own working set (before a run: no sizes settled). */
static int s_cache(const rb_phase_spec_t *ph, uint64_t ram, int dropped)
{
    return rb_aggregate_cache_influenced(ph, rb_aggregate_phase_buffered_set(ph, NULL), ram,
                                         dropped);
}

/* The burn-in lesson: a buffered working set under twice the memory
 * measures the page cache; direct IO, a set of 2x memory, a dropped cache
 * before a single read pass, and synced writes do not. */
static void test_cache_influenced(void **state)
{
    (void)state;
    const uint64_t G = 1ULL << 30;
    rb_job_spec_t j = {.name = "r",
                       .rw = RB_RW_READ,
                       .bs = 1 << 20,
                       .size = G,
                       .numjobs = 4,
                       .nrfiles = 1,
                       .loops = 1};
    rb_phase_spec_t ph = {.name = "r", .njobs = 1, .jobs = &j};
    assert_int_equal(rb_aggregate_phase_buffered_set(&ph, NULL), 4 * G);
    assert_true(s_cache(&ph, 24 * G, 0)); /* 4 GiB on 24 GiB */
    assert_false(s_cache(&ph, 2 * G, 0)); /* 4 GiB = 2 x 2 GiB */
    assert_true(s_cache(&ph, 2 * G + 1, 0));
    assert_false(s_cache(&ph, 24 * G, 1)); /* dropped, read once */
    j.loops = 2;
    assert_true(s_cache(&ph, 24 * G, 1)); /* the second pass is cached */
    j.loops = 1;
    j.direct = 1;
    assert_int_equal(rb_aggregate_phase_buffered_set(&ph, NULL), 0);
    assert_false(s_cache(&ph, 24 * G, 0));
    j.direct = 0;
    j.rw = RB_RW_WRITE;
    assert_true(s_cache(&ph, 24 * G, 1));
    j.end_fsync = 1;
    assert_false(s_cache(&ph, 24 * G, 0)); /* the flush is timed */
    j.shared_file = 1;                     /* this node's regions only */
    assert_int_equal(rb_aggregate_phase_buffered_set(&ph, NULL), 4 * G);
    j.shared_file = 0;
    snprintf(j.filename, sizeof j.filename, "one");
    assert_int_equal(rb_aggregate_phase_buffered_set(&ph, NULL), G);
    /* in a run: the node with the least memory decides, and drops are counted */
    j.filename[0] = '\0';
    j.rw = RB_RW_READ;
    j.end_fsync = 0;
    rb_worker_stat_t w = s_worker(SEC, 2 * SEC, G);
    rb_agg_done_t d1 = {.nworkers = 1, .workers = &w, .caches_dropped = 1};
    rb_agg_done_t d2 = {.nworkers = 1, .workers = &w, .drop_status = -13};
    rb_agg_input_t in[] = {{"a", "r", 0, RB_NODE_OK, &d1, 64 * G, 0, 0, 0, 0, 0, NULL},
                           {"b", "r", 0, RB_NODE_OK, &d2, 3 * G, 0, 0, 0, 0, 0, NULL}};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&ph, in, 2, &a), 0);
    assert_int_equal(a.ram_min, 3 * G);
    assert_true(a.cache_influenced); /* 4 GiB < 6 GiB, and b could not drop */
    assert_int_equal(a.caches_dropped, 1);
    assert_int_equal(a.drop_failed, 1);
    assert_int_equal(a.drop_status, -13);
    rb_aggregate_phase_fini(&a);
    /* a file whose size its agent settled (size 0): DONE's filesize counts,
     * the largest any node reports; without it the set is unknown (0) */
    j.size = 0;
    j.filesize = 0;
    snprintf(j.filename, sizeof j.filename, "there");
    j.existing = 1;
    assert_int_equal(rb_aggregate_phase_buffered_set(&ph, NULL), 0);
    rb_job_stat_t st1 = {.job = 0, .filesize = 64 << 20}, st2 = {.job = 0, .filesize = 96 << 20};
    d1.njobs = d2.njobs = 1;
    d1.jobs = &st1;
    d2.jobs = &st2;
    assert_int_equal(rb_aggregate_phase(&ph, in, 2, &a), 0);
    assert_int_equal(a.buffered_set, 96 << 20);
    assert_true(a.cache_influenced); /* 96 MiB read through the cache */
    rb_aggregate_phase_fini(&a);
}

/* Node -> rack -> cluster: sums equal the nodes' sums, each rack's window
 * is its own, spreads are over its nodes. */
static void test_rollups(void **state)
{
    (void)state;
    rb_worker_stat_t w[4] = {s_worker(SEC, 2 * SEC, 100 * MB), s_worker(SEC, 3 * SEC, 300 * MB),
                             s_worker(2 * SEC, 3 * SEC, 200 * MB),
                             s_worker(SEC, 5 * SEC, 100 * MB)};
    rb_agg_done_t d[4];
    rb_agg_input_t in[4];
    const char *names[] = {"a1", "a2", "b1", "b2"}, *racks[] = {"ra", "ra", "rb", "rb"};
    for (int i = 0; i < 4; i++) {
        d[i] = (rb_agg_done_t){.nworkers = 1, .workers = &w[i]};
        in[i] = (rb_agg_input_t){
            .name = names[i], .rack = racks[i], .status = RB_NODE_OK, .done = &d[i]};
    }
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&s_phase, in, 4, &a), 0);
    assert_int_equal(a.nracks, 2);
    assert_string_equal(a.racks[0].name, "ra");
    assert_string_equal(a.racks[1].name, "rb");
    assert_int_equal(a.racks[0].bytes + a.racks[1].bytes, a.bytes);
    assert_int_equal(a.cluster.bytes, a.bytes);
    assert_int_equal(a.cluster.nodes, 4);
    /* ra: 400 MB over 1..3 s; nodes at 100 and 150 MB/s */
    assert_float_equal(a.racks[0].aggregate_bw, 200.0 * MB, 1e-3);
    assert_float_equal(a.racks[0].node_bw_median, 125.0 * MB, 1e-3);
    /* rb: 300 MB over 1..5 s; nodes at 200 and 25 MB/s */
    assert_float_equal(a.racks[1].aggregate_bw, 75.0 * MB, 1e-3);
    assert_float_equal(a.racks[1].node_bw_min, 25.0 * MB, 1e-3);
    assert_float_equal(a.racks[1].node_bw_max, 200.0 * MB, 1e-3);
    /* the cluster: 700 MB over 1..5 s, median of 25, 100, 150, 200 */
    assert_float_equal(a.cluster.aggregate_bw, 175.0 * MB, 1e-3);
    assert_float_equal(a.cluster.node_bw_median, 125.0 * MB, 1e-3);
    assert_float_equal(a.cluster.aggregate_bw, a.aggregate_bw, 1e-3);
    rb_aggregate_phase_fini(&a);
}

/* A drive's burst then its steady rate: 2.7 GB/s for 3 s, then 1.3-1.5. */
static void test_steady(void **state)
{
    (void)state;
    double b[] = {0.5e9, 2.7e9, 2.7e9, 2.6e9, 1.4e9, 1.3e9, 1.5e9, 1.4e9, 1.5e9};
    rb_phase_agg_t a = {0};
    rb_aggregate_steady(&a, b, NULL, 9, 1.0, 1.0); /* the first second is ramp-up */
    assert_int_equal(a.steady.intervals, 8);
    assert_float_equal(a.steady.peak_bw, 2.7e9, 1);
    assert_float_equal(a.steady.min_bw, 1.3e9, 1);
    assert_float_equal(a.steady.median_bw, 1.5e9, 1);    /* of 1.3 1.4 1.4 1.5 1.5 2.6 2.7 2.7 */
    assert_float_equal(a.steady.sustained_s, 3.0, 1e-9); /* 2.7, 2.7, 2.6 >= 2.43 */
    double h[] = {1e9, 2e9, 2e9};
    rb_aggregate_steady(&a, h, NULL, 3, 0.5, 0);
    assert_float_equal(a.steady.peak_bw, 4e9, 1);
    assert_float_equal(a.steady.sustained_s, 1.0, 1e-9);
    rb_aggregate_steady(&a, NULL, NULL, 0, 1.0, 0);
    assert_int_equal(a.steady.intervals, 0);
    /* measured durations: a tail of 0.2 s is left out, a 0.8 s interval counts */
    double t[] = {1.0, 0.8, 0.2};
    rb_aggregate_steady(&a, h, t, 3, 1.0, 0);
    assert_int_equal(a.steady.intervals, 2);
    assert_float_equal(a.steady.peak_bw, 2.5e9, 1);
}

/* compare's noise: the interquartile range over the median of the
 * per-interval values; too few values, or a median of 0, cannot tell. */
static void test_spread(void **state)
{
    (void)state;
    double v[] = {110, 90, 100, 100, 120, 80, 100, 5000, 100}; /* one burst */
    /* sorted 80 90 100 100 100 100 110 120 5000: p25 100, median 100, p75 110 */
    double s = rb_compare_spread(v, 9);
    assert_float_equal(s, (110.0 - 100.0) / 100.0, 1e-9);
    double few[] = {1, 2};
    assert_true(rb_compare_spread(few, 2) < 0);
    double zero[] = {0, 0, 0, 0};
    assert_true(rb_compare_spread(zero, 4) < 0);
    double flat[] = {5, 5, 5};
    assert_float_equal(rb_compare_spread(flat, 3), 0, 0);
}

/* A phase of four nodes at the given bandwidths (bytes over 1 s each). */
/* A read disk of node, serial, with reallocated sectors. */
static rb_health_t s_disk(const char *dev, const char *serial, uint64_t reallocated)
{
    rb_health_t h = {.protocol = "ATA", .verdict = RB_SMART_PASSED, .reallocated = reallocated};
    snprintf(h.dev, sizeof h.dev, "%s", dev);
    snprintf(h.model, sizeof h.model, "M");
    snprintf(h.serial, sizeof h.serial, "%s", serial);
    h.pending = h.offline_unc = h.crc_errors = h.error_log = 0;
    h.media_errors = h.critical_warning = h.percentage_used = RB_HEALTH_NA;
    h.available_spare = h.spare_threshold = h.temperature = h.temperature_max = RB_HEALTH_NA;
    h.power_on_hours = RB_HEALTH_NA;
    return h;
}

/* Why a drive was not read, as the reports say it: its reading's reason,
 * a reading missing before or after (its agent did not end the run), and
 * another drive after the run (a reason made for it, freed with the list). */
static void test_drive_reasons(void **state)
{
    (void)state;
    rb_health_t before[3] = {s_disk("/dev/sda", "S1", 0), s_disk("/dev/sdb", "S2", 0),
                             s_disk("/dev/sdc", "S3", 0)};
    rb_health_t after[2] = {s_disk("/dev/sda", "S7", 0), s_disk("/dev/sdc", "S3", 0)};
    snprintf(after[1].reason, sizeof after[1].reason, "smartctl took more than 30 s, killed");
    rb_health_t only_after = s_disk("/dev/sdz", "S9", 0);
    rb_report_node_t nodes[2] = {{.protocol = 27}, {.protocol = 26}};
    snprintf(nodes[0].name, sizeof nodes[0].name, "a");
    snprintf(nodes[1].name, sizeof nodes[1].name, "b");
    nodes[0].health[0] = before;
    nodes[0].nhealth[0] = 3;
    nodes[0].health[1] = after;
    nodes[0].nhealth[1] = 2;
    nodes[1].health[1] = &only_after;
    nodes[1].nhealth[1] = 1;
    rb_run_result_t r = {.nodes = nodes, .nnodes = 2};
    rb_drives_t d;
    assert_int_equal(rb_drives_build(&r, &d), 0);
    assert_int_equal(d.n, 4);
    const char *want[][2] = {
        {"/dev/sda", "another drive after the run: serial S1 before, S7 after"},
        {"/dev/sdb", "no reading after the run (its agent did not end the run)"},
        {"/dev/sdc", "smartctl took more than 30 s, killed"},
        {"/dev/sdz", "no reading before the run"}};
    for (int k = 0; k < 4; k++) {
        uint32_t i = 0;
        while (i < d.n && strcmp(rb_drive_last(&d.d[i])->dev, want[k][0]))
            i++;
        assert_true(i < d.n);
        assert_int_equal(d.d[i].status, RB_DRIVE_NOT_READ);
        assert_string_equal(d.d[i].reason, want[k][1]);
    }
    rb_drives_fini(&d);
    rb_drives_fini(&d);
}

/* compare's drive health (issue 36): the same node, device and serial
 * after each run; a counter that grew, a disk not read, a disk replaced (the
 * same place, another serial) and one on a node of one run only; nothing
 * from runs whose agents read no drive. */
static void test_compare_drives(void **state)
{
    (void)state;
    static rb_loaded_run_t run[2];
    static rb_report_node_t nodes[2][2];
    /* [run][reading][disk]: sda grows 0 -> 8 in run 1, sdb is not read
     * after run 1, sdc is replaced; b's sdd is in run 1 only */
    static rb_health_t h[2][2][3];
    for (int r = 0; r < 2; r++) {
        memset(&run[r], 0, sizeof run[r]);
        snprintf(run[r].res.run_id, sizeof run[r].res.run_id, "run-%d", r);
        for (int k = 0; k < 2; k++) {
            h[r][k][0] = s_disk("/dev/sda", "S1", r ? 8 : 0);
            h[r][k][1] = s_disk("/dev/sdb", "S2", 3);
            h[r][k][2] = s_disk("/dev/sdc", r ? "S9" : "S3", 0);
        }
        snprintf(nodes[r][0].name, sizeof nodes[r][0].name, "a");
        snprintf(nodes[r][1].name, sizeof nodes[r][1].name, "b");
        nodes[r][0].protocol = nodes[r][1].protocol = 27;
        for (int k = 0; k < 2; k++) {
            nodes[r][0].health[k] = h[r][k];
            nodes[r][0].nhealth[k] = 3;
        }
        run[r].res.nodes = nodes[r];
        run[r].res.nnodes = 2;
    }
    snprintf(h[1][1][1].reason, sizeof h[1][1][1].reason, "smartctl took more than 30 s, killed");
    static rb_health_t sdd[2];
    sdd[0] = sdd[1] = s_disk("/dev/sdd", "S4", 0);
    nodes[1][1].health[0] = &sdd[0];
    nodes[1][1].health[1] = &sdd[1];
    nodes[1][1].nhealth[0] = nodes[1][1].nhealth[1] = 1;

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(rb_compare(&run[0], &run[1], 0, f), 0);
    fclose(f);
    assert_non_null(strstr(out, "\ndrive health  (each drive's counters after run-0 against after "
                                "run-1: 2 drives in both, 1 grew, 1 only before, 2 only after)\n"
                                "  GREW a /dev/sda (M, serial S1): reallocated 0 -> 8\n"
                                "  NOT READ a /dev/sdb (M, serial S2): smartctl took more than "
                                "30 s, killed\n"
                                "  ONLY BEFORE a /dev/sdc (M, serial S3)\n"
                                "  ONLY AFTER a /dev/sdc (M, serial S9)\n"
                                "  ONLY AFTER b /dev/sdd (M, serial S4)\n"));
    free(out);
    f = open_memstream(&out, &len);
    assert_int_equal(rb_compare(&run[0], &run[1], 1, f), 0);
    fclose(f);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(out, len, &err);
    assert_non_null(j);
    assert_int_equal(rb_json_get_u64(rb_json_get(j, "drive_health"), "drives_grew"), 1);
    assert_string_equal(rb_json_str(rb_json_path(j, "drive_health.grew.0.serial")), "S1");
    assert_string_equal(rb_json_str(rb_json_path(j, "drive_health.grew.0.counters.0.name")),
                        "reallocated");
    assert_int_equal(rb_json_num(rb_json_path(j, "drive_health.grew.0.counters.0.before"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_path(j, "drive_health.grew.0.counters.0.after"), -1), 8);
    assert_null(rb_json_str(rb_json_path(j, "drive_health.not_read.0.before")));
    assert_non_null(strstr(rb_json_str(rb_json_path(j, "drive_health.not_read.0.after")), "30 s"));
    assert_string_equal(rb_json_str(rb_json_path(j, "drive_health.only_before.0.serial")), "S3");
    assert_int_equal(rb_json_len(rb_json_path(j, "drive_health.only_after")), 2);
    rb_json_free(&j);
    free(out);
    /* runs whose agents read no drive: no part, null in JSON */
    for (int r = 0; r < 2; r++)
        for (int n = 0; n < 2; n++) {
            nodes[r][n].protocol = 26;
            nodes[r][n].nhealth[0] = nodes[r][n].nhealth[1] = 0;
        }
    f = open_memstream(&out, &len);
    assert_int_equal(rb_compare(&run[0], &run[1], 0, f), 0);
    fclose(f);
    assert_null(strstr(out, "drive health"));
    free(out);
    f = open_memstream(&out, &len);
    assert_int_equal(rb_compare(&run[0], &run[1], 1, f), 0);
    fclose(f);
    j = rb_json_parse(out, len, &err);
    assert_non_null(j);
    assert_int_equal(rb_json_type(rb_json_get(j, "drive_health")), RB_JSON_NULL);
    rb_json_free(&j);
    free(out);
}

static void s_four(rb_phase_agg_t *a, const double bw[4])
{
    memset(a, 0, sizeof *a);
    a->nnodes = 4;
    a->nodes = calloc(4, sizeof *a->nodes);
    for (int i = 0; i < 4; i++) {
        snprintf(a->nodes[i].name, sizeof a->nodes[i].name, "n%d", i + 1);
        a->nodes[i].workers = 1;
        a->nodes[i].window_s = 1;
        a->nodes[i].bw = bw[i];
    }
}

/* One node at 60% of the others is a straggler, and since when; all within
 * 5% of each other, none; fewer than three nodes, no verdict. */
static void test_stragglers(void **state)
{
    (void)state;
    rb_phase_agg_t a;
    const double slow[4] = {100 * MB, 101 * MB, 60 * MB, 99 * MB};
    s_four(&a, slow);
    /* per interval: n3 keeps up for 2 s, then lags from the third second on */
    double s1[] = {100, 100, 100, 100, 100}, s2[] = {101, 101, 101, 101, 101};
    double s3[] = {100, 100, 40, 40, 40}, s4[] = {99, 99, 99, 99, 99};
    const double *series[4] = {s1, s2, s3, s4};
    assert_int_equal(rb_findings_stragglers(&a, series, 5, 1.0), 0);
    assert_int_equal(a.nfindings, 1);
    assert_int_equal(a.findings[0].kind, RB_FIND_STRAGGLER);
    assert_string_equal(a.findings[0].node, "n3");
    assert_float_equal(a.findings[0].reference, 99.5 * MB, 1);
    assert_float_equal(a.findings[0].first_seen_s, 2.0, 1e-9);
    assert_non_null(strstr(a.findings[0].evidence, "60% of it"));
    assert_string_equal(rb_findings_kind_name(a.findings[0].kind), "straggler");
    rb_aggregate_phase_fini(&a);
    const double even[4] = {100 * MB, 97 * MB, 103 * MB, 95.5 * MB};
    s_four(&a, even);
    assert_int_equal(rb_findings_stragglers(&a, NULL, 0, 1.0), 0);
    assert_int_equal(a.nfindings, 0);
    rb_aggregate_phase_fini(&a);
    const double two[4] = {100 * MB, 10 * MB, 0, 0};
    s_four(&a, two);
    a.nodes[2].workers = a.nodes[3].workers = 0; /* only two nodes did IO */
    assert_int_equal(rb_findings_stragglers(&a, NULL, 0, 1.0), 0);
    assert_int_equal(a.nfindings, 0);
    rb_aggregate_phase_fini(&a);
}

/* The header line of schema as files before t_utc_ns had it: the rows
 * these tests write leave it out, and readers map columns by the header. */
static void s_header_without_utc(const rb_csv_schema_t *schema, FILE *f)
{
    char *buf = NULL, *at;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    assert_int_equal(rb_csv_header(schema, m), 0);
    fclose(m);
    if ((at = strstr(buf, ",t_utc_ns")))
        memmove(at, at + strlen(",t_utc_ns"), strlen(at + strlen(",t_utc_ns")) + 1);
    if ((at = strstr(buf, "lat_max_us,"))) /* nor the direction columns after it */
        strcpy(at, "lat_max_us\n");
    fputs(buf, f);
    free(buf);
}

/* dir/telemetry.csv made anew with its header line, its path into path. */
static FILE *s_tel_csv(const char *dir, char *path, size_t len)
{
    snprintf(path, len, "%s/telemetry.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    s_header_without_utc(&rb_csv_telemetry, f);
    return f;
}

/* A telemetry.csv for phase "w" of nodes n1..n4 (s_four): over 5 intervals
 * of 1 s, n1's md0 has four members, sda at 90% and the others at 60%; n1's
 * host is CPU-bound; n2's eth0 runs at its link speed; n3's vda is always
 * busy and wrote half of what its node reported. */
static void s_write_telemetry(const char *dir)
{
    char path[512];
    FILE *f = s_tel_csv(dir, path, sizeof path);
    for (int k = 1; k <= 5; k++) {
        const char *disks[] = {"sda", "sdb", "sdc", "sdd"};
        fprintf(f, "%d,w,n1,dev,md0,,0,0,400000000,0,400,70,4,3,0,400000000,,,,,,,,,,,,,,\n", k);
        for (int d = 0; d < 4; d++)
            fprintf(f, "%d,w,n1,dev,%s,md0,1,0,100000000,0,100,%d,1,3,0,100000000,,,,,,,,,,,,,,\n",
                    k, disks[d], d ? 60 : 90);
        fprintf(f, "%d,w,n1,host,,,,,,,,,,,,,,,,60.0,38.0,0,2,0,2,2.0,1000,0,0,0\n", k);
        fprintf(f, "%d,w,n2,nic,eth0,,,,,,,,,,,,1200000000,50000000,10000,,,,,,,,,,,\n", k);
        fprintf(f, "%d,w,n2,host,,,,,,,,,,,,,,,,10.0,10.0,0,80,0,2,2.0,1000,0,0,0\n", k);
        fprintf(f, "%d,w,n3,dev,vda,,0,0,50000000,0,50,99,8,9,0,50000000,,,,,,,,,,,,,,\n", k);
    }
    fclose(f);
}

/* What telemetry shows: exactly one imbalanced member (the 90% among 60%),
 * a CPU-bound and a NIC-bound node, a busy device, and a device that wrote
 * half of what its engines said; per device medians in a->devs. */
static void test_telemetry_findings(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-tel.XXXXXX";
    assert_non_null(mkdtemp(dir));
    s_write_telemetry(dir);
    rb_phase_agg_t a;
    const double bw[4] = {400 * MB, 400 * MB, 500 * MB, 400 * MB};
    s_four(&a, bw);
    snprintf(a.name, sizeof a.name, "w");
    for (int i = 0; i < 4; i++) {
        a.nodes[i].workers = 2;
        a.nodes[i].bytes = 500000000; /* n3: its vda counted 250 MB */
    }
    rb_job_spec_t j = {.name = "w", .rw = RB_RW_WRITE, .direct = 1, .ioengine = "libaio"};
    rb_phase_spec_t ph = {.name = "w", .njobs = 1, .jobs = &j};
    const char *hosts[] = {"h1", "h2", "h3", "h4"};
    assert_int_equal(rb_result_find_from_telemetry(&a, &ph, dir, 1.0, hosts), 0);
    int imb = 0, cpu = 0, nic = 0, busy = 0, honest = 0;
    for (uint32_t i = 0; i < a.nfindings; i++) {
        const rb_finding_t *f = &a.findings[i];
        if (f->kind == RB_FIND_IMBALANCE) {
            imb++;
            assert_string_equal(f->node, "n1");
            assert_string_equal(f->device, "sda");
            assert_float_equal(f->value, 90, 1e-9);
            assert_float_equal(f->reference, 60, 1e-9);
        } else if (f->kind == RB_FIND_CPU_BOUND) {
            cpu++;
            assert_string_equal(f->node, "n1");
        } else if (f->kind == RB_FIND_NIC_BOUND) {
            nic++;
            assert_string_equal(f->device, "eth0");
        } else if (f->kind == RB_FIND_DEVICE_BOUND) {
            busy++;
            assert_string_equal(f->device, "vda");
        } else if (f->kind == RB_FIND_HONESTY) {
            honest++;
            assert_string_equal(f->node, "h3");
            assert_float_equal(f->value, 250e6, 1);
            assert_non_null(strstr(f->evidence, "moved less than reported"));
        }
    }
    assert_int_equal(imb, 1);
    assert_int_equal(cpu, 1);
    assert_int_equal(nic, 1);
    assert_int_equal(busy, 1);
    /* n1's md0 counted 2 GB against 500 MB reported: more is other IO, not a finding */
    assert_int_equal(honest, 1);
    assert_int_equal(a.ndevs, 6);
    assert_string_equal(a.devs[1].device, "sda");
    assert_float_equal(a.devs[1].util_median, 90, 1e-9);
    assert_int_equal(a.devs[0].wr_bytes, 2000000000);
    rb_aggregate_phase_fini(&a);
    /* the same members all within 5% of each other: no imbalance */
    char path[512];
    FILE *f = s_tel_csv(dir, path, sizeof path);
    for (int k = 1; k <= 5; k++)
        for (int d = 0; d < 4; d++)
            fprintf(f, "%d,w,n1,dev,sd%c,md0,1,0,1,0,1,%d,1,3,0,1,,,,,,,,,,,,,,\n", k, 'a' + d,
                    60 + d);
    fclose(f);
    s_four(&a, bw);
    snprintf(a.name, sizeof a.name, "w");
    assert_int_equal(rb_result_find_from_telemetry(&a, &ph, dir, 1.0, hosts), 0);
    assert_int_equal(a.nfindings, 0);
    rb_aggregate_phase_fini(&a);
    unlink(path);
    rmdir(dir);
}

/* The clock offset comes from the probe with the smallest round trip. */
static void test_clock_offset(void **state)
{
    (void)state;
    rb_fleet_t f;
    rb_msg_hello_t h = {.name = "n1", .rack = "r"};
    rb_fleet_init(&f, 1);
    rb_fleet_node_t *n = rb_fleet_add(&f, &h, 0);
    assert_non_null(n);
    /* true offset +500: agent reads t+500 at the probe's midpoint */
    rb_fleet_node_clock_sample(n, 1000, 1000 + 400 + 500, 1800); /* rtt 800, asymmetric */
    rb_fleet_node_clock_sample(n, 5000, 5000 + 50 + 500, 5100);  /* rtt 100, symmetric */
    rb_fleet_node_clock_sample(n, 9000, 9000 + 10 + 500, 9600);  /* rtt 600 */
    assert_int_equal(n->pings, 3);
    assert_int_equal(n->best_rtt_ns, 100);
    assert_int_equal(n->offset_ns, 500);
    /* an agent behind the coordinator gives a negative offset */
    rb_fleet_node_clock_sample(n, 20000, 20000 + 20 - 7000, 20040);
    assert_int_equal(n->offset_ns, -7000);
    assert_ptr_equal(rb_fleet_find(&f, "n1"), n);
    assert_null(rb_fleet_find(&f, "n2"));
    rb_fleet_fini(&f);
    rb_fleet_fini(&f);
}

/* Scale out: nodes are found by name and counted by state without a walk
 * over the fleet, also after the fleet grows and after it is reordered. */
static int s_by_name_desc(const void *a, const void *b)
{
    return strcmp(((const rb_fleet_node_t *)b)->hello.name,
                  ((const rb_fleet_node_t *)a)->hello.name);
}

static void test_fleet_scale(void **state)
{
    (void)state;
    enum { N = 5000 };
    rb_fleet_t f;
    rb_msg_hello_t h = {.rack = "r"};
    char name[RB_NAME_MAX];
    rb_fleet_init(&f, 2);
    for (uint32_t i = 0; i < N; i++) {
        snprintf(h.name, sizeof h.name, "node-%05u", i);
        assert_non_null(rb_fleet_add(&f, &h, 0));
    }
    assert_int_equal(rb_fleet_count(&f, RB_AGENT_SYNCING), N);
    for (uint32_t i = 0; i < N; i += 2)
        rb_fleet_node_set_state(&f.nodes[i], RB_AGENT_RUNNING);
    rb_fleet_node_out(&f.nodes[1], RB_NODE_LOST, "gone");
    assert_int_equal(rb_fleet_count(&f, RB_AGENT_RUNNING), N / 2);
    assert_int_equal(rb_fleet_count(&f, RB_AGENT_SYNCING), N / 2 - 1);
    assert_int_equal(rb_fleet_active(&f), N - 1);
    qsort(f.nodes, f.n, sizeof *f.nodes, s_by_name_desc);
    rb_fleet_reindex(&f);
    for (uint32_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "node-%05u", i);
        rb_fleet_node_t *n = rb_fleet_find(&f, name);
        assert_non_null(n);
        assert_string_equal(n->hello.name, name);
        assert_int_equal(n - f.nodes, N - 1 - i);
    }
    assert_null(rb_fleet_find(&f, "node-5000"));
    assert_null(rb_fleet_find(&f, ""));
    rb_fleet_fini(&f);
    assert_null(rb_fleet_find(&f, "node-00001"));
}

/* The nodes' name index finds every node and says when one is missing. */
static void test_node_lookup(void **state)
{
    (void)state;
    rb_agg_node_t nodes[4] = {{.name = "c"}, {.name = "a"}, {.name = "d"}, {.name = "b"}};
    rb_aggregate_name_idx_t *by = rb_aggregate_nodes_by_name(nodes, 4);
    assert_non_null(by);
    assert_int_equal(rb_aggregate_node_lookup(by, 4, "a"), 1);
    assert_int_equal(rb_aggregate_node_lookup(by, 4, "b"), 3);
    assert_int_equal(rb_aggregate_node_lookup(by, 4, "c"), 0);
    assert_int_equal(rb_aggregate_node_lookup(by, 4, "d"), 2);
    assert_int_equal(rb_aggregate_node_lookup(by, 4, "e"), 4);
    rb_aggregate_name_idx_destroy(by);
    by = rb_aggregate_nodes_by_name(nodes, 0);
    assert_int_equal(rb_aggregate_node_lookup(by, 0, "a"), 0);
    rb_aggregate_name_idx_destroy(by);
}

/* Honesty per host: n1, n3 and n4 share host "hb" and its vda, which each
 * saw over its own window (300, 500, 400 MB: the most, 500 MB, is what the
 * host's vda did) against 1.5 GB their engines reported: a finding for hb,
 * at a third. n2 alone on "ha" wrote what it said: none. Hosts in an order
 * that is not the nodes': the finding names hb once, after ha's nodes. */
static void test_honesty_shared_host(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-hon.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    FILE *f = s_tel_csv(dir, path, sizeof path);
    const char *node[] = {"n1", "n2", "n3", "n4"};
    const unsigned mb[] = {300, 500, 500, 400};
    for (int n = 0; n < 4; n++)
        fprintf(f, "1,w,%s,dev,vda,,0,0,1,0,1,50,1,1,0,%u000000,,,,,,,,,,,,,,\n", node[n], mb[n]);
    fclose(f);
    rb_phase_agg_t a;
    const double bw[4] = {500 * MB, 500 * MB, 500 * MB, 500 * MB};
    s_four(&a, bw);
    snprintf(a.name, sizeof a.name, "w");
    for (int i = 0; i < 4; i++)
        a.nodes[i].bytes = 500000000;
    rb_job_spec_t j = {.name = "w", .rw = RB_RW_WRITE, .direct = 1, .ioengine = "libaio"};
    rb_phase_spec_t ph = {.name = "w", .njobs = 1, .jobs = &j};
    const char *hosts[] = {"hb", "ha", "hb", "hb"};
    assert_int_equal(rb_result_find_from_telemetry(&a, &ph, dir, 1.0, hosts), 0);
    uint32_t honest = 0;
    for (uint32_t i = 0; i < a.nfindings; i++) {
        const rb_finding_t *x = &a.findings[i];
        if (x->kind != RB_FIND_HONESTY)
            continue;
        honest++;
        assert_string_equal(x->node, "hb");
        assert_float_equal(x->value, 500e6, 1);
        assert_float_equal(x->reference, 1500e6, 1);
        assert_non_null(strstr(x->evidence, "(33%)"));
    }
    assert_int_equal(honest, 1);
    rb_aggregate_phase_fini(&a);
    /* a read phase: the devices read nothing, so they have no say */
    j.rw = RB_RW_READ;
    s_four(&a, bw);
    snprintf(a.name, sizeof a.name, "w");
    for (int i = 0; i < 4; i++)
        a.nodes[i].bytes = 500000000;
    assert_int_equal(rb_result_find_from_telemetry(&a, &ph, dir, 1.0, hosts), 0);
    for (uint32_t i = 0; i < a.nfindings; i++)
        assert_int_not_equal(a.findings[i].kind, RB_FIND_HONESTY);
    rb_aggregate_phase_fini(&a);
    unlink(path);
    rmdir(dir);
}

/* A phase of 1,000 intervals: the series are coarsened to at most 64
 * points (means of 16 intervals), and say so; the findings are those of the
 * intervals themselves. On n1, md0's sda runs at 60% like its siblings
 * until interval 500, then at 90%; n3's vda is 99% busy with one interval
 * at 100%, and writes 100 MB a second. */
static void test_telemetry_long(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-tell.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    FILE *f = s_tel_csv(dir, path, sizeof path);
    const char *disks[] = {"sda", "sdb", "sdc", "sdd"};
    for (int k = 1; k <= 1000; k++) {
        for (int d = 0; d < 4; d++)
            fprintf(f, "%d,w,n1,dev,%s,md0,1,0,1,0,1,%d,1,3,0,1,,,,,,,,,,,,,,\n", k, disks[d],
                    d == 0 && k > 500 ? 90 : 60);
        fprintf(f, "%d,w,n3,dev,vda,,0,0,100000000,0,100,%d,8,9,0,100000000,,,,,,,,,,,,,,\n", k,
                k == 700 ? 100 : 99);
    }
    fclose(f);
    rb_phase_agg_t a;
    const double bw[4] = {100 * MB, 100 * MB, 100 * MB, 100 * MB};
    s_four(&a, bw);
    snprintf(a.name, sizeof a.name, "w");
    rb_job_spec_t j = {.name = "w", .rw = RB_RW_WRITE, .direct = 1, .ioengine = "libaio"};
    rb_phase_spec_t ph = {.name = "w", .njobs = 1, .jobs = &j};
    assert_int_equal(rb_result_find_from_telemetry(&a, &ph, dir, 1.0, NULL), 0);
    int imb = 0, busy = 0;
    for (uint32_t i = 0; i < a.nfindings; i++) {
        const rb_finding_t *x = &a.findings[i];
        if (x->kind == RB_FIND_IMBALANCE) {
            imb++;
            assert_string_equal(x->device, "sda");
            assert_float_equal(x->reference, 60, 1e-9);
            /* half the points at 90, half at 60, one mixed: the median is 90 or the mix */
            assert_true(x->value > 75 && x->value <= 90);
            /* from the point holding interval 500 (its 16 start at 496) */
            assert_float_equal(x->first_seen_s, 496, 1e-9);
            assert_non_null(strstr(x->evidence, "(median of 63 means of 16 intervals)"));
        } else if (x->kind == RB_FIND_DEVICE_BOUND) {
            busy++;
            assert_string_equal(x->device, "vda");
            assert_non_null(strstr(x->evidence, "median of 63 means of 16 intervals"));
        }
    }
    assert_int_equal(imb, 1);
    assert_int_equal(busy, 1);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < a.ndevs; i++) {
        const rb_agg_dev_t *d = &a.devs[i];
        assert_int_equal(d->intervals, 1000); /* every interval, though 63 points */
        if (!strcmp(d->device, "vda")) {
            seen++;
            assert_float_equal(d->util_max, 100, 1e-9); /* interval 700, alone */
            assert_float_equal(d->util_median, 99, 0.1);
            assert_float_equal(d->wr_bps_median, 100e6, 1);
            assert_int_equal(d->wr_bytes, 100000000000ULL);
        }
    }
    assert_int_equal(seen, 1);
    rb_aggregate_phase_fini(&a);
    unlink(path);
    rmdir(dir);
}

/* Series made with their room said ahead (rb_findings_tel_series_expect,
 * as a run does at its first sample: their points interval by interval,
 * the fleet's series apart) hold what series grown one by one hold: here
 * more series than said (node 0 and 2 have more NICs than 2 a node), over
 * 100 intervals with room for 4 (some leave the block, grow and are
 * coarsened) and for all 64 a series keeps (coarsened in the block). */
static void test_tel_series_expect(void **state)
{
    (void)state;
    const uint32_t rooms[2] = {4, 1000};
    for (int z = 0; z < 2; z++) {
        rb_findings_tel_series_t *t[2] = {rb_findings_tel_series_new(3, rooms[z]),
                                          rb_findings_tel_series_new(3, rooms[z])};
        assert_non_null(t[0]);
        assert_non_null(t[1]);
        rb_findings_tel_series_expect(t[1], 2);
        rb_findings_tel_series_expect(t[1], 5); /* said once: the first one holds */
        const uint32_t nics[3] = {3, 1, 2};
        const char *names[3] = {"eth0", "eth1", "eth2"};
        for (int k = 1; k <= 100; k++)
            for (uint32_t n = 0; n < 3; n++)
                for (int w = 0; w < 2; w++) {
                    rb_findings_tel_row_t h = {
                        .kind = 'h', .name = "", .util = 10.0 + (k * 7 + n) % 50, .ncpu = 8};
                    assert_int_equal(rb_findings_tel_series_add(t[w], n, k, 1.0, &h), 0);
                    for (uint32_t i = 0; i < nics[n]; i++) {
                        rb_findings_tel_row_t r = {.kind = 'n',
                                                   .name = names[i],
                                                   .rd = 1e6 * (k % 13 + i),
                                                   .wr = 2e6 * (k % 7 + n)};
                        assert_int_equal(rb_findings_tel_series_add(t[w], n, k, 1.0, &r), 0);
                    }
                }
        for (uint32_t n = 0; n < 3; n++) {
            rb_findings_tel_node_t o[2];
            for (int w = 0; w < 2; w++)
                assert_int_equal(rb_findings_tel_node(t[w], n, 1.0, &o[w]), 1);
            assert_int_equal(o[1].nics, o[0].nics);
            assert_true(o[1].nics > 0 && o[1].nics < 100u * nics[n]); /* coarsened */
            assert_float_equal(o[1].cpu_cores, o[0].cpu_cores, 0);
            assert_float_equal(o[1].nic_rx, o[0].nic_rx, 0);
            assert_float_equal(o[1].nic_tx, o[0].nic_tx, 0);
        }
        rb_findings_tel_series_destroy(&t[0]);
        rb_findings_tel_series_destroy(&t[1]);
    }
}

/* samples.csv of a long phase: nodes n1..n4 over 2,000 intervals of 1 s,
 * 100 MB/s each, n3 at 40 from interval 1,201 on, and a last interval of
 * 0.2 s (the tail). Each node's series comes back as 500 points of 4 s
 * (at most RB_SERIES_POINTS), the mean rates of their 4 intervals; n3 is a
 * straggler from 1,200 s. A phase of 10 intervals keeps them all. */
static void test_series_long(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-ser.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    s_header_without_utc(&rb_csv_samples, f);
    for (int k = 1; k <= 2001; k++)
        for (int n = 1; n <= 4; n++) {
            double iv = k == 2001 ? 0.2 : 1.0, rate = n == 3 && k > 1200 ? 40e6 : 100e6;
            fprintf(f, "%.3f,w,n%d,r,w,%.3f,%.0f,1,0,%.0f,1,1,1,1\n", k - 1 + iv, n, iv, rate * iv,
                    rate);
            if (k <= 10)
                fprintf(f, "%.3f,short,n%d,r,w,1.000,%d000000,1,0,1,1,1,1,1\n", (double)k, n,
                        10 * n);
        }
    fclose(f);
    rb_phase_agg_t a;
    const double bw[4] = {100 * MB, 100 * MB, 64 * MB, 100 * MB};
    s_four(&a, bw);
    double **series = NULL, point_s = 0;
    uint32_t nint = 0;
    assert_int_equal(
        rb_result_samples_node_series(dir, "w", 1.0, a.nodes, 4, &series, &nint, &point_s), 0);
    assert_int_equal(nint, 500);
    assert_float_equal(point_s, 4.0, 1e-12);
    assert_float_equal(series[0][0], 100e6, 1);
    assert_float_equal(series[0][499], 100e6, 1);
    assert_float_equal(series[2][299], 100e6, 1); /* intervals 1,197..1,200 */
    assert_float_equal(series[2][300], 40e6, 1);  /* 1,201..1,204 */
    assert_int_equal(rb_findings_stragglers(&a, (const double *const *)series, nint, point_s), 0);
    assert_int_equal(a.nfindings, 1);
    assert_string_equal(a.findings[0].node, "n3");
    assert_float_equal(a.findings[0].first_seen_s, 1200, 1e-9);
    rb_result_samples_series_free(series, 4);
    rb_aggregate_phase_fini(&a);
    s_four(&a, bw);
    assert_int_equal(
        rb_result_samples_node_series(dir, "short", 1.0, a.nodes, 4, &series, &nint, &point_s), 0);
    assert_float_equal(point_s, 1.0, 1e-12);
    assert_int_equal(nint, 10);
    assert_float_equal(series[1][0], 20e6, 1); /* interval 1, node n2 */
    assert_float_equal(series[3][9], 40e6, 1);
    rb_result_samples_series_free(series, 4);
    rb_aggregate_phase_fini(&a);
    unlink(path);
    rmdir(dir);
}

/* Nodes of one hardware against their own kind: the slow one of four alike
 * is out of their family; among nodes all alike, the straggler says it. */
static void test_node_families(void **state)
{
    (void)state;
    rb_host_t *hw[6];
    rb_nic_info_t nic = {.speed_mbps = 25000};
    rb_agg_node_t nodes[6];
    const rb_host_t *p[6];
    rb_dev_id_t disks[3] = {0};
    memset(nodes, 0, sizeof nodes);
    for (int k = 0; k < 3; k++) {
        strcpy(disks[k].model, "ST8000NM0055");
        disks[k].size = 8001563222016ull;
    }
    for (int i = 0; i < 6; i++) {
        rb_host_t head = {.cores = i < 4 ? 32 : 40,
                          /* the kernel's own share */
                          .ram_bytes = (256ull << 30) - (uint64_t)i * (3u << 20)};
        strcpy(head.cpu_model, i < 4 ? "AMD EPYC 7302" : "Intel Xeon Gold 6230");
        hw[i] = rb_host_make(&head, NULL, 0, &nic, 1, disks, i < 4 ? 3 : 2);
        assert_non_null(hw[i]);
        p[i] = hw[i];
        snprintf(nodes[i].name, sizeof nodes[i].name, "n%d", i);
        nodes[i].bytes = 1;
        nodes[i].bw = i == 2 ? 600e6 : 1000e6 + i * 5e6;
        nodes[i].window_s = 10; /* n2 lost 4 s against its family */
    }
    char key[512];
    rb_nodefam_key(hw[0], key, sizeof key);
    assert_string_equal(key, "AMD EPYC 7302, 32 cores, 256 GiB RAM, NICs 25000 Mb/s x1, "
                             "disks 3 x ST8000NM0055 7.28 TiB");
    rb_phase_agg_t a = {.nnodes = 6, .nodes = nodes};
    assert_int_equal(rb_nodefam_findings(&a, p), 0);
    assert_int_equal(a.nfindings, 1);
    assert_int_equal(a.findings[0].kind, RB_FIND_OUT_OF_FAMILY);
    assert_string_equal(a.findings[0].node, "n2");
    assert_string_equal(a.findings[0].device, "");
    assert_non_null(
        strstr(a.findings[0].evidence, "of its 4 nodes of the same hardware (AMD EPYC"));
    free(a.findings);
    /* all alike: nothing (the straggler rule covers them); unknown hardware: no family */
    for (int i = 0; i < 6; i++)
        p[i] = hw[0];
    p[5] = NULL;
    rb_phase_agg_t b = {.nnodes = 6, .nodes = nodes};
    assert_int_equal(rb_nodefam_findings(&b, p), 0);
    assert_int_equal(b.nfindings, 0);
    for (int i = 0; i < 6; i++)
        rb_host_free(&hw[i]);
}

/* Eight disks of one family, 16 MiB read from each (12 ms at the median): a
 * disk throttled to 4 MiB/s (4 s lost) is out of it; one at a quarter of the
 * median (one late wake-up of its worker on a busy host, 36 ms lost) is not;
 * neither is one of another model, alone in its family. */
static void test_disk_families(void **state)
{
    (void)state;
    rb_agg_disk_t d[9];
    memset(d, 0, sizeof d);
    for (int i = 0; i < 9; i++) {
        snprintf(d[i].node, sizeof d[i].node, "n%d", i % 3);
        static const char *path[] = {"/dev/loop0", "/dev/loop1", "/dev/loop2",
                                     "/dev/loop3", "/dev/loop4", "/dev/loop5",
                                     "/dev/loop6", "/dev/loop7", "/dev/loop8"};
        d[i].id.path = path[i];
        snprintf(d[i].id.name, sizeof d[i].id.name, "loop%d", i);
        snprintf(d[i].id.model, sizeof d[i].id.model, "%s", i == 8 ? "other" : "ST8000NM0055");
        d[i].id.size = 64ull << 20;
        d[i].bytes = 16ull << 20;
        d[i].bw = 1400e6 + i * 10e6;
    }
    d[3].bw = 4.0 * 1048576;
    d[5].bw = 350e6;
    d[8].bw = 1e6;
    for (int i = 0; i < 9; i++)
        d[i].window_s = (double)d[i].bytes / d[i].bw;
    rb_phase_agg_t a = {.ndisks = 9, .disks = d};
    assert_int_equal(rb_disks_family(&a), 0);
    assert_int_equal(d[0].family_n, 8);
    assert_int_equal(d[8].family_n, 1);
    assert_int_equal(rb_disks_findings(&a), 0);
    assert_int_equal(a.nfindings, 1);
    assert_int_equal(a.findings[0].kind, RB_FIND_OUT_OF_FAMILY);
    assert_string_equal(a.findings[0].node, "n0");
    assert_string_equal(a.findings[0].device, "loop3");
    /* issue 37: the live warning and report.txt name the node and the device */
    char head[RB_FINDINGS_HEAD_MAX];
    assert_string_equal(rb_findings_head(&a.findings[0], head, sizeof head),
                        "out-of-family n0 loop3");
    a.findings[0].device[0] = '\0';
    a.findings[0].node[0] = '\0';
    assert_string_equal(rb_findings_head(&a.findings[0], head, sizeof head),
                        "out-of-family cluster");
    assert_true(d[5].deviation < -0.7); /* listed far below, but no finding */
    free(a.findings);
    /* the same quarter of the median over 2 s of a timed phase is one */
    d[5].window_s = 2;
    a.findings = NULL;
    a.nfindings = 0;
    assert_int_equal(rb_disks_findings(&a), 0);
    assert_int_equal(a.nfindings, 2);
    free(a.findings);
    /* the rule itself: 3 MADs and 15% below, or a third; and 0.25 s lost */
    assert_true(rb_disks_below_family(80, 100, 2, 10));
    assert_false(rb_disks_below_family(80, 100, 2, 1));  /* 0.2 s lost */
    assert_false(rb_disks_below_family(90, 100, 2, 10)); /* 10%: within the margin */
    assert_true(rb_disks_below_family(30, 100, 60, 1));  /* a third, whatever the MAD */
    assert_false(rb_disks_below_family(50, 100, 60, 10));
}

/* issue 37: a job's rates are over its own time, the phase's directions
 * over the phase's window, and report.txt says which; the phase header says
 * what its jobs do not share is mixed, and the depth an engine keeps. Job w
 * writes 100 MB in 1 s, job r reads 100 MB in 2 s: the phase's writes are
 * over 2 s. */
static void test_text_windows_and_header(void **state)
{
    (void)state;
    rb_job_spec_t jobs[2] = {{.name = "w",
                              .rw = RB_RW_WRITE,
                              .bs = 1 << 20,
                              .bs_max = 1 << 20,
                              .ioengine = "libaio",
                              .iodepth = 32,
                              .numjobs = 1},
                             {.name = "r",
                              .rw = RB_RW_READ,
                              .bs = 4096,
                              .bs_max = 65536,
                              .ioengine = "sync",
                              .iodepth = 8,
                              .numjobs = 1}};
    rb_phase_spec_t ph = {.name = "p", .njobs = 2, .jobs = jobs};
    rb_hist_t h;
    rb_hist_init(&h);
    rb_job_stat_t js[2] = {
        {.job = 0, .bytes = 100 * MB, .ops = 100, .write_bytes = 100 * MB, .write_ops = 100},
        {.job = 1, .bytes = 100 * MB, .ops = 1000, .read_bytes = 100 * MB, .read_ops = 1000}};
    rb_worker_stat_t ws[2] = {s_worker(SEC, 2 * SEC, 100 * MB), s_worker(SEC, 3 * SEC, 100 * MB)};
    ws[0].write_bytes = 100 * MB;
    ws[0].write_ops = 100;
    ws[1].job = 1;
    ws[1].read_bytes = 100 * MB;
    ws[1].read_ops = 1000;
    ws[1].ops = 1000;
    rb_agg_done_t d = {.nworkers = 2, .workers = ws, .njobs = 2, .jobs = js};
    rb_agg_input_t in = {.name = "x", .rack = "r", .done = &d};
    rb_phase_agg_t a;
    assert_int_equal(rb_aggregate_phase(&ph, &in, 1, &a), 0);
    rb_run_result_t res = {
        .run_id = "r1", .plan_source = "t.ini", .nphases = 1, .specs = &ph, .phases = &a};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rb_report_text(&res, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "phase 1/1  p  mixed bs mixed buffered engines mixed qd mixed  "
                                 "2 jobs, 2 workers on 1 nodes\n"));
    /* the phase's writes: 100 MB over its 2 s; job w's: over its own 1 s */
    assert_non_null(strstr(text, "\n  write                        95.4 MiB in 100 ops, 47.7 "
                                 "MiB/s, 50 IOPS  (over the phase's window)\n"));
    assert_non_null(strstr(text, "  job w                write bs=1M libaio qd32  95.4 MiB/s  "
                                 "100 IOPS  (over the job's own 1.000 s)\n"));
    assert_non_null(strstr(text,
                           "  job r                read bs=4k-64k sync qd1  47.7 MiB/s  500 IOPS  "
                           "(over the job's own 2.000 s)\n"));
    free(text);
    /* report.html likewise: the directions over the phase's window, a row
     * per job over its own time */
    f = open_memstream(&text, &len);
    rb_table_figures(&a, 0, f);
    rb_table_jobs(&a, &ph, f);
    fclose(f);
    assert_non_null(strstr(text, "47.7 MiB/s, 50 IOPS (over the phase&#39;s window)</td>"));
    assert_non_null(strstr(text, "<tr><td>w</td><td>write bs=1M libaio qd32</td><td "
                                 "class=\"n\">1</td><td class=\"n\">95.4 MiB</td><td "
                                 "class=\"n\">95.4 MiB/s</td><td class=\"n\">100</td><td "
                                 "class=\"n\">1.000</td>"));
    assert_non_null(strstr(text, "<td class=\"n\">500</td><td class=\"n\">2.000</td>"));
    free(text);
    /* the summary's row: a mixed phase, not its first job's rw */
    f = open_memstream(&text, &len);
    rb_table_summary(&res, f);
    fclose(f);
    assert_non_null(strstr(text, "</a></td><td rowspan=\"3\">mixed</td>"));
    free(text);
    rb_aggregate_phase_fini(&a);

    /* jobs alike: their figures, and sync's one IO in flight beside iodepth */
    jobs[0] = jobs[1];
    jobs[0].bs_max = jobs[1].bs_max = 8192;
    jobs[0].bs = jobs[1].bs = 8192;
    jobs[0].iodepth = jobs[1].iodepth = 192;
    assert_int_equal(rb_aggregate_phase(&ph, &in, 1, &a), 0);
    char io[256];
    assert_string_equal(rb_report_phase_io(&a, &ph, io, sizeof io),
                        "read bs=8k buffered sync qd1 (iodepth=192)");
    jobs[1].bs_max = 65536; /* a range of sizes */
    assert_string_equal(rb_report_phase_io(&a, &ph, io, sizeof io),
                        "read bs mixed buffered sync qd1 (iodepth=192)");
    jobs[0].bs_max = 65536;
    assert_string_equal(rb_report_phase_io(&a, &ph, io, sizeof io),
                        "read bs=8k-64k buffered sync qd1 (iodepth=192)");
    rb_aggregate_phase_fini(&a);
}

/* The patterns of network=: each node's links, from its side, agree with
 * the other end's (a link out of a is a link into b), and add up to the
 * links each pattern has; rb_net_links_most bounds every node's count. */
static void test_net_patterns(void **state)
{
    (void)state;
    static const struct {
        uint32_t pattern;
        int both;
        uint32_t n;
        uint32_t links;
    } cases[] = {
        {RB_NET_PAIRS, 0, 4, 2},     {RB_NET_PAIRS, 1, 4, 4},     {RB_NET_PAIRS, 0, 5, 3},
        {RB_NET_PAIRS, 1, 5, 6},     {RB_NET_PAIRS, 0, 2, 1},     {RB_NET_RING, 0, 2, 2},
        {RB_NET_RING, 1, 2, 2},      {RB_NET_RING, 0, 5, 5},      {RB_NET_RING, 1, 5, 10},
        {RB_NET_ALL2ALL, 0, 4, 12},  {RB_NET_ALL2ALL, 1, 3, 6},   {RB_NET_INCAST, 0, 5, 4},
        {RB_NET_INCAST, 1, 5, 8},    {RB_NET_BISECTION, 0, 4, 2}, {RB_NET_BISECTION, 0, 5, 2},
        {RB_NET_BISECTION, 1, 6, 6},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rb_job_spec_t js = {.network = cases[c].pattern,
                            .rw = cases[c].both ? RB_RW_RW : RB_RW_WRITE};
        uint32_t n = cases[c].n, target = n / 2, outs = 0, most = rb_net_links_most(&js, n, target);
        uint8_t out_ab[8][8] = {{0}}, in_ab[8][8] = {{0}};
        for (uint32_t r = 0; r < n; r++) {
            uint32_t peers[16];
            uint8_t out[16];
            uint32_t k = rb_net_node_links(&js, n, target, r, peers, out, 16);
            assert_true(k <= most);
            for (uint32_t i = 0; i < k; i++) {
                assert_true(peers[i] < n && peers[i] != r);
                if (out[i]) {
                    assert_int_equal(out_ab[r][peers[i]]++, 0); /* once */
                    outs++;
                } else {
                    assert_int_equal(in_ab[peers[i]][r]++, 0);
                }
            }
        }
        if (outs != cases[c].links)
            fail_msg("case %zu: %u links, want %u", c, outs, cases[c].links);
        assert_memory_equal(out_ab, in_ab, sizeof out_ab);
        if (cases[c].pattern == RB_NET_INCAST)
            for (uint32_t a = 0; a < n; a++)
                for (uint32_t b = 0; b < n; b++)
                    if (out_ab[a][b])
                        assert_true(b == target || (cases[c].both && a == target));
    }
}

/* A network phase's figures from both ends' DONEs: each link as its
 * receiver counted it, the sender's count beside it, a lost receiver's
 * link partial, and the slow and asymmetric links found. */
static void test_net_figures(void **state)
{
    (void)state;
    rb_job_spec_t job = {
        .name = "net", .network = RB_NET_PAIRS, .rw = RB_RW_RW, .numjobs = 1, .bs = 131072};
    rb_phase_spec_t ph = {.name = "net", .njobs = 1, .jobs = &job};
    /* 4 nodes, pairs both ways: 0<->1, 2<->3; 1 -> 0 moves a tenth */
    static rb_link_stat_t l[4][2];
    rb_agg_done_t d[4];
    memset(d, 0, sizeof d);
    const uint64_t sec = 1000000000ull, full = 1250000000ull; /* 10 Gbit/s for 1 s */
    for (uint32_t r = 0; r < 4; r++) {
        uint32_t peer = r ^ 1;
        uint64_t sent = r == 1 ? full / 10 : full, got = peer == 1 ? full / 10 : full;
        l[r][0] = (rb_link_stat_t){.peer = peer,
                                   .out = 1,
                                   .streams = 1,
                                   .bytes = sent,
                                   .t_start_ns = sec,
                                   .t_end_ns = 2 * sec};
        l[r][1] = (rb_link_stat_t){.peer = peer,
                                   .out = 0,
                                   .streams = 1,
                                   .bytes = got,
                                   .t_start_ns = sec,
                                   .t_end_ns = 2 * sec};
        d[r].nlinks = 2;
        d[r].links = l[r];
    }
    d[2].net_refused = 1;
    d[2].net_refused_by = "10.0.0.9:4000 (not a rackbench agent)";
    const rb_agg_done_t *dp[4] = {&d[0], &d[1], &d[2], NULL}; /* node 3 sent no DONE */
    rb_net_fig_t f;
    assert_int_equal(rb_net_fig_build(&ph, 4, dp, &f), 0);
    assert_int_equal(f.nlinks, 4);
    for (uint32_t i = 0; i < f.nlinks; i++) {
        const rb_net_link_fig_t *x = &f.links[i];
        if (x->from == 1 && x->to == 0) {
            assert_true(x->slow && x->asymmetric);
            assert_true(x->gbps > 0.99 && x->gbps < 1.01);
        } else {
            assert_false(x->slow);
            assert_true(x->gbps > 9.99 && x->gbps < 10.01);
        }
        /* the link into node 3 is its sender's count alone; the one out of it its receiver's */
        assert_int_equal(x->partial, x->to == 3 || x->from == 3);
        if (x->from != 3)
            assert_int_equal(x->sent, x->bytes);
    }
    assert_int_equal(f.nslow, 1);
    assert_int_equal(f.nasym, 1);
    assert_int_equal(f.refused, 1);
    assert_true(f.nodes[0].out_gbps > 9.99 && f.nodes[0].in_gbps < 1.01);
    rb_net_fig_free(&f);

    /* a receiver that saw nothing come: the link failed, and the finding
     * quotes the sender's host retransmitting (loss on the way, not a peer gone) */
    l[0][1] = (rb_link_stat_t){.peer = 1, .out = 0, .status = -ETIMEDOUT};
    strcpy(l[0][1].error, "stream 0 from node 1: nothing moved for 10 s");
    d[1].net_retrans = 37;
    assert_int_equal(rb_net_fig_build(&ph, 4, dp, &f), 0);
    rb_agg_node_t nodes[4] = {{.name = "n0"}, {.name = "n1"}, {.name = "n2"}, {.name = "n3"}};
    rb_phase_agg_t a = {.nnodes = 4, .nodes = nodes, .net = &f};
    assert_int_equal(rb_net_findings(&a), 0);
    int failed = 0;
    for (uint32_t i = 0; i < a.nfindings; i++) {
        const rb_finding_t *x = &a.findings[i];
        if (x->kind != RB_FIND_LINK_FAILED)
            continue;
        failed++;
        assert_string_equal(x->node, "n1");
        assert_string_equal(x->device, "to n0");
        assert_non_null(strstr(x->evidence, "then: stream 0 from node 1: nothing moved"));
        assert_non_null(strstr(x->evidence, "(n1 retransmitted 37 TCP segments in the phase)"));
    }
    assert_int_equal(failed, 1);
    free(a.findings);
    rb_net_fig_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definitions),
        cmocka_unit_test(test_disk_families),
        cmocka_unit_test(test_text_windows_and_header),
        cmocka_unit_test(test_directions),
        cmocka_unit_test(test_bytes_at),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_lost_node_bytes_from_samples),
        cmocka_unit_test(test_clock_offset),
        cmocka_unit_test(test_fleet_scale),
        cmocka_unit_test(test_node_lookup),
        cmocka_unit_test(test_stonewall_time),
        cmocka_unit_test(test_rollups),
        cmocka_unit_test(test_steady),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_compare_drives),
        cmocka_unit_test(test_drive_reasons),
        cmocka_unit_test(test_done_kept),
        cmocka_unit_test(test_stragglers),
        cmocka_unit_test(test_telemetry_findings),
        cmocka_unit_test(test_cache_influenced),
        cmocka_unit_test(test_hists_merged_on_arrival),
        cmocka_unit_test(test_honesty_shared_host),
        cmocka_unit_test(test_telemetry_long),
        cmocka_unit_test(test_tel_series_expect),
        cmocka_unit_test(test_series_long),
        cmocka_unit_test(test_node_families),
        cmocka_unit_test(test_net_patterns),
        cmocka_unit_test(test_net_figures),
        cmocka_unit_test(test_disks_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
