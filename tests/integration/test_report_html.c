/* report.html from a real run: `rackbench run --local 3` writes then reads
 * with O_DIRECT for a few seconds, sampling every 200 ms. The page must be
 * well-formed (xmllint), and a headless Chromium must load it from disk,
 * build the charts (its DOM holds the SVG elements and the phase names) and
 * paint them (the screenshot is not blank: png_stats.py counts its colours).
 * Exits 77 (skipped) only when chromium or python3 is not installed, after
 * the other checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"

/* The headless flags: as root Chromium refuses to start without
 * --no-sandbox; its own profile folder so that runs do not meet. */
#define S_CHROMIUM                                                                                 \
    "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "          \
    "--hide-scrollbars --no-first-run --user-data-dir='%s/chromium' --window-size=1400,2000"

static const char *s_plan_fmt = "; 2 s a phase: 32 MiB at 16 MiB/s per node\n"
                                "[global]\n"
                                "directory=%s/data\n"
                                "bs=1M\n"
                                "size=32M\n"
                                "direct=1\n"
                                "ioengine=sync\n"
                                "rate=16M\n"
                                "filename_format=stream.$jobnum.$filenum\n"
                                "sample_interval=200ms\n"
                                "\n"
                                "[seqwrite]\n"
                                "rw=write\n"
                                "\n"
                                "[seqread]\n"
                                "stonewall\n"
                                "rw=read\n";

static int s_have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

static int s_browser; /* chromium and python3 are installed */

static int s_count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void test_report_html(void **state)
{
    (void)state;
    const char *dir = it_scratch("html");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200], page[4400];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code =
        it_sh(out, err, "'%s' run --local 3 --out '%s' '%s'", it_bin("rackbench"), runs, plan);
    assert_int_equal(it_show_failure(code, err), 0);
    assert_int_equal(it_run_folder(runs, folder, sizeof folder), 0);

    /* the run wrote it, whole, with a chart of every phase */
    snprintf(page, sizeof page, "%s/report.html", folder);
    char *html = it_read(page);
    assert_non_null(html);
    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(html, "</html>\n"));
    assert_null(strstr(html, "no samples"));
    /* per phase: bandwidth, per node, IOPS and latency per direction, the
     * hosts, latency percentiles (and the NICs where they moved bytes) */
    assert_true(s_count(html, "<svg") >= 2 * 6);
    assert_int_equal(s_count(html, "IOPS over time, per direction</h3>"), 2);
    assert_int_equal(s_count(html, "Latency over time, per direction</h3>"), 2);
    assert_int_equal(s_count(html, "Hosts over time: CPU and devices</h3>"), 2);
    /* the summary first: the verdict and each phase's figures */
    const char *sum = strstr(html, "<section id=\"summary\">");
    assert_non_null(sum);
    assert_true(sum < strstr(html, "<section id=\"phase-1\">"));
    assert_non_null(strstr(sum, "<a href=\"#phase-1\">seqwrite</a>"));
    assert_non_null(strstr(sum, "<a href=\"#phase-2\">seqread</a>"));
    assert_null(strstr(html, " MB/s"));
    assert_null(strstr(html, "http:"));
    assert_null(strstr(html, "<script"));
    int nsvg = s_count(html, "<svg");
    free(html);
    if (s_have("xmllint"))
        assert_int_equal(it_show_failure(it_sh(out, err, "xmllint --noout '%s'", page), err), 0);
    else
        fprintf(stderr, "xmllint is not installed: well-formedness not checked\n");
    if (!s_browser) {
        it_rmtree(dir);
        return;
    }

    /* Chromium's DOM after loading the file: it parsed the SVG as SVG */
    code = it_sh(out, err, S_CHROMIUM " --dump-dom 'file://%s'", dir, page);
    assert_int_equal(it_show_failure(code, err), 0);
    char *dom = it_read(out);
    assert_non_null(dom);
    assert_int_equal(s_count(dom, "<svg"), nsvg);
    assert_true(s_count(dom, "<polyline") >= 2 * 4); /* 3 nodes and the cluster, each phase */
    assert_true(s_count(dom, "<rect class=\"bar\"") == 2 * 3);
    assert_non_null(strstr(dom, "<section id=\"summary\">"));
    assert_non_null(strstr(dom, "Phase 1/2: seqwrite"));
    assert_non_null(strstr(dom, "Phase 2/2: seqread"));
    assert_non_null(strstr(dom, "<title>seqwrite: bandwidth over time"));
    assert_non_null(strstr(dom, "local-3"));
    free(dom);

    /* ... and painted it: a screenshot with text, lines and bars, not one colour */
    char png[4400];
    snprintf(png, sizeof png, "%s/report.png", dir);
    code = it_sh(out, err, S_CHROMIUM " --screenshot='%s' 'file://%s'", dir, png, page);
    assert_int_equal(it_show_failure(code, err), 0);
    code = it_sh(out, err, "python3 '%s/tests/integration/png_stats.py' '%s'", RB_IT_SRC, png);
    assert_int_equal(it_show_failure(code, err), 0);
    char *stats = it_read(out);
    assert_non_null(stats);
    unsigned w = 0, h = 0, colours = 0, permille = 0;
    assert_int_equal(sscanf(stats, "%u %u %u %u", &w, &h, &colours, &permille), 4);
    fprintf(stderr, "screenshot %ux%u: %u colours, %u/1000 of the pixels not background\n", w, h,
            colours, permille);
    free(stats);
    assert_int_equal(w, 1400);
    assert_int_equal(h, 2000);
    assert_true(colours > 10);
    assert_true(permille >= 5);
    it_rmtree(dir);
}

int main(void)
{
    s_browser = s_have("chromium") && s_have("python3");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_html),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (rc == 0 && !s_browser) {
        fprintf(stderr, "chromium or python3 is not installed: the browser checks were skipped "
                        "(deploy/test.sh installs them)\n");
        return 77;
    }
    return rc;
}
