/* The wire codec: turns an rb_msg_t into one msgpack map and back, and is the
 * one place where bytes from a peer are checked, field by field, before any
 * other code sees them. */
#include "rb_proto.h"
#include "rb_dist.h"

#include "rb_job_rules.h"
#include "rb_proto_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

/* ---- names ---- */

const char *const rb_proto_type_names[RB_MSG_COUNT] = {
#define RB_X_NAME(e, s) [RB_MSG_##e] = s,
    RB_MSG_TYPES(RB_X_NAME)
#undef RB_X_NAME
};

const char *rb_msg_type_name(rb_msg_type_t t)
{
    if ((unsigned)t >= RB_MSG_COUNT || !rb_proto_type_names[t])
        return "?";
    return rb_proto_type_names[t];
}

/* ---- layouts: every body is described once, and the describing tables drive
 * encoding, decoding and freeing alike ---- */

/* RB_PK_ENUM values are read and written as unsigned int. */
_Static_assert(sizeof(rb_rw_t) == sizeof(unsigned) && sizeof(rb_sync_mode_t) == sizeof(unsigned) &&
                   sizeof(rb_buf_mode_t) == sizeof(unsigned) &&
                   sizeof(rb_verify_t) == sizeof(unsigned) &&
                   sizeof(rb_meta_op_t) == sizeof(unsigned) &&
                   sizeof(rb_layout_mode_t) == sizeof(unsigned),
               "enums travel through an unsigned int");

/* Table entries for field f of struct T; the wire key is the field's name. */
/* clang-format off */
#define S_MEMBER(T, f) (((T *)0)->f)
#define S_AT(T, f, k)  .key = #f, .keylen = sizeof #f - 1, .kind = (k), .off = offsetof(T, f)
/* Each F_ takes, after its own arguments, optional designated members:
 * .since = 24 for a key that arrived in protocol 24, .doc = "..." */
#define F_U32R(T, f, mn, mx, ...) {S_AT(T, f, RB_PK_U32), .min = (mn), .max = (mx), .def = (mn), __VA_ARGS__}
#define F_U32(T, f, mx, ...)      F_U32R(T, f, 0, mx, __VA_ARGS__)
#define F_U64M(T, f, mx, ...)     {S_AT(T, f, RB_PK_U64), .max = (mx), __VA_ARGS__}
#define F_U64(T, f, ...)          F_U64M(T, f, UINT64_MAX, __VA_ARGS__)
#define F_KIND(T, f, k, ...)      {S_AT(T, f, k), .size = sizeof(S_MEMBER(T, f)), __VA_ARGS__}
#define F_STR(T, f, fl, ...) \
    {S_AT(T, f, RB_PK_STR), .size = sizeof(S_MEMBER(T, f)), .flags = (fl), __VA_ARGS__}
#define F_ENUM(T, f, e, ...)      {S_AT(T, f, RB_PK_ENUM), .en = &(e), __VA_ARGS__}
#define F_BIN(T, f, cnt, ...) \
    {S_AT(T, f, RB_PK_BIN), .size = sizeof(S_MEMBER(T, f)), .count_off = offsetof(T, cnt), \
     .max = sizeof(S_MEMBER(T, f)), __VA_ARGS__}
#define F_HIST(T, f, ...)         {S_AT(T, f, RB_PK_HIST), .sub = &s_hist_layout, __VA_ARGS__}
#define F_LAT(d, k, name) \
    {.key = name, .keylen = sizeof name - 1, .kind = RB_PK_HIST, .off = offsetof(rb_job_stat_t, lat[d][k]), \
     .sub = &s_hist_layout}
#define F_LATS(d, dn) \
    F_LAT(d, RB_LAT_LAT, dn "_lat"), F_LAT(d, RB_LAT_SLAT, dn "_slat"), \
    F_LAT(d, RB_LAT_CLAT, dn "_clat")
#define F_ARRAY(T, f, cnt, mx, layout, ...) \
    {S_AT(T, f, RB_PK_ARRAY), .size = sizeof(*S_MEMBER(T, f)), .count_off = offsetof(T, cnt), \
     .max = (mx), .sub = &(layout), __VA_ARGS__}
#define F_INLINE(T, f, cnt, mx, layout, ...) \
    {S_AT(T, f, RB_PK_INLINE), .size = sizeof(S_MEMBER(T, f)[0]), .count_off = offsetof(T, cnt), \
     .max = (mx), .sub = &(layout), __VA_ARGS__}
#define F_CHECKPTS(T, f, cnt, mx, ...) \
    {S_AT(T, f, RB_PK_CHECKPTS), .size = sizeof(*S_MEMBER(T, f)), .count_off = offsetof(T, cnt), \
     .max = (mx), __VA_ARGS__}
