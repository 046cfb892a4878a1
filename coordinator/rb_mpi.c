/* rackbench-mpi: mpirun starts one process per rank; each runs an agent in a
 * thread of its own, and rank 0 also runs the coordinator (rb_run) on its
 * main thread. Only the main thread calls MPI (MPI_THREAD_FUNNELED).
 *
 * The order of the collectives, the same on every rank:
 *   1. MPI_Allreduce: every rank's options are good (else all exit 2)
 *   2. MPI_Gather:    each rank's ephemeral CURVE public key to rank 0
 *   3. MPI_Bcast:     the coordinator's public key and the agents' root
 *   4. MPI_Bcast:     the endpoint rank 0 bound ("" if it could not)
 *   5. MPI_Barrier:   every agent is made; all start saying HELLO together
 *   6. MPI_Ibarrier:  rank 0's run is over; a rank whose agent has not
 *                     ended by then stops it after a grace period
 */
#include <arpa/inet.h>
#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <limits.h>
#include <mpi.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_fs.h"
#include "rb_agent.h"
#include "rb_cli_plan.h"
#include "rb_log.h"
#include "rb_mpi.h"
#include "rb_plan.h"
#include "rb_reporter.h"
#include "rb_run.h"
#include "rb_time.h"
#include "rb_units.h"
#include "rb_names.h"

#define S_KEY_LEN      41 /* Z85 key and its NUL */
#define S_EP_LEN       256
#define S_GRACE_NS     (10 * RB_NS_PER_S) /* after the run, before an agent is stopped */
#define S_NAME_CHARS   RB_NAMES_CHARS
#define S_DEFAULT_NAME "%h-%r"

/* What every rank parsed from the same command line. */
typedef struct s_opts {
    const char *plan_path;
    const char *out_dir;
    const char *bind;
    const char *name_format;
    const char *rack;
    const char *roots[RB_AGENT_MAX_ROOTS];
    int nroots;
    uint64_t wait_ns, heartbeat_ns, lost_after_ns;
    int quiet, verbose;
    const rb_reporter_t *outputs[RB_RUN_OUTPUTS_MAX]; /* --output-format, as rackbench run's */
    uint32_t noutputs;
    rb_plan_args_t pa;          /* --set, --override, --var, --section, as rackbench run's */
    const char *metrics;        /* --metrics ADDR, as rackbench run's */
    int metrics_inventory;      /* --metrics-inventory, as rackbench run's */
    uint64_t metrics_linger_ns; /* --metrics-linger, as rackbench run's */
    int metrics_linger_set;
    rb_units_style_t units; /* --units, as rackbench run's */
} s_opts_t;

/* What rank 0 sends every rank before the endpoint (collective 3). */
typedef struct s_setup {
    char coord_public[S_KEY_LEN]; /* the coordinator's public key */
    char root[RB_PATH_MAX];       /* default root: the plan's directory */
} s_setup_t;

/* This rank's agent and the thread that runs it. */
typedef struct s_rank {
    int rank, size;
    const s_opts_t *o;
    s_setup_t setup;
    zcert_t *cert; /* this agent's key pair */
    char name[RB_NAME_MAX];
    rb_agent_t *agent;
    pthread_t thread;
    int started;    /* thread runs */
    int done;       /* the agent returned (atomic) */
    int agent_code; /* what it returned, or 2/3 if it could not start */
    int bound;      /* rank 0: the endpoint went out (collectives 4, 5 done) */
} s_rank_t;

static void s_usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N rackbench-mpi PLAN [options]\n"
            "Every rank runs an agent; rank 0 also runs the coordinator and prints the report.\n"
            "  --out DIR          parent folder of run folders on rank 0 (default runs)\n"
            "  --root DIR         an agent's root folder, repeatable (default: the plan's "
            "directory)\n"
            "  --name-format FMT  node names: %%h host, %%r rank (default %%h-%%r)\n"
            "  --rack RACK        every agent's rack (default: [rack] sections, else default)\n"
            "  --bind ENDPOINT    coordinator endpoint, tcp://ADDRESS:PORT (default: the first\n"
            "                     non-loopback IPv4 address of rank 0's host, any free port)\n"
            "  --wait DURATION    how long to wait for the agents (default 30s)\n"
            "  --heartbeat DURATION, --lost-after DURATION   as rackbench run\n"
            "  --quiet, --verbose\n"
            "  --output-format F  what rank 0 prints at the end, as rackbench run (default text)\n"
            "  --set KEY=VALUE, --override KEY=VALUE, --var NAME=VALUE, --section NAME,\n"
            "  --metrics ADDR, --metrics-inventory, --metrics-linger DUR, --units U\n"
            "                     as rackbench run (rackbench run --help)\n"
            "exit codes (rank 0): 0 ok, 1 acceptance failed, 2 bad usage or plan, 3 run failed\n");
}

