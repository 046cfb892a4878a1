/* The rackbench-agent program, as a function so that its main() stays thin
 * and tests can run the real command line. */
#ifndef RB_AGENT_CLI_H
#define RB_AGENT_CLI_H

/* The whole rackbench-agent command line; returns the exit code
 * (0 ok, 2 bad usage, 3 failure). */
int rb_agent_cli_main(int argc, char **argv);

#endif
