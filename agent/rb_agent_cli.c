/* The rackbench-agent command line: options into rb_agent_opts_t, --help,
 * --version and --cleanup, then one agent run until it is told to stop. The
 * connection and the run's state machine live in rb_agent.c. */
#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_agent.h"
#include "rb_agent_cli.h"
#include "rb_cleanup.h"
#include "rb_device.h"
#include "rb_log.h"
#include "rb_proto.h"
#include "rb_time.h"
#include "rb_units.h"

static const struct option s_longopts[] = {
    {"coordinator", required_argument, NULL, 'c'},
    {"key", required_argument, NULL, 'k'},
    {"coordinator-key", required_argument, NULL, 'C'},
    {"insecure", no_argument, NULL, 'I'},
    {"name", required_argument, NULL, 'n'},
    {"rack", required_argument, NULL, 'r'},
    {"root", required_argument, NULL, 'R'},
    {"once", no_argument, NULL, 'o'},
    {"heartbeat", required_argument, NULL, 'H'},
    {"lost-after", required_argument, NULL, 'L'},
    {"no-telemetry", no_argument, NULL, 'T'},
    {"proc-root", required_argument, NULL, 'P'},
    {"sys-root", required_argument, NULL, 'S'},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    {"help", no_argument, NULL, 'h'},
    {"reserve", required_argument, NULL, 'e'},
    {"allow-device", required_argument, NULL, 'D'},
    {"allow-open-writers", no_argument, NULL, 'w'},
    {"cleanup", no_argument, NULL, 'X'},
    {"list-devices", no_argument, NULL, 'Y'},
    {"protocol", required_argument, NULL, 'W'},
    {"run", required_argument, NULL, 'U'},
    {NULL, 0, NULL, 0},
};

static void s_usage(FILE *f)
{
    fprintf(
        f, "usage: rackbench-agent --coordinator ENDPOINT --name NODE --root DIR [--root DIR...]\n"
           "                       [--rack RACK] [--once] [--heartbeat DURATION]\n"
           "                       [--lost-after DURATION] [--no-telemetry] [--quiet | --verbose]\n"
           "                       [--reserve PCT] [--allow-device PATTERN[:wipe] ...]\n"
           "                       [--allow-open-writers]\n"
           "       rackbench-agent --cleanup --root DIR [--root DIR...] [--name NODE] [--run RUN]\n"
           "       rackbench-agent --list-devices [--allow-device PATTERN[:wipe] ...]\n"
           "\n"
           "Connects to a rackbench coordinator (e.g. tcp://head:7770), runs the plans it\n"
           "sends, and only ever creates files inside its --root folders.\n"
           "  --key FILE     this agent's secret key (NAME.key_secret; rackbench keygen)\n"
           "  --coordinator-key FILE   the coordinator's public key (NAME.key): CURVE,\n"
           "                 required on tcp://; the agent talks to that coordinator only\n"
           "  --insecure     no CURVE: only on loopback or ipc:// endpoints\n"
           "  --once         exit after one run (exit 0 if it went well, 3 if not)\n"
           "  --heartbeat    heartbeat period during a run (default 1s)\n"
           "  --lost-after   coordinator silent this long: stop IO, clean up (default 3 "
           "heartbeats)\n"
           "  --no-telemetry do not read /proc and /sys for host telemetry\n"
           "  --proc-root, --sys-root DIR   read them from DIR (default /proc, /sys)\n"
           "  --reserve PCT  refuse a plan that leaves less than PCT%% of a file system free\n"
           "                 (0-90, default 5)\n"
           "  --allow-device PATTERN  block devices plans may read and write: a path, a glob\n"
           "                 (/dev/sd*) or a /dev/disk/by-id/ name (repeatable); one that is\n"
           "                 mounted or in use is refused, and one holding partitions, a file\n"
           "                 system or RAID signature is written only with /dev/X:wipe;\n"
           "                 never one whose stack (the devices under and over it) is in use\n"
           "  --allow-open-writers   write allowed devices that other programs have open\n"
           "                 for writing too (refused by default, naming the program)\n"
           "  --list-devices every block device, whether it may be read and written, why not\n"
           "  --protocol N   speak protocol N, an older one this build knows, as an agent\n"
           "                 of that version does (to try a rack of mixed builds)\n"
           "  --cleanup      remove what crashed runs left under the roots (rackbench.*\n"
           "                 folders an agent made) and exit (0, or 3 on an error); with\n"
           "                 --name, only that node's run folders; with --run, only that run's.\n"
           "                 An agent removes what an agent of its name left when it starts\n");
}

/* Takes option c (its argument in optarg) into o. -1 to go on, else the
 * exit code (0 after --help or --version, 2 on a bad value). */
