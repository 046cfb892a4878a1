/* The IO engines both sides know by name: what a plan may say in ioengine=,
 * what travels in a job's ioengine field, and what each engine is (flags),
 * so that the coordinator asks "does this engine move data?" of one table
 * instead of comparing names. The agent's engines (agent/engines/) each
 * fill an ops table under the same name. An engine's own plan options are
 * rows of the job-option table that name it (coordinator/plan/rb_opt.c). */
#ifndef RB_ENGINE_INFO_H
#define RB_ENGINE_INFO_H

#include <stddef.h>

enum {
    RB_ENGINE_INFO_F_NO_DATA = 1u << 0, /* moves no data: figures are rackbench's own cost per IO */
    RB_ENGINE_INFO_F_ASYNC = 1u << 1,   /* keeps iodepth IOs in flight (sync keeps one) */
};

typedef struct rb_engine_info {
    const char *name;    /* as written in plans and sent on the wire */
    const char *aliases; /* other names a plan may use, comma-separated, or NULL */
    unsigned flags;      /* RB_ENGINE_INFO_F_* */
    const char *doc;     /* one line for the docs */
} rb_engine_info_t;

/* The engine of this name or alias; NULL if there is none. */
const rb_engine_info_t *rb_engine_info_find(const char *name);

/* Engines in the table, and engine i of them. */
size_t rb_engine_info_count(void);
const rb_engine_info_t *rb_engine_info_at(size_t i);

/* "sync, psync, libaio, io_uring, null": every name and alias, for messages. Returns buf. */
char *rb_engine_info_list(char *buf, size_t len);

/* 1 unless the engine named moves no data (an unknown name counts as moving data). */
int rb_engine_info_moves_data(const char *name);

/* The IOs a worker of ioengine name (NULL or "": sync) keeps in flight at
 * iodepth: iodepth (at least 1), or 1 for an engine that does one IO at a
 * time, as fio caps it. Each has a buffer of its own. */
unsigned rb_engine_info_depth(const char *name, unsigned iodepth);

#endif