int rb_mpi_node_name(const char *fmt, const char *host, int rank, char *out, size_t len)
{
    size_t n = 0;
    char short_host[256];
    snprintf(short_host, sizeof short_host, "%.*s", (int)strcspn(host, "."), host);
    for (const char *p = fmt; *p; p++) {
        char piece[300];
        if (*p != '%') {
            snprintf(piece, sizeof piece, "%c", *p);
        } else if (p[1] == 'h') {
            snprintf(piece, sizeof piece, "%s", short_host);
            p++;
        } else if (p[1] == 'r') {
            snprintf(piece, sizeof piece, "%d", rank);
            p++;
        } else if (p[1] == '%') {
            snprintf(piece, sizeof piece, "%%");
            p++;
        } else {
            return -EINVAL;
        }
        size_t pl = strlen(piece);
        if (n + pl >= len)
            return -EINVAL;
        memcpy(out + n, piece, pl);
        n += pl;
    }
    out[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!strchr(S_NAME_CHARS, out[i]))
            out[i] = '-';
    return n ? 0 : -EINVAL;
}

static int s_duration(const char *opt, const char *val, uint64_t *out)
{
    if (rb_units_parse_duration_ns(val, RB_NS_PER_S, out) < 0 || *out < 10 * RB_NS_PER_MS) {
        fprintf(stderr, "rackbench-mpi: %s %s: expected a duration of 10ms or more (30s, 1500ms)\n",
                opt, val);
        return -EINVAL;
    }
    return 0;
}

/* Parses the command line; 0, 1 for --help, or the exit code 2. */
static int s_parse(int argc, char **argv, s_opts_t *o, int loud)
{
    /* clang-format off */
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},       {"root", required_argument, NULL, 'r'},
        {"name-format", required_argument, NULL, 'n'}, {"rack", required_argument, NULL, 'R'},
        {"bind", required_argument, NULL, 'b'},      {"wait", required_argument, NULL, 'w'},
        {"heartbeat", required_argument, NULL, 'H'}, {"lost-after", required_argument, NULL, 'L'},
        {"quiet", no_argument, NULL, 'q'},           {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},            {"output-format", required_argument, NULL, 'F'},
        {"set", required_argument, NULL, 's'},       {"section", required_argument, NULL, 'S'},
        {"override", required_argument, NULL, 'O'},  {"var", required_argument, NULL, 'V'},
        {"metrics", required_argument, NULL, 'M'},   {"units", required_argument, NULL, 'U'},
        {"metrics-inventory", no_argument, NULL, 'i'},
        {"metrics-linger", required_argument, NULL, 'g'},
        {NULL, 0, NULL, 0},
    };
    /* clang-format on */
    *o = (s_opts_t){
        .wait_ns = 30 * RB_NS_PER_S, .heartbeat_ns = RB_NS_PER_S, .name_format = S_DEFAULT_NAME};
    FILE *quiet = loud ? NULL : fopen("/dev/null", "w"); /* only rank 0 says what is wrong */
    FILE *err = quiet ? quiet : stderr;
    int c, code = 0;
    optind = 1;
    opterr = 0;
    while (!code && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->out_dir = optarg;
            break;
        case 'r':
            if (o->nroots == RB_AGENT_MAX_ROOTS) {
                fprintf(err, "rackbench-mpi: at most %d --root folders\n", RB_AGENT_MAX_ROOTS);
                code = 2;
            } else {
                o->roots[o->nroots++] = optarg;
            }
            break;
        case 'n':
            o->name_format = optarg;
            break;
        case 'R':
            o->rack = optarg;
            break;
        case 'b':
            o->bind = optarg;
            break;
        case 'w':
            code = s_duration("--wait", optarg, &o->wait_ns) < 0 ? 2 : 0;
            break;
        case 'H':
            code = s_duration("--heartbeat", optarg, &o->heartbeat_ns) < 0 ? 2 : 0;
            break;
        case 'L':
            code = s_duration("--lost-after", optarg, &o->lost_after_ns) < 0 ? 2 : 0;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'F': {
            rb_err_t ferr;
            rb_err_clear(&ferr);
            if (rb_reporter_list(optarg, o->outputs, RB_RUN_OUTPUTS_MAX, &o->noutputs, &ferr) < 0) {
                fprintf(err, "rackbench-mpi: --output-format %s: %s\n", optarg, ferr.msg);
                code = 2;
            }
            break;
        }
        case 's':
        case 'S':
        case 'O':
        case 'V':
            code = rb_cli_plan_arg(err, "rackbench-mpi", &o->pa, rb_cli_plan_kind(c), optarg);
            break;
        case 'M':
            o->metrics = optarg;
            break;
        case 'i':
            o->metrics_inventory = 1;
            break;
        case 'g':
            code = rb_metrics_parse_linger(err, "rackbench-mpi", optarg, &o->metrics_linger_ns) < 0
                       ? 2
                       : 0;
            o->metrics_linger_set = 1;
            break;
        case 'U':
            if (rb_cli_units(err, "rackbench-mpi", optarg, &o->units) < 0)
                code = 2;
            break;
        case 'h':
            if (loud)
                s_usage(stdout);
            code = 1;
            break;
        default:
            fprintf(err, "rackbench-mpi: unknown or incomplete option '%s'\n", argv[optind - 1]);
            s_usage(err);
            code = 2;
        }
    }
    if (!code && optind != argc - 1) {
        fprintf(err, "rackbench-mpi: expected one plan file%s\n",
                optind < argc ? ", got more" : "");
        s_usage(err);
        code = 2;
    }
    if (!code)
        o->plan_path = argv[optind];
    if (!code && o->bind && strncmp(o->bind, "tcp://", 6) != 0) {
        fprintf(err, "rackbench-mpi: --bind %s: expected tcp://ADDRESS:PORT\n", o->bind);
        code = 2;
    }
    if (!code && o->bind &&
        (!strncmp(o->bind, "tcp://*:", 8) || !strncmp(o->bind, "tcp://0.0.0.0:", 14))) {
        fprintf(err,
                "rackbench-mpi: --bind %s: name an address the other ranks can reach, not a "
                "wildcard\n",
                o->bind);
        code = 2;
    }
    if (!o->lost_after_ns)
        o->lost_after_ns = 3 * o->heartbeat_ns;
    if (quiet)
        fclose(quiet);
    return code;
}

