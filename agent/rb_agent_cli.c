/* The rackbench-agent command line: options into rb_agent_opts_t, read from
 * --config's file first (key = value lines, the long options' names) and
 * then from the command line, which overrides it; --help, --version and
 * --cleanup, then one agent run until it is told to stop. The connection
 * and the run's state machine live in rb_agent.c. */
#include <czmq.h>
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_agent.h"
#include "rb_agent_cli.h"
#include "rb_auth.h"
#include "rb_cleanup.h"
#include "rb_device.h"
#include "rb_log.h"
#include "rb_proto.h"
#include "rb_text.h"
#include "rb_time.h"
#include "rb_units.h"

#define S_CONF_MAX (1 << 20) /* a --config file larger than this is refused */

static const struct option s_longopts[] = {
    {"config", required_argument, NULL, 'F'},
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
    {"keygen", required_argument, NULL, 'G'},
    {"smartctl", required_argument, NULL, 'Z'},
    {"no-health", no_argument, NULL, 'Q'},
    {"health-every", required_argument, NULL, 'J'},
    {"no-net", no_argument, NULL, 'N'},
    {"net-address", required_argument, NULL, 'A'},
    {NULL, 0, NULL, 0},
};

/* The options that pick what the command does, never a key of --config's file. */
static const char s_cli_only[] = "FoVhXYUG";

static void s_usage(FILE *f)
{
    fprintf(f,
            "usage: rackbench-agent [--config FILE] --coordinator ENDPOINT --name NODE\n"
            "                       --root DIR... [--key FILE --coordinator-key FILE |\n"
            "                       --insecure] [--rack RACK] [--once]\n"
            "                       [--heartbeat DURATION] [--lost-after DURATION]\n"
            "                       [--no-telemetry] [--proc-root DIR] [--sys-root DIR]\n"
            "                       [--smartctl PROGRAM] [--health-every DURATION] [--no-health]\n"
            "                       [--no-net | --net-address ADDR]\n"
            "                       [--quiet | --verbose] [--reserve PCT] [--protocol N]\n"
            "                       [--allow-device PATTERN[:wipe]...] [--allow-open-writers]\n"
            "       rackbench-agent [--config FILE] --cleanup --root DIR... [--name NODE]\n"
            "                       [--run RUN]\n"
            "       rackbench-agent [--config FILE] --list-devices\n"
            "                       [--allow-device PATTERN[:wipe]...]\n"
            "       rackbench-agent [--config FILE] --keygen DIR [--name NODE]\n"
            "       rackbench-agent --help | --version\n"
            "\n"
            "Connects to a rackbench coordinator, runs the plans it sends, and only ever\n"
            "creates files inside its --root folders.\n"
            "  --config FILE  read options from FILE first: KEY = VALUE lines, KEY an\n"
            "                 option's name without the dashes (root and allow-device once\n"
            "                 a line each; yes or no for a switch); the command line\n"
            "                 overrides it, and its --root or --allow-device replace all\n"
            "                 the file's\n"
            "  --coordinator ENDPOINT   the coordinator to connect to (tcp://head:7770)\n"
            "  --name NODE    this node's name in runs and reports (one per agent of a run)\n"
            "  --rack RACK    the rack this node is in (default 'default'; a plan's [rack]\n"
            "                 sections place the nodes they list instead)\n"
            "  --root DIR     a folder plans may create files in (repeatable)\n"
            "  --key FILE     this agent's secret key (NAME.key_secret; rackbench keygen)\n"
            "  --coordinator-key FILE   the coordinator's public key (NAME.key): CURVE,\n"
            "                 required on tcp://; the agent talks to that coordinator only\n"
            "  --insecure     no CURVE: only on loopback or ipc:// endpoints\n"
            "  --once         exit after one run (exit 0 if it went well, 3 if not)\n"
            "  --heartbeat DURATION     heartbeat period during a run (default 1s)\n"
            "  --lost-after DURATION    coordinator silent this long: stop IO, clean up\n"
            "                 (default 3 heartbeats; 3 of the coordinator's when it says\n"
            "                 it beats less often, as during a phase of a large fleet)\n"
            "  --no-telemetry do not read /proc and /sys for host telemetry\n"
            "  --proc-root DIR          read /proc from DIR (default /proc)\n"
            "  --sys-root DIR read /sys from DIR (default /sys)\n"
            "  --smartctl PROGRAM       read each measured disk's health with PROGRAM\n"
            "                 (default smartctl, from Debian's smartmontools) before and\n"
            "                 after every run: `PROGRAM --json=c -a DEVICE`\n"
            "  --health-every DURATION  read them again this often during a run, for the\n"
            "                 highest temperature (default 10m; 0: only before and after)\n"
            "  --no-health    read no disk's health (the runs' reports say so)\n"
            "  --no-net       open no data port: refuse plans with network phases\n"
            "  --net-address ADDR       the IP address network phases' streams come to\n"
            "                 (default: the one this host reaches the coordinator from)\n"
            "  --quiet        log warnings and errors only\n"
            "  --verbose      log debug messages too\n"
            "  --reserve PCT  refuse a plan that leaves less than PCT%% of a file system free\n"
            "                 (0-90, default 5)\n"
            "  --allow-device PATTERN   block devices plans may read and write: a path, a glob\n"
            "                 (/dev/sd*) or a /dev/disk/by-id/ name (repeatable); one that is\n"
            "                 mounted or in use is refused, and one holding partitions, a file\n"
            "                 system or RAID signature is written only with /dev/X:wipe;\n"
            "                 never one whose stack (the devices under and over it) is in use\n"
            "  --allow-open-writers     write allowed devices that other programs have open\n"
            "                 for writing too (refused by default, naming the program)\n"
            "  --list-devices every block device, whether it may be read and written, why not\n"
            "  --protocol N   speak protocol N, an older one this build knows, as an agent\n"
            "                 of that version does (to try a rack of mixed builds)\n"
            "  --cleanup      remove what crashed runs left under the roots (rackbench.*\n"
            "                 folders an agent made) and exit (0, or 3 on an error); with\n"
            "                 --name, only that node's run folders; with --run RUN, only that\n"
            "                 run's. An agent removes what an agent of its name left when\n"
            "                 it starts\n"
            "  --run RUN      with --cleanup: that run's folders only\n"
            "  --keygen DIR   make this node's CURVE key pair, DIR/NODE.key (public: copy\n"
            "                 it to the coordinator's allowed keys) and DIR/NODE.key_secret\n"
            "                 (0600), NODE being --name or the host's name; never\n"
            "                 overwrites a key, and exits (0, or 2)\n"
            "  --help         this text\n"
            "  --version      the build and the protocols it speaks\n");
}

