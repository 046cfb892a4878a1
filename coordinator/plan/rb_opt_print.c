/* The job-option table's output: the normalised print of `rackbench check`
 * (every option of a job explicit, in table order, re-reading to the same
 * job) and the option lists of docs/plan.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_jw.h"
#include "rb_opt.h"
#include "rb_dist.h"
#include "rb_plan_int.h"
#include "rb_units.h"

/* ---- the normalised print ---- */

void rb_opt_print_size(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    (void)gd;
    fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_size_exact(a, sizeof a, rb_opt_load(js, opt)));
}

void rb_opt_print_u64(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    fprintf(f, "%s=%" PRIu64 "\n", opt->key, rb_opt_load(js, opt));
}

void rb_opt_print_enum(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    const char *name = rb_opt_enum_name(opt, (unsigned)rb_opt_load(js, opt));
    fprintf(f, "%s=%s\n", opt->key, name ? name : opt->names[0].name);
}

void rb_opt_print_str(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    fprintf(f, "%s=%s\n", opt->key, (const char *)js + opt->off);
}

void rb_opt_print_bs(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64], b[64], c[64];
    (void)gd;
    rb_units_fmt_size_exact(a, sizeof a, js->bs_read);
    rb_units_fmt_size_exact(b, sizeof b, js->bs_write);
    if (js->bs_trim && js->bs_trim != js->bs_write) /* trims of their own: three parts */
        fprintf(f, "%s=%s,%s,%s\n", opt->key, a, b,
                rb_units_fmt_size_exact(c, sizeof c, js->bs_trim));
    else if (js->bs_read == js->bs_write)
        fprintf(f, "%s=%s\n", opt->key, a);
    else
        fprintf(f, "%s=%s,%s\n", opt->key, a, b);
}

void rb_opt_print_bsrange(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64], b[64], c[64], d[64], e[64], g[64];
    (void)gd;
    rb_units_fmt_size_exact(a, sizeof a, js->bs_read);
    rb_units_fmt_size_exact(b, sizeof b, js->bs_read_max);
    if (js->bs_trim && (js->bs_trim != js->bs_write || js->bs_trim_max != js->bs_write_max))
        fprintf(f, "%s=%s-%s,%s-%s,%s-%s\n", opt->key, a, b,
                rb_units_fmt_size_exact(c, sizeof c, js->bs_write),
                rb_units_fmt_size_exact(d, sizeof d, js->bs_write_max),
                rb_units_fmt_size_exact(e, sizeof e, js->bs_trim),
                rb_units_fmt_size_exact(g, sizeof g, js->bs_trim_max));
    else if (js->bs_read == js->bs_write && js->bs_read_max == js->bs_write_max)
        fprintf(f, "%s=%s-%s\n", opt->key, a, b);
    else
        fprintf(f, "%s=%s-%s,%s-%s\n", opt->key, a, b,
                rb_units_fmt_size_exact(c, sizeof c, js->bs_write),
                rb_units_fmt_size_exact(d, sizeof d, js->bs_write_max));
}

/* One direction's split: "4k/10:64k/90" (nothing for none). */
static void s_print_split(const rb_bs_part_t *p, uint32_t n, FILE *f)
{
    char a[64];
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%s/%u", i ? ":" : "", rb_units_fmt_size_exact(a, sizeof a, p[i].bs),
                p[i].perc);
}

void rb_opt_print_bssplit(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (!js->nbssplit_read && !js->nbssplit_write)
        return;
    fprintf(f, "%s=", opt->key);
    s_print_split(js->bssplit_read, js->nbssplit_read, f);
    fputc(',', f);
    s_print_split(js->bssplit_write, js->nbssplit_write, f);
    /* the trailing comma: trims keep the default (bssplit goes with no trim pattern) */
    fprintf(f, ",\n");
}

void rb_opt_print_ioengine(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    fprintf(f, "%s=%s\n", opt->key, js->ioengine[0] ? js->ioengine : opt->def);
}

