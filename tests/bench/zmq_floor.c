/* The floor ZeroMQ alone sets under the coordinator's load: one ROUTER
 * taking one message a second from each of many DEALERs, and nothing else
 * (no decoding, no aggregation, no files). What the coordinator spends
 * beyond it at the same fleet is its own. zmq-floor.sh runs it.
 *
 *   zmq-floor router EP N SECONDS IO_THREADS [BEAT]
 *       binds EP; once N DEALERs have said their first message, counts
 *       messages for SECONDS and prints them a second, its CPU (% of one
 *       core over the window) and its peak RSS. BEAT k: it also sends each
 *       DEALER a 16-byte message k times a second, as the coordinator's
 *       HEARTBEATs go (k = 1).
 *   zmq-floor dealers EP FIRST COUNT SIZE SECONDS [RATE]
 *       COUNT DEALERs (routing ids dFIRST ..), each sending one message,
 *       then one of SIZE bytes RATE times a second (1), all at once (as
 *       agents' samples come), for SECONDS. A higher RATE reaches in
 *       seconds the number of messages a pipe sees over a long phase.
 *       Each speaks ZMTP on a plain socket as fleet-sim's agents do
 *       (sim_zmtp.c), reading and dropping what the ROUTER sends: as
 *       ZeroMQ sockets they took more CPU than the ROUTER they load. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "sim_zmtp.h"

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double s_cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Peak resident set, MiB. */
static long s_peak_mib(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib / 1024;
}

/* One 16-byte message to each of the n routing ids (ids[i], idlen[i]). */
static void s_beat(void *s, char (*ids)[32], const size_t *idlen, long n)
{
    static const char beat[16] = "beat";
    for (long i = 0; i < n; i++)
        if (idlen[i] && zmq_send(s, ids[i], idlen[i], ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0)
            zmq_send(s, beat, sizeof beat, ZMQ_DONTWAIT);
}

static int s_router(void *ctx, const char *ep, long n, double secs, int io_threads, int beat)
{
    zmq_ctx_set(ctx, ZMQ_IO_THREADS, io_threads);
    void *s = zmq_socket(ctx, ZMQ_ROUTER);
    int backlog = 16384, hwm = 100000;
    zmq_setsockopt(s, ZMQ_BACKLOG, &backlog, sizeof backlog);
    zmq_setsockopt(s, ZMQ_RCVHWM, &hwm, sizeof hwm);
    if (!s || zmq_bind(s, ep) < 0) {
        fprintf(stderr, "zmq-floor: cannot bind %s: %s\n", ep, zmq_strerror(zmq_errno()));
        return 1;
    }
    zmq_msg_t m;
    zmq_msg_init(&m);
    long first = 0, counted = 0;
    double t0 = 0, c0 = 0, next_beat = 0;
    char(*ids)[32] = calloc((size_t)n, sizeof *ids);
    size_t *idlen = calloc((size_t)n, sizeof *idlen);
    if (!ids || !idlen)
        return 1;
    while (zmq_msg_recv(&m, s, 0) >= 0) {
        if (zmq_msg_more(&m)) { /* the routing id part */
            if (t0 == 0 && first < n && zmq_msg_size(&m) < sizeof ids[0]) {
                memcpy(ids[first], zmq_msg_data(&m), zmq_msg_size(&m));
                idlen[first] = zmq_msg_size(&m);
            }
            continue;
        }
        if (beat && t0 != 0 && s_now() >= next_beat) {
            s_beat(s, ids, idlen, n);
            next_beat = s_now() + 1.0 / beat;
        }
        if (t0 == 0 && ++first == n) {
            t0 = s_now();
            c0 = s_cpu();
            fprintf(stderr, "zmq-floor: %ld DEALERs in, peak RSS %ld MiB\n", n, s_peak_mib());
        } else if (t0 != 0) {
            counted++;
            if (s_now() - t0 >= secs)
                break;
        }
    }
    double t = s_now() - t0, c = s_cpu() - c0;
    printf("router: %ld messages in %.1f s (%.0f a second), CPU %.1f %% of a core, peak RSS %ld "
           "MiB\n",
           counted, t, (double)counted / t, 100 * c / t, s_peak_mib());
    zmq_msg_close(&m);
    free(ids);
    free(idlen);
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    zmq_close(s);
    return 0;
}

/* What the ROUTER sent to d, read and dropped. -1: its connection went. */
static int s_drop(sim_zmtp_t *d)
{
    const uint8_t *m;
    size_t len;
    int rc = sim_zmtp_read(d), more;
    while ((more = sim_zmtp_next(d, &m, &len)) > 0)
        ;
    return rc < 0 || more < 0 ? -1 : 0;
}

static int s_dealers(const char *ep, int first, int count, size_t size, double secs, double rate)
{
    sim_zmtp_t *d = calloc((size_t)count, sizeof *d);
    char *buf = calloc(1, size ? size : 1);
    if (!d || !buf)
        return 1;
    for (int i = 0; i < count; i++) {
        char id[32];
        snprintf(id, sizeof id, "d%06d", first + i);
        int rc = sim_zmtp_connect(&d[i], ep, id);
        if (rc < 0 || sim_zmtp_send(&d[i], "hi", 2) < 0) {
            fprintf(stderr, "zmq-floor: DEALER %s: %s\n", id, strerror(rc < 0 ? -rc : EPIPE));
            return 1;
        }
    }
    /* the first message goes once the ROUTER's READY has come */
    for (double until = s_now() + 10;;) {
        int waiting = 0;
        for (int i = 0; i < count; i++)
            if (!d[i].ready || d[i].out_off < d[i].out_len) {
                waiting += s_drop(&d[i]) == 0;
                sim_zmtp_flush(&d[i]);
            }
        if (!waiting || s_now() > until)
            break;
        usleep(2000);
    }
    double t0 = s_now();
    for (int k = 1; s_now() - t0 < secs; k++) {
        while (s_now() < t0 + k / rate)
            usleep(rate > 10 ? 200 : 2000);
        long failed = 0;
        for (int i = 0; i < count; i++) {
            if (s_drop(&d[i]) < 0 || sim_zmtp_send(&d[i], buf, size) < 0)
                failed++;
        }
        if (failed)
            fprintf(stderr, "zmq-floor: send round %d: %ld sends failed\n", k, failed);
    }
    for (int i = 0; i < count; i++)
        sim_zmtp_close(&d[i]);
    free(d);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    void *ctx = zmq_ctx_new();
    int rc = 2;
    if ((argc == 6 || argc == 7) && strcmp(argv[1], "router") == 0)
        rc = s_router(ctx, argv[2], atol(argv[3]), atof(argv[4]), atoi(argv[5]),
                      argc == 7 && atoi(argv[6]));
    else if ((argc == 7 || argc == 8) && strcmp(argv[1], "dealers") == 0)
        rc = s_dealers(argv[2], atoi(argv[3]), atoi(argv[4]), (size_t)atol(argv[5]), atof(argv[6]),
                       argc == 8 && atof(argv[7]) > 0 ? atof(argv[7]) : 1);
    else
        fprintf(stderr, "usage: zmq-floor router EP N SECONDS IO_THREADS [BEAT]\n"
                        "       zmq-floor dealers EP FIRST COUNT SIZE SECONDS [RATE]\n");
    zmq_ctx_term(ctx);
    return rc;
}