static int s_option(int c, rb_agent_opts_t *o, int *cleanup, char **argv)
{
    switch (c) {
    case 'c':
        o->coordinator = optarg;
        return -1;
    case 'k':
        o->key_file = optarg;
        return -1;
    case 'C':
        o->coordinator_key = optarg;
        return -1;
    case 'I':
        o->insecure = 1;
        return -1;
    case 'n':
        o->name = optarg;
        return -1;
    case 'r':
        o->rack = optarg;
        return -1;
    case 'R':
        if (o->nroots == RB_AGENT_MAX_ROOTS) {
            fprintf(stderr, "rackbench-agent: at most %d --root\n", RB_AGENT_MAX_ROOTS);
            return 2;
        }
        o->roots[o->nroots++] = optarg;
        return -1;
    case 'o':
        o->once = 1;
        return -1;
    case 'e': {
        char *end;
        long pct = strtol(optarg, &end, 10);
        if (end == optarg || (*end && strcmp(end, "%") != 0) || pct < 0 ||
            pct > RB_AGENT_RESERVE_MAX) {
            fprintf(stderr, "rackbench-agent: --reserve %s: expected 0 to %d (%%)\n", optarg,
                    RB_AGENT_RESERVE_MAX);
            return 2;
        }
        o->reserve_pct = (int)pct;
        return -1;
    }
    case 'D':
        if (o->ndevices == RB_AGENT_MAX_DEVICES) {
            fprintf(stderr, "rackbench-agent: at most %d --allow-device\n", RB_AGENT_MAX_DEVICES);
            return 2;
        }
        o->devices[o->ndevices++] = optarg;
        return -1;
    case 'w':
        o->open_writers = 1;
        return -1;
    case 'X':
        *cleanup = 1;
        return -1;
    case 'U':
        o->cleanup_run = optarg;
        return -1;
    case 'Y':
        *cleanup = 2;
        return -1;
    case 'T':
        o->no_telemetry = 1;
        return -1;
    case 'P':
        o->proc_root = optarg;
        return -1;
    case 'S':
        o->sys_root = optarg;
        return -1;
    case 'H':
    case 'L': {
        uint64_t ns;
        if (rb_units_parse_duration_ns(optarg, RB_NS_PER_S, &ns) < 0 || ns < 10 * RB_NS_PER_MS) {
            fprintf(stderr, "rackbench-agent: --%s %s: expected a duration of 10ms or more\n",
                    c == 'H' ? "heartbeat" : "lost-after", optarg);
            return 2;
        }
        *(c == 'H' ? &o->heartbeat_ns : &o->lost_after_ns) = ns;
        return -1;
    }
    case 'q':
        rb_log_set_level(RB_LOG_WARN);
        return -1;
    case 'v':
        rb_log_set_level(RB_LOG_DEBUG);
        return -1;
    case 'V':
        printf("rackbench-agent %s (protocol %d, speaks %d .. %d)\n", rb_build_id(),
               RB_PROTO_VERSION, RB_PROTO_OLDEST, RB_PROTO_VERSION);
        return 0;
    case 'W': {
        char *end;
        errno = 0;
        unsigned long v = strtoul(optarg, &end, 10);
        if (end == optarg || *end || errno || v > UINT32_MAX ||
            rb_proto_set_speak((uint32_t)v, NULL) < 0) {
            fprintf(stderr,
                    "rackbench-agent: --protocol %s: expected a version this build speaks, %d .. "
                    "%d\n",
                    optarg, RB_PROTO_OLDEST, RB_PROTO_VERSION);
            return 2;
        }
        return -1;
    }
    case 'h':
        s_usage(stdout);
        return 0;
    default:
        fprintf(stderr, "rackbench-agent: unknown or incomplete option '%s'\n", argv[optind - 1]);
        s_usage(stderr);
        return 2;
    }
}

int rb_agent_cli_main(int argc, char **argv)
{
    rb_agent_opts_t o = {.reserve_pct = RB_AGENT_RESERVE_PCT};
    int cleanup = 0;
    rb_err_t err;
    int c;
    rb_err_clear(&err);
    rb_log_set_ident("rackbench-agent");
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", s_longopts, NULL)) != -1) {
        int code = s_option(c, &o, &cleanup, argv);
        if (code >= 0)
            return code;
    }
    if (optind < argc) {
        fprintf(stderr, "rackbench-agent: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (o.cleanup_run && cleanup != 1) {
        fprintf(stderr, "rackbench-agent: --run goes with --cleanup\n");
        return 2;
    }
    if (cleanup == 1) {
        rb_cleanup_only_t only = {.node = o.name, .run = o.cleanup_run};
        return rb_cleanup_main(o.roots, o.nroots, &only);
    }
    if (cleanup == 2) {
        static rb_device_allow_t allow; /* large: not on the stack */
        allow.open_writers = o.open_writers;
        for (int i = 0; i < o.ndevices; i++) {
            if (rb_device_allow_add(&allow, o.devices[i], &err) < 0) {
                fprintf(stderr, "rackbench-agent: %s\n", err.msg);
                return 2;
            }
        }
        return rb_device_list_main(&allow, o.sys_root, stdout);
    }
    if (o.name) {
        char ident[RB_NAME_MAX + 32];
        snprintf(ident, sizeof ident, "rackbench-agent[%s]", o.name);
        rb_log_set_ident(ident);
    }
    /* Our own handlers: stop IO and remove files on SIGINT/SIGTERM. */
    rb_agent_catch_signals();

    rb_agent_t *a = rb_agent_new(&o, &err);
    if (!a) {
        fprintf(stderr, "rackbench-agent: %s\n", err.msg);
        s_usage(stderr);
        return 2;
    }
    rb_info("connecting to %s as %s (rack %s)", o.coordinator, o.name, o.rack ? o.rack : "default");
    int code = rb_agent_run(a);
    rb_agent_destroy(&a);
    zsys_shutdown();
    return code;
}
