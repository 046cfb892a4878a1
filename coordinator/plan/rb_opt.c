/* The job-option table (rb_opt.h) and what is generic about its rows:
 * the defaults, the normalised print, the "did you mean" suggestion and the
 * option lists of docs/plan.md (reading a value by its kind is in
 * rb_opt_read.c). */
#include "rb_opt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_names.h"
#include "rb_plan_int.h"
#include "rb_units.h"

#define S_NS_PER_S 1000000000ull

/* The field f of rb_job_spec_t. */
#define J(f)     .off = offsetof(rb_job_spec_t, f), .size = sizeof(((rb_job_spec_t *)0)->f)
#define NAMES(a) .names = (a), .nnames = sizeof(a) / sizeof((a)[0])

static const rb_opt_name_t s_rw_names[] = {
    {"read", RB_RW_READ},
    {"write", RB_RW_WRITE},
    {"randread", RB_RW_RANDREAD},
    {"randwrite", RB_RW_RANDWRITE},
    {"rw", RB_RW_RW},
    {"readwrite", RB_RW_RW},
    {"randrw", RB_RW_RANDRW},
    {"rewrite", RB_RW_REWRITE},
    {"reread", RB_RW_REREAD},
    {"trim", RB_RW_TRIM},
    {"randtrim", RB_RW_RANDTRIM},
    {"trimwrite", RB_RW_TRIMWRITE},
    {"randtrimwrite", RB_RW_RANDTRIMWRITE},
    {"meta", RB_RW_META},
};
static const rb_opt_name_t s_sync_names[] = {
    {"none", RB_SYNC_NONE}, {"sync", RB_SYNC_SYNC}, {"dsync", RB_SYNC_DSYNC}};
static const rb_opt_name_t s_verify_names[] = {
    {"0", RB_VERIFY_NONE},          {"crc32c", RB_VERIFY_CRC32C}, {"md5", RB_VERIFY_MD5},
    {"crc32", RB_VERIFY_CRC32},     {"crc64", RB_VERIFY_CRC64},   {"sha1", RB_VERIFY_SHA1},
    {"sha256", RB_VERIFY_SHA256},   {"sha512", RB_VERIFY_SHA512}, {"xxhash", RB_VERIFY_XXHASH},
    {"crc16", RB_VERIFY_CRC16},     {"crc7", RB_VERIFY_CRC7},     {"meta", RB_VERIFY_META},
    {"pattern", RB_VERIFY_PATTERN}, {"null", RB_VERIFY_NULL}};
static const rb_opt_name_t s_layout_names[] = {{"segmented", RB_LAYOUT_SEGMENTED},
                                               {"strided", RB_LAYOUT_STRIDED}};
static const rb_opt_name_t s_cpus_policy_names[] = {{"shared", 0}, {"split", 1}};
static const rb_opt_name_t s_exit_what_names[] = {
    {"group", RB_EXIT_GROUP}, {"stonewall", RB_EXIT_STONEWALL}, {"all", RB_EXIT_ALL}};
static const rb_opt_name_t s_falloc_names[] = {
    {"native", RB_FALLOC_NATIVE}, {"none", RB_FALLOC_NONE},         {"posix", RB_FALLOC_POSIX},
    {"keep", RB_FALLOC_KEEP},     {"truncate", RB_FALLOC_TRUNCATE}, {"0", RB_FALLOC_NONE},
    {"1", RB_FALLOC_POSIX}};
static const rb_opt_name_t s_fadvise_names[] = {{"0", RB_FADVISE_NONE},
                                                {"1", RB_FADVISE_PATTERN},
                                                {"sequential", RB_FADVISE_SEQUENTIAL},
                                                {"random", RB_FADVISE_RANDOM}};
static const rb_opt_name_t s_dedupe_names[] = {{"repeat", RB_DEDUPE_REPEAT},
                                               {"working_set", RB_DEDUPE_WORKING_SET}};
static const rb_opt_name_t s_write_hint_names[] = {{"none", RB_WRITE_HINT_NONE},
                                                   {"short", RB_WRITE_HINT_SHORT},
                                                   {"medium", RB_WRITE_HINT_MEDIUM},
                                                   {"long", RB_WRITE_HINT_LONG},
                                                   {"extreme", RB_WRITE_HINT_EXTREME}};
static const rb_opt_name_t s_order_names[] = {{"sequential", 0}, {"random", 1}};
static const rb_opt_name_t s_think_names[] = {{"complete", 0}, {"issue", 1}};

static rb_opt_parse_fn s_layout_value;

/* clang-format off */
/* In the order of the normalised print; rows that are not printed stand
 * beside the option they belong with. */
