/* report.html's "Drive health": the drives read before and after the run
 * (rb_drives.h), the worse first, their drive-health findings, and the disks
 * not read grouped by device and reason, as report.txt has them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rb_drives.h"
#include "rb_html_int.h"
#include "rb_svg.h"

/* Groups of disks not read listed (one per device and reason); the rest counted. */
#define S_NOT_READ_GROUPS 8
/* Nodes named in a group of disks not read; the rest counted. */
#define S_GROUP_NODES 8

/* A counter's cell: "before&#8594;after" where it grew (marked), else its
 * value, "-" when the drive does not report it. */
static void s_td_counter(FILE *f, const rb_drive_t *d, rb_health_counter_t c)
{
    char cell[64];
    fprintf(f, "<td class=\"n%s\">%s</td>", d->grew & (1u << c) ? " bad" : "",
            rb_drive_cell(d, c, "&#8594;", cell, sizeof cell));
}

static void s_td_value(FILE *f, uint64_t v)
{
    if (v == RB_HEALTH_NA)
        fputs("<td class=\"n\">-</td>", f);
    else
        fprintf(f, "<td class=\"n\">%llu</td>", (unsigned long long)v);
}

static void s_td_text(FILE *f, const char *s)
{
    fputs("<td>", f);
    rb_svg_esc(f, s && s[0] ? s : "-");
    fputs("</td>", f);
}

/* The table of the drives read, the failing and worse first. */
static void s_table(FILE *f, const rb_drives_t *d, int serials)
{
    static const rb_health_counter_t cols[] = {RB_HC_REALLOCATED, RB_HC_PENDING, RB_HC_CRC_ERRORS,
                                               RB_HC_MEDIA_ERRORS, RB_HC_ERROR_LOG};
    fprintf(f,
            "<table>\n<tr><th>node</th><th>device</th><th>model</th>%s<th>status</th>"
            "<th class=\"n\">reallocated</th><th class=\"n\">pending</th>"
            "<th class=\"n\">CRC</th><th class=\"n\">media errors</th>"
            "<th class=\"n\">error log</th><th class=\"n\">max &#176;C</th>"
            "<th class=\"n\">power-on hours</th></tr>\n",
            serials ? "<th>serial</th>" : "");
    for (uint32_t i = 0; i < d->n; i++) {
        const rb_drive_t *x = &d->d[i];
        if (x->status == RB_DRIVE_NOT_READ)
            continue;
        const rb_health_t *h = rb_drive_last(x);
        fputs("<tr>", f);
        s_td_text(f, x->node);
        s_td_text(f, h->dev);
        s_td_text(f, h->model);
        if (serials)
            s_td_text(f, h->serial);
        fprintf(f, "<td class=\"%s\">%s</td>", x->status == RB_DRIVE_OK ? "pass" : "fail",
                rb_drive_status_name(x->status));
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            s_td_counter(f, x, cols[c]);
        s_td_value(f, h->temperature_max);
        s_td_value(f, h->power_on_hours);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* A drive-health finding per drive worse or failing. */
static void s_findings(FILE *f, const rb_drives_t *d, int serials)
{
    char ev[512], name[RB_DRIVE_NAME_MAX];
    if (!d->nworse)
        return;
    fputs("<ul class=\"notes\">\n", f);
    for (uint32_t i = 0; i < d->n; i++) {
        const rb_drive_t *x = &d->d[i];
        if (x->status != RB_DRIVE_WORSE && x->status != RB_DRIVE_FAILING)
            continue;
        const rb_health_t *h = rb_drive_last(x);
        fputs("<li class=\"bad\">Finding, drive-health: ", f);
        rb_svg_esc(f, rb_drive_name(x->node, h, serials, name, sizeof name));
        fputs(": ", f);
        rb_svg_esc(f, rb_drive_evidence(x, ev, sizeof ev));
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* The disks not read, one line per reason (the same words as report.txt's)
 * with the disks it holds for. */
static void s_not_read(FILE *f, const rb_drives_t *d)
{
    uint32_t groups = 0;
    if (d->n == d->nread)
        return;
    fputs("<ul class=\"notes\">\n", f);
    for (uint32_t i = 0, e; i < d->n; i = e) {
        const rb_drive_t *x = &d->d[i];
        e = rb_drives_group_end(d, i);
        if (x->status != RB_DRIVE_NOT_READ || groups++ >= S_NOT_READ_GROUPS)
            continue;
        fprintf(f, "<li class=\"note\">not read (%u): ", e - i);
        rb_svg_esc(f, rb_drive_kind(x));
        fputs(": ", f);
        for (uint32_t k = i; k < e && k < i + S_GROUP_NODES; k++) {
            fputs(k > i ? ", " : "", f);
            rb_svg_esc(f, d->d[k].node);
            fputc(' ', f);
            rb_svg_esc(f, rb_drive_last(&d->d[k])->dev);
        }
        if (e - i > S_GROUP_NODES)
            fprintf(f, " and %u more", e - i - S_GROUP_NODES);
        fputs("</li>\n", f);
    }
    if (groups > S_NOT_READ_GROUPS)
        fprintf(f,
                "<li class=\"note\">and %u more reasons disks were not read (summary.json&#8217;s "
                "drive_health)</li>\n",
                groups - S_NOT_READ_GROUPS);
    fputs("</ul>\n", f);
}

int rb_html_drives(const rb_run_result_t *r, FILE *f)
{
    rb_drives_t d;
    if (!rb_drives_shown(r))
        return 0;
    if (rb_drives_build(r, &d) < 0)
        return -ENOMEM;
    if (r->live) { /* the readings after the run have not come: nothing to compare yet */
        uint32_t before = d.nbefore;
        fprintf(f,
                "<section id=\"drive-health\">\n<h2>Drive health</h2>\n<p class=\"note\">smartctl "
                "before the run: %u drive%s read, %u not read; each is read again after the run "
                "and compared then.</p>\n</section>\n",
                before, before == 1 ? "" : "s", d.n - before);
        rb_drives_fini(&d);
        return 0;
    }
    fprintf(f,
            "<section id=\"drive-health\">\n<h2>Drive health</h2>\n<p class=\"note\">smartctl "
            "before and after the run: %u drive%s read, <span class=\"%s\">%u worse</span>",
            d.nread, d.nread == 1 ? "" : "s", d.nworse ? "fail" : "pass", d.nworse);
    if (d.n - d.nread)
        fprintf(f, ", %u not read", d.n - d.nread);
    if (d.nsilent)
        fprintf(f, "; %u node%s sent no reading", d.nsilent, d.nsilent == 1 ? "" : "s");
    fputs(d.nread ? ". A counter that grew shows before&#8594;after; &#8220;-&#8221;: the drive "
                    "does not report it.</p>\n"
                  : ".</p>\n",
          f);
    if (d.nread)
        s_table(f, &d, !r->no_inventory);
    s_findings(f, &d, !r->no_inventory);
    s_not_read(f, &d);
    fputs("</section>\n", f);
    rb_drives_fini(&d);
    return 0;
}
