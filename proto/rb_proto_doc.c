/* The key tables of docs/protocol.md, written from the layout tables
 * (rb_proto_doc_markdown): a job's keys with what each holds, and every key
 * of every message with its type, bound and the version it arrived in. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rb_proto_int.h"

const char *const rb_proto_doc_parts[] = {"wire-job", "wire-keys", NULL};

/* A field's type as the docs' table of types writes it. */
static void s_type(char *buf, size_t cap, const rb_proto_field_t *f)
{
    size_t o = 0;
    switch (f->kind) {
    case RB_PK_U32:
    case RB_PK_U64: {
        const char *t = f->kind == RB_PK_U32 ? "u32" : "u64";
        uint64_t top = f->kind == RB_PK_U32 ? UINT32_MAX : UINT64_MAX;
        if (f->min && f->max < top)
            snprintf(buf, cap, "%s, %" PRIu64 " … %" PRIu64, t, f->min, f->max);
        else if (f->min)
            snprintf(buf, cap, "%s, at least %" PRIu64, t, f->min);
        else if (f->max < top)
            snprintf(buf, cap, "%s, at most %" PRIu64, t, f->max);
        else
            snprintf(buf, cap, "%s", t);
        return;
    }
    case RB_PK_ERRNO:
        snprintf(buf, cap, "errno");
        return;
    case RB_PK_I64:
        snprintf(buf, cap, "i64");
        return;
    case RB_PK_BOOL:
        snprintf(buf, cap, "bool");
        return;
    case RB_PK_STR:
        snprintf(buf, cap, "%s(%zu)%s", f->flags & RB_PK_F_FILE ? "name" : "str", f->size - 1,
                 f->flags & RB_PK_F_NONEMPTY ? ", not empty" : "");
        return;
    case RB_PK_ENUM:
        o = (size_t)snprintf(buf, cap, "enum:");
        for (unsigned v = 0; v < f->en->n && o < cap; v++)
            if (f->en->names[v])
                o += (size_t)snprintf(buf + o, cap - o, "%s `%s`", v ? "," : "", f->en->names[v]);
        return;
    case RB_PK_BIN:
        snprintf(buf, cap, "bin(%" PRIu64 ")", f->max);
        return;
    case RB_PK_HIST:
        snprintf(buf, cap, "histogram");
        return;
    case RB_PK_BUCKETS:
        snprintf(buf, cap, "array of [index, count]");
        return;
    case RB_PK_CHECKPTS:
        snprintf(buf, cap, "array(%" PRIu64 ") of [t_ns, bytes]", f->max);
        return;
    case RB_PK_ARRAY:
    case RB_PK_INLINE:
        snprintf(buf, cap, "array(%" PRIu64 ") of map", f->max);
        return;
    }
    snprintf(buf, cap, "?");
}

static const char *s_since(char *buf, size_t cap, const rb_proto_field_t *f)
{
    if (f->since)
        snprintf(buf, cap, "%" PRIu32, f->since);
    else
        snprintf(buf, cap, "%d", RB_PROTO_OLDEST);
    return buf;
}

/* One row per key of l, the maps inside it flattened ("roots[].path"); a
 * histogram's keys are those of "Histograms", a PLAN's jobs the job table's.
 * A key inside a map arrived no earlier than the map (floor). */
static void s_rows(FILE *f, const rb_proto_layout_t *l, const char *prefix, const void *job,
                   uint32_t floor)
{
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *fd = &l->fields[i];
        char type[512], since[16], path[160];
        uint32_t v = rb_proto_since(fd) > floor ? rb_proto_since(fd) : floor;
        s_type(type, sizeof type, fd);
        snprintf(path, sizeof path, "%s%s", prefix, fd->key);
        snprintf(since, sizeof since, "%" PRIu32, v);
        fprintf(f, "| `%s` | %s | %s |\n", path, type, since);
        if ((fd->kind == RB_PK_ARRAY || fd->kind == RB_PK_INLINE) && fd->sub != job) {
            char sub[176];
            snprintf(sub, sizeof sub, "%s[].", path);
            s_rows(f, fd->sub, sub, job, v);
        }
    }
}

int rb_proto_doc_markdown(const char *part, FILE *f)
{
    const rb_proto_layout_t *job = rb_proto_job_layout;
    if (!strcmp(part, "wire-job")) {
        fprintf(f, "| key | type | since | what it holds |\n| --- | --- | --- | --- |\n");
        for (size_t i = 0; i < job->n; i++) {
            const rb_proto_field_t *fd = &job->fields[i];
            char type[512], since[16];
            s_type(type, sizeof type, fd);
            fprintf(f, "| `%s` | %s | %s | ", fd->key, type, s_since(since, sizeof since, fd));
            for (const char *c = fd->doc ? fd->doc : ""; *c; c++)
                fputs(*c == '|' ? "\\|" : (char[2]){*c, 0}, f);
            fputs(" |\n", f);
        }
        return 0;
    }
    if (!strcmp(part, "wire-keys")) {
        for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
            fprintf(f, "%s%s:\n\n| key | type | since |\n| --- | --- | --- |\n",
                    t > RB_MSG_NONE + 1 ? "\n" : "", rb_proto_type_names[t]);
            s_rows(f, rb_proto_bodies[t], "", job, RB_PROTO_OLDEST);
        }
        return 0;
    }
    return -EINVAL;
}