static const rb_opt_t s_rows[] = {
    /* access pattern and sizes */
    {"rw", "readwrite", RB_OPT_CUSTOM, 0, J(rw), NAMES(s_rw_names), .parse = rb_opt_value_rw,
     .print = rb_opt_print_rw, .def = "read", .type = "access pattern[:modifier]",
     .doc = "what each worker does: read, write, randread, randwrite, rw, randrw, rewrite, reread, trim, randtrim, trimwrite, randtrimwrite, meta; `write:4k` skips, `read:-8k` goes back, `randread:8` seeks every 8 IOs",
     .ref = "rw-also-readwrite", .fills = "seq_add,seq_back,seq_nr"},
    {"rw_sequencer", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_rw_sequencer,
     .print = rb_opt_print_rw_sequencer, .type = "`sequential`, `identical`", .def_doc = "`sequential`",
     .doc = "with rw=randX:N, the IOs between two random offsets: the next blocks, or the same one",
     .ref = "rw_sequencer", .fills = "seq_identical"},
    {"percentage_random", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_percentage_random,
     .print = rb_opt_print_percentage_random, .type = "0 .. 100[,..[,..]]", .def_doc = "`100`",
     .doc = "% of a random job's IOs at a random offset, per direction; the others go on from the last",
     .ref = "percentage_random-also-percentage_sequential", .fills = "perc_seq_read,perc_seq_write,perc_seq_trim"},
    {"random_generator", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_random_generator, .type = "`tausworthe`, `lfsr`, `tausworthe64`",
     .def_doc = "`tausworthe`",
     .doc = "fio's generator: rackbench draws with its own; lfsr keeps each block once a pass, even with norandommap",
     .ref = "random_generator", .fills = ""},
    {"blockalign", "ba", RB_OPT_CUSTOM, 0, .parse = rb_opt_value_blockalign,
     .print = rb_opt_print_blockalign, .type = "size[,size[,size]]", .def_doc = "`bs`",
     .doc = "random offsets are multiples of this, per direction (no random map then)",
     .ref = "blockalign-also-ba", .fills = "ba_read,ba_write,ba_trim"},
    {"zonemode", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_zonemode,
     .print = rb_opt_print_zonemode, .type = "`none`, `strided`, `zbd`", .def_doc = "`none`",
     .doc = "strided: IO in zones of zonesize bytes, one every zonerange + zoneskip bytes; zbd: "
            "writes at each zone's write pointer",
     .ref = "zonemode-zonesize-zonerange-zoneskip", .fills = "zbd_zone"},
    {"zonesize", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(zone_size), .print = rb_opt_print_zone_size,
     .type = "size", .def_doc = "`0`",
     .doc = "strided: bytes of IO in a zone before the next; zbd: the bytes of a zone",
     .ref = "zonemode-zonesize-zonerange-zoneskip"},
    {"zonecapacity", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(zbd_cap), .print = rb_opt_print_zbd,
     .type = "size", .def_doc = "`zonesize`", .doc = "zbd: the bytes of a zone that can be written",
     .ref = "zonemodezbd"},
    {"max_open_zones", NULL, RB_OPT_COUNT, 0, J(zbd_max_open), .print = rb_opt_print_zbd,
     .min = 0, .max = RB_ZBD_MAX_OPEN, .type = "0 .. 4096", .def_doc = "`0` (any)",
     .doc = "zbd: zones of a file written at once, by every job", .ref = "zonemodezbd"},
    {"job_max_open_zones", NULL, RB_OPT_COUNT, 0, J(zbd_job_max_open), .print = rb_opt_print_zbd,
     .min = 0, .max = RB_ZBD_MAX_OPEN, .type = "0 .. 4096", .def_doc = "`0` (any)",
     .doc = "zbd: zones written at once by one worker", .ref = "zonemodezbd"},
    {"read_beyond_wp", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(zbd_beyond_wp), .print = rb_opt_print_zbd,
     .type = "boolean", .def_doc = "`0`", .doc = "zbd: reads go where they fall, past write pointers too",
     .ref = "zonemodezbd"},
    {"zone_reset_threshold", NULL, RB_OPT_CUSTOM, 0, J(zbd_reset_thr), .parse = rb_opt_value_zone_frac,
     .print = rb_opt_print_zbd, .type = "0 .. 1", .def_doc = "`0`",
     .doc = "zbd: zone resets start once this share of the range holds data", .ref = "zonemodezbd"},
    {"zone_reset_frequency", NULL, RB_OPT_CUSTOM, 0, J(zbd_reset_freq), .parse = rb_opt_value_zone_frac,
     .print = rb_opt_print_zbd, .type = "0 .. 1", .def_doc = "`0` (none)",
     .doc = "zbd: then one write in 1/this resets its zone first", .ref = "zonemodezbd"},
    {"zonerange", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(zone_range), .print = rb_opt_print_zone_size,
     .type = "size", .def_doc = "`zonesize`", .doc = "zonemode=strided: the span of a zone its IOs fall in",
     .ref = "zonemode-zonesize-zonerange-zoneskip"},
    {"zoneskip", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(zone_skip), .print = rb_opt_print_zone_size,
     .type = "size", .def_doc = "`0`", .doc = "zonemode=strided: bytes skipped after a zone's range",
     .ref = "zonemode-zonesize-zonerange-zoneskip"},
    {"percentage_sequential", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_percentage_random, .type = "0 .. 100[,..[,..]]", .def_doc = "`0`",
     .doc = "100 minus percentage_random", .ref = "percentage_random-also-percentage_sequential", .fills = "perc_seq_read,perc_seq_write,perc_seq_trim"},
    {"rwmixread", NULL, RB_OPT_COUNT, 0, J(rwmixread), .min = 0, .max = 100, .def = "50",
     .type = "0 .. 100", .doc = "% of the IOs of a mixed pattern that read", .ref = "rwmixread-rwmixwrite"},
    {"rwmixwrite", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .min = 0, .max = 100,
     .parse = rb_opt_value_rwmixwrite, .type = "0 .. 100", .def_doc = "`50`",
     .doc = "% that write: sets rwmixread to 100 minus it", .ref = "rwmixread-rwmixwrite", .fills = "rwmixread"},
    {"bs", "blocksize", RB_OPT_CUSTOM, 0, J(bs), .parse = rb_opt_value_bs,
     .print = rb_opt_print_bs, .def = "4k", .type = "size[,size]",
     .doc = "bytes per IO; `R,W` for reads and writes apart", .ref = "bs-also-blocksize", .fills = "bs,bs_max,bs_read,bs_read_max,bs_write,bs_write_max,bs_trim,bs_trim_max"},
    {"bsrange", "blocksize_range", RB_OPT_CUSTOM, 0, .parse = rb_opt_value_bsrange,
     .print = rb_opt_print_bsrange, .type = "size range[,range]", .def_doc = "`bs`-`bs`",
     .doc = "IO sizes drawn from MIN-MAX, in multiples of the smallest; wins over bs",
     .ref = "bsrange-also-blocksize_range", .fills = "bs,bs_max,bs_read,bs_read_max,bs_write,bs_write_max,bs_trim,bs_trim_max"},
    {"bssplit", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_bssplit,
     .print = rb_opt_print_bssplit, .type = "size/%:...[,...]", .def_doc = "none",
     .doc = "IO sizes by weight, `4k/10:64k/90`; wins over bs and bsrange", .ref = "bssplit", .fills = "bssplit_read,bssplit_write,bs,bs_max,bs_read,bs_read_max,bs_write,bs_write_max,bs_trim,bs_trim_max"},
    {"size", NULL, RB_OPT_CUSTOM, 0, J(size), .parse = rb_opt_value_size_pct,
     .print = rb_opt_print_job_size, .type = "size, or 1% .. 100% of a device",
     .def_doc = "none (or `filesize` × `nrfiles`; a device's size for `filename=/dev/X`)",
     .doc = "bytes of IO per worker and pass, over all its files", .ref = "size", .fills = "size_pct"},
    {"filesize", NULL, RB_OPT_CUSTOM, 0, J(filesize), .parse = rb_opt_value_filesize,
     .print = rb_opt_print_size, .type = "size", .def_doc = "`0` (`size` / `nrfiles`)",
     .doc = "bytes per file", .ref = "filesize"},
    {"io_size", "io_limit", RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(io_size), .parse = rb_opt_value_io_size,
     .print = rb_opt_print_size, .type = "size, or 1% .. 100% of size", .def_doc = "`0` (`size`)",
     .doc = "bytes of IO per worker and loop, looping over size or stopping early", .ref = "io_size-also-io_limit"},
    {"number_ios", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(number_ios), .print = rb_opt_print_u64,
     .type = "count", .def_doc = "`0` (no limit)", .doc = "stop a worker after this many IOs per loop",
     .ref = "number_ios"},
    {"nrfiles", "nr_files", RB_OPT_COUNT, 0, J(nrfiles), .min = 1, .max = RB_NRFILES_MAX,
     .def = "1", .type = "1 .. 65536", .doc = "files per worker", .ref = "nrfiles-also-nr_files"},
    {"lockmem", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(lockmem), .print = rb_opt_print_if_set,
     .type = "size", .def_doc = "`0` (none)",
     .doc = "memory each worker pins (mlock) while it runs, as if the host had less",
     .ref = "lockmem"},
    {"openfiles", NULL, RB_OPT_COUNT, 0, J(openfiles), .min = 0, .max = RB_NRFILES_MAX,
     .print = rb_opt_print_if_set, .type = "0 .. 65536", .def_doc = "`0` (`nrfiles`)",
     .doc = "files a worker goes over at once, the next taken in as one is done",
     .ref = "openfiles"},
    {"offset", "fileoffset", RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(offset), .parse = rb_opt_value_size_pct,
     .print = rb_opt_print_offset, .type = "size, or 1% .. 100% of a device", .def_doc = "`0`",
     .doc = "where IO starts in each file", .ref = "offset-also-fileoffset", .fills = "offset_pct"},
    {"offset_increment", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(offset_increment), .type = "size",
     .def_doc = "`0`", .doc = "worker k of the job starts at offset + k × this", .ref = "offset_increment"},
    {"numjobs", NULL, RB_OPT_COUNT, RB_OPT_F_PRINT_META, J(numjobs), .min = 1,
     .max = RB_MAX_WORKERS, .def = "1", .type = "1 .. 4096", .doc = "workers per agent",
     .ref = "numjobs"},
    /* engine and depth */
    {"ioengine", NULL, RB_OPT_CUSTOM, 0, J(ioengine), .parse = rb_opt_value_ioengine,
     .print = rb_opt_print_ioengine, .def = "sync", .type = "engine name",
     .doc = "how IO is issued: sync (psync), libaio, io_uring, pvsync, pvsync2, vsync, posixaio, mmap, null", .ref = "ioengine"},
    {"iodepth", NULL, RB_OPT_COUNT, 0, J(iodepth), .min = 1, .max = RB_IODEPTH_MAX, .def = "1",
     .type = "1 .. 65536", .doc = "IOs in flight per worker (async engines; one IO at a time engines keep 1, noted, as fio caps it)", .ref = "iodepth"},
    {"iodepth_batch_submit", "iodepth_batch", RB_OPT_COUNT, 0, J(batch_submit), .print = rb_opt_print_if_changed, .min = 0,
     .max = RB_IODEPTH_MAX, .def = "1", .type = "0 .. 65536", .ref = "iodepth_batch_submit",
     .doc = "queued IOs submitted together (0: iodepth)"},
    {"iodepth_batch_complete_min", "iodepth_batch_complete", RB_OPT_COUNT, 0, J(batch_cmin), .print = rb_opt_print_if_changed,
     .min = 1, .max = RB_IODEPTH_MAX, .def = "1", .type = "1 .. 65536",
     .ref = "iodepth_batch_submit", .doc = "completions a full queue waits for at least"},
    {"iodepth_batch_complete_max", NULL, RB_OPT_COUNT, 0, J(batch_cmax), .print = rb_opt_print_if_changed, .min = 0,
     .max = RB_IODEPTH_MAX, .def = "0", .def_doc = "`iodepth_batch_complete_min`",
     .type = "0 .. 65536", .ref = "iodepth_batch_submit",
     .doc = "completions reaped at most at once"},
    {"iodepth_low", NULL, RB_OPT_COUNT, 0, J(depth_low), .print = rb_opt_print_if_changed, .min = 0, .max = RB_IODEPTH_MAX,
     .def = "0", .def_doc = "`iodepth`", .type = "0 .. 65536", .ref = "iodepth_batch_submit",
     .doc = "a full queue is reaped down to this many in flight"},
    /* engines' own options (as fio's ops->options): only with the engines named */
    {"hipri", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(hipri), .print = rb_opt_print_if_set,
     .type = "boolean", .def_doc = "`0`", .engine = "io_uring,pvsync2",
     .doc = "polled completions: io_uring's ring polls (O_DIRECT only), pvsync2 passes RWF_HIPRI",
     .ref = "hipri"},
    {"sqthread_poll", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(sqpoll), .print = rb_opt_print_if_set,
     .type = "boolean", .def_doc = "`0`", .engine = "io_uring",
     .doc = "a kernel thread takes the submissions (IORING_SETUP_SQPOLL)", .ref = "sqthread_poll"},
    {"sqthread_poll_cpu", NULL, RB_OPT_CUSTOM, 0, J(sqpoll_cpu), .min = 0, .max = RB_CPUS_MAX - 1,
     .parse = rb_opt_value_sqpoll_cpu, .print = rb_opt_print_sqpoll_cpu, .type = "0 .. 1023",
     .def_doc = "none", .engine = "io_uring",
     .doc = "with sqthread_poll, the CPU that thread is bound to (IORING_SETUP_SQ_AFF)",
     .ref = "sqthread_poll", .fills = "sqpoll_aff"},
    {"cmdprio_percentage", NULL, RB_OPT_CUSTOM, 0, .min = 0, .max = 100,
     .parse = rb_opt_value_cmdprio, .print = rb_opt_print_cmdprio, .type = "0 .. 100[,0 .. 100]",
     .def_doc = "`0`", .engine = "libaio,io_uring",
     .doc = "share of reads and writes that carry cmdprio_class and cmdprio as their own priority",
     .ref = "cmdprio_percentage", .fills = "cmdprio_read,cmdprio_write"},
    {"cmdprio_class", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .min = 1, .max = 3,
     .parse = rb_opt_value_cmdprio, .type = "1 .. 3[,1 .. 3]", .def_doc = "`1` (RT)",
     .engine = "libaio,io_uring", .doc = "the class of those IOs' priority: 1 RT, 2 BE, 3 IDLE",
     .ref = "cmdprio_percentage", .fills = "cmdprio_read,cmdprio_write"},
    {"cmdprio", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .min = 0, .max = 7,
     .parse = rb_opt_value_cmdprio, .type = "0 .. 7[,0 .. 7]", .def_doc = "`0`",
     .engine = "libaio,io_uring", .doc = "the level of those IOs' priority",
     .ref = "cmdprio_percentage", .fills = "cmdprio_read,cmdprio_write"},
    {"cmdprio_bssplit", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT | RB_OPT_F_EMPTY,
     .parse = rb_opt_value_cmdprio_bssplit, .type = "size/%[/class/level]:...[,...]",
     .def_doc = "none", .engine = "libaio,io_uring",
     .doc = "shares of IOs of each size with a priority of their own", .ref = "cmdprio_bssplit", .fills = "cmdprio_read,cmdprio_write"},
    /* caching and syncing */
    {"direct", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(direct), .type = "boolean", .def_doc = "`0`",
     .doc = "O_DIRECT: past the page cache", .ref = "direct"},
    {"buffered", NULL, RB_OPT_INVBOOL, RB_OPT_F_BARE | RB_OPT_F_NOPRINT, J(direct),
     .type = "boolean", .def_doc = "`1`", .doc = "the opposite of direct", .ref = "buffered"},
    {"sync", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE, J(sync_mode), NAMES(s_sync_names),
     .parse = rb_opt_value_sync, .print = rb_opt_print_enum, .type = "`none`, `sync`, `dsync` (or a boolean)",
     .def_doc = "`none`", .doc = "O_SYNC or O_DSYNC on every write", .ref = "sync"},
    {"dsync", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_NOPRINT, .parse = rb_opt_value_dsync,
     .type = "boolean", .def_doc = "`0`", .doc = "sync=dsync", .ref = "dsync", .fills = "sync_mode"},
    {"fsync", NULL, RB_OPT_COUNT, RB_OPT_F_ZERO, J(fsync_every), .min = 0, .max = UINT32_MAX,
     .type = "0 .. 4294967295", .def_doc = "`0`", .doc = "fsync after this many writes",
     .ref = "fsync-fdatasync"},
    {"fdatasync", NULL, RB_OPT_COUNT, RB_OPT_F_ZERO, J(fdatasync_every), .min = 0,
     .max = UINT32_MAX, .type = "0 .. 4294967295", .def_doc = "`0`",
     .doc = "fdatasync after this many writes", .ref = "fsync-fdatasync"},
    {"sync_file_range", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_sync_file_range,
     .print = rb_opt_print_sync_file_range, .type = "FLAGS:N (wait_before, write, wait_after)",
     .def_doc = "none", .doc = "sync_file_range(2) with FLAGS over what was written, every N writes",
     .ref = "sync_file_range", .fills = "sfr_every,sfr_flags"},
    {"end_fsync", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(end_fsync), .type = "boolean",
     .def_doc = "`0`", .doc = "fsync every file when the job's IO is done", .ref = "end_fsync"},
    {"fsync_on_close", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(fsync_on_close), .type = "boolean",
     .def_doc = "`0`", .doc = "fsync a file before closing it", .ref = "fsync_on_close"},
    /* time */
    {"runtime", "timeout", RB_OPT_DURATION, 0, J(runtime_ns), .type = "duration",
     .def_doc = "`0` (no limit)", .doc = "stop the job after this long", .ref = "runtime-also-timeout"},
    {"time_based", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(time_based), .type = "boolean",
     .def_doc = "`0`", .doc = "loop over size until runtime", .ref = "time_based"},
    {"startdelay", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_startdelay,
     .print = rb_opt_print_startdelay, .type = "duration or duration range", .def_doc = "`0`",
     .doc = "wait this long after the phase's GO (a range: each worker draws its own)",
     .ref = "startdelay", .fills = "startdelay_ns,startdelay_max_ns"},
    {"ramp_time", NULL, RB_OPT_DURATION, 0, J(ramp_ns), .type = "duration", .def_doc = "`0`",
     .doc = "run this long before counting anything", .ref = "ramp_time"},
    {"steadystate", "ss", RB_OPT_CUSTOM, 0, J(ss_metric), .parse = rb_opt_value_steadystate,
     .print = rb_opt_print_steadystate, .def = "iops_slope:0.01%",
     .type = "`iops`, `iops_slope`, `bw`, `bw_slope`, then `:N` or `:N%`",
     .def_doc = "`iops_slope:0.01%`",
     .doc = "with ss_dur: the job ends once its figure on a node, once a second, keeps within N (N% of its mean) over ss_dur",
     .ref = "steadystate-also-ss", .fills = "ss_pct,ss_limit"},
    {"steadystate_duration", "ss_dur", RB_OPT_CUSTOM, 0, J(ss_dur_ns), .parse = rb_opt_value_ss_dur,
     .print = rb_opt_print_steadystate, .type = "whole seconds", .def_doc = "`0` (no judgement)",
     .doc = "the window of steady state: this many one-second samples", .ref = "steadystate-also-ss"},
    {"steadystate_ramp_time", "ss_ramp", RB_OPT_CUSTOM, 0, J(ss_ramp_ns), .parse = rb_opt_value_ss_ramp,
     .print = rb_opt_print_steadystate, .type = "duration", .def_doc = "`0`",
     .doc = "samples count from the first whole second after this long", .ref = "steadystate-also-ss"},
    {"max_latency", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_max_latency,
     .print = rb_opt_print_max_latency, .type = "duration[,duration[,duration]] (a bare number is us)",
     .def_doc = "`0` (none)",
     .doc = "an IO slower than this (per direction) fails its worker with ETIMEDOUT",
     .ref = "max_latency", .fills = "max_lat_read_ns,max_lat_write_ns,max_lat_trim_ns"},
    {"latency_target", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(lat_target_ns),
     .parse = rb_opt_value_usec, .print = rb_opt_print_lat, .def = "0",
     .type = "duration (a bare number is us)", .def_doc = "`0` (no search)",
     .doc = "find the deepest queue (up to iodepth) whose IOs keep within this latency",
     .ref = "latency_target"},
    {"latency_window", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(lat_window_ns),
     .parse = rb_opt_value_usec, .print = rb_opt_print_lat, .def = "0",
     .type = "duration (a bare number is us)", .def_doc = "`0`",
     .doc = "with latency_target: each depth is judged over this long", .ref = "latency_target"},
    {"latency_percentile", NULL, RB_OPT_CUSTOM, 0, J(lat_pct), .parse = rb_opt_value_lat_pct,
     .print = rb_opt_print_lat, .def = "100", .type = "0 .. 100", .def_doc = "`100`",
     .doc = "with latency_target: the share of a window's IOs that must keep within it",
     .ref = "latency_target"},
    {"latency_run", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(lat_run), .print = rb_opt_print_lat,
     .def = "0", .type = "boolean",
     .doc = "with latency_target: keep adjusting the depth to the end instead of settling",
     .ref = "latency_target"},
    {"loops", NULL, RB_OPT_COUNT, 0, J(loops), .min = 1, .max = UINT32_MAX, .def = "1",
     .type = "1 .. 4294967295", .doc = "passes over the files", .ref = "loops"},
    {"randrepeat", NULL, RB_OPT_BOOL, RB_OPT_F_BARE | RB_OPT_F_PRINT_META, J(randrepeat),
     .def = "1", .type = "boolean", .doc = "the same random sequence every run", .ref = "randrepeat"},
    {"randseed", NULL, RB_OPT_CUSTOM, RB_OPT_F_PRINT_META, J(randseed), .parse = rb_opt_value_seed,
     .print = rb_opt_print_u64, .def = "0x89", .type = "64-bit number",
     .def_doc = "`137` (`0x89`, fio's default)", .doc = "seed of the random sequence", .ref = "randseed"},
    {"allrandrepeat", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_allrandrepeat, .type = "boolean", .def_doc = "`0`",
     .doc = "every random sequence the same every run, from the default seed: randrepeat=1 and randseed=137, whatever they say",
     .ref = "allrandrepeat", .fills = "randrepeat"},
    {"norandommap", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(norandommap), .type = "boolean",
     .def_doc = "`0`", .doc = "random offsets may repeat within a pass", .ref = "norandommap"},
    {"random_distribution", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_random_distribution,
     .print = rb_opt_print_random_distribution,
     .type = "`random`, `zipf:T`, `pareto:H`, `normal:P`, `zoned:A/S%:...`, `zoned_abs:A/S:...`",
     .def_doc = "`random`", .doc = "where random IOs fall: uniformly, or skewed as fio's (no random map then)",
     .ref = "random_distribution", .fills = "rand_dist,rand_dist_ppm,zones_read,zones_write,zones_trim"},
    /* data */
    {"overwrite", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(overwrite), .type = "boolean",
     .def_doc = "`0`", .doc = "lay files out before GO so that writes overwrite", .ref = "overwrite"},
    {"zero_buffers", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE, .parse = rb_opt_value_zero_buffers,
     .print = rb_opt_print_zero_buffers, .type = "boolean", .def_doc = "`0`",
     .doc = "write buffers of zeros", .ref = "zero_buffers", .fills = "buffer_mode,pattern,pattern_ofs"},
    {"buffer_pattern", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_pattern,
     .print = rb_opt_print_pattern, .type = "byte pattern", .def_doc = "none (random data)",
     .doc = "write buffers repeating these bytes", .ref = "buffer_pattern", .fills = "buffer_mode,pattern,pattern_ofs"},
    {"scramble_buffers", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(scramble), .def = "1",
     .print = rb_opt_print_scramble, .type = "boolean",
     .doc = "a write buffer used again gets each 512 bytes stamped with its offset",
     .ref = "scramble_buffers"},
    {"buffer_compress_percentage", NULL, RB_OPT_CUSTOM, 0, J(compress_pct), .min = 0, .max = 100,
     .parse = rb_opt_value_buffer_pct, .print = rb_opt_print_buffer_pct, .type = "0 .. 100",
     .def_doc = "none", .doc = "this % of each chunk of a write buffer is zeros (or the pattern), the rest random",
     .ref = "buffer_compress_percentage"},
    {"buffer_compress_chunk", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(compress_chunk), .def = "512",
     .print = rb_opt_print_compress_chunk, .type = "size",
     .doc = "bytes of one random-then-fixed chunk; 0: the smallest write", .ref = "buffer_compress_chunk"},
    {"dedupe_percentage", NULL, RB_OPT_CUSTOM, 0, J(dedupe_pct), .min = 0, .max = 100,
     .parse = rb_opt_value_buffer_pct, .print = rb_opt_print_buffer_pct, .type = "0 .. 100",
     .def_doc = "none", .doc = "this % of write buffers are repeated (dedupe_mode)",
     .ref = "dedupe_percentage"},
    {"dedupe_mode", NULL, RB_OPT_ENUM, 0, J(dedupe_mode), NAMES(s_dedupe_names), .def = "repeat",
     .print = rb_opt_print_dedupe, .type = "`repeat` or `working_set`",
     .doc = "a repeated write buffer is the last unique one, or a page of a working set",
     .ref = "dedupe_mode"},
    {"dedupe_working_set_percentage", NULL, RB_OPT_COUNT, 0, J(dedupe_ws_pct), .min = 0,
     .max = 100, .def = "5", .print = rb_opt_print_dedupe, .type = "0 .. 100",
     .doc = "dedupe_mode=working_set: its pages, this % of the job's size", .ref = "dedupe_mode"},
    {"dedupe_global", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(dedupe_global), .def = "0",
     .print = rb_opt_print_dedupe, .type = "boolean",
     .doc = "dedupe_mode=working_set: one working set for the phase's workers on a node",
     .ref = "dedupe_mode"},
    {"refill_buffers", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(refill_buffers), .type = "boolean",
     .def_doc = "`0`", .doc = "new random contents for every write", .ref = "refill_buffers"},
    /* verification */
    {"verify", NULL, RB_OPT_CUSTOM, 0, J(verify), NAMES(s_verify_names),
     .parse = rb_opt_value_verify, .print = rb_opt_print_enum, .type = "a method or `0`",
     .def_doc = "`0`", .doc = "a header and checksum in every block, checked on reads", .ref = "verify"},
    {"do_verify", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(do_verify), .def = "1", .type = "boolean",
     .doc = "read back and check after a write job", .ref = "do_verify"},
    {"verify_fatal", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(verify_fatal), .type = "boolean",
     .def_doc = "`0`", .doc = "stop the worker at the first mismatch", .ref = "verify_fatal"},
    {"verify_pattern", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_verify_pattern,
     .print = rb_opt_print_pattern, .type = "byte pattern, `%o`", .def_doc = "none",
     .doc = "the pattern written and, with verify=pattern, checked", .ref = "verify_pattern", .fills = "verify,buffer_mode,pattern,pattern_ofs"},
    {"verify_interval", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(verify_interval), .type = "size",
     .def_doc = "`bs`", .doc = "a header and checksum every this many bytes of a block",
     .ref = "verify_interval"},
    {"verify_offset", NULL, RB_OPT_SIZE, RB_OPT_F_ZERO, J(verify_offset), .type = "size",
     .def_doc = "`0`", .doc = "the header swapped with the data at this offset of its interval",
     .ref = "verify_offset"},
    {"verify_backlog", NULL, RB_OPT_COUNT, RB_OPT_F_ZERO, J(verify_backlog), .min = 0,
     .max = UINT32_MAX, .def = "0", .type = "count",
     .doc = "read back and check the blocks written after every this many writes",
     .ref = "verify_backlog"},
    {"verify_backlog_batch", NULL, RB_OPT_COUNT, RB_OPT_F_ZERO, J(verify_backlog_batch), .min = 0,
     .max = UINT32_MAX, .def = "0", .type = "count", .def_doc = "`verify_backlog`",
     .doc = "blocks read back at each verify_backlog", .ref = "verify_backlog_batch"},
    /* rate */
    {"rate", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(rate), .parse = rb_opt_value_rate,
     .print = rb_opt_print_rate, .def = "0", .type = "size per second[,size]",
     .doc = "bytes per second cap per worker, reads and writes each (`R,W` apart)", .ref = "rate", .fills = "rate_write"},
    {"rate_iops", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(rate_iops), .parse = rb_opt_value_rate,
     .print = rb_opt_print_rate, .def = "0", .type = "count per second[,count]",
     .doc = "IOs per second cap per worker, reads and writes each (`R,W` apart)",
     .ref = "rate_iops", .fills = "rate_iops_write"},
    {"rate_min", "ratemin", RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(rate_min), .parse = rb_opt_value_rate,
     .print = rb_opt_print_rate_floor, .def = "0", .type = "size per second[,size]",
     .doc = "a worker whose reads (writes) fall below this many bytes/s over a rate_cycle fails",
     .ref = "rate_min-also-ratemin", .fills = "rate_min_write"},
    {"rate_iops_min", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(rate_iops_min),
     .parse = rb_opt_value_rate, .print = rb_opt_print_rate_floor, .def = "0",
     .type = "count per second[,count]",
     .doc = "a worker whose reads (writes) fall below this many IOs/s over a rate_cycle fails",
     .ref = "rate_iops_min", .fills = "rate_iops_min_write"},
    {"rate_cycle", "ratecycle", RB_OPT_COUNT, RB_OPT_F_ZERO, J(rate_cycle_ms), .max = UINT32_MAX,
     .print = rb_opt_print_rate_cycle, .def = "1000", .type = "milliseconds",
     .doc = "the window rate_min and rate_iops_min average over",
     .ref = "rate_cycle-also-ratecycle"},
    {"thinktime", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(thinktime_ns), .parse = rb_opt_value_usec,
     .print = rb_opt_print_thinktime, .def = "0", .type = "duration (a bare number is us)",
     .doc = "wait this long after thinktime_blocks IOs, the IOs in flight done first",
     .ref = "thinktime"},
    {"thinktime_spin", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO | RB_OPT_F_NOPRINT, J(thinktime_spin_ns),
     .parse = rb_opt_value_usec, .def = "0", .type = "duration (a bare number is us)",
     .doc = "of the thinktime, this much spinning on the CPU", .ref = "thinktime"},
    {"thinktime_blocks", NULL, RB_OPT_COUNT, RB_OPT_F_NOPRINT, J(thinktime_blocks), .min = 1,
     .max = UINT32_MAX, .def = "1", .type = "1 .. 4294967295",
     .doc = "IOs between two thinktimes", .ref = "thinktime"},
    {"thinktime_iotime", NULL, RB_OPT_DURATION, RB_OPT_F_ZERO | RB_OPT_F_NOPRINT,
     J(thinktime_iotime_ns), .def = "0", .type = "duration (a bare number is seconds)",
     .def_doc = "`0` (none)", .doc = "with thinktime: think also after issuing IO this long",
     .ref = "thinktime"},
    {"thinktime_blocks_type", NULL, RB_OPT_ENUM, RB_OPT_F_NOPRINT, J(thinktime_issued),
     NAMES(s_think_names), .def = "complete", .type = "`complete` or `issue`",
     .doc = "thinktime_blocks counts IOs completed or issued", .ref = "thinktime"},
    /* across nodes, with IOR's meanings */
    {"file_per_worker", NULL, RB_OPT_INVBOOL, RB_OPT_F_BARE, J(shared_file), .type = "boolean",
     .def_doc = "`1`", .doc = "0: one file for every worker of every node (IOR's N-1)",
     .ref = "file_per_worker"},
    {"layout", NULL, RB_OPT_CUSTOM, 0, J(layout), NAMES(s_layout_names), .parse = s_layout_value,
     .print = rb_opt_print_layout, .type = "`segmented` or `strided`", .def_doc = "`segmented`",
     .doc = "how the workers share one file", .ref = "layout"},
    {"transfer", NULL, RB_OPT_SIZE, 0, J(transfer), .print = rb_opt_print_transfer, .type = "size",
     .def_doc = "`bs`", .doc = "bytes per interleaved piece of a strided file", .ref = "transfer"},
    {"read_from", NULL, RB_OPT_CUSTOM, RB_OPT_F_PRINT_META, .parse = rb_opt_value_read_from,
     .print = rb_opt_print_read_from, .type = "`self`, `neighbour`, `shift:K`, `random`",
     .def_doc = "`self`", .doc = "read the data another node wrote", .ref = "read_from", .fills = "read_shift"},
    {"read_from_seed", NULL, RB_OPT_CUSTOM, RB_OPT_F_PRINT_META,
     .parse = rb_opt_value_read_from_seed, .print = rb_opt_print_read_from_seed,
     .type = "whole number (negative: reseeded each iteration)", .def_doc = "`0`",
     .doc = "the seed of read_from=random's cycle through the nodes", .ref = "read_from_seed", .fills = "read_seed,read_reseed"},
    {"stonewall_time", NULL, RB_OPT_DURATION, 0, J(stonewall_ns), .type = "duration",
     .def_doc = "`0` (none)", .doc = "stop every worker this long after its start",
     .ref = "stonewall_time"},
    {"wearout", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(wearout), .type = "boolean", .def_doc = "`0`",
     .doc = "after the stonewall, go on to the busiest worker's count", .ref = "wearout"},
    {"drop_caches", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(drop_caches), .type = "boolean",
     .def_doc = "`0`", .doc = "drop the page cache before the job's phase", .ref = "drop_caches"},
    {"invalidate", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(invalidate), .def = "1", .type = "boolean",
     .print = rb_opt_print_advice,
     .doc = "drop the cached pages of a file's region when a worker opens it", .ref = "invalidate"},
    {"fadvise_hint", NULL, RB_OPT_ENUM, RB_OPT_F_NOPRINT, J(fadvise_hint), NAMES(s_fadvise_names),
     .def = "1",
     .type = "`0`, `1`, `sequential` or `random`",
     .doc = "the access advice given when a worker opens a file", .ref = "fadvise_hint"},
    {"exitall", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(exitall), .def = "0", .type = "boolean",
     .print = rb_opt_print_if_set,
     .doc = "on each node, the first of the job's workers to end ends the others there",
     .ref = "exitall"},
    {"exit_what", NULL, RB_OPT_ENUM, 0, J(exit_what), NAMES(s_exit_what_names), .def = "group",
     .print = rb_opt_print_exit_what,
     .type = "`group`, `stonewall` or `all`",
     .doc = "whom exitall ends: the phase's workers, or with all the node's later phases too",
     .ref = "exitall"},
    {"exitall_on_error", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(exitall_on_error), .def = "0",
     .type = "boolean", .print = rb_opt_print_if_set,
     .doc = "on each node, a worker of the job failing ends the node's run", .ref = "exitall"},
    {"continue_on_error", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_continue_on_error,
     .print = rb_opt_print_errors, .type = "`none`, `read`, `write`, `io`, `verify`, `all`, `0` or `1`",
     .def_doc = "`none`", .doc = "the classes of IO errors the job counts and goes on after",
     .ref = "continue_on_error", .fills = "continue_on_error"},
    {"ignore_error", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .parse = rb_opt_value_ignore_error,
     .type = "errno lists `READ,WRITE,VERIFY`", .def_doc = "`EIO:EILSEQ` each",
     .doc = "per class, the errnos continue_on_error goes on after", .ref = "continue_on_error", .fills = "ignore_error"},
    {"cpus_allowed", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_cpus, .print = rb_opt_print_cpus,
     .type = "CPU list", .def_doc = "any CPU",
     .doc = "the CPUs the job's workers may run on (\"0,2-3\")", .ref = "cpus_allowed-cpumask", .fills = "cpus"},
    {"cpumask", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .parse = rb_opt_value_cpus,
     .type = "bit mask", .def_doc = "any CPU",
     .doc = "cpus_allowed as a mask: bit N is CPU N", .ref = "cpus_allowed-cpumask", .fills = "cpus"},
    {"cpus_allowed_policy", NULL, RB_OPT_ENUM, RB_OPT_F_NOPRINT, J(cpus_split),
     NAMES(s_cpus_policy_names), .type = "`shared` or `split`", .def_doc = "`shared`",
     .doc = "all the job's workers on all its CPUs, or each on one of them",
     .ref = "cpus_allowed-cpumask"},
    {"prio", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO, J(ioprio), .min = 0, .max = 7,
     .parse = rb_opt_value_prio, .print = rb_opt_print_prio, .type = "0 .. 7", .def_doc = "none",
     .doc = "the IO priority level of the job's workers (ioprio_set)", .ref = "prio-prioclass"},
    {"prioclass", NULL, RB_OPT_CUSTOM, RB_OPT_F_ZERO | RB_OPT_F_NOPRINT, J(ioprio), .min = 0,
     .max = 3, .parse = rb_opt_value_prio, .type = "0 .. 3", .def_doc = "none",
     .doc = "their IO priority class: 1 RT, 2 BE (and 0), 3 IDLE", .ref = "prio-prioclass"},
    {"nice", NULL, RB_OPT_CUSTOM, 0, J(nice), .parse = rb_opt_value_nice, .print = rb_opt_print_nice,
     .type = "-20 .. 19", .def = "0", .def_doc = "`0` (none)",
     .doc = "the CPU nice value of the job's worker threads (nice(2) as each starts)", .ref = "nice"},
    {"fallocate", NULL, RB_OPT_ENUM, 0, J(fallocate), NAMES(s_falloc_names), .def = "native",
     .print = rb_opt_print_fallocate,
     .type = "`native`, `posix`, `keep`, `truncate`, `none`, `0` or `1`",
     .doc = "how a file a job makes or extends gets its size before the IO", .ref = "fallocate"},
    {"fill_device", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(fill_device), .print = rb_opt_print_if_set,
     .type = "boolean", .def_doc = "`0`",
     .doc = "write until the file system is full: ENOSPC ends the writes, not the job; without size=, no other end",
     .ref = "fill_device"},
    {"create_on_open", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(create_on_open), .type = "boolean",
     .def_doc = "`0`", .print = rb_opt_print_if_set, .ref = "create_on_open",
     .doc = "no layout and no size up front: each file is made as the job opens it and grows as it writes"},
    {"create_fsync", NULL, RB_OPT_INVBOOL, RB_OPT_F_BARE, J(create_nofsync), .type = "boolean",
     .def = "1", .print = rb_opt_print_if_changed, .ref = "create_fsync",
     .doc = "0: a file laid out before the IO is not fsynced, its data maybe still in the page cache"},
    {"create_serialize", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE, .parse = rb_opt_value_create_serialize,
     .print = rb_opt_print_create_serialize, .type = "boolean", .def_doc = "`1`",
     .doc = "0: a job without size= takes it from the file an earlier phase writes, as its phase starts",
     .ref = "create_serialize", .fills = ""},
    {"ioscheduler", NULL, RB_OPT_CUSTOM, 0, J(ioscheduler), .parse = rb_opt_value_ioscheduler,
     .print = rb_opt_print_if_set, .type = "scheduler name", .def_doc = "none (left as it is)",
     .doc = "the IO scheduler of the job's block devices (filename=/dev/X) for the phase, put back after it",
     .ref = "ioscheduler"},
    {"write_hint", NULL, RB_OPT_ENUM, 0, J(write_hint), NAMES(s_write_hint_names),
     .print = rb_opt_print_enum_if_set,
     .type = "`none`, `short`, `medium`, `long` or `extreme`", .def_doc = "not set (no call)",
     .doc = "the write lifetime hint set on each file a worker opens (`fcntl` `F_SET_RW_HINT`; `F_SET_FILE_RW_HINT` with direct)",
     .ref = "write_hint"},
    /* Lustre striping of the run folder (lfs setstripe -c -S) */
    {"lustre_stripe_count", NULL, RB_OPT_CUSTOM, 0, .min = 0, .max = RB_LUSTRE_STRIPE_MAX,
     .parse = rb_opt_value_lustre_stripe_count, .print = rb_opt_print_stripe_count,
     .type = "-1, 0 .. 65535", .def_doc = "`0` (leave it)", .doc = "lfs setstripe -c of the run folder",
     .ref = "lustre_stripe_count-lustre_stripe_size", .fills = "lustre_stripe_count"},
    {"lustre_stripe_size", NULL, RB_OPT_CUSTOM, 0, .parse = rb_opt_value_lustre_stripe_size,
     .print = rb_opt_print_stripe_size, .type = "size, a multiple of 64k", .def_doc = "`0` (leave it)",
     .doc = "lfs setstripe -S of the run folder", .ref = "lustre_stripe_count-lustre_stripe_size", .fills = "lustre_stripe_size"},
    /* files */
    {"unlink", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(unlink), .type = "boolean", .def_doc = "`0`",
     .doc = "remove the job's files when each worker is done", .ref = "unlink-unlink_each_loop"},
    {"unlink_each_loop", NULL, RB_OPT_BOOL, RB_OPT_F_BARE, J(unlink_each_loop), .type = "boolean",
     .def_doc = "`0`", .doc = "remove and make the files anew before each loop after the first",
     .ref = "unlink-unlink_each_loop"},
    {"directory", NULL, RB_OPT_CUSTOM, RB_OPT_F_EMPTY | RB_OPT_F_PRINT_META,
     .parse = rb_opt_value_directory, .print = rb_opt_print_directory, .type = "path",
     .def_doc = "the agent's first `--root`", .doc = "where the job's files are", .ref = "directory", .fills = "directory"},
    {"filename", NULL, RB_OPT_CUSTOM, RB_OPT_F_EMPTY, J(filename), .parse = rb_opt_value_filename,
     .print = rb_opt_print_filename, .type = "file name, absolute path, `/dev/X[:/dev/Y...]` or `@devices`",
     .def_doc = "none (one file per worker)", .doc = "one file that all the job's workers share, or raw block devices",
     .ref = "filename", .fills = "device,existing"},
    {"filename_format", NULL, RB_OPT_CUSTOM, RB_OPT_F_PRINT_META, J(filename_format),
     .parse = rb_opt_value_filename_format, .print = rb_opt_print_str, .def = "$jobname.$jobnum.$filenum",
     .type = "pattern", .doc = "names of the job's files", .ref = "filename_format"},
    /* phases, names, reporting */
    {"stonewall", "wait_for_previous", RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_stonewall, .type = "boolean", .def_doc = "`0`",
     .doc = "start a new phase once every earlier job is done on every node",
     .ref = "stonewall-also-wait_for_previous", .fills = ""},
    {"wait_for", NULL, RB_OPT_CUSTOM, RB_OPT_F_EMPTY, J(wait_for), .parse = rb_opt_value_wait_for,
     .print = rb_opt_print_if_set, .type = "job name", .def_doc = "none",
     .doc = "start once every worker of this earlier job of the phase has ended", .ref = "wait_for"},
    {"flow", NULL, RB_OPT_CUSTOM, 0, J(flow), .parse = rb_opt_value_flow, .print = rb_opt_print_flow,
     .type = "whole number up to 1000", .def = "0", .def_doc = "`0` (none)",
     .doc = "the job's weight: the workers of a flow_id on a node keep their IOs in the ratio of their weights",
     .ref = "flow-flow_id-and-flow_sleep"},
    {"flow_id", NULL, RB_OPT_COUNT, RB_OPT_F_ZERO, J(flow_id), .min = 0, .max = INT32_MAX,
     .print = rb_opt_print_if_set, .def = "0", .type = "0 .. 2147483647",
     .doc = "the flow counter the job's workers share", .ref = "flow-flow_id-and-flow_sleep"},
    {"flow_sleep", NULL, RB_OPT_COUNT, RB_OPT_F_ZERO, J(flow_sleep_us), .min = 0, .max = UINT32_MAX,
     .print = rb_opt_print_if_set, .def = "0", .type = "microseconds",
     .doc = "held back by flow: wait for the IOs in flight, then sleep this long (0: look again at once)",
     .ref = "flow-flow_id-and-flow_sleep"},
    {"name", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .parse = rb_opt_value_name,
     .type = "job name", .def_doc = "the section name", .doc = "the job's name", .ref = "name", .fills = "name"},
    {"file_service_type", NULL, RB_OPT_CUSTOM, 0, J(fs_nr), .parse = rb_opt_value_file_service_type,
     .print = rb_opt_print_file_service, .type = "`roundrobin[:N]`, `sequential`",
     .def_doc = "`roundrobin`",
     .doc = "how a worker goes over its files: N IOs on each in turn, or each to its end",
     .ref = "file_service_type"},
    {"description", NULL, RB_OPT_CUSTOM, RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_description, .type = "text", .def_doc = "empty",
     .doc = "free text", .ref = "description", .fills = ""},
    {"kb_base", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .parse = rb_opt_value_kb_base,
     .type = "1024 or 1000", .def_doc = "`1024`",
     .doc = "what k, M, G ... mean in the sizes that follow (\"Xib\" takes the other base, as fio reads it)",
     .ref = "units", .fills = ""},
    {"group_reporting", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_group_reporting, .type = "boolean", .def_doc = "always on",
     .doc = "rackbench always reports a job's workers together", .ref = "group_reporting", .fills = ""},
    {"sample_interval", NULL, RB_OPT_CUSTOM, RB_OPT_F_GLOBAL | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_sample_interval, .type = "`auto`, or a duration, 100ms .. 1h", .def_doc = "`auto`",
     .doc = "how often agents send samples; `auto` chooses per phase, 100 ms .. 1 s (metrics.md)", .ref = "sample_interval", .fills = ""},
    {"iterations", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .parse = rb_opt_value_iterations,
     .min = 1, .max = RB_MAX_PHASES, .def = "1", .type = "1 .. 256",
     .doc = "runs the job's phase N times, each measured on its own (IOR's -i)",
     .ref = "iterations", .fills = "read_iteration"},
    {"iterate", NULL, RB_OPT_CUSTOM, RB_OPT_F_GLOBAL | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_iterate, .type = "phase or plan", .def_doc = "`phase`",
     .doc = "what iterations repeats: each phase in turn, or the whole plan round by round",
     .ref = "iterate", .fills = ""},
    /* fio's logs, written by the coordinator from samples.csv (never sent) */
    {"write_bw_log", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_BARE_EMPTY | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_log, .type = "file name prefix", .def_doc = "none; bare: the job's name", .doc = "fio's bandwidth log of each node, `PREFIX_bw.x.NODE.log` in the run folder", .ref = "write_bw_log-write_iops_log-write_lat_log", .fills = ""},
    {"write_iops_log", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_BARE_EMPTY | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_log, .type = "file name prefix", .def_doc = "none; bare: the job's name", .doc = "fio's IOPS log of each node, `PREFIX_iops.x.NODE.log`", .ref = "write_bw_log-write_iops_log-write_lat_log", .fills = ""},
    {"write_lat_log", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_BARE_EMPTY | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_log, .type = "file name prefix", .def_doc = "none; bare: the job's name", .doc = "fio's latency log of each node, `PREFIX_lat.x.NODE.log` (each interval's median)", .ref = "write_bw_log-write_iops_log-write_lat_log", .fills = ""},
    {"log_avg_msec", NULL, RB_OPT_CUSTOM, RB_OPT_F_NOPRINT, .parse = rb_opt_value_log_avg_msec,
     .type = "ms, 0 .. 86400000", .def_doc = "`0` (each sample interval)",
     .doc = "the logs' window: each entry the mean of the sample intervals it covers", .ref = "log_avg_msec", .fills = ""},
    {"log_unix_epoch", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_NOPRINT, .parse = rb_opt_value_log_flag,
     .type = "boolean", .def_doc = "`0`", .doc = "the logs' times in ms since the Unix epoch, not since the phase's start",
     .ref = "log_unix_epoch", .fills = ""},
    {"per_job_logs", NULL, RB_OPT_CUSTOM, RB_OPT_F_BARE | RB_OPT_F_NOPRINT, .parse = rb_opt_value_log_flag,
     .type = "boolean", .def_doc = "`1`", .doc = "the job's number `.x` in the logs' names; 0: jobs of one prefix share a file",
     .ref = "per_job_logs", .fills = ""},
    /* rackbench's sweeps: one job expanded into a phase per combination */
    {"sweep_rw", NULL, RB_OPT_CUSTOM, RB_OPT_F_JOB | RB_OPT_F_NOPRINT, .parse = rb_opt_value_sweep,
     .type = "list of rw values", .def_doc = "none",
     .doc = "rackbench's: a phase per access pattern listed (the outermost of a sweep)",
     .ref = "sweeps", .fills = ""},
    {"sweep_bs", NULL, RB_OPT_CUSTOM, RB_OPT_F_JOB | RB_OPT_F_NOPRINT, .parse = rb_opt_value_sweep,
     .type = "list of sizes", .def_doc = "none",
     .doc = "rackbench's: a phase per block size listed", .ref = "sweeps", .fills = ""},
    {"sweep_numjobs", NULL, RB_OPT_CUSTOM, RB_OPT_F_JOB | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_sweep, .type = "list of counts", .def_doc = "none",
     .doc = "rackbench's: a phase per count of workers listed", .ref = "sweeps", .fills = ""},
    {"sweep_iodepth", NULL, RB_OPT_CUSTOM, RB_OPT_F_JOB | RB_OPT_F_NOPRINT,
     .parse = rb_opt_value_sweep, .type = "list of depths", .def_doc = "none",
     .doc = "rackbench's: a phase per queue depth listed (the innermost of a sweep)",
     .ref = "sweeps", .fills = ""},
    /* rackbench's metadata workload (rw=meta) */
    {"meta_ops", NULL, RB_OPT_CUSTOM, RB_OPT_F_META | RB_OPT_F_PRINT_META,
     .parse = rb_opt_value_meta_ops, .print = rb_opt_print_meta_op, .def = "create,stat,delete",
     .type = "list of metadata operations", .doc = "the steps, each a phase", .ref = "meta_ops", .fills = "meta_op"},
    {"meta_files", NULL, RB_OPT_SIZE, RB_OPT_F_META | RB_OPT_F_PRINT_META, J(meta_files),
     .print = rb_opt_print_u64, .type = "count, 1 or more", .def_doc = "none (required for `rw=meta`)",
     .doc = "files per worker", .ref = "meta_files"},
    {"meta_filesize", NULL, RB_OPT_SIZE, RB_OPT_F_META | RB_OPT_F_PRINT_META | RB_OPT_F_ZERO,
     J(meta_filesize), .type = "size", .def_doc = "`0` (empty files)",
     .doc = "bytes written at create and write, read at read", .ref = "meta_filesize"},
    {"meta_readsize", NULL, RB_OPT_SIZE, RB_OPT_F_META | RB_OPT_F_PRINT_META | RB_OPT_F_ZERO,
     J(meta_readsize), .print = rb_opt_print_meta_readsize, .type = "size",
     .def_doc = "`meta_filesize`", .doc = "bytes read at read (mdtest -e)", .ref = "meta_readsize"},
    {"meta_stonewall", NULL, RB_OPT_CUSTOM, RB_OPT_F_META | RB_OPT_F_PRINT_META,
     .parse = rb_opt_value_meta_stonewall, .print = rb_opt_print_meta_stonewall, .type = "duration",
     .def_doc = "`0` (none)",
     .doc = "create steps stop there, then every worker goes on to the busiest one's count",
     .ref = "meta_stonewall", .fills = "stonewall_ns"},
    {"meta_dirs", NULL, RB_OPT_COUNT, RB_OPT_F_META | RB_OPT_F_PRINT_META, J(meta_dirs), .min = 1,
     .max = RB_META_DIRS_MAX, .def = "1", .type = "1 .. 65536",
     .doc = "flat directories per worker", .ref = "meta_dirs-meta_depth-meta_branch"},
    {"meta_depth", NULL, RB_OPT_COUNT, RB_OPT_F_META | RB_OPT_F_PRINT_META, J(meta_depth),
     .min = 0, .max = RB_META_DEPTH_MAX, .type = "0 .. 16", .def_doc = "`0` (flat)",
     .doc = "directory tree depth", .ref = "meta_dirs-meta_depth-meta_branch"},
    {"meta_branch", NULL, RB_OPT_COUNT, RB_OPT_F_META | RB_OPT_F_PRINT_META, J(meta_branch),
     .min = 1, .max = RB_META_DIRS_MAX, .def = "1", .type = "1 .. 65536",
     .doc = "directories per tree level", .ref = "meta_dirs-meta_depth-meta_branch"},
    {"meta_order", NULL, RB_OPT_ENUM, RB_OPT_F_META | RB_OPT_F_PRINT_META, J(meta_random),
     NAMES(s_order_names), .type = "`sequential` or `random`", .def_doc = "`sequential`",
     .doc = "files in order or in a random permutation", .ref = "meta_order"},
    {"meta_shared_dir", NULL, RB_OPT_BOOL, RB_OPT_F_BARE | RB_OPT_F_META | RB_OPT_F_PRINT_META,
     J(meta_shared), .type = "boolean", .def_doc = "`0`",
     .doc = "one directory for every worker of every node", .ref = "meta_shared_dir"},
    {"meta_sync", NULL, RB_OPT_BOOL, RB_OPT_F_BARE | RB_OPT_F_META | RB_OPT_F_PRINT_META,
     J(meta_sync), .type = "boolean", .def_doc = "`0`", .doc = "fsync each file and its directory",
     .ref = "meta_sync"},
    {"meta_renamed", NULL, RB_OPT_BOOL, RB_OPT_F_BARE | RB_OPT_F_META | RB_OPT_F_PRINT_META,
     J(meta_renamed), .type = "boolean", .def_doc = "`0` (set by expansion)",
     .doc = "an earlier step renamed the files", .ref = "meta_renamed"},
    {"meta_find_name", NULL, RB_OPT_CUSTOM, RB_OPT_F_META | RB_OPT_F_PRINT_META | RB_OPT_F_EMPTY,
     J(meta_find_name), .parse = rb_opt_value_meta_find_name, .print = rb_opt_print_if_set,
     .type = "fnmatch pattern", .def_doc = "empty (any name)",
     .doc = "find: the names it counts (find -name)", .ref = "meta_find"},
    {"meta_find_size", NULL, RB_OPT_SIZE, RB_OPT_F_META | RB_OPT_F_PRINT_META | RB_OPT_F_ZERO,
     J(meta_find_size), .print = rb_opt_print_if_set, .type = "size", .def_doc = "`0` (any size)",
     .doc = "find: the exact size it counts (find -size Nc)", .ref = "meta_find"},
    {"meta_find_newer", NULL, RB_OPT_BOOL, RB_OPT_F_BARE | RB_OPT_F_META | RB_OPT_F_PRINT_META,
     J(meta_find_newer), .print = rb_opt_print_if_set, .type = "boolean", .def_doc = "`0`",
     .doc = "find: counts only files changed since the run began (find -newer)",
     .ref = "meta_find"},

    /* fio options that cannot change the IO that reaches the storage */
#define IGN(k, w) {k, NULL, RB_OPT_IGNORED, RB_OPT_F_BARE | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT, .group = (w)}
    /* fio takes "threads" too */
    {"thread", "threads", RB_OPT_IGNORED, RB_OPT_F_BARE | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .group = RB_OPT_WHY_MACHINERY},
    IGN("gtod_reduce", RB_OPT_WHY_MACHINERY),
    IGN("ignore_zone_limits", RB_OPT_WHY_ZONED),
    IGN("io_submit_mode", RB_OPT_WHY_MACHINERY),
    IGN("clocksource", RB_OPT_WHY_MACHINERY),
    IGN("disable_lat", RB_OPT_WHY_REPORT), IGN("disable_clat", RB_OPT_WHY_REPORT),
    IGN("disable_slat", RB_OPT_WHY_REPORT), IGN("disable_bw_measurement", RB_OPT_WHY_REPORT),
    IGN("disable_bw", RB_OPT_WHY_REPORT), IGN("lat_percentiles", RB_OPT_WHY_REPORT),
    IGN("clat_percentiles", RB_OPT_WHY_REPORT), IGN("slat_percentiles", RB_OPT_WHY_REPORT),
    IGN("percentile_list", RB_OPT_WHY_REPORT), IGN("significant_figures", RB_OPT_WHY_REPORT),
    IGN("unit_base", RB_OPT_WHY_REPORT), IGN("unified_rw_reporting", RB_OPT_WHY_REPORT),
    IGN("new_group", RB_OPT_WHY_REPORT), IGN("stats", RB_OPT_WHY_REPORT),
    IGN("disk_util", RB_OPT_WHY_REPORT), IGN("bwavgtime", RB_OPT_WHY_REPORT),
    IGN("iopsavgtime", RB_OPT_WHY_REPORT), IGN("error_dump", RB_OPT_WHY_REPORT),
    IGN("verify_dump", RB_OPT_WHY_REPORT), /* files of a mismatch's blocks, beside fio */
    IGN("verify_async", RB_OPT_WHY_MACHINERY),
    IGN("block_error_percentiles", RB_OPT_WHY_REPORT), IGN("write_hist_log", RB_OPT_WHY_REPORT),
    IGN("log_hist_msec", RB_OPT_WHY_REPORT),
    IGN("log_hist_coarseness", RB_OPT_WHY_REPORT), IGN("log_max_value", RB_OPT_WHY_REPORT),
    IGN("log_offset", RB_OPT_WHY_REPORT), IGN("log_prio", RB_OPT_WHY_REPORT),
    IGN("log_entries", RB_OPT_WHY_REPORT), IGN("log_compression", RB_OPT_WHY_REPORT),
    IGN("log_compression_cpus", RB_OPT_WHY_REPORT), IGN("log_store_compressed", RB_OPT_WHY_REPORT),
    IGN("log_alternate_epoch", RB_OPT_WHY_REPORT),
    IGN("log_alternate_epoch_clock_id", RB_OPT_WHY_REPORT), IGN("log_issue_time", RB_OPT_WHY_REPORT),
    /* where fio's IO buffers live: rackbench's are page-aligned memory of its own */
    IGN("mem", RB_OPT_WHY_MACHINERY), IGN("iomem", RB_OPT_WHY_MACHINERY),
    IGN("mem_align", RB_OPT_WHY_MACHINERY), IGN("iomem_align", RB_OPT_WHY_MACHINERY),
    /* io_uring's own: how it registers what it uses; only with ioengine=io_uring */
    {"fixedbufs", NULL, RB_OPT_IGNORED, RB_OPT_F_BARE | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .group = RB_OPT_WHY_REGISTER, .engine = "io_uring"},
    {"registerfiles", NULL, RB_OPT_IGNORED, RB_OPT_F_BARE | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT,
     .group = RB_OPT_WHY_REGISTER, .engine = "io_uring"},
#undef IGN

    /* fio options that would change what is measured and that rackbench does not run yet */
#define NY(k, a) {k, NULL, RB_OPT_NOT_YET, RB_OPT_F_BARE | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT, .group = (a)}
#define NYE(k, a, e) {k, NULL, RB_OPT_NOT_YET, RB_OPT_F_BARE | RB_OPT_F_EMPTY | RB_OPT_F_NOPRINT, .group = (a), .engine = (e)}
    NY("unique_filename", RB_OPT_AREA_FILES), NY("lockfile", RB_OPT_AREA_FILES),
    NY("opendir", RB_OPT_AREA_FILES),
    NY("create_only", RB_OPT_AREA_FILES), NY("allow_file_create", RB_OPT_AREA_FILES),
    NY("allow_mounted_write", RB_OPT_AREA_FILES), NY("pre_read", RB_OPT_AREA_FILES),
    NY("file_append", RB_OPT_AREA_FILES),
    NY("fill_fs", RB_OPT_AREA_FILES), NY("offset_align", RB_OPT_AREA_FILES),
    NY("bs_unaligned", RB_OPT_AREA_PATTERN), NY("blocksize_unaligned", RB_OPT_AREA_PATTERN),
    NY("bs_is_seq_rand", RB_OPT_AREA_PATTERN), NY("softrandommap", RB_OPT_AREA_PATTERN),
    NY("rwmixcycle", RB_OPT_AREA_PATTERN),
    NY("write_barrier", RB_OPT_AREA_PATTERN), 
    NY("atomic", RB_OPT_AREA_PATTERN),
    NY("fdp", RB_OPT_AREA_PATTERN), NY("fdp_pli", RB_OPT_AREA_PATTERN),
    NY("serialize_overlap", RB_OPT_AREA_QUEUE),
    NYE("nonvectored", RB_OPT_AREA_QUEUE, "io_uring"), NYE("uncached", RB_OPT_AREA_QUEUE, "io_uring"),
    NYE("nowait", RB_OPT_AREA_QUEUE, "io_uring"), NYE("force_async", RB_OPT_AREA_QUEUE, "io_uring"),
    NYE("userspace_reap", RB_OPT_AREA_QUEUE, "libaio"),
    NY("hugepage-size", RB_OPT_AREA_BUFFERS), 

    NY("rate_process", RB_OPT_AREA_TIMING), NY("rate_ignore_thinktime", RB_OPT_AREA_TIMING),
            NY("flow_watermark", RB_OPT_AREA_TIMING),
    NY("verify_only", RB_OPT_AREA_VERIFY),     NY("verify_async_cpus", RB_OPT_AREA_VERIFY), NY("verify_state_save", RB_OPT_AREA_VERIFY),
            NY("verify_state_load", RB_OPT_AREA_VERIFY), NY("experimental_verify", RB_OPT_AREA_VERIFY),
                                NY("verifysort", RB_OPT_AREA_VERIFY), NY("verifysort_nr", RB_OPT_AREA_VERIFY),
    NY("trim_percentage", RB_OPT_AREA_VERIFY), NY("trim_verify_zero", RB_OPT_AREA_VERIFY),
    NY("trim_backlog", RB_OPT_AREA_VERIFY), NY("trim_backlog_batch", RB_OPT_AREA_VERIFY),
    NY("numa_cpu_nodes", RB_OPT_AREA_PROCESS), NY("numa_mem_policy", RB_OPT_AREA_PROCESS),
    NY("gtod_cpu", RB_OPT_AREA_PROCESS), NY("cgroup", RB_OPT_AREA_PROCESS),
    NY("cgroup_weight", RB_OPT_AREA_PROCESS), NY("cgroup_nodelete", RB_OPT_AREA_PROCESS),
    NY("uid", RB_OPT_AREA_PROCESS), NY("gid", RB_OPT_AREA_PROCESS),
    NY("exec_prerun", RB_OPT_AREA_PROCESS),
    NY("exec_postrun", RB_OPT_AREA_PROCESS), NY("profile", RB_OPT_AREA_PROCESS),
    NY("gpu_dev_id", RB_OPT_AREA_PROCESS),
    NY("write_iolog", RB_OPT_AREA_REPLAY), NY("read_iolog", RB_OPT_AREA_REPLAY),
    NY("read_iolog_chunked", RB_OPT_AREA_REPLAY), NY("replay_no_stall", RB_OPT_AREA_REPLAY),
    NY("replay_redirect", RB_OPT_AREA_REPLAY), NY("replay_scale", RB_OPT_AREA_REPLAY),
    NY("replay_align", RB_OPT_AREA_REPLAY), NY("replay_time_scale", RB_OPT_AREA_REPLAY),
    NY("replay_skip", RB_OPT_AREA_REPLAY), NY("merge_blktrace_file", RB_OPT_AREA_REPLAY),
    NY("merge_blktrace_scalars", RB_OPT_AREA_REPLAY), NY("merge_blktrace_iters", RB_OPT_AREA_REPLAY),
#undef NY
#undef NYE
};
/* clang-format on */

