/* Parses rackbench's command line and hands over to the run controller or
 * the plan checker. Every bad option is named with what was expected. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_aggregate.h"
#include "rb_auth.h"
#include "rb_cli.h"
#include "rb_cli_plan.h"
#include "rb_compare.h"
#include "rb_log.h"
#include "rb_plan.h"
#include "rb_report.h"
#include "rb_reporter.h"
#include "rb_result.h"
#include "rb_run.h"
#include "rb_time.h"
#include "rb_units.h"

static void s_usage(FILE *f)
{
    fprintf(f, "usage: rackbench run PLAN (--local N | --expect N | --nodes a,b,c) [options]\n"
               "       rackbench check PLAN... [--ram SIZE] [--set|--override KEY=VALUE]...\n"
               "                       [--var NAME=VALUE]... [--section NAME]...\n"
               "       rackbench report RUN_DIR [--output-format FORMAT[,FORMAT...]] [--units "
               "iec|si|both]\n"
               "       rackbench compare RUN_A RUN_B [--output-format text|json]\n"
               "       rackbench compare BEFORE... --vs AFTER... [--output-format text|json]\n"
               "       rackbench keygen DIR [--name NAME]\n"
               "       rackbench version | --version | --help\n"
               "\n"
               "A distributed storage benchmark: plans in fio's job-file syntax run by\n"
               "rackbench-agent on every node, one report for the rack.\n"
               "\n"
               "  run       run a plan on agents and write a run folder with its reports\n"
               "  check     read plans as a run would and say every problem at once\n"
               "  report    render a run folder again\n"
               "  compare   put runs side by side, with the changes that are significant\n"
               "  keygen    make a CURVE key pair\n"
               "  version   print the version (--version: the same)\n"
               "\n"
               "rackbench COMMAND --help (or man rackbench-COMMAND) has a command's options.\n"
               "\n"
               "exit codes: 0 ok, 1 acceptance failed, 2 bad usage or plan, 3 run failed\n");
}

/* The burn-in lesson, before the run: phases whose buffered working set
 * per node is under twice the nodes' memory (ram, or this machine's). Each
 * warning names the plan when several are checked at once (named). */
static void s_check_cache(const rb_plan_t *plan, uint64_t ram, int ram_given, int named)
{
    char b1[64], b2[64], b3[64];
    if (!ram)
        ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    for (uint32_t p = 0; p < plan->nphases; p++) {
        const rb_phase_spec_t *ph = &plan->phases[p];
        if (plan->iters && plan->iters[p].iteration > 0)
            continue; /* said for its first iteration */
        int drops = 1;
        for (uint32_t j = 0; j < ph->njobs; j++)
            drops &= ph->jobs[j].drop_caches || !rb_rw_reads(ph->jobs[j].rw);
        uint64_t set = rb_aggregate_phase_buffered_set(ph, NULL);
        if (!rb_aggregate_cache_influenced(ph, set, ram, drops))
            continue;
        fprintf(
            stderr,
            "rackbench: warning: %s%sphase %s is cache-influenced: buffered data of %s per node "
            "is under 2 x RAM (%s, %s): its figures will measure the page cache, not the disks "
            "(use direct=1, or at least %s per node)\n",
            named ? plan->source : "", named ? ": " : "",
            plan->iters ? plan->iters[p].base : ph->name,
            rb_units_fmt_size(b1, sizeof b1, (double)set),
            rb_units_fmt_size(b2, sizeof b2, (double)ram),
            ram_given ? "as --ram says" : "this machine's; --ram SIZE for the nodes'",
            rb_units_fmt_size(b3, sizeof b3, 2.0 * (double)ram));
    }
}

/* --output-format LIST (or report's --format) into out: 0, or 2 (a usage
 * error) with the unknown name and the valid ones said. */
static int s_formats(const char *cmd, const char *opt, const char *list,
                     const rb_reporter_t *out[RB_RUN_OUTPUTS_MAX], uint32_t *n)
{
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_reporter_list(list, out, RB_RUN_OUTPUTS_MAX, n, &err) == 0)
        return 0;
    fprintf(stderr, "rackbench %s: %s %s: %s\n", cmd, opt, list, err.msg);
    return 2;
}

