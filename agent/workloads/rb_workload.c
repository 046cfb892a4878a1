/* Which workload runs a job: the plan's rw says it, nothing else. */
#include "rb_workload.h"

const rb_workload_ops_t *rb_workload_for(const rb_job_spec_t *job)
{
    if (job->network)
        return &rb_net_workload;
    return job->rw == RB_RW_META ? &rb_metadata_workload : &rb_data_workload;
}