void rb_opt_print_zero_buffers(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                               FILE *f)
{
    (void)gd;
    fprintf(f, "%s=%d\n", opt->key, js->buffer_mode == RB_BUF_ZERO ? 1 : 0);
}

/* scramble_buffers: only when off. */
void rb_opt_print_scramble(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (!js->scramble)
        fprintf(f, "%s=0\n", opt->key);
}

/* buffer_compress_percentage, dedupe_percentage: only when not 0 (what
 * setting them to 0 changes is in the lines of scramble_buffers and
 * refill_buffers). */
void rb_opt_print_buffer_pct(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (rb_opt_load(js, opt))
        fprintf(f, "%s=%" PRIu64 "\n", opt->key, rb_opt_load(js, opt));
}

/* buffer_compress_chunk: only when it is not fio's 512. */
void rb_opt_print_compress_chunk(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                 FILE *f)
{
    if (js->compress_chunk != 512)
        rb_opt_print_size(opt, js, gd, f);
}

/* buffer_pattern, or verify_pattern when the pattern holds a %o. */
/* dedupe_mode, dedupe_working_set_percentage, dedupe_global: only when not
 * fio's default (repeat, 5, 0). */
void rb_opt_print_dedupe(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    uint64_t v = rb_opt_load(js, opt);
    if (opt->kind == RB_OPT_ENUM && v != RB_DEDUPE_REPEAT)
        rb_opt_print_enum(opt, js, gd, f);
    else if (opt->kind == RB_OPT_COUNT && v != RB_DEDUPE_WS_PCT_DEF)
        rb_opt_print_u64(opt, js, gd, f);
    else if (opt->kind == RB_OPT_BOOL && v)
        fprintf(f, "%s=1\n", opt->key);
}

void rb_opt_print_pattern(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    bool fmt = !strcmp(opt->key, "verify_pattern");
    if (js->buffer_mode != RB_BUF_PATTERN || !js->pattern_len || fmt != (js->pattern_ofs != 0))
        return;
    fprintf(f, "%s=", opt->key);
    bool hex = false;
    for (uint32_t i = 0; i < js->pattern_len && i < RB_PATTERN_MAX; i++) {
        if (js->pattern_ofs >> i & 1 && i + 8 <= js->pattern_len) {
            fprintf(f, "%%o");
            hex = false;
            i += 7;
            continue;
        }
        fprintf(f, hex ? "%02x" : "0x%02x", js->pattern[i]);
        hex = true;
    }
    fprintf(f, "\n");
}

/* Only for a shared file: the layout of one file that every worker writes. */
void rb_opt_print_layout(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->shared_file)
        rb_opt_print_enum(opt, js, gd, f);
}

void rb_opt_print_transfer(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->shared_file && js->layout == RB_LAYOUT_STRIDED && js->transfer)
        rb_opt_print_size(opt, js, gd, f);
}

void rb_opt_print_read_from(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (js->rw == RB_RW_META && !js->read_shift)
        return; /* a metadata step says it only when it works on another node's files */
    if (js->read_shift == RB_READ_RANDOM)
        fprintf(f, "%s=random\n", opt->key);
    else if (js->read_shift)
        fprintf(f, "%s=shift:%" PRIu32 "\n", opt->key, js->read_shift);
    else
        fprintf(f, "%s=self\n", opt->key);
}

/* Only with read_from=random, as given (negative: reseeded each iteration). */
void rb_opt_print_read_from_seed(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                 FILE *f)
{
    (void)gd;
    if (js->read_shift == RB_READ_RANDOM)
        fprintf(f, "%s=%s%" PRIu64 "\n", opt->key, js->read_reseed ? "-" : "", js->read_seed);
}

/* Only when set: they concern Lustre alone. */
void rb_opt_print_stripe_count(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                               FILE *f)
{
    (void)gd;
    if (js->lustre_stripe_count == RB_LUSTRE_STRIPE_ALL)
        fprintf(f, "%s=-1\n", opt->key);
    else if (js->lustre_stripe_count)
        fprintf(f, "%s=%" PRIu32 "\n", opt->key, js->lustre_stripe_count);
}

