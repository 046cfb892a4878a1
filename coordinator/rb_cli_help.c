/* `rackbench SUBCOMMAND --help`: what each subcommand does, its options
 * and an example (see rb_cli.h). */
#include <stdio.h>
#include <string.h>

#include "rb_cli.h"

/* run's options */
#define S_RUN_OPTIONS                                                                              \
    "agents, one of:\n"                                                                            \
    "  --local N          start N agents here (up to 256), rooted at the plan's directory\n"       \
    "  --expect N         wait for N agents to connect (rackbench-agent on each node)\n"           \
    "  --nodes a,b,c      wait for exactly these agents\n"                                         \
    "options:\n"                                                                                   \
    "  --bind ENDPOINT    coordinator socket (default tcp://*:7770; --local: loopback)\n"          \
    "  --out DIR          parent folder of run folders (default runs)\n"                           \
    "  --wait DURATION    how long to wait for agents (default 30s)\n"                             \
    "  --heartbeat DUR    heartbeat period (default 1s)\n"                                         \
    "  --phase-heartbeat DUR  heartbeat period during a phase, told to the agents\n"               \
    "                     (default 3 heartbeats, or 250us an agent when longer)\n"                 \
    "  --done-hold DUR    agents hold a phase's DONE this long after its last sample\n"            \
    "                     (default 20us an agent, at most half a sample interval)\n"               \
    "  --lost-after DUR   an agent silent this long is lost (default 3 heartbeats)\n"              \
    "  --agent-bin PATH   rackbench-agent to start for --local\n"                                  \
    "  --agent-arg ARG    one more argument for each --local agent (repeatable):\n"                \
    "                     --agent-arg --allow-device=/dev/sdb; {node} is each\n"                   \
    "                     agent's name: --agent-arg --allow-device=/srv/{node}/disk1\n"            \
    "  --quiet            no progress lines\n"                                                     \
    "  --verbose          more detail, also from local agents\n"                                   \
    "  --key FILE         the coordinator's secret key (NAME.key_secret)\n"                        \
    "  --allow-keys DIR   public keys (NAME.key) of the agents allowed to join\n"                  \
    "  --insecure         no CURVE: only on loopback or ipc:// endpoints\n"                        \
    "  --metrics ADDR     serve Prometheus metrics at /metrics and the live report at /\n"         \
    "                     ([HOST:]PORT: a lone port is loopback; another host needs CURVE)\n"      \
    "  --metrics-inventory  the live page also shows what the hosts are: kernel, CPU,\n"           \
    "                     NICs, mounts, devices, disks' serials and firmware\n"                    \
    "  --metrics-linger DUR  after the run, serve the final metrics until each address\n"          \
    "                     that scraped /metrics has read them once, DUR at most\n"                 \
    "                     (default 30s; 0: close at the end; Ctrl-C ends it)\n"                    \
    "  --set KEY=VALUE    a [global] option, after the plan's own (repeatable)\n"                  \
    "  --override KEY=VALUE  an option of every job section, after the job's own: it wins\n"       \
    "                     where a job sets it too (repeatable): --override size=256M\n"            \
    "  --var NAME=VALUE   what ${NAME} is in the plan, before the environment (repeatable)\n"      \
    "  --section NAME     run only this job section (repeatable), as fio's --section\n"            \
    "  --output-format F  what to print at the end (default text): text, json, csv, html,\n"       \
    "                     fio-json, fio-json+ (fio's JSON), or a comma list printed in turn\n"     \
    "  --units U          report.txt's sizes and rates: iec (MiB/s, the default), si (MB/s),\n"    \
    "                     or both (the projection's capacities: TB, and TiB beside them);\n"       \
    "                     summary.json is the same whatever U\n"                                   \
    "  --protocol N       speak protocol N, an older one this build knows, and take agents\n"      \
    "                     of the versions up to N, as a coordinator of that version does\n"

typedef struct s_help {
    const char *cmd;
    const char *text;
} s_help_t;

