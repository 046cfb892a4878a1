/* Drive health (issue 36): real smartctl --json outputs (fixtures/smart,
 * ORIGIN.md) read into rb_health_t, and rb_health_read through its real
 * fork/exec path with a stand-in smartctl script, a missing one, one that
 * outlives the deadline, fake sysfs trees, and this machine's own smartctl
 * on its root disk. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_health.h"

#define NA RB_HEALTH_NA

static char s_dir[PATH_MAX];

static char *s_slurp(const char *name, size_t *len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", RB_SMART_FIXTURES, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static void s_parse(const char *name, rb_health_t *h)
{
    size_t len;
    char *buf = s_slurp(name, &len);
    memset(h, 0x5a, sizeof *h); /* parse must not rely on a cleared h */
    assert_int_equal(rb_health_parse(buf, len, h), 0);
    free(buf);
}

static void s_read_ok(const rb_health_t *h, const char *proto, const char *model)
{
    assert_string_equal(h->protocol, proto);
    assert_string_equal(h->model, model);
    assert_string_equal(h->reason, "");
}

static void test_sata(void **state)
{
    (void)state;
    rb_health_t h;
    s_parse("sata-healthy.json", &h);
    s_read_ok(&h, "ATA", "WDC WD20EFRX-68EUZN0");
    assert_string_equal(h.serial, "REDACTED");
    assert_int_equal(h.verdict, RB_SMART_PASSED);
    assert_int_equal(h.exit_status, 0);
    assert_true(h.reallocated == 0 && h.pending == 0 && h.offline_unc == 0 && h.crc_errors == 0);
    assert_true(h.error_log == 0);
    assert_true(h.temperature == 34 && h.temperature_max == 34);
    assert_true(h.power_on_hours == 47657);
    assert_true(h.media_errors == NA && h.percentage_used == NA && h.critical_warning == NA);
    assert_true(h.available_spare == NA && h.spare_threshold == NA);

    s_parse("sata-grown.json", &h);
    s_read_ok(&h, "ATA", "ST3500418AS");
    assert_int_equal(h.verdict, RB_SMART_PASSED);
    assert_true(h.reallocated == 304 && h.pending == 0 && h.crc_errors == 0);
    assert_true(h.temperature == 33); /* attribute 194's raw value is 81604378657 */
    assert_true(h.power_on_hours == 44668);
    assert_int_equal(h.exit_status, 0);

    s_parse("sata-failing.json", &h);
    s_read_ok(&h, "ATA", "Hitachi HDS721050DLE630");
    assert_string_equal(h.serial, "MSK423Y20S3HBC");
    assert_int_equal(h.verdict, RB_SMART_FAILED);
    assert_int_equal(h.exit_status, 216);
    assert_true(h.reallocated == 1975 && h.pending == 8 && h.crc_errors == 0);
    assert_true(h.offline_unc != NA);
    assert_true(h.error_log == 56);
    assert_true(h.temperature == 25 && h.power_on_hours == 65592);
    assert_true(h.percentage_used == NA && h.media_errors == NA);
}

static void test_sas(void **state)
{
    (void)state;
    rb_health_t h;
    s_parse("sas.json", &h); /* smartctl 7.3: scsi_model_name */
    s_read_ok(&h, "SCSI", "HITACHI H109060SESUN600G");
    assert_int_equal(h.verdict, RB_SMART_PASSED);
    assert_true(h.reallocated == 0 && h.media_errors == 0);
    assert_true(h.temperature == 26 && h.power_on_hours == 22364);
    assert_true(h.pending == NA && h.offline_unc == NA && h.crc_errors == NA);
    assert_true(h.error_log == NA && h.percentage_used == NA && h.available_spare == NA);

    s_parse("extra-sas-grown-trimmed.json", &h); /* no smartctl section at all */
    s_read_ok(&h, "SCSI", "SEAGATE ST4000NM0043");
    assert_string_equal(h.serial, "Z1Z5DWJK0000XXXXXXXX");
    assert_true(h.reallocated == 56 && h.media_errors == 0);
    assert_true(h.temperature == 34 && h.power_on_hours == 43549);
    assert_int_equal(h.exit_status, 0);

    s_parse("extra-sas-megaraid-7.1-oldkeys.json", &h); /* 7.1: model_name, no power_on_time */
    s_read_ok(&h, "SCSI", "TOSHIBA MG08SCA16TEY");
    assert_true(h.reallocated == 0 && h.media_errors == 0 && h.temperature == 31);
    assert_true(h.power_on_hours == NA);
}