void rb_opt_print_stripe_size(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    (void)gd;
    if (js->lustre_stripe_size)
        fprintf(f, "%s=%s\n", opt->key,
                rb_units_fmt_size_exact(a, sizeof a, js->lustre_stripe_size));
}

/* The row's value only when it is set (a string not empty, a number not 0). */
void rb_opt_print_if_set(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (opt->kind == RB_OPT_CUSTOM) {
        const char *v = (const char *)js + opt->off;
        if (v[0])
            fprintf(f, "%s=%s\n", opt->key, v);
    } else if (rb_opt_load(js, opt)) {
        fprintf(f, "%s=%" PRIu64 "\n", opt->key, rb_opt_load(js, opt));
    }
}

/* A number only when it is not the row's default (fio's queue batching); an
 * inverted boolean as the plan writes it (create_fsync=0). */
void rb_opt_print_if_changed(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    uint64_t v = rb_opt_load(js, opt);
    if (opt->kind == RB_OPT_INVBOOL)
        v = !v;
    if (v != strtoull(opt->def ? opt->def : "0", NULL, 10))
        fprintf(f, "%s=%" PRIu64 "\n", opt->key, v);
}

/* An unset directory is written empty when [global] sets one, so it is not inherited. */
/* size=: none for a job that takes the size of its devices or of the file
 * an earlier phase writes (size 0), or fill_device's "until full". */
void rb_opt_print_job_size(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->size_pct)
        fprintf(f, "%s=%" PRIu32 "%%\n", opt->key, js->size_pct);
    else if (js->size && !(js->fill_device && js->size == RB_FILL_SIZE))
        rb_opt_print_size(opt, js, gd, f);
}

/* create_serialize=0: what lets a job take the size of its file (size 0
 * with filename=, not a device); else fio's default, not printed. */
void rb_opt_print_create_serialize(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                   FILE *f)
{
    (void)gd;
    if (rb_job_file_sized(js) && !js->existing)
        fprintf(f, "%s=0\n", opt->key);
}

/* offset=: bytes, or N% of each device. */
void rb_opt_print_offset(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->offset_pct)
        fprintf(f, "%s=%" PRIu32 "%%\n", opt->key, js->offset_pct);
    else
        rb_opt_print_size(opt, js, gd, f);
}

/* filename=: the job's devices when it names some, else its file. */
void rb_opt_print_filename(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    fprintf(f, "%s=%s\n", opt->key, js->device[0] ? js->device : js->filename);
}

void rb_opt_print_directory(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->directory[0] || (gd && gd[0]))
        fprintf(f, "%s=%s\n", opt->key, js->directory);
}

/* A metadata step is one operation: meta_ops names it. */
void rb_opt_print_meta_op(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    const char *op = rb_meta_op_name(js->meta_op);
    fprintf(f, "%s=%s\n", opt->key, op ? op : "create");
}

/* Only when it differs from meta_filesize (which it follows by default). */
void rb_opt_print_meta_readsize(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                FILE *f)
{
    (void)gd;
    if (js->meta_readsize != js->meta_filesize)
        fprintf(f, "%s=%" PRIu64 "\n", opt->key, js->meta_readsize);
}

/* A create step's stonewall (it always wears out): only when set. */
void rb_opt_print_meta_stonewall(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                 FILE *f)
{
    char a[64];
    (void)gd;
    if (js->rw == RB_RW_META && js->stonewall_ns)
        fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_duration_exact(a, sizeof a, js->stonewall_ns));
}

/* A duration, or MIN-MAX when each worker draws its own. */
void rb_opt_print_startdelay(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64], b[64];
    (void)gd;
    rb_units_fmt_duration_exact(a, sizeof a, js->startdelay_ns);
    if (js->startdelay_max_ns > js->startdelay_ns)
        fprintf(f, "%s=%s-%s\n", opt->key, a,
                rb_units_fmt_duration_exact(b, sizeof b, js->startdelay_max_ns));
    else
        fprintf(f, "%s=%s\n", opt->key, a);
}