static const s_help_t s_helps[] = {
    {"run",
     "usage: rackbench run PLAN (--local N | --expect N | --nodes a,b,c) [options]\n"
     "\n"
     "Runs the plan (fio's job-file syntax) on agents and writes a run folder\n"
     "(summary.json, report.txt, report.html, fio.json, samples.csv, telemetry.csv).\n"
     "\n" S_RUN_OPTIONS "\n"
     "examples:\n"
     "  rackbench run deploy/plans/quickstart.ini --local 4\n"
     "  rackbench run burnin.ini --expect 8 --key keys/head.key_secret --allow-keys keys/agents\n"
     "  rackbench run job.fio --local 1 --set size=1G --section seq-read\n"
     "  rackbench run burnin.ini --local 4 --metrics 9464   # Prometheus scrapes 127.0.0.1:9464\n"
     "  rackbench run job.fio --local 2 --output-format fio-json+ > out.json   # as fio's json+\n"
     "\n"
     "exit codes: 0 ok, 1 acceptance failed, 2 bad usage or plan, 3 run failed\n"},
    {"check", "usage: rackbench check PLAN [--ram SIZE] [--set|--override KEY=VALUE]...\n"
              "                       [--var NAME=VALUE]... [--section NAME]...\n"
              "\n"
              "Reads the plan as a run would, says every problem at once (file and line),\n"
              "and prints it normalised: every option explicit, one phase per stonewall.\n"
              "\n"
              "  --ram SIZE         the nodes' memory, for the page-cache warning (default: this "
              "machine's)\n"
              "  --set KEY=VALUE    a [global] option, after the plan's own (repeatable)\n"
              "  --override KEY=VALUE  an option of every job section, after the job's own\n"
              "  --var NAME=VALUE   what ${NAME} is in the plan, before the environment\n"
              "  --section NAME     only this job section (repeatable)\n"
              "\n"
              "example:\n"
              "  rackbench check my-fio-job.fio --ram 256G\n"
              "\n"
              "exit codes: 0 the plan is good, 2 it is not (or a bad call)\n"},
    {"report",
     "usage: rackbench report RUN_DIR [--output-format FORMAT[,FORMAT...]] [--units iec|si|both]\n"
     "\n"
     "Renders a run folder again, also one whose run was cut off (flagged partial).\n"
     "\n"
     "  --output-format F  text (report.txt, the default), json (summary.json), csv, html,\n"
     "                     fio-json (fio.json: fio's --output-format=json), fio-json+\n"
     "                     (fio's json+, with latency bins); a comma list prints each in turn\n"
     "  --format F         the same\n"
     "  --units U          the text's sizes and rates: iec (MiB/s, powers of 1024: the\n"
     "                     default, as fio reports), si (MB/s, powers of 1000), or both;\n"
     "                     the projection's capacities are in TB whatever U, as disks are\n"
     "                     sold, with TiB beside them under both\n"
     "\n"
     "examples:\n"
     "  rackbench report runs/20261202-061500-ab12 --format html > report.html\n"
     "  rackbench report runs/20261202-061500-ab12 --output-format fio-json+ > fio+.json\n"
     "  rackbench report runs/20261202-061500-ab12 --units si\n"
     "\n"
     "exit codes: as the run's: 0 ok, 1 acceptance failed, 3 failed or did not finish;\n"
     "2 for a bad call or a folder that cannot be read\n"},
    {"compare", "usage: rackbench compare RUN_A RUN_B [--output-format text|json]\n"
                "       rackbench compare BEFORE... --vs AFTER... [--output-format text|json]\n"
                "\n"
                "Puts the headline figures of each phase side by side with the change. A\n"
                "change is significant only when Welch's t-test over each side's\n"
                "measurements (every iteration of every run) says so at 95% and it is at\n"
                "least 1%; with one measurement a side the noise is unknown and no verdict\n"
                "is given (use iterations=N in the plan, or several runs a side). Warns when\n"
                "the runs measure different things; judges each node; lists acceptance changes.\n"
                "\n"
                "  --vs AFTER...      the runs after the change, the ones before it being\n"
                "                     BEFORE... (several a side for a verdict on noise)\n"
                "  --output-format F  text (the default) or json; --format F is the same\n"
                "\n"
                "example:\n"
                "  rackbench compare runs/before-1 runs/before-2 --vs runs/after-1 runs/after-2\n"
                "\n"
                "exit codes: 0, 2 for a bad call or folder, 3 when the output cannot be written\n"},
    {"keygen", "usage: rackbench keygen DIR [--name NAME]\n"
               "\n"
               "Makes a CURVE key pair in DIR (created with its parents): NAME.key (public,\n"
               "to give to the other side) and NAME.key_secret (kept where it is made).\n"
               "\n"
               "  --name NAME        the key's name (default: this host's name)\n"
               "\n"
               "example:\n"
               "  rackbench keygen keys --name head && rackbench keygen keys/agents --name node01\n"
               "\n"
               "exit codes: 0, 2 for a bad call or a key that exists already\n"},
    {"version", "usage: rackbench version\n\nPrints rackbench's version.\n"},
};

int rb_cli_help(const char *cmd, FILE *f)
{
    for (size_t i = 0; i < sizeof s_helps / sizeof s_helps[0]; i++) {
        if (strcmp(cmd, s_helps[i].cmd) == 0) {
            fputs(s_helps[i].text, f);
            return 0;
        }
    }
    return -1;
}
