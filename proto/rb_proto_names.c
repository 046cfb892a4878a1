/* The names of the protocol's vocabulary: the enums that travel as strings
 * (their wire names, and the tables the codec checks them with), the
 * directions and kinds of latency, and what the access patterns do. */
#include <string.h>

#include "rb_proto.h"
#include "rb_proto_int.h"

/* Wire names of the enums that travel as strings, indexed by value; NULL for
 * a value with no wire name. */
static const char *const s_rw_names[] = {
    [RB_RW_READ] = "read",
    [RB_RW_WRITE] = "write",
    [RB_RW_RANDREAD] = "randread",
    [RB_RW_RANDWRITE] = "randwrite",
    [RB_RW_RW] = "rw",
    [RB_RW_RANDRW] = "randrw",
    [RB_RW_REWRITE] = "rewrite",
    [RB_RW_REREAD] = "reread",
    [RB_RW_META] = "meta",
    [RB_RW_TRIM] = "trim",
    [RB_RW_RANDTRIM] = "randtrim",
    [RB_RW_TRIMWRITE] = "trimwrite",
    [RB_RW_RANDTRIMWRITE] = "randtrimwrite",
};
static const char *const s_meta_names[] = {
    [RB_META_NONE] = "none",     [RB_META_CREATE] = "create", [RB_META_STAT] = "stat",
    [RB_META_READ] = "read",     [RB_META_WRITE] = "write",   [RB_META_RENAME] = "rename",
    [RB_META_DELETE] = "delete", [RB_META_MKDIR] = "mkdir",   [RB_META_STATDIR] = "statdir",
    [RB_META_RMDIR] = "rmdir",   [RB_META_MKTREE] = "mktree", [RB_META_RMTREE] = "rmtree",
    [RB_META_FIND] = "find",
};
static const char *const s_sync_names[] = {
    [RB_SYNC_NONE] = "none", [RB_SYNC_SYNC] = "sync", [RB_SYNC_DSYNC] = "dsync"};
static const char *const s_buf_names[] = {
    [RB_BUF_RANDOM] = "random", [RB_BUF_ZERO] = "zero", [RB_BUF_PATTERN] = "pattern"};
static const char *const s_verify_names[] = {
    [RB_VERIFY_NONE] = "none",       [RB_VERIFY_CRC32C] = "crc32c", [RB_VERIFY_MD5] = "md5",
    [RB_VERIFY_CRC32] = "crc32",     [RB_VERIFY_CRC64] = "crc64",   [RB_VERIFY_SHA1] = "sha1",
    [RB_VERIFY_SHA256] = "sha256",   [RB_VERIFY_SHA512] = "sha512", [RB_VERIFY_XXHASH] = "xxhash",
    [RB_VERIFY_CRC16] = "crc16",     [RB_VERIFY_CRC7] = "crc7",     [RB_VERIFY_META] = "meta",
    [RB_VERIFY_PATTERN] = "pattern", [RB_VERIFY_NULL] = "null"};
static const char *const s_layout_names[] = {
    [RB_LAYOUT_SEGMENTED] = "segmented", [RB_LAYOUT_STRIDED] = "strided"};

#define S_NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const s_net_names[] = {[RB_NET_PAIRS] = "pairs",
                                          [RB_NET_RING] = "ring",
                                          [RB_NET_ALL2ALL] = "all-to-all",
                                          [RB_NET_INCAST] = "incast",
                                          [RB_NET_BISECTION] = "bisection"};

const char *rb_net_pattern_name(uint32_t p)
{
    return p < S_NELEM(s_net_names) ? s_net_names[p] : NULL;
}

uint32_t rb_net_pattern_parse(const char *s)
{
    for (uint32_t i = 1; s && i < S_NELEM(s_net_names); i++)
        if (!strcmp(s_net_names[i], s))
            return i;
    return RB_NET_NONE;
}

const char *rb_rw_name(rb_rw_t rw)
{
    return (unsigned)rw < S_NELEM(s_rw_names) ? s_rw_names[rw] : NULL;
}

const char *rb_meta_op_name(rb_meta_op_t op)
{
    return (unsigned)op < S_NELEM(s_meta_names) ? s_meta_names[op] : NULL;
}

const char *rb_verify_name(rb_verify_t t)
{
    return (unsigned)t < S_NELEM(s_verify_names) ? s_verify_names[t] : NULL;
}

int rb_meta_op_looks(rb_meta_op_t op)
{
    return op == RB_META_STAT || op == RB_META_READ || op == RB_META_STATDIR || op == RB_META_FIND;
}

int rb_meta_op_creates(rb_meta_op_t op)
{
    return op == RB_META_CREATE || op == RB_META_MKDIR;
}

int rb_meta_op_tree(rb_meta_op_t op)
{
    return op == RB_META_MKTREE || op == RB_META_RMTREE;
}

rb_meta_op_t rb_meta_op_parse(const char *s)
{
    for (unsigned i = 1; s && i < S_NELEM(s_meta_names); i++)
        if (strcmp(s, s_meta_names[i]) == 0)
            return (rb_meta_op_t)i;
    return RB_META_NONE;
}