static void test_nvme(void **state)
{
    (void)state;
    rb_health_t h;
    s_parse("nvme-healthy.json", &h);
    s_read_ok(&h, "NVMe", "Samsung SSD 970 EVO Plus 250GB");
    assert_int_equal(h.verdict, RB_SMART_PASSED);
    assert_true(h.media_errors == 0 && h.error_log == 22 && h.critical_warning == 0);
    assert_true(h.percentage_used == 0 && h.available_spare == 100 && h.spare_threshold == 10);
    assert_true(h.temperature == 35 && h.power_on_hours == 3149);
    assert_true(h.reallocated == NA && h.pending == NA && h.offline_unc == NA &&
                h.crc_errors == NA);

    s_parse("nvme-errors.json", &h);
    s_read_ok(&h, "NVMe", "Samsung SSD 970 EVO 500GB");
    assert_string_equal(h.serial, "S466NX0M776250H");
    assert_int_equal(h.verdict, RB_SMART_PASSED); /* still passed, exit 0 */
    assert_int_equal(h.exit_status, 0);
    assert_true(h.media_errors == 7 && h.error_log == 62 && h.critical_warning == 0);
    assert_true(h.percentage_used == 3 && h.available_spare == 99 && h.spare_threshold == 10);
    assert_true(h.temperature == 35 && h.power_on_hours == 12798);
    assert_true(h.reallocated == NA);
}

static void s_assert_unread(const rb_health_t *h)
{
    assert_string_equal(h->protocol, "");
    assert_string_equal(h->model, "");
    assert_int_equal(h->verdict, RB_SMART_UNKNOWN);
    const uint64_t *c[] = {&h->reallocated,      &h->pending,         &h->offline_unc,
                           &h->crc_errors,       &h->media_errors,    &h->error_log,
                           &h->critical_warning, &h->percentage_used, &h->available_spare,
                           &h->spare_threshold,  &h->temperature,     &h->temperature_max,
                           &h->power_on_hours};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        assert_true(*c[i] == NA);
}

static void test_not_read(void **state)
{
    (void)state;
    rb_health_t h;
    s_parse("local-vda-a.json", &h);
    assert_string_equal(h.reason, "/dev/vda: Unable to detect device type");
    assert_int_equal(h.exit_status, 1);
    s_assert_unread(&h);
    s_parse("local-loop-a.json", &h);
    assert_string_equal(h.reason, "/dev/loop0: Unable to detect device type");
    s_assert_unread(&h);

    const char *silent = "{\"smartctl\":{\"exit_status\":2}}";
    assert_int_equal(rb_health_parse(silent, strlen(silent), &h), 0);
    assert_non_null(strstr(h.reason, "exit status 2"));
    s_assert_unread(&h);

    const char *bad[] = {"{\"device\":", "not json", "", "[1,2]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(rb_health_parse(bad[i], strlen(bad[i]), &h), -EBADMSG);
        assert_non_null(strstr(h.reason, "smartctl's output is not JSON ("));
        s_assert_unread(&h);
    }
    /* A device type found, then refused (constructed after smartctl's
     * message for a PERC volume): not read, with smartctl's words. */
    const char *perc = "{\"smartctl\":{\"messages\":[{\"string\":\"DELL or MegaRaid controller, "
                       "please try adding '-d megaraid,N'\",\"severity\":\"error\"}],"
                       "\"exit_status\":2},\"device\":{\"name\":\"/dev/sda\",\"type\":\"scsi\","
                       "\"protocol\":\"SCSI\"}}";
    assert_int_equal(rb_health_parse(perc, strlen(perc), &h), 0);
    assert_string_equal(h.reason, "DELL or MegaRaid controller, please try adding '-d megaraid,N'");
    s_assert_unread(&h);

    /* Packed or out-of-range numbers: never NA by accident, never negative. */
    const char *big = "{\"device\":{\"protocol\":\"ATA\"},\"ata_smart_attributes\":{\"table\":["
                      "{\"id\":1e30,\"raw\":{\"value\":1}},{\"id\":-5,\"raw\":{\"value\":1}},"
                      "{\"id\":5,\"raw\":{\"value\":1e30,\"string\":\"x\"}},"
                      "{\"id\":197,\"raw\":{\"value\":34359738376,\"string\":\"8 (0 8)\"}},"
                      "{\"id\":198,\"raw\":{\"value\":-4}},"
                      "{\"id\":199,\"raw\":{\"value\":9007199254740993}}]}}";
    assert_int_equal(rb_health_parse(big, strlen(big), &h), 0);
    assert_true(h.reallocated == NA - 1);
    assert_true(h.pending == 8);
    assert_true(h.offline_unc == NA);
    assert_true(h.crc_errors >= 9007199254740992ull && h.crc_errors < NA - 1);
}

