/* What the commands that read a plan share (rackbench check and run,
 * rackbench-mpi): its options on the command line (--section, --set,
 * --override, --var), reading it with them, its notes, --units. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "rb_cli_plan.h"

void rb_cli_plan_notes(const rb_plan_t *plan)
{
    if (!plan->notes || !plan->notes[0])
        return;
    for (const char *l = plan->notes; *l;) {
        size_t n = strcspn(l, "\n");
        fprintf(stderr, "rackbench: note: %.*s\n", (int)n, l);
        l += n + (l[n] == '\n');
    }
}

/* 1 if the first n characters of s are a variable's name: [A-Za-z_][A-Za-z0-9_]*. */
static int s_var_name(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(isalpha((unsigned char)s[i]) || s[i] == '_' || (i && isdigit((unsigned char)s[i]))))
            return 0;
    return n > 0;
}

/* Takes one --section NAME, --set KEY=VALUE, --override KEY=VALUE or --var
 * NAME=VALUE. 0, or 2 with the reason said. */
int rb_cli_plan_arg(FILE *err, const char *cmd, rb_plan_args_t *a, int kind, const char *val)
{
    static const char *const opt[] = {"--section", "--set", "--override", "--var"};
    static const char *const what[] = {
        "", "KEY=VALUE (an option of [global])",
        "KEY=VALUE (an option, set in every job section after the job's own)",
        "NAME=VALUE (what ${NAME} is in the plan)"};
    size_t key = strcspn(val, "=");
    if (a->n[kind] == RB_PLAN_ARGS_MAX) {
        fprintf(err, "%s: more than %d %s options\n", cmd, RB_PLAN_ARGS_MAX, opt[kind]);
        return 2;
    }
    if (kind == RB_PLAN_ARG_SECTION && (!*val || strchr(val, '\n'))) {
        fprintf(err, "%s: --section '%s': expected a job section's name\n", cmd, val);
        return 2;
    }
    if (kind != RB_PLAN_ARG_SECTION && (!val[key] || !key || strchr(val, '\n') ||
                                        (kind == RB_PLAN_ARG_VAR && !s_var_name(val, key)))) {
        fprintf(err, "%s: %s %s: expected %s\n", cmd, opt[kind], val, what[kind]);
        return 2;
    }
    /* no option is in capitals: SIZE=1G is a variable's */
    int caps = 1;
    for (size_t i = 0; i < key && caps; i++)
        caps = !islower((unsigned char)val[i]);
    if ((kind == RB_PLAN_ARG_SET || kind == RB_PLAN_ARG_OVERRIDE) && caps && s_var_name(val, key)) {
        fprintf(err,
                "%s: %s %s: %.*s is no option; a plan's variable (${%.*s}) is set with "
                "--var %s\n",
                cmd, opt[kind], val, (int)key, val, (int)key, val, val);
        return 2;
    }
    a->arg[kind][a->n[kind]++] = val;
    return 0;
}

/* The s_plan_arg kind of getopt's letter of check and run. */
int rb_cli_plan_kind(int c)
{
    return c == 's'   ? RB_PLAN_ARG_SET
           : c == 'O' ? RB_PLAN_ARG_OVERRIDE
           : c == 'V' ? RB_PLAN_ARG_VAR
                      : RB_PLAN_ARG_SECTION;
}

/* Reads the plan with the --set and --section options; every problem it
 * has is said, one line each. 0, or 2 (the exit code of a bad plan). */
int rb_cli_plan_load(const char *path, const rb_plan_args_t *a, rb_plan_t **plan)
{
    rb_plan_input_t in = {.sets = a->arg[RB_PLAN_ARG_SET],
                          .nsets = a->n[RB_PLAN_ARG_SET],
                          .overrides = a->arg[RB_PLAN_ARG_OVERRIDE],
                          .noverrides = a->n[RB_PLAN_ARG_OVERRIDE],
                          .vars = a->arg[RB_PLAN_ARG_VAR],
                          .nvars = a->n[RB_PLAN_ARG_VAR],
                          .sections = a->arg[RB_PLAN_ARG_SECTION],
                          .nsections = a->n[RB_PLAN_ARG_SECTION]};
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_load_input(path, &in, plan, &err);
    if (rc < 0) {
        if (!in.nproblems) {
            fprintf(stderr, "rackbench: %s\n", err.msg);
        } else {
            for (const char *l = in.problems; l && *l;) {
                size_t n = strcspn(l, "\n");
                fprintf(stderr, "rackbench: %.*s\n", (int)n, l);
                l += n + (l[n] == '\n');
            }
            if (in.nproblems > 1)
                fprintf(stderr, "rackbench: %u problems in %s\n", in.nproblems, path);
        }
    }
    rb_plan_input_fini(&in);
    return rc < 0 ? 2 : 0;
}

/* --units VALUE of rackbench cmd into *out: 0, or -1 with the message said. */
int rb_cli_units(FILE *err, const char *cmd, const char *val, rb_units_style_t *out)
{
    if (rb_units_parse_style(val, out) == 0)
        return 0;
    fprintf(err, "%s: --units %s: expected iec (MiB/s), si (MB/s) or both\n", cmd, val);
    return -1;
}
