/* A phase's worker thread (rb_phase_worker.c), started by rb_phase.c. */
#ifndef RB_PHASE_WORKER_H
#define RB_PHASE_WORKER_H

/* The thread of worker arg (an rb_worker_t set up by its workload, its gate
 * set): it fills its buffers, waits at the gate for GO (or a stop), runs its
 * workload, ends it, and says it finished. Returns NULL. */
void *rb_phase_worker_main(void *arg);

#endif