/* `rackbench check PLAN... [--ram SIZE] [--set K=V]... [--section NAME]...`:
 * each plan checked on its own, its problems said and its normalised print
 * on stdout; with several, a last line names those refused. 0 when every
 * plan is good, 2 when one is not, 3 when a print fails. */
static int s_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"ram", required_argument, NULL, 'r'},     {"set", required_argument, NULL, 's'},
        {"section", required_argument, NULL, 'S'}, {"override", required_argument, NULL, 'O'},
        {"var", required_argument, NULL, 'V'},     {NULL, 0, NULL, 0},
    };
    uint64_t ram = 0;
    rb_plan_args_t pa = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'r' && (rb_units_parse_size(optarg, &ram) < 0 || !ram)) {
            fprintf(stderr, "rackbench check: --ram %s: expected a size (64G)\n", optarg);
            return 2;
        }
        if ((c == 's' || c == 'S' || c == 'O' || c == 'V') &&
            rb_cli_plan_arg(stderr, "rackbench check", &pa, rb_cli_plan_kind(c), optarg))
            return 2;
        if (c == '?') {
            fprintf(stderr, "rackbench check: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "rackbench check: expected plan files, and --ram SIZE, --set KEY=VALUE, "
                        "--override KEY=VALUE, --var NAME=VALUE, --section NAME optionally\n");
        return 2;
    }
    int nplans = argc - optind, refused = 0, rc = 0;
    for (int i = optind; i < argc; i++) {
        rb_plan_t *plan = NULL;
        if (rb_cli_plan_load(argv[i], &pa, &plan)) {
            argv[optind + refused++] = argv[i]; /* the refused, in order, at the front */
            continue;
        }
        rb_cli_plan_notes(plan);
        s_check_cache(plan, ram, ram != 0, nplans > 1);
        if (rb_plan_print(plan, stdout) < 0 || fflush(stdout) != 0)
            rc = 3;
        rb_plan_destroy(&plan);
    }
    if (nplans > 1 && refused) {
        fprintf(stderr, "rackbench: %d of %d plans refused:", refused, nplans);
        for (int i = 0; i < refused; i++)
            fprintf(stderr, " %s", argv[optind + i]);
        fprintf(stderr, "\n");
    }
    return rc ? rc : refused ? 2 : 0;
}

