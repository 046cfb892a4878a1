/* The rackbench command line: run, check, version, help. */
#ifndef RB_CLI_H
#define RB_CLI_H

/* Runs the rackbench command line; returns the exit code (0 ok, 1
 * acceptance failed, 2 bad usage or plan, 3 run failed). */
int rb_cli_main(int argc, char **argv);

#include <stdio.h>

/* Writes the help of subcommand cmd ("run", "check" ...) to f: 0, or -1
 * for a command that has none (rb_cli_help.c). */
int rb_cli_help(const char *cmd, FILE *f);

#endif
