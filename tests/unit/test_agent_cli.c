/* rackbench-agent's command line and its --config file: a file's keys
 * become the options, the command line overrides them (its --root and
 * --allow-device replace the file's), and an unknown key, a bad value or a
 * missing file is refused with exit 2, naming the file, its line and the
 * key. The real rb_agent_cli_parse, on files written here. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_agent_cli.h"
#include "rb_time.h"

static char s_conf[PATH_MAX];
static char s_err[4096];

/* Writes text to this program's agent.conf; its path. */
static const char *s_write(const char *text)
{
    snprintf(s_conf, sizeof s_conf, "%s/agent.conf", RB_TEST_TMP);
    FILE *f = fopen(s_conf, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return s_conf;
}

/* rb_agent_cli_parse on argv (NULL-terminated); what it said in s_err. */
static int s_parse(rb_agent_cli_t *cli, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    FILE *err = fmemopen(s_err, sizeof s_err, "w");
    assert_non_null(err);
    setvbuf(err, NULL, _IONBF, 0);
    int code = rb_agent_cli_parse(cli, argc, argv, err);
    fclose(err);
    return code;
}

static const char s_good[] = "# a node of rack r02\n"
                             "coordinator = tcp://head:7770\n"
                             "name=jr5-09\n"
                             "  rack = r02  \n"
                             "\n"
                             "root = /data\n"
                             "root = /scratch\n"
                             "key = /etc/rackbench/jr5-09.key_secret\n"
                             "coordinator-key = /etc/rackbench/head.key\n"
                             "allow-device = /dev/sd[b-e]:wipe\n"
                             "allow-open-writers = no\n"
                             "no-telemetry = yes\n"
                             "heartbeat = 500ms\n"
                             "reserve = 10%\n";

static void test_good_file(void **state)
{
    (void)state;
    rb_agent_cli_t cli;
    char *argv[] = {"rackbench-agent", "--config", (char *)s_write(s_good), NULL};
    assert_int_equal(s_parse(&cli, argv), -1);
    assert_string_equal(cli.o.coordinator, "tcp://head:7770");
    assert_string_equal(cli.o.name, "jr5-09");
    assert_string_equal(cli.o.rack, "r02");
    assert_int_equal(cli.o.nroots, 2);
    assert_string_equal(cli.o.roots[0], "/data");
    assert_string_equal(cli.o.roots[1], "/scratch");
    assert_string_equal(cli.o.key_file, "/etc/rackbench/jr5-09.key_secret");
    assert_string_equal(cli.o.coordinator_key, "/etc/rackbench/head.key");
    assert_int_equal(cli.o.ndevices, 1);
    assert_string_equal(cli.o.devices[0], "/dev/sd[b-e]:wipe");
    assert_int_equal(cli.o.open_writers, 0);
    assert_int_equal(cli.o.no_telemetry, 1);
    assert_int_equal(cli.o.insecure, 0);
    assert_int_equal(cli.o.heartbeat_ns, 500 * RB_NS_PER_MS);
    assert_int_equal(cli.o.reserve_pct, 10);
    assert_int_equal(cli.mode, 0);
    rb_agent_cli_fini(&cli);
    rb_agent_cli_fini(&cli);
}

/* The command line wins, wherever --config is on it; its roots replace the
 * file's, and a mode (--cleanup) takes the file's options. */
static void test_override(void **state)
{
    (void)state;
    rb_agent_cli_t cli;
    char *argv[] = {"rackbench-agent",       "--name",    "other", "--root",    "/fast", "--config",
                    (char *)s_write(s_good), "--reserve", "0",     "--cleanup", NULL};
    assert_int_equal(s_parse(&cli, argv), -1);
    assert_string_equal(cli.o.name, "other");
    assert_int_equal(cli.o.nroots, 1);
    assert_string_equal(cli.o.roots[0], "/fast");
    assert_int_equal(cli.o.reserve_pct, 0);
    assert_string_equal(cli.o.rack, "r02");
    assert_string_equal(cli.o.devices[0], "/dev/sd[b-e]:wipe");
    assert_int_equal(cli.mode, 1);
    rb_agent_cli_fini(&cli);
}

/* --keygen DIR makes the key pair of the node agent.conf names, the secret
 * one 0600, through the real command line; a second one is refused (2) and
 * leaves the first pair as it was. */
static void test_keygen(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX + 32], again[2][512];
    snprintf(dir, sizeof dir, "%s/keys", RB_TEST_TMP);
    for (const char *f = "jr5-09.key\0jr5-09.key_secret\0"; *f; f += strlen(f) + 1) {
        snprintf(path, sizeof path, "%s/%s", dir, f);
        unlink(path);
    }
    char *argv[] = {"rackbench-agent", "--config", (char *)s_write(s_good), "--keygen", dir, NULL};
    rb_agent_cli_t cli;
    assert_int_equal(s_parse(&cli, argv), -1);
    assert_int_equal(cli.mode, 3);
    assert_string_equal(cli.keygen_dir, dir);
    rb_agent_cli_fini(&cli);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rb_agent_cli_main(5, argv), i ? 2 : 0);
        snprintf(path, sizeof path, "%s/jr5-09.key_secret", dir);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        size_t n = fread(again[i], 1, sizeof again[i] - 1, f);
        again[i][n] = '\0';
        fclose(f);
        snprintf(path, sizeof path, "%s/jr5-09.key", dir);
        assert_int_equal(access(path, R_OK), 0);
    }
    assert_string_equal(again[0], again[1]);
}

