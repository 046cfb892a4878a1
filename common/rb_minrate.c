/* fio's minimum rate check (rb_minrate.h). */
#include "rb_minrate.h"

#define S_NS_PER_MS 1000000ull

int rb_minrate_check(rb_minrate_t *m, uint64_t start, uint64_t now, uint64_t bytes, uint64_t ios,
                     uint64_t *got)
{
    if (!m->min_bps && !m->min_iops)
        return 0;
    if (now < start || now - start < RB_MINRATE_SETTLE_NS)
        return 0;
    if (m->bytes || m->ios) {
        /* fio measures in whole milliseconds */
        uint64_t spent = (now - m->t_mark) / S_NS_PER_MS;
        if (spent == 0 || spent * S_NS_PER_MS < m->cycle_ns)
            return 0;
        uint64_t done = m->min_bps ? bytes - m->bytes : ios - m->ios;
        uint64_t floor = m->min_bps ? m->min_bps : m->min_iops;
        /* done × 1000 / spent, without overflow for any count of bytes */
        uint64_t rate = done / spent * 1000 + done % spent * 1000 / spent;
        if (rate < floor) {
            *got = rate;
            return 1;
        }
    }
    m->t_mark = now;
    m->bytes = bytes;
    m->ios = ios;
    return 0;
}
