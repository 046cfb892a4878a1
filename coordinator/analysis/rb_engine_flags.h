/* What the analysis needs to know about an IO engine, asked by name: for
 * now only whether it moves data at all. A stopgap: the engine table in
 * proto/ will answer this, and these helpers will point at it. */
#ifndef RB_ENGINE_FLAGS_H
#define RB_ENGINE_FLAGS_H

#include <string.h>

/* 1 when the engine named name reads and writes real data, 0 for the null
 * engine (whose figures are no storage's: no cache, no device). Replaced by
 * a look-up in proto's engine table. */
static inline int rb_engine_moves_data(const char *name)
{
    return strcmp(name, "null") != 0;
}

#endif