/* thinktime and its companions, only when it is set (fio's defaults otherwise). */
void rb_opt_print_thinktime(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    (void)gd;
    if (!js->thinktime_ns)
        return;
    fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_duration_exact(a, sizeof a, js->thinktime_ns));
    if (js->thinktime_spin_ns)
        fprintf(f, "thinktime_spin=%s\n",
                rb_units_fmt_duration_exact(a, sizeof a, js->thinktime_spin_ns));
    if (js->thinktime_blocks > 1 || (js->thinktime_blocks && js->thinktime_iotime_ns))
        fprintf(f, "thinktime_blocks=%" PRIu32 "\n", js->thinktime_blocks);
    if (js->thinktime_iotime_ns)
        fprintf(f, "thinktime_iotime=%s\n",
                rb_units_fmt_duration_exact(a, sizeof a, js->thinktime_iotime_ns));
    if (js->thinktime_issued)
        fprintf(f, "thinktime_blocks_type=issue\n");
}

/* One direction's zones: "60/10:40/90" (zoned_abs: sizes, "60/1M:40/3M"). */
static void s_print_zones(const rb_zone_t *z, uint32_t n, bool abs, FILE *f)
{
    char a[64];
    for (uint32_t i = 0; i < n; i++)
        if (abs)
            fprintf(f, "%s%" PRIu32 "/%s", i ? ":" : "", z[i].access,
                    rb_units_fmt_size_exact(a, sizeof a, z[i].size));
        else
            fprintf(f, "%s%" PRIu32 "/%" PRIu64, i ? ":" : "", z[i].access, z[i].size);
}

/* Nothing for random, fio's default (the print of every plan so far). */
void rb_opt_print_random_distribution(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                      FILE *f)
{
    static const char *const names[RB_DIST_COUNT] = {"random", "zipf",  "pareto",
                                                     "normal", "zoned", "zoned_abs"};
    (void)gd;
    if (js->rand_dist == RB_DIST_RANDOM || js->rand_dist >= RB_DIST_COUNT)
        return;
    fprintf(f, "%s=%s:", opt->key, names[js->rand_dist]);
    if (js->rand_dist != RB_DIST_ZONED && js->rand_dist != RB_DIST_ZONED_ABS) {
        fprintf(f, "%.6g\n", js->rand_dist_ppm / 1e6);
        return;
    }
    bool abs = js->rand_dist == RB_DIST_ZONED_ABS;
    s_print_zones(js->zones_read, js->nzones_read, abs, f);
    fputc(',', f);
    s_print_zones(js->zones_write, js->nzones_write, abs, f);
    fputc(',', f);
    s_print_zones(js->zones_trim, js->nzones_trim, abs, f);
    fputc('\n', f);
}

/* rw, with fio's modifier when it has one: write:4k, read:-8k, randread:8. */
void rb_opt_print_rw(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    const char *name = rb_opt_enum_name(opt, (unsigned)js->rw);
    fprintf(f, "%s=%s", opt->key, name ? name : opt->names[0].name);
    if (rb_rw_random(js->rw) && js->seq_nr > 1)
        fprintf(f, ":%" PRIu32, js->seq_nr);
    else if (!rb_rw_random(js->rw) && js->seq_add)
        fprintf(f, ":%s%s", js->seq_back ? "-" : "",
                rb_units_fmt_size_exact(a, sizeof a, js->seq_add));
    fputc('\n', f);
    (void)gd;
}

/* Nothing for sequential, fio's default. */
void rb_opt_print_rw_sequencer(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                               FILE *f)
{
    (void)gd;
    if (js->seq_identical)
        fprintf(f, "%s=identical\n", opt->key);
}

/* Nothing when every IO of a random job is random, fio's default. */
void rb_opt_print_percentage_random(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                                    FILE *f)
{
    (void)gd;
    if (js->perc_seq_read || js->perc_seq_write || js->perc_seq_trim)
        fprintf(f, "%s=%" PRIu32 ",%" PRIu32 ",%" PRIu32 "\n", opt->key, 100 - js->perc_seq_read,
                100 - js->perc_seq_write, 100 - js->perc_seq_trim);
}