static int s_count(const char *opt, const char *val, uint32_t *out)
{
    char *end;
    unsigned long v = strtoul(val, &end, 10);
    if (!*val || *end || val[0] == '-' || v == 0 || v > 100000) {
        fprintf(stderr, "rackbench run: %s %s: expected a count from 1 to 100000\n", opt, val);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int s_duration(const char *opt, const char *val, uint64_t *out)
{
    if (rb_units_parse_duration_ns(val, RB_NS_PER_S, out) < 0 || *out < 10 * RB_NS_PER_MS) {
        fprintf(stderr, "rackbench run: %s %s: expected a duration of 10ms or more (30s, 1500ms)\n",
                opt, val);
        return -1;
    }
    return 0;
}

/* --heartbeat and --phase-heartbeat: each at most RB_HEARTBEAT_MAX_NS, a
 * phase's no shorter than the rest's. 0 or -1 (said). */
static int s_beats(const rb_run_opts_t *o)
{
    const char *bad = o->heartbeat_ns > RB_HEARTBEAT_MAX_NS         ? "--heartbeat"
                      : o->phase_heartbeat_ns > RB_HEARTBEAT_MAX_NS ? "--phase-heartbeat"
                                                                    : NULL;
    if (bad) {
        fprintf(stderr, "rackbench run: %s: at most %llu s between heartbeats\n", bad,
                (unsigned long long)(RB_HEARTBEAT_MAX_NS / RB_NS_PER_S));
        return -1;
    }
    if (o->phase_heartbeat_ns && o->phase_heartbeat_ns < o->heartbeat_ns) {
        fprintf(stderr,
                "rackbench run: --phase-heartbeat %.3f s is shorter than --heartbeat %.3f s: a "
                "phase's heartbeats come as often or less often, not more\n",
                (double)o->phase_heartbeat_ns / 1e9, (double)o->heartbeat_ns / 1e9);
        return -1;
    }
    return 0;
}

/* --protocol N: speak version N of the window (and take agents of the
 * window's versions up to N), as a coordinator of that version would. */
static int s_protocol(const char *cmd, const char *val)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(val, &end, 10);
    rb_err_t err;
    rb_err_clear(&err);
    if (end == val || *end || errno || v > UINT32_MAX ||
        rb_proto_set_speak((uint32_t)v, &err) < 0) {
        fprintf(stderr, "%s: --protocol %s: expected a version this build speaks, %d .. %d\n", cmd,
                val, RB_PROTO_OLDEST, RB_PROTO_VERSION);
        return -1;
    }
    return 0;
}

/* `rackbench run`: its options (one table, then one case each), the plan,
 * and the run. Most of its length is the option table and the checks of
 * each option's value, which read best in one place. */
static int s_run(int argc, char **argv)
{
    /* clang-format off */
    static const struct option longopts[] = {
        {"local", required_argument, NULL, 'l'},     {"expect", required_argument, NULL, 'e'},
        {"nodes", required_argument, NULL, 'n'},     {"bind", required_argument, NULL, 'b'},
        {"out", required_argument, NULL, 'o'},       {"wait", required_argument, NULL, 'w'},
        {"heartbeat", required_argument, NULL, 'H'}, {"lost-after", required_argument, NULL, 'L'},
        {"agent-bin", required_argument, NULL, 'a'}, {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},         {"key", required_argument, NULL, 'k'},
        {"allow-keys", required_argument, NULL, 'K'}, {"insecure", no_argument, NULL, 'I'},
        {"set", required_argument, NULL, 's'},       {"section", required_argument, NULL, 'S'},
        {"agent-arg", required_argument, NULL, 'A'}, {"metrics", required_argument, NULL, 'M'},
        {"output-format", required_argument, NULL, 'F'},
        {"units", required_argument, NULL, 'U'},     {"protocol", required_argument, NULL, 'P'},
        {"override", required_argument, NULL, 'O'},  {"var", required_argument, NULL, 'V'},
        {"metrics-inventory", no_argument, NULL, 'i'},
        {"metrics-linger", required_argument, NULL, 'g'},
        {"phase-heartbeat", required_argument, NULL, 'B'},
        {"done-hold", required_argument, NULL, 'D'},
        {NULL, 0, NULL, 0},
    };
    /* clang-format on */
    rb_run_opts_t o = {.wait_ns = 30 * RB_NS_PER_S, .heartbeat_ns = RB_NS_PER_S};
    const rb_reporter_t *outputs[RB_RUN_OUTPUTS_MAX];
    rb_plan_args_t pa = {0};
    int c, ways = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (s_count("--local", optarg, &o.local) < 0)
                return 2;
            if (o.local > RB_RUN_LOCAL_MAX) {
                fprintf(stderr,
                        "rackbench run: --local %s: at most %d agents on one machine; run "
                        "agents on more machines with --expect or --nodes\n",
                        optarg, RB_RUN_LOCAL_MAX);
                return 2;
            }
            ways++;
            break;
        case 'e':
            if (s_count("--expect", optarg, &o.expect) < 0)
                return 2;
            ways++;
            break;
        case 'n':
            o.nodes = optarg;
            ways++;
            break;
        case 'b':
            o.bind = optarg;
            break;
        case 'o':
            o.out_dir = optarg;
            break;
        case 'w':
            if (s_duration("--wait", optarg, &o.wait_ns) < 0)
                return 2;
            break;
        case 'H':
            if (s_duration("--heartbeat", optarg, &o.heartbeat_ns) < 0)
                return 2;
            break;
        case 'L':
            if (s_duration("--lost-after", optarg, &o.lost_after_ns) < 0)
                return 2;
            break;
        case 'B':
            if (s_duration("--phase-heartbeat", optarg, &o.phase_heartbeat_ns) < 0)
                return 2;
            break;
        case 'D':
            if (rb_units_parse_duration_ns(optarg, RB_NS_PER_S, &o.done_hold_ns) < 0 ||
                o.done_hold_ns > RB_DONE_HOLD_MAX_NS) {
                fprintf(stderr,
                        "rackbench run: --done-hold %s: expected a duration of 0 to %llu s "
                        "(300ms, 0: none)\n",
                        optarg, (unsigned long long)(RB_DONE_HOLD_MAX_NS / RB_NS_PER_S));
                return 2;
            }
            o.done_hold_set = 1;
            break;
        case 'a':
            o.agent_bin = optarg;
            break;
        case 'A':
            if (o.nagent_args == RB_RUN_AGENT_ARGS_MAX) {
                fprintf(stderr, "rackbench run: at most %d --agent-arg\n", RB_RUN_AGENT_ARGS_MAX);
                return 2;
            }
            o.agent_args[o.nagent_args++] = optarg;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'v':
            o.verbose = 1;
            rb_log_set_level(RB_LOG_DEBUG);
            break;
        case 'k':
            o.key_file = optarg;
            break;
        case 'P':
            if (s_protocol("rackbench run", optarg) < 0)
                return 2;
            break;
        case 'K':
            o.allow_dir = optarg;
            break;
        case 'I':
            o.insecure = 1;
            break;
        case 'M':
            o.metrics = optarg;
            break;
        case 'i':
            o.metrics_inventory = 1;
            break;
        case 'g':
            if (rb_metrics_parse_linger(stderr, "rackbench run", optarg, &o.metrics_linger_ns) < 0)
                return 2;
            o.metrics_linger_set = 1;
            break;
        case 'F':
            if (s_formats("run", "--output-format", optarg, outputs, &o.noutputs))
                return 2;
            o.outputs = outputs;
            break;
        case 'U':
            if (rb_cli_units(stderr, "rackbench run", optarg, &o.units) < 0)
                return 2;
            break;
        case 's':
        case 'S':
        case 'O':
        case 'V':
            if (rb_cli_plan_arg(stderr, "rackbench run", &pa, rb_cli_plan_kind(c), optarg))
                return 2;
            break;
        default:
            fprintf(stderr, "rackbench run: unknown or incomplete option '%s'\n", argv[optind - 1]);
            s_usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "rackbench run: expected one plan file%s\n",
                optind < argc ? ", got more" : "");
        s_usage(stderr);
        return 2;
    }
    if (ways > 1) {
        fprintf(stderr, "rackbench run: use one of --local, --expect, --nodes\n");
        return 2;
    }
    if (ways == 0) {
        fprintf(stderr, "rackbench run: no agents: give --local N (start N here), --expect N "
                        "(wait for N to connect) or --nodes a,b,c (wait for these); "
                        "rackbench run --help for more\n");
        return 2;
    }
    if (!o.lost_after_ns)
        o.lost_after_ns = 3 * o.heartbeat_ns;
    if (s_beats(&o) < 0)
        return 2;
    rb_plan_t *plan = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_cli_plan_load(argv[optind], &pa, &plan))
        return 2;
    if (plan->host_keywords && !o.local) {
        fprintf(
            stderr,
            "rackbench run: %s uses $ncpus, $mb_memory or $pagesize, which are this "
            "machine's figures, not the nodes': give the values with ${VAR} and --var, or --set\n",
            argv[optind]);
        rb_plan_destroy(&plan);
        return 2;
    }
    rb_cli_plan_notes(plan);
    if (o.nagent_args && !o.local) {
        fprintf(stderr, "rackbench run: --agent-arg is for the agents of --local\n");
        return 2;
    }
    if (o.local && rb_plan_absolute_dirs(plan, &err) < 0) {
        fprintf(stderr, "rackbench run: %s\n", err.msg);
        rb_plan_destroy(&plan);
        return 2;
    }
    o.plan = plan;
    if (o.quiet && !o.verbose)
        rb_log_set_level(RB_LOG_WARN);
    int code = rb_run(&o);
    rb_plan_destroy(&plan);
    return code;
}