#define S_NROWS (sizeof s_rows / sizeof s_rows[0])
_Static_assert(S_NROWS <= RB_OPT_MAX_ROWS, "RB_OPT_MAX_ROWS is too small for the table");

static const char *const s_why_text[] = {
    [RB_OPT_WHY_MACHINERY] = "it only tunes fio's own machinery",
    [RB_OPT_WHY_REPORT] = "it only shapes fio's own reports and logs",
    /* one literal per entry: a line break inside reads as a missing comma to clang */
    [RB_OPT_WHY_REGISTER] = ("rackbench's io_uring always registers its files and buffers, "
                             "which changes no IO that reaches the storage"),
    [RB_OPT_WHY_ZONED] = ("it sets aside the limits a zoned device reports, and rackbench's "
                          "zones are emulated, with no such limits (fio's are too, on a file "
                          "or a device that is not zoned)"),
};

const char *rb_opt_why_text(rb_opt_why_t why)
{
    return (unsigned)why < RB_OPT_NWHYS ? s_why_text[why] : "";
}

/* 1 when name is key or one of the comma-separated aliases. */
static bool s_names_match(const rb_opt_t *o, const char *name)
{
    return !strcmp(o->key, name) || rb_names_in_list(o->aliases, name);
}

const rb_opt_t *rb_opt_find(const char *key)
{
    for (size_t i = 0; key && i < S_NROWS; i++)
        if (s_names_match(&s_rows[i], key))
            return &s_rows[i];
    return NULL;
}

