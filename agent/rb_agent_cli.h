/* The rackbench-agent program, as functions so that its main() stays thin
 * and tests can run the real command line. */
#ifndef RB_AGENT_CLI_H
#define RB_AGENT_CLI_H

#include <stdio.h>

#include "rb_agent.h"

typedef struct rb_agent_cli {
    rb_agent_opts_t o;      /* the options, the file's overridden by the command line's */
    int mode;               /* 0 an agent, 1 --cleanup, 2 --list-devices, 3 --keygen */
    const char *keygen_dir; /* --keygen's folder */
    char *conf;             /* --config's text, which o's strings from it point into */
} rb_agent_cli_t;

/* Reads --config's file (if given) and then the command line into cli
 * (its strings borrowed from argv and cli->conf). -1 to go on, else the
 * exit code: 0 after --help or --version, 2 on bad usage, said on err
 * naming the option, or the file, line and key. rb_agent_cli_fini after. */
int rb_agent_cli_parse(rb_agent_cli_t *cli, int argc, char **argv, FILE *err);

/* Frees what rb_agent_cli_parse kept; safe twice. */
void rb_agent_cli_fini(rb_agent_cli_t *cli);

/* The whole rackbench-agent command line; returns the exit code
 * (0 ok, 2 bad usage, 3 failure). */
int rb_agent_cli_main(int argc, char **argv);

#endif