/* Nothing when random offsets are multiples of bs, fio's default. */
void rb_opt_print_blockalign(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64], b[64], c[64];
    (void)gd;
    if (js->ba_read || js->ba_write || js->ba_trim)
        fprintf(f, "%s=%s,%s,%s\n", opt->key,
                js->ba_read ? rb_units_fmt_size_exact(a, sizeof a, js->ba_read) : "",
                js->ba_write ? rb_units_fmt_size_exact(b, sizeof b, js->ba_write) : "",
                js->ba_trim ? rb_units_fmt_size_exact(c, sizeof c, js->ba_trim) : "");
}

/* One row's lines. */
static void s_print_row(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    if (opt->print) {
        opt->print(opt, js, gd, f);
        return;
    }
    switch (opt->kind) {
    case RB_OPT_SIZE:
        rb_opt_print_size(opt, js, gd, f);
        break;
    case RB_OPT_DURATION:
        fprintf(f, "%s=%s\n", opt->key,
                rb_units_fmt_duration_exact(a, sizeof a, rb_opt_load(js, opt)));
        break;
    case RB_OPT_COUNT:
        rb_opt_print_u64(opt, js, gd, f);
        break;
    case RB_OPT_BOOL:
        fprintf(f, "%s=%d\n", opt->key, rb_opt_load(js, opt) ? 1 : 0);
        break;
    case RB_OPT_INVBOOL:
        fprintf(f, "%s=%d\n", opt->key, rb_opt_load(js, opt) ? 0 : 1);
        break;
    case RB_OPT_ENUM:
        rb_opt_print_enum(opt, js, gd, f);
        break;
    default:
        break;
    }
}

void rb_opt_print_job(const rb_job_spec_t *js, const char *global_dir, FILE *f)
{
    /* a network job: the options it has (docs/plan.md, "Networks") */
    static const char *const net[] = {"network",    "net_target", "pingpong",     "rw",
                                      "bs",         "numjobs",    "size",         "runtime",
                                      "time_based", "startdelay", "cpus_allowed", "nice"};
    for (size_t k = 0; js->network && k < sizeof net / sizeof net[0]; k++)
        if (rb_opt_find(net[k]))
            s_print_row(rb_opt_find(net[k]), js, global_dir, f);
    for (size_t i = 0; !js->network && i < rb_opt_count(); i++)
        if (!(rb_opt_at(i)->flags & (RB_OPT_F_NOPRINT | RB_OPT_F_META)))
            s_print_row(rb_opt_at(i), js, global_dir, f);
}

void rb_opt_print_meta_step(const rb_job_spec_t *js, const char *global_dir, FILE *f)
{
    /* rw=meta, the meta_* options, then the others a step keeps */
    s_print_row(rb_opt_find("rw"), js, global_dir, f);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < rb_opt_count(); i++)
            if ((rb_opt_at(i)->flags & RB_OPT_F_PRINT_META) &&
                !(rb_opt_at(i)->flags & RB_OPT_F_META) == (pass == 1))
                s_print_row(rb_opt_at(i), js, global_dir, f);
}

void rb_opt_print_global(uint64_t interval_ns, const char *directory, FILE *f)
{
    char a[64];
    fprintf(f, "sample_interval=%s\n",
            interval_ns ? rb_units_fmt_duration_exact(a, sizeof a, interval_ns) : "auto");
    if (directory && directory[0])
        fprintf(f, "directory=%s\n", directory);
}

/* ---- the option lists of docs/plan.md ---- */

/* The names of a row for the docs: `key`, `alias`, ... */
static void s_doc_names(const rb_opt_t *o, FILE *f)
{
    fprintf(f, "`%s`", o->key);
    for (const char *c = o->aliases; c && *c;) {
        const char *end = strchr(c, ',');
        int n = end ? (int)(end - c) : (int)strlen(c);
        fprintf(f, ", `%.*s`", n, c);
        c = end ? end + 1 : NULL;
    }
}