/* The rows of a job's fields, from RB_JOB_FIELDS (rb_job_spec.h). */
#define S_JF(kind, f, v, a, d)  S_JF_##kind(f, a, .since = (v), .doc = (d)),
#define S_JAT(f, k)             S_AT(rb_job_spec_t, f, k)
#define S_JF_U32(f, a, ...)     {S_JAT(f, RB_PK_U32), .min = RB_JF_A1 a, .max = RB_JF_A2 a, .def = RB_JF_A3 a, __VA_ARGS__}
#define S_JF_U64(f, a, ...)     {S_JAT(f, RB_PK_U64), .min = RB_JF_A1 a, .max = RB_JF_A2 a, .def = RB_JF_A3 a, __VA_ARGS__}
#define S_JF_I64(f, a, ...)     {S_JAT(f, RB_PK_I64), .size = 8, .def = (uint64_t)(RB_JF_A1 a), __VA_ARGS__}
#define S_JF_BOOL(f, a, ...)    {S_JAT(f, RB_PK_BOOL), .size = 1, .def = RB_JF_A1 a, __VA_ARGS__}
#define S_JF_STR(f, a, ...)     {S_JAT(f, RB_PK_STR), .size = (RB_JF_A1 a), .flags = RB_JF_A2 a, __VA_ARGS__}
#define S_JF_ENUM(f, a, ...)    {S_JAT(f, RB_PK_ENUM), .en = &(RB_JF_A2 a), .def = RB_JF_A3 a, __VA_ARGS__}
#define S_JF_BIN(f, a, ...) \
    {S_JAT(f, RB_PK_BIN), .size = (RB_JF_A1 a), .count_off = offsetof(rb_job_spec_t, f##_len), \
     .max = (RB_JF_A1 a), __VA_ARGS__}
#define S_JF_INLINE(f, a, ...) \
    {S_JAT(f, RB_PK_INLINE), .size = sizeof(RB_JF_A1 a), .count_off = offsetof(rb_job_spec_t, n##f), \
     .max = RB_JF_A2 a, .sub = &(RB_JF_A3 a), __VA_ARGS__}
/* clang-format on */
#define S_LAYOUT(name, check, ...)                                                                 \
    static const rb_proto_field_t name##_fields[] = {__VA_ARGS__};                                 \
    static const rb_proto_layout_t name = {                                                        \
        name##_fields, sizeof(name##_fields) / sizeof(rb_proto_field_t), check}

static int s_check_hist(rb_proto_ctx_t *c, const void *base);
static int s_check_job(rb_proto_ctx_t *c, const void *base);
static int s_check_phase(rb_proto_ctx_t *c, const void *base);
static int s_check_plan(rb_proto_ctx_t *c, const void *base);
static int s_check_job_stat(rb_proto_ctx_t *c, const void *base);
static int s_check_worker(rb_proto_ctx_t *c, const void *base);
static int s_check_done(rb_proto_ctx_t *c, const void *base);

S_LAYOUT(s_hist_layout, s_check_hist, F_U64(rb_hist_t, count), F_U64(rb_hist_t, sum),
         F_U64(rb_hist_t, min), F_U64(rb_hist_t, max), F_KIND(rb_hist_t, b, RB_PK_BUCKETS));

S_LAYOUT(s_root_layout, NULL, F_STR(rb_root_info_t, path, 0), F_U64(rb_root_info_t, free_bytes),
         F_U64(rb_root_info_t, total_bytes), F_STR(rb_root_info_t, fs_type, 0),
         F_STR(rb_root_info_t, source, 0), F_STR(rb_root_info_t, options, 0),
         F_STR(rb_root_info_t, dev_model, 0), F_STR(rb_root_info_t, dev_serial, 0),
         F_KIND(rb_root_info_t, dev_rotational, RB_PK_BOOL));

S_LAYOUT(s_nic_info_layout, NULL, F_STR(rb_nic_info_t, name, RB_PK_F_NONEMPTY),
         F_U32(rb_nic_info_t, speed_mbps, UINT32_MAX), F_STR(rb_nic_info_t, mac, 0));

S_LAYOUT(s_bs_part_layout, NULL, F_U64(rb_bs_part_t, bs), F_U32R(rb_bs_part_t, perc, 1, 100));

static int s_check_cmdprio(rb_proto_ctx_t *c, const void *base);

S_LAYOUT(s_cmdprio_layout, s_check_cmdprio, F_U64(rb_cmdprio_t, bs),
         F_U32R(rb_cmdprio_t, perc, 1, 100), F_U32(rb_cmdprio_t, prio, RB_IOPRIO_MAX));

S_LAYOUT(s_zone_layout, NULL, F_U64(rb_zone_t, size), F_U32(rb_zone_t, access, 100));

S_LAYOUT(s_job_layout, s_check_job, RB_JOB_FIELDS(S_JF));

S_LAYOUT(s_phase_layout, s_check_phase, F_STR(rb_phase_spec_t, name, 0),
         F_ARRAY(rb_phase_spec_t, jobs, njobs, RB_MAX_JOBS, s_job_layout));

S_LAYOUT(s_job_stat_layout, s_check_job_stat, F_U32(rb_job_stat_t, job, RB_MAX_JOBS - 1),
         F_U64(rb_job_stat_t, bytes), F_U64(rb_job_stat_t, ops), F_U64(rb_job_stat_t, errors),
         F_U64(rb_job_stat_t, read_bytes), F_U64(rb_job_stat_t, read_ops),
         F_U64(rb_job_stat_t, verify_errors), F_HIST(rb_job_stat_t, hist),
         /* version 6 */
         F_U64(rb_job_stat_t, write_bytes), F_U64(rb_job_stat_t, write_ops),
         F_U64(rb_job_stat_t, trim_bytes), F_U64(rb_job_stat_t, trim_ops),
         F_LATS(RB_DIR_READ, "read"), F_LATS(RB_DIR_WRITE, "write"), F_LATS(RB_DIR_TRIM, "trim"),
         /* version 20 */
         F_U32(rb_job_stat_t, ss_state, RB_SS_ATTAINED), F_U64(rb_job_stat_t, ss_t_ns),
         F_U64(rb_job_stat_t, ss_crit), F_U64(rb_job_stat_t, ss_mean),
         /* version 21 */
         F_U32(rb_job_stat_t, lat_depth, RB_IODEPTH_MAX),
         /* version 22 */
         F_U64(rb_job_stat_t, filesize));

S_LAYOUT(s_worker_layout, s_check_worker, F_U32(rb_worker_stat_t, job, RB_MAX_JOBS - 1),
         F_U32(rb_worker_stat_t, worker, RB_MAX_WORKERS - 1), F_U64(rb_worker_stat_t, t_start_ns),
         F_U64(rb_worker_stat_t, t_end_ns), F_U64(rb_worker_stat_t, bytes),
         F_U64(rb_worker_stat_t, ops), F_U64(rb_worker_stat_t, errors),
         F_U64(rb_worker_stat_t, read_bytes), F_U64(rb_worker_stat_t, read_ops),
         F_U64(rb_worker_stat_t, verify_errors), F_U64(rb_worker_stat_t, write_bytes),
         F_U64(rb_worker_stat_t, write_ops), F_U64(rb_worker_stat_t, trim_bytes),
         F_U64(rb_worker_stat_t, trim_ops),
         F_CHECKPTS(rb_worker_stat_t, checkpts, ncheckpts, RB_MAX_CHECKPTS),
         F_U64(rb_worker_stat_t, sw_t_ns), F_U64(rb_worker_stat_t, sw_bytes),
         F_U64(rb_worker_stat_t, sw_ops), F_U32(rb_worker_stat_t, dev, RB_MAX_DEVS),
         F_U64(rb_worker_stat_t, found),              /* version 19 */
         F_U32(rb_worker_stat_t, first_errno, 4095)); /* version 21 */

S_LAYOUT(s_dev_id_layout, NULL, F_STR(rb_dev_id_t, path, RB_PK_F_NONEMPTY),
         F_STR(rb_dev_id_t, name, 0), F_STR(rb_dev_id_t, model, 0), F_STR(rb_dev_id_t, vendor, 0),
         F_STR(rb_dev_id_t, serial, 0), F_STR(rb_dev_id_t, firmware, 0), F_U64(rb_dev_id_t, size),
         F_U32(rb_dev_id_t, lbs, UINT32_MAX), F_U32(rb_dev_id_t, pbs, UINT32_MAX),
         F_KIND(rb_dev_id_t, rotational, RB_PK_BOOL), F_STR(rb_dev_id_t, scheduler, 0),
         /* version 14 */
         F_U32(rb_dev_id_t, read_ahead_kb, UINT32_MAX), F_U32(rb_dev_id_t, nr_requests, UINT32_MAX),
         F_U32(rb_dev_id_t, queue_depth, UINT32_MAX), F_U32(rb_dev_id_t, access, RB_DEV_WRITE),
         F_STR(rb_dev_id_t, use, 0));

S_LAYOUT(s_peer_layout, NULL, F_U32(rb_peer_t, shift, UINT32_MAX),
         F_STR(rb_peer_t, name, RB_PK_F_NONEMPTY));

/* Message bodies, named after the enum so that the X-macro table can list them. */
S_LAYOUT(s_body_HELLO, NULL, F_STR(rb_msg_hello_t, name, 0), F_STR(rb_msg_hello_t, rack, 0),
         F_STR(rb_msg_hello_t, hostname, 0), F_STR(rb_msg_hello_t, agent_version, 0),
         F_U32(rb_msg_hello_t, pid, UINT32_MAX), F_U32(rb_msg_hello_t, cores, UINT32_MAX),
         F_U64(rb_msg_hello_t, ram_bytes), F_U64(rb_msg_hello_t, cache_bytes),
         F_INLINE(rb_msg_hello_t, roots, nroots, RB_MAX_ROOTS, s_root_layout),
         F_STR(rb_msg_hello_t, kernel, 0), F_STR(rb_msg_hello_t, cpu_model, 0),
         F_INLINE(rb_msg_hello_t, nics, nnics, RB_TELEM_NICS, s_nic_info_layout),
         /* version 14 */
         F_ARRAY(rb_msg_hello_t, devs, ndevs, RB_MAX_DEVS, s_dev_id_layout),
         F_U32(rb_msg_hello_t, ndevs_seen, UINT32_MAX),
         F_STR(rb_msg_hello_t, build, RB_PK_F_INFO, .since = 24,
               .doc = "the agent's build (`git describe`, or the release number)"),
         F_U64(rb_msg_hello_t, fingerprint, .flags = RB_PK_F_INFO, .since = 24,
               .doc = "the fingerprint of its version's schema"));

S_LAYOUT(s_body_PING, NULL, F_U32(rb_msg_ping_t, seq, UINT32_MAX),
         F_U64(rb_msg_ping_t, t_coord_ns));

S_LAYOUT(s_body_PONG, NULL, F_U32(rb_msg_pong_t, seq, UINT32_MAX), F_U64(rb_msg_pong_t, t_coord_ns),
         F_U64(rb_msg_pong_t, t_agent_ns));

S_LAYOUT(s_body_PLAN, s_check_plan, F_STR(rb_msg_plan_t, run_id, 0),
         F_U64(rb_msg_plan_t, interval_ns), F_U32(rb_msg_plan_t, node_rank, UINT32_MAX - 1),
         F_U32R(rb_msg_plan_t, nnodes, 1, UINT32_MAX), F_STR(rb_msg_plan_t, lead, 0),
         F_INLINE(rb_msg_plan_t, peers, npeers, RB_MAX_PEERS, s_peer_layout),
         F_ARRAY(rb_msg_plan_t, phases, nphases, RB_MAX_PHASES, s_phase_layout),
         F_BIN(rb_msg_plan_t, net_secret, net_secret_len, .since = 28,
               .doc = "the secret an agent proves on the data connections of network phases "
                      "(none without one)"));

S_LAYOUT(s_health_layout, NULL, F_STR(rb_health_t, dev, RB_PK_F_NONEMPTY),
         F_STR(rb_health_t, model, 0), F_STR(rb_health_t, serial, 0),
         F_STR(rb_health_t, protocol, 0), F_STR(rb_health_t, reason, 0),
         F_U32(rb_health_t, verdict, RB_SMART_FAILED), F_U32(rb_health_t, exit_status, 255),
         F_KIND(rb_health_t, no_smart, RB_PK_BOOL), F_U64(rb_health_t, reallocated),
         F_U64(rb_health_t, pending), F_U64(rb_health_t, offline_unc),
         F_U64(rb_health_t, crc_errors), F_U64(rb_health_t, media_errors),
         F_U64(rb_health_t, error_log), F_U64(rb_health_t, critical_warning),
         F_U64(rb_health_t, percentage_used), F_U64(rb_health_t, available_spare),
         F_U64(rb_health_t, spare_threshold), F_U64(rb_health_t, temperature),
         F_U64(rb_health_t, temperature_max), F_U64(rb_health_t, power_on_hours));

#define S_HEALTH_DOC                                                                               \
    "agent: each disk it measures (those under its roots, those it may open), "                    \
    "read by smartctl: model, serial, verdict and counters (docs/telemetry.md), "                  \
    "or why it could not be read"

S_LAYOUT(s_body_READY, NULL, F_STR(rb_msg_ready_t, run_id, 0), F_U64(rb_msg_ready_t, prefill_bytes),
         F_STR(rb_msg_ready_t, net_addr, RB_PK_F_INFO, .since = 28,
               .doc = "agent: the address it takes network phases' data connections on"),
         F_U32(rb_msg_ready_t, net_port, 65535, .flags = RB_PK_F_INFO, .since = 28,
               .doc = "agent: ... and its port (0: the plan has no network phase)"),
         F_ARRAY(rb_msg_ready_t, health, nhealth, RB_HEALTH_DEVS, s_health_layout,
                 .flags = RB_PK_F_INFO, .since = 27, .doc = S_HEALTH_DOC " before the run"));

S_LAYOUT(s_space_layout, NULL, F_STR(rb_space_info_t, path, 0), F_U64(rb_space_info_t, dev),
         F_U64(rb_space_info_t, need_bytes), F_U64(rb_space_info_t, free_bytes),
         F_U64(rb_space_info_t, total_bytes), F_U64(rb_space_info_t, reserve_bytes),
         F_STR(rb_space_info_t, fs_type, 0), F_STR(rb_space_info_t, source, 0),
         F_KIND(rb_space_info_t, shared, RB_PK_BOOL));

S_LAYOUT(s_body_SPACE, NULL, F_STR(rb_msg_space_t, run_id, 0),
         F_INLINE(rb_msg_space_t, fs, nfs, RB_MAX_ROOTS, s_space_layout),
         F_U64(rb_msg_space_t, mem_need, .flags = RB_PK_F_INFO, .since = 26,
               .doc = "agent: the most memory one phase's IO buffers and lockmem take on it "
                      "(the coordinator adds up the agents of one host)"),
         F_U64(rb_msg_space_t, mem_room, .flags = RB_PK_F_INFO, .since = 26,
               .doc = "agent: what its host has for them: half its RAM or its memory "
                      "cgroup's limit, or what is available if less"));

S_LAYOUT(s_body_REFUSED, NULL, F_STR(rb_msg_reason_t, run_id, 0),
         F_KIND(rb_msg_reason_t, code, RB_PK_ERRNO), F_STR(rb_msg_reason_t, reason, 0));
#define s_body_ABORT s_body_REFUSED
#define s_body_ERROR s_body_REFUSED

S_LAYOUT(s_net_link_layout, NULL, F_U32(rb_net_link_t, job, RB_MAX_JOBS - 1),
         F_U32(rb_net_link_t, peer, UINT32_MAX - 1), F_KIND(rb_net_link_t, out, RB_PK_BOOL),
         F_STR(rb_net_link_t, addr, 0), F_U32(rb_net_link_t, port, 65535));

S_LAYOUT(s_body_GO, NULL, F_STR(rb_msg_go_t, run_id, 0),
         F_U32(rb_msg_go_t, phase, RB_MAX_PHASES - 1), F_U64(rb_msg_go_t, t_go_ns),
         F_KIND(rb_msg_go_t, offset_ns, RB_PK_I64), F_U64(rb_msg_go_t, interval_ns),
         F_ARRAY(rb_msg_go_t, links, nlinks, RB_NET_LINKS_MAX, s_net_link_layout, .since = 28,
                 .doc = "a network phase's links that end at the agent: job, the other "
                        "node's rank, whether it connects, and where"),
         F_U64M(rb_msg_go_t, done_hold_ns, RB_DONE_HOLD_MAX_NS, .since = 30,
                .doc = "ns the agent holds the phase's DONE after its last SAMPLE (at most "
                       "10 s), so that a fleet's last samples are not read behind its DONEs"));

S_LAYOUT(s_link_stat_layout, NULL, F_U32(rb_link_stat_t, job, RB_MAX_JOBS - 1),
         F_U32(rb_link_stat_t, peer, UINT32_MAX - 1), F_KIND(rb_link_stat_t, out, RB_PK_BOOL),
         F_U32(rb_link_stat_t, streams, RB_NET_STREAMS_MAX), F_U64(rb_link_stat_t, bytes),
         F_U64(rb_link_stat_t, ops), F_U64(rb_link_stat_t, t_start_ns),
         F_U64(rb_link_stat_t, t_end_ns), F_KIND(rb_link_stat_t, status, RB_PK_ERRNO),
         F_STR(rb_link_stat_t, error, 0));

S_LAYOUT(s_telem_dev_layout, NULL, F_STR(rb_telem_dev_t, name, RB_PK_F_NONEMPTY),
         F_STR(rb_telem_dev_t, parent, 0), F_KIND(rb_telem_dev_t, member, RB_PK_BOOL),
         F_U64(rb_telem_dev_t, rd_bps), F_U64(rb_telem_dev_t, wr_bps),
         F_U64(rb_telem_dev_t, rd_iops), F_U64(rb_telem_dev_t, wr_iops),
         F_U32(rb_telem_dev_t, util_pm, 1000), F_U64(rb_telem_dev_t, qdepth_m),
         F_U64(rb_telem_dev_t, await_us), F_U64(rb_telem_dev_t, rd_bytes),
         F_U64(rb_telem_dev_t, wr_bytes));

S_LAYOUT(s_telem_nic_layout, NULL, F_STR(rb_telem_nic_t, name, RB_PK_F_NONEMPTY),
         F_U64(rb_telem_nic_t, rx_bps), F_U64(rb_telem_nic_t, tx_bps),
         F_U32(rb_telem_nic_t, speed_mbps, UINT32_MAX));

S_LAYOUT(s_telem_layout, NULL, F_U32(rb_telem_t, user_pm, 1000), F_U32(rb_telem_t, system_pm, 1000),
         F_U32(rb_telem_t, iowait_pm, 1000), F_U32(rb_telem_t, idle_pm, 1000),
         F_U32(rb_telem_t, irq_pm, 1000), F_U32(rb_telem_t, ncpu, UINT32_MAX),
         F_U32(rb_telem_t, load1_m, UINT32_MAX), F_U64(rb_telem_t, ctxt_per_s),
         F_U64(rb_telem_t, cached), F_U64(rb_telem_t, dirty), F_U64(rb_telem_t, writeback),
         F_INLINE(rb_telem_t, devs, ndevs, RB_TELEM_DEVS, s_telem_dev_layout),
         F_INLINE(rb_telem_t, nics, nnics, RB_TELEM_NICS, s_telem_nic_layout));

S_LAYOUT(s_body_SAMPLE, NULL, F_STR(rb_msg_sample_t, run_id, 0),
         F_U32(rb_msg_sample_t, phase, RB_MAX_PHASES - 1), F_U32(rb_msg_sample_t, seq, UINT32_MAX),
         F_U64(rb_msg_sample_t, t_start_ns), F_U64(rb_msg_sample_t, t_end_ns),
         F_ARRAY(rb_msg_sample_t, jobs, njobs, RB_MAX_JOBS, s_job_stat_layout),
         F_ARRAY(rb_msg_sample_t, telem, ntelem, 1, s_telem_layout));

S_LAYOUT(s_body_DONE, s_check_done, F_STR(rb_msg_done_t, run_id, 0),
         F_U32(rb_msg_done_t, phase, RB_MAX_PHASES - 1), F_KIND(rb_msg_done_t, status, RB_PK_ERRNO),
         F_STR(rb_msg_done_t, error, 0), F_STR(rb_msg_done_t, error_path, 0),
         F_U64(rb_msg_done_t, error_offset),
         F_ARRAY(rb_msg_done_t, workers, nworkers, RB_MAX_WORKERS, s_worker_layout),
         F_ARRAY(rb_msg_done_t, jobs, njobs, RB_MAX_JOBS, s_job_stat_layout),
         F_KIND(rb_msg_done_t, caches_dropped, RB_PK_BOOL),
         F_KIND(rb_msg_done_t, drop_status, RB_PK_ERRNO),
         F_ARRAY(rb_msg_done_t, devs, ndevs, RB_MAX_DEVS, s_dev_id_layout),
         F_ARRAY(rb_msg_done_t, dev_stats, ndev_stats, RB_MAX_DEVS, s_job_stat_layout),
         F_ARRAY(rb_msg_done_t, links, nlinks, RB_NET_LINKS_MAX, s_link_stat_layout,
                 .flags = RB_PK_F_INFO, .since = 28,
                 .doc = "agent: what each end of a network phase's links counted"),
         F_U64(rb_msg_done_t, net_refused, .flags = RB_PK_F_INFO, .since = 28,
               .doc = "agent: connections to its data port it refused (not of this run)"),
         F_STR(rb_msg_done_t, net_refused_by, RB_PK_F_INFO, .since = 28,
               .doc = "agent: ... who they came from, and why"),
         F_U64(rb_msg_done_t, net_retrans, .flags = RB_PK_F_INFO, .since = 28,
               .doc = "agent: TCP segments its host retransmitted over a network phase"));

S_LAYOUT(s_body_STONEWALL, NULL, F_STR(rb_msg_wear_t, run_id, 0),
         F_U32(rb_msg_wear_t, phase, RB_MAX_PHASES - 1), F_U32(rb_msg_wear_t, job, RB_MAX_JOBS - 1),
         F_U64(rb_msg_wear_t, ops));
#define s_body_WEAROUT s_body_STONEWALL

S_LAYOUT(s_body_HEARTBEAT, NULL, F_U64(rb_msg_heartbeat_t, t_ns),
         F_U64(rb_msg_heartbeat_t, removed, .flags = RB_PK_F_INFO, .since = 25,
               .doc = "agent: files its clean-up of the run removed so far, sent while it "
                      "goes on (the coordinator waits for a clean-up that makes progress)"),
         F_U64M(rb_msg_heartbeat_t, period_ns, RB_HEARTBEAT_MAX_NS, .since = 29,
                .doc = "coordinator: ns between its HEARTBEATs from this one on, when longer "
                       "than the agent's own; the agent waits 3 of them before it takes the "
                       "coordinator for lost"));

S_LAYOUT(s_body_END, NULL, F_STR(rb_msg_end_t, run_id, 0), F_U64(rb_msg_end_t, removed_files),
         F_KIND(rb_msg_end_t, status, RB_PK_ERRNO),
         F_ARRAY(rb_msg_end_t, health, nhealth, RB_HEALTH_DEVS, s_health_layout,
                 .flags = RB_PK_F_INFO, .since = 27, .doc = S_HEALTH_DOC " after it"));

const rb_proto_layout_t *const rb_proto_bodies[RB_MSG_COUNT] = {
#define RB_X_BODY(e, s) [RB_MSG_##e] = &s_body_##e,
    RB_MSG_TYPES(RB_X_BODY)
#undef RB_X_BODY
};

/* The size of each type's member of rb_msg_t.u: decoding and rb_msg_fini
 * clear that much, not the whole union (65 KiB, the HELLO's size) for every
 * SAMPLE, which at 16,000 agents a second cost the coordinator about 2 GB/s
 * of memset. */
static const size_t s_body_sizes[RB_MSG_COUNT] = {
    [RB_MSG_HELLO] = sizeof(rb_msg_hello_t),    [RB_MSG_PING] = sizeof(rb_msg_ping_t),
    [RB_MSG_PONG] = sizeof(rb_msg_pong_t),      [RB_MSG_PLAN] = sizeof(rb_msg_plan_t),
    [RB_MSG_READY] = sizeof(rb_msg_ready_t),    [RB_MSG_REFUSED] = sizeof(rb_msg_reason_t),
    [RB_MSG_GO] = sizeof(rb_msg_go_t),          [RB_MSG_SAMPLE] = sizeof(rb_msg_sample_t),
    [RB_MSG_DONE] = sizeof(rb_msg_done_t),      [RB_MSG_HEARTBEAT] = sizeof(rb_msg_heartbeat_t),
    [RB_MSG_ABORT] = sizeof(rb_msg_reason_t),   [RB_MSG_ERROR] = sizeof(rb_msg_reason_t),
    [RB_MSG_STONEWALL] = sizeof(rb_msg_wear_t), [RB_MSG_WEAROUT] = sizeof(rb_msg_wear_t),
    [RB_MSG_END] = sizeof(rb_msg_end_t),        [RB_MSG_SPACE] = sizeof(rb_msg_space_t),
};

size_t rb_proto_msg_used(rb_msg_type_t t)
{
    size_t body = t > RB_MSG_NONE && t < RB_MSG_COUNT && s_body_sizes[t]
                      ? s_body_sizes[t]
                      : sizeof(((rb_msg_t *)0)->u);
    return offsetof(rb_msg_t, u) + body;
}

/* ---- context shared by encoding and decoding: where we are, for messages ---- */

void rb_proto_enter(rb_proto_ctx_t *c, const char *key, long idx)
{
    if (c->depth < RB_PROTO_MAX_DEPTH) {
        c->at[c->depth].key = key;
        c->at[c->depth].idx = idx;
    }
    c->depth++;
}

void rb_proto_leave(rb_proto_ctx_t *c)
{
    c->depth--;
}

static size_t s_path_add(char *p, size_t cap, size_t n, const char *key, long idx)
{
    if (key && n < cap)
        n += (size_t)snprintf(p + n, cap - n, "%s%s", n ? "." : "", key);
    if (idx >= 0 && n < cap)
        n += (size_t)snprintf(p + n, cap - n, "[%ld]", idx);
    return n;
}

/* Records "TYPE: field 'path.key[idx]': what" and returns c->code. */
int rb_proto_fail(rb_proto_ctx_t *c, const char *key, long idx, const char *fmt, ...)
{
    char path[256] = "", what[512];
    size_t n = 0;
    for (int i = 0; i < c->depth && i < RB_PROTO_MAX_DEPTH; i++)
        n = s_path_add(path, sizeof path, n, c->at[i].key, c->at[i].idx);
    s_path_add(path, sizeof path, n, key, idx);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rb_err_set(c->err, c->code, "%s: field '%s': %s", c->type ? c->type : "message", path, what);
    return c->code;
}

/* An integer outside its field's range: "0 out of range (min 1, max 65536)". */
int rb_proto_fail_range(rb_proto_ctx_t *c, const char *key, long idx, uint64_t v, uint64_t min,
                        uint64_t max)
{
    if (min == 0)
        return rb_proto_fail(c, key, idx, "%" PRIu64 " out of range (max %" PRIu64 ")", v, max);
    return rb_proto_fail(c, key, idx, "%" PRIu64 " out of range (min %" PRIu64 ", max %" PRIu64 ")",
                         v, min, max);
}

int rb_proto_nomem(rb_proto_ctx_t *c)
{
    rb_err_set(c->err, -ENOMEM, "%s: out of memory", c->type ? c->type : "message");
    return -ENOMEM;
}

/* Copies at most cap-1 bytes of untrusted text for a message, '?' for the unprintable. */
const char *rb_proto_printable(char *dst, size_t cap, const char *src, size_t len)
{
    size_t i;
    for (i = 0; i < len && i + 1 < cap; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
    dst[i] = '\0';
    return dst;
}

void *rb_proto_ptr(const void *base, const rb_proto_field_t *f)
{
    return (char *)base + f->off;
}

uint32_t *rb_proto_count(const void *base, const rb_proto_field_t *f)
{
    return (uint32_t *)((char *)base + f->count_off);
}

char *rb_proto_elems(const void *base, const rb_proto_field_t *f)
{
    char *elems;
    if (f->kind == RB_PK_INLINE)
        return rb_proto_ptr(base, f);
    memcpy(&elems, rb_proto_ptr(base, f), sizeof elems);
    return elems;
}

/* A histogram's buckets must add up to its count. min and max are not checked
 * against each other or the buckets: a delta taken while a worker records may
 * be a value apart, and percentiles clamp to them only when min <= max. */
static int s_check_hist(rb_proto_ctx_t *c, const void *base)
{
    const rb_hist_t *h = base;
    uint64_t sum = c->bsum_set ? c->bsum : 0;
    bool over = c->bsum_set && c->bsum_over;
    if (!c->bsum_set) /* buckets neither read nor written (a caller's check) */
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
            over |= h->b[i] > UINT64_MAX - sum;
            sum += h->b[i];
        }
    c->bsum_set = false;
    if (over || sum != h->count)
        return rb_proto_fail(c, "count", -1, "%" PRIu64 ", but the buckets sum to %s%" PRIu64,
                             h->count, over ? "more than " : "", sum);
    return 0;
}

/* Rules of an RB_PK_STR beyond its bound (its flags); what is wrong, or NULL. */
const char *rb_proto_str_rule(const rb_proto_field_t *f, const char *s)
{
    if ((f->flags & RB_PK_F_NONEMPTY) && !*s)
        return "empty";
    if ((f->flags & RB_PK_F_FILE) && strchr(s, '/'))
        return "contains '/'; a file name, not a path, is expected";
    if ((f->flags & RB_PK_F_FILE) && (!strcmp(s, ".") || !strcmp(s, "..")))
        return "'.' and '..' are not file names";
    return NULL;
}

/* A job's rules across fields: a size range that is one, a pattern to repeat,
 * Lustre striping lfs accepts. */
/* The rules of any job, a part of the plan's own (rb_job_rules.h). */
/* An IO priority the kernel takes: class 1 .. 3 and level 0 .. 7. */
static bool s_ioprio_ok(uint32_t prio)
{
    uint32_t cls = prio >> RB_IOPRIO_CLASS_SHIFT;
    return cls >= 1 && cls <= 3 && (prio & ((1u << RB_IOPRIO_CLASS_SHIFT) - 1)) <= 7;
}

static int s_check_cmdprio(rb_proto_ctx_t *c, const void *base)
{
    const rb_cmdprio_t *e = base;
    if (!s_ioprio_ok(e->prio))
        return rb_proto_fail(c, "prio", -1,
                             "%" PRIu32 " is no IO priority (class 1 .. 3, level 0 .. 7)", e->prio);
    return 0;
}

static int s_check_job(rb_proto_ctx_t *c, const void *base)
{
    const rb_job_spec_t *js = base;
    if (js->ioprio && !s_ioprio_ok(js->ioprio))
        return rb_proto_fail(c, "ioprio", -1,
                             "%" PRIu32 " is no IO priority (class 1 .. 3, level 0 .. 7)",
                             js->ioprio);
    rb_job_rule_t rule;
    if (rb_job_rules_check_wire(base, &rule) == 0)
        return 0;
    return rb_proto_fail(c, rule.field, -1, "%s", rule.why);
}

/* The directions are parts of all IO: reads, writes and trims add up to at
 * most bytes and ops (each part, and their sum, checked without overflow). */
static int s_check_dirs(rb_proto_ctx_t *c, uint64_t bytes, uint64_t ops,
                        const uint64_t db[RB_NDIRS], const uint64_t dops[RB_NDIRS])
{
    static const char *const kb[RB_NDIRS] = {"read_bytes", "write_bytes", "trim_bytes"};
    static const char *const ko[RB_NDIRS] = {"read_ops", "write_ops", "trim_ops"};
    uint64_t left_b = bytes, left_o = ops;
    for (int d = 0; d < RB_NDIRS; d++) {
        if (db[d] > left_b && d == 0)
            return rb_proto_fail(c, kb[d], -1, "%" PRIu64 ", more than bytes %" PRIu64, db[d],
                                 bytes);
        if (db[d] > left_b)
            return rb_proto_fail(c, kb[d], -1,
                                 "%" PRIu64 ", more than the %" PRIu64
                                 " bytes the directions before it leave of %" PRIu64,
                                 db[d], left_b, bytes);
        if (dops[d] > left_o && d == 0)
            return rb_proto_fail(c, ko[d], -1, "%" PRIu64 ", more than ops %" PRIu64, dops[d], ops);
        if (dops[d] > left_o)
            return rb_proto_fail(c, ko[d], -1,
                                 "%" PRIu64 ", more than the %" PRIu64
                                 " ops the directions before it leave of %" PRIu64,
                                 dops[d], left_o, ops);
        left_b -= db[d];
        left_o -= dops[d];
    }
    return 0;
}

static int s_check_job_stat(rb_proto_ctx_t *c, const void *base)
{
    const rb_job_stat_t *js = base;
    const uint64_t db[RB_NDIRS] = {js->read_bytes, js->write_bytes, js->trim_bytes};
    const uint64_t dops[RB_NDIRS] = {js->read_ops, js->write_ops, js->trim_ops};
    return s_check_dirs(c, js->bytes, js->ops, db, dops);
}

static int s_check_worker(rb_proto_ctx_t *c, const void *base)
{
    const rb_worker_stat_t *w = base;
    const uint64_t db[RB_NDIRS] = {w->read_bytes, w->write_bytes, w->trim_bytes};
    const uint64_t dops[RB_NDIRS] = {w->read_ops, w->write_ops, w->trim_ops};
    if (w->found > w->ops) /* a find step matches among the files it examined */
        return rb_proto_fail(c, "found", -1, "%" PRIu64 " files found of %" PRIu64 " examined",
                             w->found, w->ops);
    return s_check_dirs(c, w->bytes, w->ops, db, dops);
}

/* A DONE's workers and device figures name devices it lists. */
static int s_check_done(rb_proto_ctx_t *c, const void *base)
{
    const rb_msg_done_t *d = base;
    for (uint32_t i = 0; i < d->nworkers && d->workers; i++)
        if (d->workers[i].dev > d->ndevs)
            return rb_proto_fail(c, "workers", (int)i,
                                 "dev %" PRIu32 " names none of %" PRIu32 " devices",
                                 d->workers[i].dev, d->ndevs);
    for (uint32_t i = 0; i < d->ndev_stats && d->dev_stats; i++)
        if (d->dev_stats[i].job >= d->ndevs)
            return rb_proto_fail(c, "dev_stats", (int)i,
                                 "job %" PRIu32 " names none of %" PRIu32 " devices",
                                 d->dev_stats[i].job, d->ndevs);
    return 0;
}

/* The workers of a phase on one agent must fit in one DONE message. */
static int s_check_phase(rb_proto_ctx_t *c, const void *base)
{
    const rb_phase_spec_t *ph = base;
    uint64_t workers = 0;
    for (uint32_t i = 0; i < ph->njobs && ph->jobs; i++)
        workers += ph->jobs[i].numjobs;
    if (workers > RB_MAX_WORKERS)
        return rb_proto_fail(c, "jobs", -1, "numjobs add up to %" PRIu64 " workers, more than %d",
                             workers, RB_MAX_WORKERS);
    return 0;
}

/* A node's place is inside the run. */
static int s_check_plan(rb_proto_ctx_t *c, const void *base)
{
    const rb_msg_plan_t *p = base;
    if (p->node_rank >= p->nnodes)
        return rb_proto_fail(c, "node_rank", -1, "%" PRIu32 ", not below nnodes %" PRIu32,
                             p->node_rank, p->nnodes);
    return 0;
}

const rb_proto_layout_t *const rb_proto_job_layout = &s_job_layout;

int rb_proto_job_limits(size_t off, uint64_t *min, uint64_t *max)
{
    for (size_t i = 0; i < s_job_layout.n; i++) {
        const rb_proto_field_t *f = &s_job_layout.fields[i];
        if (f->off != off || (f->kind != RB_PK_U32 && f->kind != RB_PK_U64))
            continue;
        *min = f->min;
        *max = f->max;
        return 0;
    }
    return -ENOENT;
}

/* ---- freeing ---- */

static void s_free_fields(const rb_proto_layout_t *l, void *base)
{
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *f = &l->fields[i];
        void *p = rb_proto_ptr(base, f);
        if (f->kind == RB_PK_HIST) {
            rb_proto_hist_put(*(rb_hist_t **)p);
            *(rb_hist_t **)p = NULL;
        } else if (f->kind == RB_PK_CHECKPTS) {
            rb_proto_block_put(*(rb_checkpt_t **)p,
                               *rb_proto_count(base, f) * sizeof(rb_checkpt_t));
            *(rb_checkpt_t **)p = NULL;
            *rb_proto_count(base, f) = 0;
        } else if (f->kind == RB_PK_ARRAY || f->kind == RB_PK_INLINE) {
            char *elems = rb_proto_elems(base, f);
            uint32_t n = *rb_proto_count(base, f);
            if (f->kind == RB_PK_INLINE && n > f->max)
                n = (uint32_t)f->max;
            for (uint32_t j = 0; elems && j < n; j++)
                s_free_fields(f->sub, elems + (size_t)j * f->size);
            if (f->kind == RB_PK_ARRAY) {
                rb_proto_block_put(elems, (size_t)*rb_proto_count(base, f) * f->size);
                elems = NULL;
                memcpy(p, &elems, sizeof elems);
            }
            *rb_proto_count(base, f) = 0;
        }
    }
}

void rb_job_stat_drop_hists(rb_job_stat_t *js)
{
    rb_proto_hist_put(js->hist);
    js->hist = NULL;
    for (int d = 0; d < RB_NDIRS; d++)
        for (int k = 0; k < RB_NLATS; k++) {
            rb_proto_hist_put(js->lat[d][k]);
            js->lat[d][k] = NULL;
        }
}

void rb_msg_done_drop_devs(rb_msg_done_t *d)
{
    rb_proto_block_put(d->devs, (size_t)d->ndevs * sizeof *d->devs);
    d->devs = NULL;
}

void rb_worker_stat_drop_checkpts(rb_worker_stat_t *w)
{
    rb_proto_block_put(w->checkpts, (size_t)w->ncheckpts * sizeof *w->checkpts);
    w->checkpts = NULL;
    w->ncheckpts = 0;
}

void rb_phase_specs_free(rb_phase_spec_t **phases, uint32_t nphases)
{
    if (!phases || !*phases)
        return;
    for (uint32_t i = 0; i < nphases; i++)
        s_free_fields(&s_phase_layout, &(*phases)[i]);
    free(*phases);
    *phases = NULL;
}

void rb_msg_fini(rb_msg_t *m)
{
    if (!m)
        return;
    if (m->type > RB_MSG_NONE && m->type < RB_MSG_COUNT)
        s_free_fields(rb_proto_bodies[m->type], &m->u);
    memset(m, 0, rb_proto_msg_used(m->type)); /* what decoding filled */
}

uint64_t rb_hello_wait_ns(uint64_t prev)
{
    const uint64_t first = 1000000000ull, most = 4 * first;
    return !prev ? first : prev * 2 > most ? most : prev * 2;
}
