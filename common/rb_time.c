/* One place that reads the clocks, so every measured interval uses the same
 * monotonic clock and only labels use the wall clock. */
#include "rb_time.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static uint64_t s_now(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * RB_NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t rb_time_mono_ns(void)
{
    return s_now(CLOCK_MONOTONIC);
}

uint64_t rb_time_wall_ns(void)
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

char *rb_time_iso(char *buf, size_t len, uint64_t wall_ns)
{
    time_t t = (time_t)(wall_ns / RB_NS_PER_S);
    struct tm tm;
    gmtime_r(&t, &tm);
    if (!len || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
        if (len)
            buf[0] = '\0';
    }
    return buf;
}

uint64_t rb_time_iso_parse(const char *iso)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
    if (!end)
        return 0;
    return (uint64_t)timegm(&tm) * RB_NS_PER_S;
}