static const char *const s_area_text[RB_OPT_NAREAS] = {
    [RB_OPT_AREA_FILES] = "files and layout",
    [RB_OPT_AREA_PATTERN] = "IO pattern and sizes",
    [RB_OPT_AREA_QUEUE] = "queueing and engine options",
    [RB_OPT_AREA_BUFFERS] = "buffers and memory",
    [RB_OPT_AREA_TIMING] = "timing and rates",
    [RB_OPT_AREA_VERIFY] = "verification",
    [RB_OPT_AREA_PROCESS] = "processes, CPUs, priorities",
    [RB_OPT_AREA_REPLAY] = "replay",
};

/* The table of rackbench's options. */
static void s_doc_options(FILE *f)
{
    fprintf(f, "| option | type | default | where | what it does |\n");
    fprintf(f, "| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        if (o->kind == RB_OPT_IGNORED || o->kind == RB_OPT_NOT_YET)
            continue;
        fprintf(f, "| ");
        if (o->ref)
            fprintf(f, "[");
        s_doc_names(o, f);
        if (o->ref)
            fprintf(f, "](#%s)", o->ref);
        const char *where = o->flags & RB_OPT_F_GLOBAL ? "`[global]`"
                            : o->flags & RB_OPT_F_JOB  ? "job"
                            : o->flags & RB_OPT_F_META ? "`rw=meta` job, `[global]`"
                                                       : "job, `[global]`";
        fprintf(f, " | %s | ", o->type ? o->type : "");
        if (o->def_doc)
            fprintf(f, "%s", o->def_doc);
        else
            fprintf(f, "`%s`", o->def ? o->def : "0");
        fprintf(f, " | %s | %s |\n", where, o->doc ? o->doc : "");
    }
}

/* fio's options accepted with a note, by why. */
static void s_doc_ignored(FILE *f)
{
    fprintf(f, "| why | options |\n| --- | --- |\n");
    for (unsigned why = 0; why < RB_OPT_NWHYS; why++) {
        fprintf(f, "| %s |", rb_opt_why_text((rb_opt_why_t)why));
        const char *sep = " ";
        for (size_t i = 0; i < rb_opt_count(); i++) {
            if (rb_opt_at(i)->kind == RB_OPT_IGNORED && rb_opt_at(i)->group == why) {
                fprintf(f, "%s`%s`", sep, rb_opt_at(i)->key);
                if (rb_opt_at(i)->engine)
                    fprintf(f, " (%s)", rb_opt_at(i)->engine);
                sep = ", ";
            }
        }
        fprintf(f, " |\n");
    }
}

/* fio's options not supported yet, by area; an engine's own named beside it. */
static void s_doc_not_yet(FILE *f)
{
    fprintf(f, "| area | options |\n| --- | --- |\n");
    for (unsigned area = 0; area < RB_OPT_NAREAS; area++) {
        fprintf(f, "| %s |", s_area_text[area]);
        const char *sep = " ";
        for (size_t i = 0; i < rb_opt_count(); i++) {
            if (rb_opt_at(i)->kind == RB_OPT_NOT_YET && rb_opt_at(i)->group == area) {
                fprintf(f, "%s`%s`", sep, rb_opt_at(i)->key);
                if (rb_opt_at(i)->engine)
                    fprintf(f, " (%s)", rb_opt_at(i)->engine);
                sep = ", ";
            }
        }
        fprintf(f, " |\n");
    }
}

int rb_opt_doc_markdown(const char *part, FILE *f)
{
    if (!strcmp(part, "options"))
        s_doc_options(f);
    else if (!strcmp(part, "ignored"))
        s_doc_ignored(f);
    else if (!strcmp(part, "not-yet"))
        s_doc_not_yet(f);
    else
        return -EINVAL;
    return 0;
}

const char *const rb_opt_doc_parts[] = {"options", "ignored", "not-yet", NULL};