const char *rb_layout_mode_name(rb_layout_mode_t m)
{
    return (unsigned)m < S_NELEM(s_layout_names) ? s_layout_names[m] : NULL;
}

int rb_layout_mode_parse(const char *s)
{
    for (unsigned i = 0; s && i < S_NELEM(s_layout_names); i++)
        if (strcmp(s, s_layout_names[i]) == 0)
            return (int)i;
    return -1;
}

rb_rw_t rb_rw_parse(const char *s)
{
    if (!s)
        return RB_RW_NONE;
    for (unsigned i = 0; i < S_NELEM(s_rw_names); i++)
        if (s_rw_names[i] && strcmp(s, s_rw_names[i]) == 0)
            return (rb_rw_t)i;
    return strcmp(s, "readwrite") == 0 ? RB_RW_RW : RB_RW_NONE; /* fio's other spelling */
}

const char *rb_dir_name(rb_dir_t d)
{
    static const char *const names[RB_NDIRS] = {"read", "write", "trim"};
    return (unsigned)d < RB_NDIRS ? names[d] : "?";
}

const char *rb_lat_kind_name(rb_lat_kind_t k)
{
    static const char *const names[RB_NLATS] = {"lat", "slat", "clat"};
    return (unsigned)k < RB_NLATS ? names[k] : "?";
}

int rb_job_file_sized(const rb_job_spec_t *js)
{
    return !js->size && js->filename[0] && !js->device[0] && js->rw != RB_RW_META;
}

uint64_t rb_job_read_seed(const rb_job_spec_t *js)
{
    return js->read_seed + (js->read_reseed ? js->read_iteration : 0);
}

int rb_phase_spec_is_meta(const rb_phase_spec_t *ph)
{
    return ph->njobs && ph->jobs[0].rw == RB_RW_META;
}

int rb_rw_reads(rb_rw_t rw)
{
    return rw == RB_RW_READ || rw == RB_RW_RANDREAD || rw == RB_RW_RW || rw == RB_RW_RANDRW ||
           rw == RB_RW_REREAD;
}

int rb_rw_writes(rb_rw_t rw)
{
    return rw == RB_RW_WRITE || rw == RB_RW_RANDWRITE || rw == RB_RW_RW || rw == RB_RW_RANDRW ||
           rw == RB_RW_REWRITE || rw == RB_RW_TRIMWRITE || rw == RB_RW_RANDTRIMWRITE;
}

int rb_rw_trims(rb_rw_t rw)
{
    return rw == RB_RW_TRIM || rw == RB_RW_RANDTRIM || rw == RB_RW_TRIMWRITE ||
           rw == RB_RW_RANDTRIMWRITE;
}

int rb_rw_random(rb_rw_t rw)
{
    return rw == RB_RW_RANDREAD || rw == RB_RW_RANDWRITE || rw == RB_RW_RANDRW ||
           rw == RB_RW_RANDTRIM || rw == RB_RW_RANDTRIMWRITE;
}

uint32_t rb_verify_sum_len(rb_verify_t t)
{
    static const uint8_t len[] = {
        [RB_VERIFY_CRC32C] = 4,  [RB_VERIFY_MD5] = 16,   [RB_VERIFY_CRC32] = 4,
        [RB_VERIFY_CRC64] = 8,   [RB_VERIFY_SHA1] = 20,  [RB_VERIFY_SHA256] = 32,
        [RB_VERIFY_SHA512] = 64, [RB_VERIFY_XXHASH] = 4, [RB_VERIFY_CRC16] = 2,
        [RB_VERIFY_CRC7] = 1};
    return (unsigned)t < sizeof len ? len[t] : 0;
}

uint32_t rb_verify_hdr_len(rb_verify_t t)
{
    if (t == RB_VERIFY_CRC32C || t == RB_VERIFY_META)
        return RB_VERIFY_HDR;
    uint32_t n = rb_verify_sum_len(t);
    return n ? RB_VERIFY_HDR + n : 0;
}

/* The enums as the codec's layouts name them (rb_proto_int.h). */
const rb_proto_enum_t rb_proto_rw_enum = {"access pattern", s_rw_names, S_NELEM(s_rw_names)};
const rb_proto_enum_t rb_proto_sync_enum = {"sync mode", s_sync_names, S_NELEM(s_sync_names)};
const rb_proto_enum_t rb_proto_buf_enum = {"buffer mode", s_buf_names, S_NELEM(s_buf_names)};
const rb_proto_enum_t rb_proto_verify_enum = {"verify method", s_verify_names,
                                              S_NELEM(s_verify_names)};
const rb_proto_enum_t rb_proto_meta_enum = {"metadata operation", s_meta_names,
                                            S_NELEM(s_meta_names)};
const rb_proto_enum_t rb_proto_layout_enum = {"shared-file layout", s_layout_names,
                                              S_NELEM(s_layout_names)};
