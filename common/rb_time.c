/* One place that reads the clocks, so every measured interval uses the same
 * monotonic clock and only labels use the wall clock. */
#include "rb_time.h"

#include <errno.h>
#include <time.h>

static uint64_t s_now(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * RB_NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t rb_mono_ns(void)
{
    return s_now(CLOCK_MONOTONIC);
}

uint64_t rb_wall_ns(void)
{
    return s_now(CLOCK_REALTIME);
}

void rb_time_sleep_until_ns(uint64_t t_ns)
{
    struct timespec ts = {
        .tv_sec = (time_t)(t_ns / RB_NS_PER_S),
        .tv_nsec = (long)(t_ns % RB_NS_PER_S),
    };

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}