void rb_opt_print_rate(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64], b[64];
    (void)gd;
    bool iops = !strcmp(opt->key, "rate_iops") || !strcmp(opt->key, "rate_iops_min");
    bool min = !strcmp(opt->key, "rate_min") || !strcmp(opt->key, "rate_iops_min");
    uint64_t r, w;
    if (min) {
        r = iops ? js->rate_iops_min : js->rate_min;
        w = iops ? js->rate_iops_min_write : js->rate_min_write;
    } else {
        r = iops ? js->rate_iops : js->rate;
        w = iops ? js->rate_iops_write : js->rate_write;
    }
    if (iops) {
        snprintf(a, sizeof a, "%" PRIu64, r);
        snprintf(b, sizeof b, "%" PRIu64, w);
    } else {
        rb_units_fmt_size_exact(a, sizeof a, r);
        rb_units_fmt_size_exact(b, sizeof b, w);
    }
    if (r == w)
        fprintf(f, "%s=%s\n", opt->key, a);
    else
        fprintf(f, "%s=%s,%s\n", opt->key, a, b);
}

/* rate_min and rate_iops_min, only when set. */
void rb_opt_print_rate_floor(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    bool iops = !strcmp(opt->key, "rate_iops_min");
    if (iops ? js->rate_iops_min || js->rate_iops_min_write : js->rate_min || js->rate_min_write)
        rb_opt_print_rate(opt, js, gd, f);
}

/* rate_cycle, only away from fio's 1000 ms. */
void rb_opt_print_rate_cycle(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (js->rate_cycle_ms != 1000)
        fprintf(f, "%s=%" PRIu32 "\n", opt->key, js->rate_cycle_ms);
}

/* exit_what, only away from fio's group. */
void rb_opt_print_exit_what(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->exit_what != RB_EXIT_GROUP)
        rb_opt_print_enum(opt, js, gd, f);
}

int rb_opt_json_job(struct rb_jw *w, const rb_job_spec_t *js, const char *global_dir)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return -ENOMEM;
    if (js->rw == RB_RW_META)
        rb_opt_print_meta_step(js, global_dir, f);
    else
        rb_opt_print_job(js, global_dir, f);
    if (fclose(f) != 0 || !text) {
        free(text);
        return -ENOMEM;
    }
    /* the print's "key=value" lines, one member each */
    for (char *line = text, *next; *line; line = next) {
        next = strchr(line, '\n');
        next = next ? (*next = '\0', next + 1) : line + strlen(line);
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        rb_jw_str(w, line, eq + 1);
    }
    free(text);
    return 0;
}

/* sqthread_poll_cpu, when set. */
void rb_opt_print_sqpoll_cpu(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (js->sqpoll_aff)
        fprintf(f, "%s=%" PRIu32 "\n", opt->key, js->sqpoll_cpu);
}

/* cpus_allowed as a list (a cpumask too), and its policy, when set. */
void rb_opt_print_cpus(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    char list[RB_CPUS_MAX * 5];
    if (!js->cpus_len)
        return;
    fprintf(f, "%s=%s\n", opt->key, rb_cpus_fmt(js->cpus, js->cpus_len, list, sizeof list));
    if (js->cpus_split)
        fprintf(f, "cpus_allowed_policy=split\n");
}

/* fallocate, only away from fio's default (native). */
void rb_opt_print_fallocate(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (js->fallocate != RB_FALLOC_NATIVE)
        rb_opt_print_enum(opt, js, gd, f);
}

/* An enum whose 0 is "not set" (write_hint): its name only when set. */
void rb_opt_print_enum_if_set(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    if (rb_opt_load(js, opt))
        rb_opt_print_enum(opt, js, gd, f);
}

/* invalidate and fadvise_hint, each only away from fio's default (1). */
void rb_opt_print_advice(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    static const char *const hints[] = {"0", "1", "sequential", "random"};
    (void)gd;
    if (!js->invalidate)
        fprintf(f, "%s=0\n", opt->key);
    if (js->fadvise_hint != RB_FADVISE_PATTERN && js->fadvise_hint < 4)
        fprintf(f, "fadvise_hint=%s\n", hints[js->fadvise_hint]);
}