/* Takes option c, its argument arg, into cli. what names it in messages
 * ("--reserve", or "FILE:LINE: reserve ="). -1 to go on, else the exit code
 * (0 after --help or --version, 2 on a bad value, said on err). */
static int s_option(int c, const char *arg, const char *what, rb_agent_cli_t *cli, FILE *err)
{
    rb_agent_opts_t *o = &cli->o;
    switch (c) {
    case 'F':
        return -1; /* read before the other options */
    case 'c':
        o->coordinator = arg;
        return -1;
    case 'k':
        o->key_file = arg;
        return -1;
    case 'C':
        o->coordinator_key = arg;
        return -1;
    case 'I':
        o->insecure = 1;
        return -1;
    case 'n':
        o->name = arg;
        return -1;
    case 'r':
        o->rack = arg;
        return -1;
    case 'R':
        if (o->nroots == RB_AGENT_MAX_ROOTS) {
            fprintf(err, "rackbench-agent: %s %s: at most %d roots\n", what, arg,
                    RB_AGENT_MAX_ROOTS);
            return 2;
        }
        o->roots[o->nroots++] = arg;
        return -1;
    case 'o':
        o->once = 1;
        return -1;
    case 'e': {
        char *end;
        long pct = strtol(arg, &end, 10);
        if (end == arg || (*end && strcmp(end, "%") != 0) || pct < 0 ||
            pct > RB_AGENT_RESERVE_MAX) {
            fprintf(err, "rackbench-agent: %s %s: expected 0 to %d (%%)\n", what, arg,
                    RB_AGENT_RESERVE_MAX);
            return 2;
        }
        o->reserve_pct = (int)pct;
        return -1;
    }
    case 'D':
        if (o->ndevices == RB_AGENT_MAX_DEVICES) {
            fprintf(err, "rackbench-agent: %s %s: at most %d devices\n", what, arg,
                    RB_AGENT_MAX_DEVICES);
            return 2;
        }
        o->devices[o->ndevices++] = arg;
        return -1;
    case 'w':
        o->open_writers = 1;
        return -1;
    case 'X':
        cli->mode = 1;
        return -1;
    case 'U':
        o->cleanup_run = arg;
        return -1;
    case 'Y':
        cli->mode = 2;
        return -1;
    case 'G':
        cli->mode = 3;
        cli->keygen_dir = arg;
        return -1;
    case 'T':
        o->no_telemetry = 1;
        return -1;
    case 'Z':
        o->smartctl = arg;
        return -1;
    case 'Q':
        o->no_health = 1;
        return -1;
    case 'N':
        o->no_net = 1;
        return -1;
    case 'A': {
        unsigned char buf[16];
        if (inet_pton(AF_INET, arg, buf) != 1 && inet_pton(AF_INET6, arg, buf) != 1) {
            fprintf(err, "rackbench-agent: %s %s: expected an IPv4 or IPv6 address\n", what, arg);
            return 2;
        }
        o->net_addr = arg;
        return -1;
    }
    case 'J':
        if (rb_units_parse_duration_ns(arg, RB_NS_PER_S, &o->health_every_ns) < 0 ||
            (o->health_every_ns && o->health_every_ns < RB_NS_PER_S)) {
            fprintf(err,
                    "rackbench-agent: %s %s: expected a duration of 1s or more, or 0 (never)\n",
                    what, arg);
            return 2;
        }
        return -1;
    case 'P':
        o->proc_root = arg;
        return -1;
    case 'S':
        o->sys_root = arg;
        return -1;
    case 'H':
    case 'L': {
        uint64_t ns;
        if (rb_units_parse_duration_ns(arg, RB_NS_PER_S, &ns) < 0 || ns < 10 * RB_NS_PER_MS) {
            fprintf(err, "rackbench-agent: %s %s: expected a duration of 10ms or more\n", what,
                    arg);
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
        unsigned long v = strtoul(arg, &end, 10);
        if (end == arg || *end || errno || v > UINT32_MAX ||
            rb_proto_set_speak((uint32_t)v, NULL) < 0) {
            fprintf(err, "rackbench-agent: %s %s: expected a version this build speaks, %d .. %d\n",
                    what, arg, RB_PROTO_OLDEST, RB_PROTO_VERSION);
            return 2;
        }
        return -1;
    }
    default: /* 'h' */
        s_usage(stdout);
        return 0;
    }
}

/* A switch's value in the file: 1 yes, 0 no, -1 neither. */
static int s_switch(const char *v)
{
    static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false",
                                                                                "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcasecmp(v, yes[i]))
            return 1;
        if (!strcasecmp(v, no[i]))
            return 0;
    }
    return -1;
}