/* tcp://ADDRESS:* on the first up, non-loopback IPv4 address of this host,
 * else on loopback (one host only). */
static void s_default_bind(char *out, size_t len)
{
    struct ifaddrs *ifs = NULL, *i;
    char addr[INET_ADDRSTRLEN] = "127.0.0.1";
    if (getifaddrs(&ifs) == 0) {
        for (i = ifs; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
                (i->ifa_flags & IFF_LOOPBACK))
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, addr, sizeof addr);
            break;
        }
        freeifaddrs(ifs);
    }
    snprintf(out, len, "tcp://%s:*", addr);
}

static void *s_agent_main(void *arg)
{
    s_rank_t *k = arg;
    k->agent_code = rb_agent_run(k->agent);
    __atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Makes this rank's agent for endpoint (nothing when it is ""); the
 * agent's code becomes 2 when it cannot be made. */
static void s_make_agent(s_rank_t *k, const char *endpoint)
{
    const s_opts_t *o = k->o;
    if (!endpoint[0])
        return;
    if (!k->cert) {
        k->agent_code = 3;
        return;
    }
    rb_agent_opts_t ao = {.coordinator = endpoint,
                          .name = k->name,
                          .rack = o->rack,
                          .once = 1,
                          .heartbeat_ns = o->heartbeat_ns,
                          .lost_after_ns = o->lost_after_ns,
                          .reserve_pct = RB_AGENT_RESERVE_PCT,
                          .key_public = zcert_public_txt(k->cert),
                          .key_secret = zcert_secret_txt(k->cert),
                          .coordinator_public = k->setup.coord_public};
    for (int i = 0; i < o->nroots; i++)
        ao.roots[ao.nroots++] = o->roots[i];
    if (!ao.nroots) {
        int rc = rb_fs_mkdirs(k->setup.root);
        if (rc < 0) {
            rb_error("root %s: %s", k->setup.root, strerror(-rc));
            k->agent_code = 3;
            return;
        }
        ao.roots[ao.nroots++] = k->setup.root;
    }
    rb_err_t err;
    rb_err_clear(&err);
    k->agent = rb_agent_new(&ao, &err);
    if (!k->agent) {
        rb_error("agent %s: %s", k->name, err.msg);
        k->agent_code = 2;
        return;
    }
    rb_debug("agent %s (rank %d of %d) connecting to %s", k->name, k->rank, k->size, endpoint);
}

static void s_start_agent(s_rank_t *k)
{
    if (!k->agent)
        return;
    if (pthread_create(&k->thread, NULL, s_agent_main, k) != 0) {
        rb_error("agent %s: cannot start its thread", k->name);
        rb_agent_destroy(&k->agent);
        k->agent_code = 3;
        return;
    }
    k->started = 1;
}

/* Collectives 4 and 5 on every rank: the endpoint out, the agent made,
 * everyone at the barrier, the agent started. */
static void s_endpoint_and_start(s_rank_t *k, const char *endpoint_in)
{
    char endpoint[S_EP_LEN] = "";
    if (k->rank == 0)
        snprintf(endpoint, sizeof endpoint, "%s", endpoint_in);
    MPI_Bcast(endpoint, sizeof endpoint, MPI_CHAR, 0, MPI_COMM_WORLD);
    s_make_agent(k, endpoint);
    /* Every agent has its socket connecting: they start together. */
    MPI_Barrier(MPI_COMM_WORLD);
    s_start_agent(k);
    k->bound = 1;
}

/* rb_run's on_bound, on rank 0's main thread. */
static void s_on_bound(const char *endpoint, void *arg)
{
    s_rank_t *k = arg;
    rb_info("coordinator on %s; %d ranks", endpoint, k->size);
    s_endpoint_and_start(k, endpoint);
}

/* Collective 6: waits until rank 0's run is over and this rank's agent has
 * ended; an agent still going S_GRACE_NS after the run is stopped. */
static void s_finish(s_rank_t *k)
{
    MPI_Request req;
    int over = 0;
    uint64_t over_at = 0;
    int stopped = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        if (!over) {
            MPI_Test(&req, &over, MPI_STATUS_IGNORE);
            if (over)
                over_at = rb_time_mono_ns();
        }
        int done = !k->started || __atomic_load_n(&k->done, __ATOMIC_ACQUIRE);
        if (over && done)
            break;
        if (over && !done && !stopped && rb_time_mono_ns() - over_at > S_GRACE_NS) {
            rb_warn("agent %s still running after the run ended: stopping it", k->name);
            rb_agent_stop(k->agent);
            stopped = 1;
        }
        usleep(20000);
    }
    if (k->started)
        pthread_join(k->thread, NULL);
    rb_agent_destroy(&k->agent);
}

