/* How fast the two hot helpers of the data path are, printed, never judged:
 * rb_crc32c in GB/s on both of its paths (the default one, SSE4.2 where the
 * CPU has it, and the portable table path, forced by running this program
 * again with RB_CRC32C_PORTABLE=1, since the path is chosen once per
 * process) and rb_perm_at in ns per call. Their correctness is
 * tests/unit/test_crc_perm.c's job; this program only times them, so that
 * no ctest result depends on the machine's speed or load.
 *
 *   build/bin/bench-crc-perm [SECONDS_PER_FIGURE=1]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rb_crc32c.h"
#include "rb_perm.h"
#include "rb_rand.h"
#include "rb_time.h"

#define CHILD_FLAG "--crc-portable-child"

/* GB/s of rb_crc32c over a 1 MiB buffer, chained, for about ns. */
static double s_crc_gbs(uint64_t ns)
{
    enum { LEN = 1 << 20 };
    unsigned char *buf = malloc(LEN);
    rb_rand_t r;
    volatile uint32_t sink = 0;
    uint64_t bytes = 0, t0, t;

    if (!buf)
        return 0;
    rb_rand_seed(&r, 7);
    rb_rand_fill(&r, buf, LEN);
    sink ^= rb_crc32c(0, buf, LEN); /* warm up, make the path choice */
    t0 = rb_time_mono_ns();
    do {
        sink ^= rb_crc32c(sink, buf, LEN);
        bytes += LEN;
        t = rb_time_mono_ns();
    } while (t - t0 < ns);
    free(buf);
    return (double)bytes / (double)(t - t0);
}

/* ns per rb_perm_at over a domain of 2^30 + 3 (not a power of two, so the
 * cycle-walking path is in the figure), for about ns. */
static double s_perm_ns(uint64_t ns)
{
    enum { BATCH = 1 << 20 };
    rb_perm_t p;
    volatile uint64_t sink = 0;
    uint64_t acc = 0, calls = 0, t0, t;

    rb_perm_init(&p, (1ULL << 30) + 3, 1234);
    t0 = rb_time_mono_ns();
    do {
        for (uint64_t i = 0; i < BATCH; i++)
            acc ^= rb_perm_at(&p, calls + i);
        calls += BATCH;
        t = rb_time_mono_ns();
    } while (t - t0 < ns);
    sink = acc;
    (void)sink;
    return (double)(t - t0) / (double)calls;
}

/* Runs this program again with the portable CRC path forced; its exit code. */
static int s_run_portable(const char *argv0, const char *secs)
{
    int status;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        char *argv[] = {(char *)argv0, CHILD_FLAG, (char *)secs, NULL};
        setenv("RB_CRC32C_PORTABLE", "1", 1);
        execv("/proc/self/exe", argv);
        execv(argv0, argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    int child = argc > 1 && strcmp(argv[1], CHILD_FLAG) == 0;
    const char *secs = argc > 1 + child ? argv[1 + child] : "1";
    double s = atof(secs);

    if (s <= 0 || s > 3600) {
        fprintf(stderr, "usage: %s [SECONDS_PER_FIGURE=1]\n", argv[0]);
        return 2;
    }
    uint64_t ns = (uint64_t)(s * (double)RB_NS_PER_S);
    if (child) {
        printf("crc32c, portable path (forced): %.2f GB/s\n", s_crc_gbs(ns));
        return 0;
    }
    printf("crc32c, default path: %.2f GB/s\n", s_crc_gbs(ns));
    if (s_run_portable(argv[0], secs) != 0)
        fprintf(stderr, "the portable-path run failed\n");
    printf("rb_perm_at, n = 2^30+3: %.1f ns per call\n", s_perm_ns(ns));
    return 0;
}
