/* The explicit list of IO engines this build has, and the checks every
 * table passes before a worker uses it. */
#include <errno.h>
#include <string.h>

#include "rb_engine.h"

extern const rb_engine_ops_t rb_engine_sync;

static const rb_engine_ops_t *const s_engines[] = {
    &rb_engine_sync,
};

const rb_engine_ops_t *rb_engine_find(const char *name)
{
    for (size_t i = 0; i < sizeof s_engines / sizeof s_engines[0]; i++)
        if (strcmp(s_engines[i]->name, name) == 0)
            return s_engines[i];
    return NULL;
}

int rb_engine_check(const rb_engine_ops_t *ops)
{
    if (!ops || ops->version != RB_ENGINE_OPS_VERSION || !ops->name || !ops->queue)
        return -EINVAL;
    /* An engine that can answer QUEUED must be able to submit and reap. */
    if ((ops->commit == NULL) != (ops->getevents == NULL))
        return -EINVAL;
    return 0;
}

int rb_engine_init(rb_engine_t *e, const rb_engine_ops_t *ops, unsigned iodepth)
{
    memset(e, 0, sizeof *e);
    if (rb_engine_check(ops) < 0 || iodepth == 0)
        return -EINVAL;
    e->ops = ops;
    e->iodepth = iodepth;
    return ops->init ? ops->init(e) : 0;
}

void rb_engine_fini(rb_engine_t *e)
{
    if (e->ops && e->ops->cleanup)
        e->ops->cleanup(e);
    e->ops = NULL;
    e->priv = NULL;
}
