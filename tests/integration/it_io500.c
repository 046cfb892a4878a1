/* IO500's scores of a run checked from its own phase figures (it_io500.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "it_io500.h"

const rb_json_t *it_phase(const rb_json_t *j, const char *name)
{
    const rb_json_t *phases = rb_json_get(j, "phases");
    for (size_t i = 0; i < rb_json_len(phases); i++)
        if (!strcmp(rb_json_str(rb_json_get(rb_json_at(phases, i), "name")), name))
            return rb_json_at(phases, i);
    fail_msg("no phase %s", name);
    return NULL;
}

/* The figure IO500's block gives phase name is v (within rounding). */
static void s_figure(const rb_json_t *io, const char *name, double v)
{
    assert_true(v > 0);
    double got = rb_json_num(rb_json_get(rb_json_get(io, "phases"), name), 0);
    if (fabs(got - v) > 1e-5 * v)
        fail_msg("io500 %s: %g, its phases give %g", name, got, v);
}

void it_check_io500(const rb_json_t *j, const char *where)
{
    const char *bw[] = {"ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read"};
    const char *md[][2] = {{"mdtest-easy-write", "mdtest-easy.create"},
                           {"mdtest-hard-write", "mdtest-hard.create"},
                           {"find", NULL},
                           {"mdtest-easy-stat", "mdtest-easy.stat"},
                           {"mdtest-hard-stat", "mdtest-hard.stat"},
                           {"mdtest-easy-delete", "mdtest-easy.delete"},
                           {"mdtest-hard-read", "mdtest-hard.read"},
                           {"mdtest-hard-delete", "mdtest-hard.delete"}};
    const rb_json_t *io = rb_json_get(j, "io500");
    assert_non_null(io);
    double lb = 0, lm = 0;
    for (int i = 0; i < 4; i++) {
        double v = rb_json_num(rb_json_get(it_phase(j, bw[i]), "aggregate_bw"), 0) / 1073741824.0;
        s_figure(io, bw[i], v);
        lb += log(v) / 4;
    }
    const rb_json_t *fe = it_phase(j, "mdtest-easy.find"), *fh = it_phase(j, "mdtest-hard.find");
    double examined =
        rb_json_num(rb_json_get(fe, "ops"), 0) + rb_json_num(rb_json_get(fh, "ops"), 0);
    double took =
        rb_json_num(rb_json_get(fe, "window_s"), 0) + rb_json_num(rb_json_get(fh, "window_s"), 0);
    assert_true(examined > 0 && took > 0);
    assert_true(rb_json_num(rb_json_get(io, "find_examined"), 0) == examined);
    assert_true(rb_json_num(rb_json_get(io, "found"), -1) ==
                rb_json_num(rb_json_get(fe, "found"), -1) +
                    rb_json_num(rb_json_get(fh, "found"), -1));
    for (int i = 0; i < 8; i++) {
        double v = md[i][1] ? rb_json_num(rb_json_get(it_phase(j, md[i][1]), "iops"), 0) / 1000.0
                            : examined / took / 1000.0;
        s_figure(io, md[i][0], v);
        lm += log(v) / 8;
    }
    double b = exp(lb), m = exp(lm), t = sqrt(b * m);
    fprintf(stderr, "io500 %s (not valid): bw %.4f GiB/s, md %.4f kIOPS, total %.4f\n", where, b, m,
            t);
    assert_true(fabs(rb_json_num(rb_json_get(io, "bw_score_gib_s"), 0) - b) <= 1e-5 * b);
    assert_true(fabs(rb_json_num(rb_json_get(io, "md_score_kiops"), 0) - m) <= 1e-5 * m);
    assert_true(fabs(rb_json_num(rb_json_get(io, "score"), 0) - t) <= 1e-5 * t);
    assert_false(rb_json_bool(rb_json_get(io, "valid"), 1));
}