/* rackbench report RUN_DIR: renders a run folder again, also one whose run
 * was cut off. Exit codes as the run's: 0, 1 (acceptance), 3 (failed or
 * did not finish); 2 for a bad call or a folder that cannot be read. */
/* report's and compare's --output-format (or --format, its first name, kept
 * for the scripts that use it) at argv[*i], as "--opt VALUE" or
 * "--opt=VALUE": true with *opt and *val set (and *i past a VALUE), or false
 * when argv[*i] is neither. */
static bool s_format_opt(int argc, char **argv, int *i, const char **opt, const char **val)
{
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "--format" : "--output-format";
        size_t len = strlen(name);
        if (!strcmp(argv[*i], name) && *i + 1 < argc) {
            *opt = name;
            *val = argv[++*i];
            return true;
        }
        if (!strncmp(argv[*i], name, len) && argv[*i][len] == '=') {
            *opt = name;
            *val = argv[*i] + len + 1;
            return true;
        }
    }
    return false;
}

static int s_report(int argc, char **argv)
{
    const char *dir = NULL;
    rb_units_style_t units = RB_UNITS_IEC;
    const rb_reporter_t *reps[RB_RUN_OUTPUTS_MAX] = {rb_reporter_find("text")};
    uint32_t nreps = 1;
    for (int i = 1; i < argc; i++) {
        const char *opt = NULL, *val = NULL;
        if (s_format_opt(argc, argv, &i, &opt, &val)) {
            if (s_formats("report", opt, val, reps, &nreps))
                return 2;
        } else if (!strcmp(argv[i], "--units") && i + 1 < argc) {
            if (rb_cli_units(stderr, "rackbench report", argv[++i], &units) < 0)
                return 2;
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            fprintf(stderr,
                    "rackbench report: unexpected '%s' (usage: rackbench report RUN_DIR "
                    "[--output-format FORMAT[,FORMAT...]] [--units iec|si|both])\n",
                    argv[i]);
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "rackbench report: which run folder? (rackbench report RUN_DIR)\n");
        return 2;
    }
    rb_loaded_run_t run;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_result_run_load(dir, &run, &err) < 0) {
        fprintf(stderr, "rackbench report: %s\n", err.msg);
        return 2;
    }
    if (run.res.live)
        fprintf(stderr, "rackbench report: %s: the run is still running; %u phase%s so far\n", dir,
                run.res.nphases, run.res.nphases == 1 ? "" : "s");
    else if (run.res.running)
        fprintf(stderr,
                "rackbench report: %s: the run did not finish; %u phase%s reported%s (partial)\n",
                dir, run.res.nphases, run.res.nphases == 1 ? "" : "s",
                run.from_samples ? ", the last from its samples only" : "");
    run.res.units = units;
    int rc = 0;
    for (uint32_t i = 0; i < nreps && rc >= 0; i++)
        rc = reps[i]->render(&run.res, run.dir, stdout);
    fflush(stdout);
    int code = rc < 0                                      ? 3
               : run.res.status || run.res.running         ? 3
               : run.res.accept && run.res.accept->nfailed ? 1
                                                           : 0;
    rb_result_run_unload(&run);
    return code;
}