/* The option a key of the file names, or NULL after saying why not on err. */
static const struct option *s_conf_key(const char *key, const char *where, FILE *err)
{
    char best[32] = "";
    size_t cap = strlen(key) <= 4 ? 1 : 2, best_d = cap + 1;
    for (const struct option *l = s_longopts; l->name; l++) {
        if (strcmp(l->name, key) == 0) {
            if (!strchr(s_cli_only, l->val))
                return l;
            fprintf(err,
                    "rackbench-agent: %s: '%s' is not a key of the file: give --%s on the "
                    "command line\n",
                    where, key, key);
            return NULL;
        }
        size_t d = strchr(s_cli_only, l->val) ? cap + 1 : rb_text_distance(key, l->name, cap);
        if (d < best_d) {
            best_d = d;
            snprintf(best, sizeof best, "%s", l->name);
        }
    }
    if (best[0])
        fprintf(err, "rackbench-agent: %s: unknown key '%s' (did you mean '%s'?)\n", where, key,
                best);
    else
        fprintf(err, "rackbench-agent: %s: unknown key '%s' (rackbench-agent(8) lists them)\n",
                where, key);
    return NULL;
}

/* Reads path whole into cli->conf (NUL-terminated). 0, or 2 said on err. */
static int s_conf_read(rb_agent_cli_t *cli, const char *path, FILE *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(err, "rackbench-agent: --config %s: %s\n", path, strerror(errno));
        return 2;
    }
    cli->conf = malloc(S_CONF_MAX + 1);
    size_t n = cli->conf ? fread(cli->conf, 1, S_CONF_MAX + 1, f) : 0;
    int bad = !cli->conf || ferror(f) || n > S_CONF_MAX || memchr(cli->conf, '\0', n);
    if (bad)
        fprintf(err, "rackbench-agent: --config %s: %s\n", path,
                !cli->conf || ferror(f) ? strerror(cli->conf ? EIO : ENOMEM)
                : n > S_CONF_MAX        ? "larger than 1 MiB"
                                        : "not a text file (a NUL byte)");
    else
        cli->conf[n] = '\0';
    fclose(f);
    return bad ? 2 : 0;
}

