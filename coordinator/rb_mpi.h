/* rackbench-mpi: a run launched by mpirun (or srun). Every rank runs an
 * agent on its node's roots; rank 0 also runs the coordinator. Keys are made
 * in memory and exchanged over MPI, as is the coordinator's endpoint. */
#ifndef RB_MPI_H
#define RB_MPI_H

#include <stddef.h>

/* Node name of a rank from a --name-format: %h the host's short name, %r the
 * rank, %% a percent sign; characters outside [A-Za-z0-9._-] become '-'.
 * Writes into out (len bytes). 0, or -EINVAL for an unknown % sequence or
 * a name that is empty or does not fit. */
int rb_mpi_node_name(const char *fmt, const char *host, int rank, char *out, size_t len);

/* The whole rackbench-mpi command line, MPI_Init to MPI_Finalize. Returns
 * this rank's exit code: on rank 0 the run's (as `rackbench run`: 0 ok,
 * 1 acceptance failed, 2 bad usage, 3 run failed); on the others 0, or 3
 * when their agent failed (2 on bad usage). */
int rb_mpi_main(int argc, char **argv);

#endif