/* rackbench compare BEFORE... [--vs AFTER...]: 0, or 2 for a bad call or folder. */
#define S_COMPARE_MAX_RUNS 64 /* run folders a side */
static int s_compare(int argc, char **argv)
{
    const char *dirs[2][S_COMPARE_MAX_RUNS], *format = "text";
    uint32_t nd[2] = {0, 0};
    int side = 0, vs = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = NULL;
        if (s_format_opt(argc, argv, &i, &opt, &format)) {
            if (strcmp(format, "text") && strcmp(format, "json")) {
                fprintf(stderr,
                        "rackbench compare: %s %s: not a format compare prints (text or json)\n",
                        opt, format);
                return 2;
            }
        } else if (!strcmp(argv[i], "--vs") && !vs) {
            vs = 1;
            side = 1;
        } else if (argv[i][0] != '-' && nd[side] < S_COMPARE_MAX_RUNS) {
            dirs[side][nd[side]++] = argv[i];
        } else {
            fprintf(stderr,
                    "rackbench compare: unexpected '%s' (usage: rackbench compare RUN_A RUN_B, "
                    "or rackbench compare BEFORE... --vs AFTER..., with at most %d runs a side; "
                    "[--output-format text|json])\n",
                    argv[i], S_COMPARE_MAX_RUNS);
            return 2;
        }
    }
    if (!vs && nd[0] == 2) { /* RUN_A RUN_B */
        dirs[1][0] = dirs[0][1];
        nd[0] = nd[1] = 1;
    }
    if (!nd[0] || !nd[1]) {
        fprintf(stderr, "rackbench compare: expected two run folders (or BEFORE... --vs "
                        "AFTER...)\n");
        return 2;
    }
    rb_loaded_run_t *runs[2] = {calloc(nd[0], sizeof *runs[0]), calloc(nd[1], sizeof *runs[1])};
    uint32_t loaded[2] = {0, 0};
    int code = 0;
    if (!runs[0] || !runs[1]) {
        fprintf(stderr, "rackbench compare: out of memory\n");
        code = 3;
    }
    rb_err_t err;
    for (int s = 0; s < 2 && !code; s++) {
        for (uint32_t i = 0; i < nd[s] && !code; i++) {
            rb_err_clear(&err);
            if (rb_result_run_load(dirs[s][i], &runs[s][i], &err) < 0) {
                fprintf(stderr, "rackbench compare: %s\n", err.msg);
                code = 2;
            } else {
                loaded[s]++;
            }
        }
    }
    if (!code &&
        rb_compare_runs(runs[0], nd[0], runs[1], nd[1], !strcmp(format, "json"), stdout) < 0)
        code = 3;
    for (int s = 0; s < 2; s++) {
        for (uint32_t i = 0; i < loaded[s]; i++)
            rb_result_run_unload(&runs[s][i]);
        free(runs[s]);
    }
    return code;
}