/* ---- rb_health_read through fork/exec ---- */

static void s_write(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

/* A stand-in smartctl: checks its arguments are --json=c -a DEV (any DEV
 * when dev is NULL), prints fixture and exits with code; other arguments
 * exit 64 with no output. */
static void s_fake(const char *path, const char *dev, const char *fixture, int code)
{
    char text[PATH_MAX * 3], check[PATH_MAX + 32] = "";
    if (dev)
        snprintf(check, sizeof check, " && [ \"$3\" = '%s' ]", dev);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "[ $# -eq 3 ] && [ \"$1\" = --json=c ] && [ \"$2\" = -a ]%s || exit 64\n"
             "cat '%s/%s'\n"
             "exit %d\n",
             check, RB_SMART_FIXTURES, fixture, code);
    s_write(path, text, 0755);
}

static int setup(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 64];
    snprintf(s_dir, sizeof s_dir, "%s/%d", RB_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", s_dir, s_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_read_fake(void **state)
{
    (void)state;
    char prog[PATH_MAX], dev[PATH_MAX];
    rb_health_t h;
    snprintf(prog, sizeof prog, "%s/smartctl", s_dir);
    snprintf(dev, sizeof dev, "%s/sdq", s_dir);
    s_write(dev, "", 0644);
    s_fake(prog, dev, "nvme-errors.json", 0);
    rb_health_read(prog, dev, s_dir, &h);
    assert_string_equal(h.dev, dev);
    s_read_ok(&h, "NVMe", "Samsung SSD 970 EVO 500GB");
    assert_true(h.media_errors == 7 && h.error_log == 62 && h.temperature == 35);

    /* The script refuses other arguments (exit 64, no output). */
    rb_health_read(prog, "/dev/other", s_dir, &h);
    assert_string_equal(h.dev, "/dev/other");
    assert_non_null(strstr(h.reason, "smartctl's output is not JSON ("));
    s_assert_unread(&h);

    /* The exit status is the process's own. */
    s_fake(prog, dev, "sata-failing.json", 216);
    rb_health_read(prog, dev, s_dir, &h);
    assert_int_equal(h.verdict, RB_SMART_FAILED);
    assert_int_equal(h.exit_status, 216);
    assert_true(h.reallocated == 1975 && h.pending == 8 && h.error_log == 56);
}

static void test_read_missing(void **state)
{
    (void)state;
    char prog[PATH_MAX], want[PATH_MAX + 64];
    rb_health_t h;
    snprintf(prog, sizeof prog, "%s/no-such-smartctl", s_dir);
    rb_health_read(prog, "/dev/sda", NULL, &h);
    snprintf(want, sizeof want, "no smartctl (Debian's smartmontools) at %s", prog);
    assert_string_equal(h.reason, want);
    assert_string_equal(h.dev, "/dev/sda");
    s_assert_unread(&h);

    /* NULL: "smartctl" searched in PATH, here a folder without one. */
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "");
    assert_non_null(saved);
    setenv("PATH", s_dir, 1);
    rb_health_read(NULL, "/dev/sda", NULL, &h);
    setenv("PATH", saved, 1);
    free(saved);
    assert_string_equal(h.reason, "no smartctl (Debian's smartmontools) in PATH");
    s_assert_unread(&h);
    printf("missing smartctl: %s\n", h.reason);
}

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Past the deadline smartctl is killed with what it started, and reaped. */
static void test_read_deadline(void **state)
{
    (void)state;
    char prog[PATH_MAX];
    rb_health_t h;
    snprintf(prog, sizeof prog, "%s/smartctl", s_dir);
    s_write(prog, "#!/bin/sh\nprintf '{\"device\":'\nsleep 600\n", 0755);
    rb_health_set_timeout_ms(200);
    double t0 = s_now();
    rb_health_read(prog, "/dev/sda", NULL, &h);
    double took = s_now() - t0;
    rb_health_set_timeout_ms(0);
    assert_string_equal(h.reason, "smartctl took more than 200 ms, killed");
    assert_true(took >= 0.19 && took < 5);
    s_assert_unread(&h);
    printf("deadline: %s after %.3f s\n", h.reason, took);
}