size_t rb_opt_count(void)
{
    return S_NROWS;
}

const rb_opt_t *rb_opt_at(size_t i)
{
    return i < S_NROWS ? &s_rows[i] : NULL;
}

size_t rb_opt_index(const rb_opt_t *opt)
{
    return (size_t)(opt - s_rows);
}

int rb_opt_of_engine(const rb_opt_t *opt, const char *engine)
{
    if (!opt->engine)
        return 1;
    size_t n = strlen(engine);
    for (const char *p = opt->engine; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, engine, n) == 0)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

const char *rb_opt_enum_name(const rb_opt_t *opt, unsigned v)
{
    for (size_t i = 0; opt && i < opt->nnames; i++)
        if (opt->names[i].value == v)
            return opt->names[i].name;
    return NULL;
}

/* ---- defaults ---- */

/* The job settings with every default read from the table once. */
static void s_job_defaults(rb_plan_job_t *o)
{
    rb_plan_parser_t ps;
    rb_err_t err;
    memset(&ps, 0, sizeof ps);
    ps.source = "<defaults>";
    ps.err = &err;
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < S_NROWS; i++)
        if (s_rows[i].def)
            (void)rb_opt_read_kind(&ps, o, &s_rows[i], s_rows[i].key, s_rows[i].def, 0);
    o->spec.bs_max = o->spec.bs;
    o->kb_base = 1024;
    o->name = "";
    free(ps.notes);
}

void rb_plan_spec_defaults(rb_job_spec_t *js)
{
    static rb_plan_job_t defaults;
    static bool made;
    if (!made) { /* the plan parser runs on one thread: no race */
        s_job_defaults(&defaults);
        made = true;
    }
    *js = defaults.spec;
}

void rb_plan_job_defaults(rb_plan_job_t *o)
{
    s_job_defaults(o);
}

static int s_layout_value(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    int m = rb_layout_mode_parse(val);
    if (m < 0)
        return rb_plan_fail(ps, line, "%s=%.64s: expected segmented or strided", key, val);
    o->spec.layout = (rb_layout_mode_t)m;
    return 0;
}