/* s_parse of a file holding text fails with exit 2 and says want. */
static void s_refused(const char *text, const char *want)
{
    rb_agent_cli_t cli;
    char *argv[] = {"rackbench-agent", "--config", (char *)s_write(text), NULL};
    assert_int_equal(s_parse(&cli, argv), 2);
    char full[PATH_MAX + 256];
    snprintf(full, sizeof full, "rackbench-agent: %s:%s", s_conf, want);
    if (!strstr(s_err, full))
        fail_msg("said '%s', not '%s'", s_err, full);
    rb_agent_cli_fini(&cli);
}

static void test_unknown_key(void **state)
{
    (void)state;
    s_refused("name = a\n\ncoordinater = tcp://h:1\n",
              "3: unknown key 'coordinater' (did you mean 'coordinator'?)");
    s_refused("frobnicate = 1\n", "1: unknown key 'frobnicate' (rackbench-agent(8) lists them)");
    s_refused("once = yes\n",
              "1: 'once' is not a key of the file: give --once on the command line");
    s_refused("config = /etc/x\n", "1: 'config' is not a key of the file");
    s_refused("--name = a\n", "1: unknown key '--name' (did you mean 'name'?)");
}

static void test_bad_value(void **state)
{
    (void)state;
    s_refused("reserve = 95\n", "1: reserve = 95: expected 0 to 90 (%)");
    s_refused("# x\nheartbeat = 1ms\n", "2: heartbeat = 1ms: expected a duration of 10ms or more");
    s_refused("insecure = sure\n", "1: insecure = sure: expected yes or no");
    s_refused("name\n", "1: expected KEY = VALUE, not 'name'");
    s_refused("name =\n", "1: name has no value");
    s_refused("name = a\nname = b\n", "2: name is set twice (line 1 first)");
}

static void test_missing_file(void **state)
{
    (void)state;
    rb_agent_cli_t cli;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/no-such.conf", RB_TEST_TMP);
    char *argv[] = {"rackbench-agent", "--name", "a", "--config", path, NULL};
    assert_int_equal(s_parse(&cli, argv), 2);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "rackbench-agent: --config %s: No such file or directory\n", path);
    assert_string_equal(s_err, want);
    rb_agent_cli_fini(&cli);
}

int main(void)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", RB_TEST_TMP);
    if (system(cmd) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),    cmocka_unit_test(test_override),
        cmocka_unit_test(test_unknown_key),  cmocka_unit_test(test_bad_value),
        cmocka_unit_test(test_missing_file), cmocka_unit_test(test_keygen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