/* A fake sysfs tree under s_dir/sys, and a fake /dev node named name. */
static void s_node(const char *name, char *dev, size_t len)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "mkdir -p '%s/sys/block/%s/device' '%s/dev'", s_dir, name, s_dir);
    assert_int_equal(system(path), 0);
    snprintf(dev, len, "%s/dev/%s", s_dir, name);
    s_write(dev, "", 0644);
}

static void s_sysfile(const char *name, const char *file, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sys/block/%s/%s", s_dir, name, file);
    s_write(path, text, 0644);
}

/* rb_health_read of dev; asked: with a stand-in named for smartctl that
 * prints its "Unable to detect device type" answer, else with smartctl
 * from PATH, which a kind of device that has no SMART is not asked (here
 * the PATH has none). Its reason. */
static const char *s_why(const char *dev, int asked, int no_smart)
{
    static rb_health_t h;
    char prog[PATH_MAX], sys[PATH_MAX];
    snprintf(prog, sizeof prog, "%s/smartctl", s_dir);
    snprintf(sys, sizeof sys, "%s/sys", s_dir);
    s_fake(prog, NULL, "local-vda-a.json", 1);
    rb_health_read(asked ? prog : NULL, dev, sys, &h);
    s_assert_unread(&h);
    assert_int_equal(h.exit_status, asked ? 1 : 0);
    assert_int_equal(h.no_smart, no_smart);
    assert_true(!strstr(h.reason, "Unable to detect") == !asked);
    assert_true(strlen(h.reason) < sizeof h.reason);
    printf("%s: %s\n", strrchr(dev, '/') + 1, h.reason);
    return h.reason;
}

/* What the device is, from a fake sysfs: loop, virtio, dm and md devices
 * have no SMART and smartctl is not asked; a RAID volume's drives have
 * theirs, smartctl is asked and the -d type named. */
static void test_read_why(void **state)
{
    (void)state;
    char dev[PATH_MAX], link[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 64];
    s_node("loop7", dev, sizeof dev);
    snprintf(link, sizeof link, "%s/dev/by-id-link", s_dir);
    assert_int_equal(symlink(dev, link), 0); /* the kernel name is realpath's */
    snprintf(want, sizeof want, "%s: a loop device has no SMART", link);
    assert_string_equal(s_why(link, 0, 1), want);

    s_node("xvq", dev, sizeof dev); /* virtio by its driver, whatever its name */
    snprintf(path, sizeof path, "%s/sys/block/xvq/device/driver", s_dir);
    assert_int_equal(symlink("../../../bus/virtio/drivers/virtio_blk", path), 0);
    snprintf(want, sizeof want, "%s: a virtio disk has no SMART: its host's disk is not visible",
             dev);
    assert_string_equal(s_why(dev, 0, 1), want);
    s_node("vdb", dev, sizeof dev);
    assert_non_null(strstr(s_why(dev, 0, 1), ": a virtio disk has no SMART"));
    /* a program named is asked all the same; the reason adds what it is */
    assert_string_equal(s_why(dev, 1, 1), "/dev/vda: Unable to detect device type; a virtio disk "
                                          "has no SMART: its host's disk is not visible");

    s_node("dm-3", dev, sizeof dev);
    snprintf(path, sizeof path, "mkdir -p '%s/sys/block/dm-3/slaves/sdc'", s_dir);
    assert_int_equal(system(path), 0);
    assert_non_null(strstr(s_why(dev, 0, 1),
                           ": a device-mapper device has no SMART; read the disks under it (sdc)"));
    s_node("md127", dev, sizeof dev);
    assert_non_null(
        strstr(s_why(dev, 0, 1), ": an md RAID device has no SMART; read the disks under it"));

    /* RAID controllers' volumes by sysfs vendor and model; a plain disk
     * keeps smartctl's own words only. */
    static const struct {
        const char *name, *vendor, *model, *want;
    } raid[] = {
        {"sdr", "DELL    \n", "PERC H730P Mini \n",
         "(DELL PERC H730P Mini) has no SMART; read its drives with smartctl -d megaraid,N"},
        {"sds", "HP\n", "LOGICAL VOLUME\n", "smartctl -d cciss,N"},
        {"sdt", "Adaptec\n", "RAID5\n", "smartctl -d aacraid,H,L,ID"},
        {"sdu", "Areca\n", "ARC-1883-VOL#000\n", "smartctl -d areca,N"},
        {"sdv", "AMCC\n", "9650SE-4LPML DISK\n", "smartctl -d 3ware,N"},
        {"sdw", "ATA\n", "ST4000NM0033\n", NULL},
    };
    for (size_t i = 0; i < sizeof raid / sizeof raid[0]; i++) {
        s_node(raid[i].name, dev, sizeof dev);
        s_sysfile(raid[i].name, "device/vendor", raid[i].vendor);
        s_sysfile(raid[i].name, "device/model", raid[i].model);
        if (raid[i].want)
            assert_non_null(strstr(s_why(dev, 1, 0), raid[i].want));
        else
            assert_string_equal(s_why(dev, 1, 0), "/dev/vda: Unable to detect device type");
    }
}