/* rackbench keygen DIR [--name NAME]: a CURVE key pair for a coordinator or
 * an agent. 0, or 2 for a bad call or a key that exists already. */
static int s_keygen(int argc, char **argv)
{
    const char *dir = NULL, *name = NULL;
    char host[256] = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else {
            fprintf(stderr,
                    "rackbench keygen: unexpected '%s' (usage: rackbench keygen DIR [--name "
                    "NAME])\n",
                    argv[i]);
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "rackbench keygen: which folder? (rackbench keygen DIR [--name NAME])\n");
        return 2;
    }
    if (!name) {
        gethostname(host, sizeof host - 1);
        name = host;
    }
    char pub[41];
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_auth_keygen(dir, name, pub, &err) < 0) {
        fprintf(stderr, "rackbench keygen: %s\n", err.msg);
        return 2;
    }
    printf("%s/%s.key         public key %s: give it to the peers\n"
           "%s/%s.key_secret  secret key (mode 0600): keep it on this host\n",
           dir, name, pub, dir, name);
    return 0;
}

int rb_cli_main(int argc, char **argv)
{
    rb_log_set_ident("rackbench");
    if (argc < 2) {
        s_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    /* SUBCOMMAND --help (or -h), anywhere after it: its help, exit 0 */
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if ((!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) && rb_cli_help(cmd, stdout) == 0)
            return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return s_run(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return s_check(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return s_report(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return s_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "keygen") == 0)
        return s_keygen(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("rackbench %s (protocol %d, speaks %d .. %d)\n", rb_build_id(), RB_PROTO_VERSION,
               RB_PROTO_OLDEST, RB_PROTO_VERSION);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        s_usage(stdout);
        return 0;
    }
    fprintf(stderr, "rackbench: unknown command '%s'\n", cmd);
    s_usage(stderr);
    return 2;
}
