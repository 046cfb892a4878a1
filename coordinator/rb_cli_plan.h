/* What the commands that read a plan share: rackbench check and run, and
 * rackbench-mpi, take the same options for it. */
#ifndef RB_CLI_PLAN_H
#define RB_CLI_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "rb_plan.h"
#include "rb_units.h"

#define RB_PLAN_ARGS_MAX 256 /* options of each kind at the most */

/* The options that read the plan, by kind (rb_cli_plan_kind). */
enum {
    RB_PLAN_ARG_SECTION,
    RB_PLAN_ARG_SET,
    RB_PLAN_ARG_OVERRIDE,
    RB_PLAN_ARG_VAR,
    RB_PLAN_ARG_KINDS
};

typedef struct rb_plan_args {
    const char *arg[RB_PLAN_ARG_KINDS][RB_PLAN_ARGS_MAX];
    uint32_t n[RB_PLAN_ARG_KINDS];
} rb_plan_args_t;

/* The kind of getopt's letter: 's' --set, 'S' --section, 'O' --override, 'V' --var. */
int rb_cli_plan_kind(int c);

/* Takes one --section NAME, --set KEY=VALUE, --override KEY=VALUE or --var
 * NAME=VALUE for command cmd. 0, or 2 with the reason said on err. */
int rb_cli_plan_arg(FILE *err, const char *cmd, rb_plan_args_t *a, int kind, const char *val);

/* Reads the plan at path with those options; every problem it has is said
 * on stderr, one line each. 0, or 2 (the exit code of a bad plan). */
int rb_cli_plan_load(const char *path, const rb_plan_args_t *a, rb_plan_t **plan);

/* The plan's notes (options accepted without effect, depths capped), on stderr. */
void rb_cli_plan_notes(const rb_plan_t *plan);

/* --units VALUE of command cmd into *out: 0, or -1 with the message said on err. */
int rb_cli_units(FILE *err, const char *cmd, const char *val, rb_units_style_t *out);

#endif