/* Rank 0: loads the plan; the agents' default root goes to setup. 0 or 2. */
static int s_load_plan(const s_opts_t *o, rb_plan_t **plan, s_setup_t *setup)
{
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_cli_plan_load(o->plan_path, &o->pa, plan))
        return 2;
    rb_cli_plan_notes(*plan);
    if (rb_plan_absolute_dirs(*plan, &err) < 0) {
        fprintf(stderr, "rackbench-mpi: the plan's folders: %s\n", err.msg);
        return 2;
    }
    if (!o->nroots && !(*plan)->directory[0]) {
        fprintf(stderr,
                "rackbench-mpi: the agents need a root: give --root DIR or set directory= in "
                "[global] of %s\n",
                o->plan_path);
        return 2;
    }
    snprintf(setup->root, sizeof setup->root, "%s", (*plan)->directory);
    return 0;
}

/* Rank 0: the coordinator, with the gathered agents' keys. Returns the run's code. */
static int s_coordinate(s_rank_t *k, rb_plan_t *plan, zcert_t *coord, char *keys)
{
    const s_opts_t *o = k->o;
    const char **allow = calloc((size_t)k->size, sizeof *allow);
    if (!allow) {
        rb_error("out of memory");
        return 3;
    }
    for (int i = 0; i < k->size; i++)
        allow[i] = keys + (size_t)i * S_KEY_LEN;
    char bind[S_EP_LEN];
    if (o->bind)
        snprintf(bind, sizeof bind, "%s", o->bind);
    else
        s_default_bind(bind, sizeof bind);
    rb_run_opts_t ro = {.plan = plan,
                        .bind = bind,
                        .out_dir = o->out_dir,
                        .expect = (uint32_t)k->size,
                        .wait_ns = o->wait_ns,
                        .heartbeat_ns = o->heartbeat_ns,
                        .lost_after_ns = o->lost_after_ns,
                        .quiet = o->quiet,
                        .verbose = o->verbose,
                        .outputs = o->outputs,
                        .noutputs = o->noutputs,
                        .metrics = o->metrics,
                        .metrics_inventory = o->metrics_inventory,
                        .metrics_linger_ns = o->metrics_linger_ns,
                        .metrics_linger_set = o->metrics_linger_set,
                        .units = o->units,
                        .key_public = zcert_public_txt(coord),
                        .key_secret = zcert_secret_txt(coord),
                        .allow_public = allow,
                        .nallow_public = (uint32_t)k->size,
                        .on_bound = s_on_bound,
                        .on_bound_arg = k};
    int code = rb_run(&ro);
    free(allow);
    return code;
}