/* This machine's smartctl on its virtio root disk, and on a loop device
 * when it may make one; skipped, with a note, where it cannot. */
static void test_read_real(void **state)
{
    (void)state;
    const char *smartctl = "/usr/sbin/smartctl";
    rb_health_t h;
    if (access(smartctl, X_OK) != 0) {
        printf("note: skipped, no %s (Debian's smartmontools)\n", smartctl);
        return;
    }
    struct stat st;
    if (stat("/dev/vda", &st) == 0 && S_ISBLK(st.st_mode)) {
        rb_health_read(NULL, "/dev/vda", NULL, &h); /* not asked: virtio */
        printf("/dev/vda: %s\n", h.reason);
        assert_string_equal(h.dev, "/dev/vda");
        assert_non_null(
            strstr(h.reason, "a virtio disk has no SMART: its host's disk is not visible"));
        s_assert_unread(&h);
        /* named, it is asked: its own answer, and what the disk is */
        rb_health_read(smartctl, "/dev/vda", NULL, &h);
        printf("/dev/vda, %s asked: %s\n", smartctl, h.reason);
        assert_non_null(strstr(h.reason, "/dev/vda: Unable to detect device type; a virtio disk"));
        assert_int_equal(h.no_smart, 1);
        s_assert_unread(&h);
    } else {
        printf("note: skipped the virtio disk: no /dev/vda here\n");
    }
    if (geteuid() != 0 || system("command -v losetup >/dev/null 2>&1") != 0) {
        printf("note: skipped the loop device: needs root and losetup\n");
        return;
    }
    char img[PATH_MAX], cmd[PATH_MAX * 2], loop[64] = "";
    snprintf(img, sizeof img, "%s/loop.img", s_dir);
    snprintf(cmd, sizeof cmd, "truncate -s 1M '%s' && losetup -f --show '%s' 2>/dev/null", img,
             img);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    if (!fgets(loop, sizeof loop, p))
        loop[0] = '\0';
    pclose(p);
    loop[strcspn(loop, "\n")] = '\0';
    if (strncmp(loop, "/dev/loop", 9) != 0) {
        printf("note: skipped the loop device: losetup made none\n");
        return;
    }
    rb_health_read(smartctl, loop, NULL, &h);
    snprintf(cmd, sizeof cmd, "losetup -d '%s'", loop);
    int detached = system(cmd);
    printf("%s: %s\n", loop, h.reason);
    assert_int_equal(detached, 0);
    assert_non_null(strstr(h.reason, "a loop device has no SMART"));
    s_assert_unread(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sata),
        cmocka_unit_test(test_sas),
        cmocka_unit_test(test_nvme),
        cmocka_unit_test(test_not_read),
        cmocka_unit_test_setup_teardown(test_read_fake, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_why, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_real, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