/* Reads the --config file path into cli: each line blank, a comment (#
 * first) or KEY = VALUE. 0, or 2 after saying which line and why on err. */
static int s_conf_load(rb_agent_cli_t *cli, const char *path, FILE *err)
{
    int first[128] = {0}; /* the line each option was set on, by its val */
    if (s_conf_read(cli, path, err))
        return 2;
    char *line = cli->conf;
    for (int no = 1; line; no++) {
        char *next = strchr(line, '\n'), where[512], what[600];
        if (next)
            *next++ = '\0';
        char *s = rb_text_trim(line), *eq = strchr(s, '=');
        line = next;
        snprintf(where, sizeof where, "%s:%d", path, no);
        if (!*s || *s == '#')
            continue;
        if (!eq) {
            fprintf(err, "rackbench-agent: %s: expected KEY = VALUE, not '%s'\n", where, s);
            return 2;
        }
        *eq = '\0';
        char *key = rb_text_trim(s), *val = rb_text_trim(eq + 1);
        const struct option *l = s_conf_key(key, where, err);
        if (!l)
            return 2;
        if (!*val) {
            fprintf(err, "rackbench-agent: %s: %s has no value\n", where, key);
            return 2;
        }
        if (l->val != 'R' && l->val != 'D' && first[l->val]) {
            fprintf(err, "rackbench-agent: %s: %s is set twice (line %d first)\n", where, key,
                    first[l->val]);
            return 2;
        }
        first[l->val] = no;
        int on = l->has_arg == no_argument ? s_switch(val) : 1;
        if (on < 0) {
            fprintf(err, "rackbench-agent: %s: %s = %s: expected yes or no\n", where, key, val);
            return 2;
        }
        snprintf(what, sizeof what, "%s: %s =", where, key);
        if (on && s_option(l->val, val, what, cli, err) >= 0)
            return 2;
    }
    return 0;
}