int rb_mpi_main(int argc, char **argv)
{
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "rackbench-mpi: MPI_Init_thread failed\n");
        return 3;
    }
    s_rank_t rk = {.agent_code = 0};
    s_rank_t *k = &rk;
    MPI_Comm_rank(MPI_COMM_WORLD, &k->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &k->size);
    s_opts_t o;
    k->o = &o;
    int code = s_parse(argc, argv, &o, k->rank == 0);
    char host[256] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    if (!code && rb_mpi_node_name(o.name_format, host, k->rank, k->name, sizeof k->name) < 0) {
        if (k->rank == 0)
            fprintf(stderr,
                    "rackbench-mpi: --name-format %s: use %%h (host), %%r (rank), %%%% and "
                    "up to %d characters\n",
                    o.name_format, RB_NAME_MAX - 1);
        code = 2;
    }
    char ident[RB_NAME_MAX + 32];
    snprintf(ident, sizeof ident, "rackbench-mpi[%s]", code ? "?" : k->name);
    rb_log_set_ident(ident);
    if (o.verbose)
        rb_log_set_level(RB_LOG_DEBUG);
    else if (o.quiet || k->rank != 0)
        rb_log_set_level(RB_LOG_WARN);
    if (k->rank == 0 && provided < MPI_THREAD_FUNNELED)
        rb_warn("this MPI gives thread level %d; only the main thread calls it", provided);

    rb_plan_t *plan = NULL;
    if (!code && k->rank == 0)
        code = s_load_plan(&o, &plan, &k->setup);
    /* 1: all ranks go on, or none (the same code everywhere). */
    int agreed = 0;
    MPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (agreed) {
        rb_plan_destroy(&plan);
        MPI_Finalize();
        return agreed == 1 ? 0 : agreed; /* 1: --help */
    }
    rb_agent_catch_signals(); /* rank 0: rb_run puts its own in place */

    /* 2, 3: keys. Each rank's pair never leaves it but the public key. */
    k->cert = zcert_new();
    zcert_t *coord = k->rank == 0 ? zcert_new() : NULL;
    char mine[S_KEY_LEN] = "";
    if (k->cert)
        snprintf(mine, sizeof mine, "%s", zcert_public_txt(k->cert));
    char *keys = k->rank == 0 ? calloc((size_t)k->size, S_KEY_LEN) : NULL;
    MPI_Gather(mine, S_KEY_LEN, MPI_CHAR, keys, S_KEY_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (k->rank == 0 && coord)
        snprintf(k->setup.coord_public, sizeof k->setup.coord_public, "%s",
                 zcert_public_txt(coord));
    MPI_Bcast(&k->setup, sizeof k->setup, MPI_BYTE, 0, MPI_COMM_WORLD);

    if (k->rank == 0) {
        if (!k->cert || !coord || !keys) {
            rb_error("out of memory making keys");
            code = 3;
        } else {
            code = s_coordinate(k, plan, coord, keys);
        }
        if (!k->bound) /* the run ended before it bound: the others are told "" */
            s_endpoint_and_start(k, "");
    } else {
        if (!k->cert)
            rb_error("out of memory making keys");
        s_endpoint_and_start(k, "");
        if (k->agent)
            rb_info("agent %s connecting", k->name);
    }
    s_finish(k);
    if (k->rank != 0)
        code = k->agent_code;
    else if (code == 0 && k->agent_code)
        rb_warn("rank 0's agent %s ended with code %d", k->name, k->agent_code);
    free(keys);
    zcert_destroy(&coord);
    zcert_destroy(&k->cert);
    rb_plan_destroy(&plan);
    zsys_shutdown();
    MPI_Finalize();
    return code;
}