int rb_agent_cli_parse(rb_agent_cli_t *cli, int argc, char **argv, FILE *err)
{
    const char *config = NULL;
    int c, roots = 0, devices = 0;
    memset(cli, 0, sizeof *cli);
    cli->o.reserve_pct = RB_AGENT_RESERVE_PCT;
    cli->o.health_every_ns = RB_AGENT_HEALTH_EVERY_NS;
    opterr = 0;
    /* --config first, wherever it is, so that the command line overrides the file */
    optind = 0;
    while ((c = getopt_long(argc, argv, "", s_longopts, NULL)) != -1)
        if (c == 'F')
            config = optarg;
    if (config && s_conf_load(cli, config, err))
        return 2;
    optind = 0;
    while ((c = getopt_long(argc, argv, "", s_longopts, NULL)) != -1) {
        char what[64];
        if (c == '?' || c == ':') {
            fprintf(err, "rackbench-agent: unknown or incomplete option '%s'\n", argv[optind - 1]);
            s_usage(err);
            return 2;
        }
        if (c == 'R' && !roots++) /* the command line's roots replace the file's */
            cli->o.nroots = 0;
        if (c == 'D' && !devices++)
            cli->o.ndevices = 0;
        for (const struct option *l = s_longopts; l->name; l++)
            if (l->val == c)
                snprintf(what, sizeof what, "--%s", l->name);
        int code = s_option(c, optarg, what, cli, err);
        if (code >= 0)
            return code;
    }
    if (optind < argc) {
        fprintf(err, "rackbench-agent: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (cli->o.cleanup_run && cli->mode != 1) {
        fprintf(err, "rackbench-agent: --run goes with --cleanup\n");
        return 2;
    }
    return -1;
}

void rb_agent_cli_fini(rb_agent_cli_t *cli)
{
    free(cli->conf);
    cli->conf = NULL;
}

/* --keygen DIR: this node's key pair, named name or the host's name, as
 * `rackbench keygen` makes it (a node with the agent's package only has no
 * rackbench). 0, or 2 said on stderr. */
static int s_keygen(const char *dir, const char *name, rb_err_t *err)
{
    char host[256] = "", pub[41];
    if (!name) {
        if (gethostname(host, sizeof host - 1) < 0 || !*host) {
            fprintf(stderr, "rackbench-agent: --keygen: no --name, and no host name (%s)\n",
                    strerror(errno));
            return 2;
        }
        name = host;
    }
    if (rb_auth_keygen(dir, name, pub, err) < 0) {
        fprintf(stderr, "rackbench-agent: --keygen: %s\n", err->msg);
        return 2;
    }
    printf("%s/%s.key         public key %s: copy it to the coordinator's allowed keys\n"
           "%s/%s.key_secret  secret key (mode 0600): keep it on this node\n",
           dir, name, pub, dir, name);
    return 0;
}

/* Does what cli says: a cleanup, the device list, a key pair, or an agent
 * run; the exit code. */
static int s_run(const rb_agent_cli_t *cli, rb_err_t *err)
{
    const rb_agent_opts_t *o = &cli->o;
    if (cli->mode == 1) {
        rb_cleanup_only_t only = {.node = o->name, .run = o->cleanup_run};
        return rb_cleanup_main(o->roots, o->nroots, &only);
    }
    if (cli->mode == 3)
        return s_keygen(cli->keygen_dir, o->name, err);
    if (cli->mode == 2) {
        static rb_device_allow_t allow; /* large: not on the stack */
        allow.open_writers = o->open_writers;
        for (int i = 0; i < o->ndevices; i++) {
            if (rb_device_allow_add(&allow, o->devices[i], err) < 0) {
                fprintf(stderr, "rackbench-agent: %s\n", err->msg);
                return 2;
            }
        }
        return rb_device_list_main(&allow, o->sys_root, stdout);
    }
    if (o->name) {
        char ident[RB_NAME_MAX + 32];
        snprintf(ident, sizeof ident, "rackbench-agent[%s]", o->name);
        rb_log_set_ident(ident);
    }
    /* Our own handlers: stop IO and remove files on SIGINT/SIGTERM. */
    rb_agent_catch_signals();

    rb_agent_t *a = rb_agent_new(o, err);
    if (!a) {
        fprintf(stderr, "rackbench-agent: %s\n", err->msg);
        s_usage(stderr);
        return 2;
    }
    rb_info("connecting to %s as %s (rack %s)", o->coordinator, o->name,
            o->rack ? o->rack : "default");
    int code = rb_agent_run(a);
    rb_agent_destroy(&a);
    zsys_shutdown();
    return code;
}

int rb_agent_cli_main(int argc, char **argv)
{
    rb_agent_cli_t cli;
    rb_err_t err;
    rb_err_clear(&err);
    rb_log_set_ident("rackbench-agent");
    int code = rb_agent_cli_parse(&cli, argc, argv, stderr);
    if (code < 0)
        code = s_run(&cli, &err);
    rb_agent_cli_fini(&cli);
    return code;
}
