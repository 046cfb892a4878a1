/* [rack NAME] sections: which nodes stand in which rack, for the
 * reports' rack roll-up (the agents' --rack says it too). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_units.h"
#include "rb_names.h"

/* "rack NAME" → NAME (trimmed); NULL for any other section. */
static char *s_rack_section(char *name)
{
    if (strncmp(name, "rack", 4) != 0 || (name[4] != ' ' && name[4] != '\t'))
        return NULL;
    name += 5;
    while (*name == ' ' || *name == '\t')
        name++;
    return name;
}

void rb_plan_racks_free(rb_plan_rack_t *racks, uint32_t n)
{
    for (uint32_t i = 0; racks && i < n; i++)
        free(racks[i].nodes);
    free(racks);
}

const char *rb_plan_rack_of(const rb_plan_t *p, const char *node)
{
    for (uint32_t r = 0; p && r < p->nracks; r++)
        for (uint32_t i = 0; i < p->racks[r].nnodes; i++)
            if (!strcmp(p->racks[r].nodes[i], node))
                return p->racks[r].name;
    return NULL;
}

/* Starts [rack NAME] at line. */
int rb_plan_rack_begin(rb_plan_parser_t *ps, char *name, unsigned line)
{
    size_t len = strlen(name);
    if (!len || len >= RB_NAME_MAX || rb_names_span(name) != len)
        return rb_plan_fail(ps, line, "rack name '%.64s': use 1-%d of A-Z a-z 0-9 . _ -", name,
                            RB_NAME_MAX - 1);
    for (uint32_t i = 0; i < ps->nracks; i++)
        if (!strcmp(ps->racks[i].name, name))
            return rb_plan_fail(ps, line, "[rack %s] again (first at line %u)", name,
                                ps->racks[i].line);
    if (ps->nracks == RB_PLAN_MAX_RACKS)
        return rb_plan_fail(ps, line, "more than %d [rack] sections", RB_PLAN_MAX_RACKS);
    if (ps->nracks == ps->cap_racks) {
        uint32_t cap = ps->cap_racks ? 2 * ps->cap_racks : 8;
        rb_plan_rack_t *r = realloc(ps->racks, cap * sizeof *r);
        if (!r)
            return rb_plan_nomem(ps);
        ps->racks = r;
        ps->cap_racks = cap;
    }
    rb_plan_rack_t *r = &ps->racks[ps->nracks++];
    memset(r, 0, sizeof *r);
    memcpy(r->name, name, len + 1);
    r->line = line;
    return 0;
}

/* Adds one node name to the current rack. */
static int s_rack_add(rb_plan_parser_t *ps, const char *node, unsigned line)
{
    rb_plan_rack_t *r = &ps->racks[ps->nracks - 1];
    size_t len = strlen(node);
    if (!len || len >= RB_NAME_MAX || rb_names_span(node) != len)
        return rb_plan_fail(ps, line, "[rack %s]: node name '%.64s': use 1-%d of A-Z a-z 0-9 . _ -",
                            r->name, node, RB_NAME_MAX - 1);
    for (uint32_t k = 0; k < ps->nracks; k++)
        for (uint32_t i = 0; i < ps->racks[k].nnodes; i++)
            if (!strcmp(ps->racks[k].nodes[i], node))
                return rb_plan_fail(ps, line, "node %s is already in [rack %s] (line %u)", node,
                                    ps->racks[k].name, ps->racks[k].line);
    if (ps->rack_nodes == RB_PLAN_MAX_RACK_NODES)
        return rb_plan_fail(ps, line, "more than %d nodes in [rack] sections",
                            RB_PLAN_MAX_RACK_NODES);
    char(*n)[RB_NAME_MAX] = realloc(r->nodes, (r->nnodes + 1) * sizeof *n);
    if (!n)
        return rb_plan_nomem(ps);
    r->nodes = n;
    memcpy(r->nodes[r->nnodes++], node, len + 1);
    ps->rack_nodes++;
    return 0;
}

/* nodes=a,b,c of a [rack NAME] section; "node[01-08]" stands for node01 ..
 * node08 (the width of the first number is kept). */
int rb_plan_rack_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    if (strcmp(key, "nodes") != 0)
        return rb_plan_fail(ps, line, "[rack %s]: unknown option '%.64s' (a rack has nodes=a,b,c)",
                            ps->racks[ps->nracks - 1].name, key);
    if (!val || !*val)
        return rb_plan_fail(ps, line, "nodes= needs node names: nodes=a,b,c");
    for (char *save = NULL, *t = strtok_r(val, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *name = rb_text_trim(t), *lb = strchr(name, '['), *rb = lb ? strchr(lb, ']') : NULL;
        unsigned lo, hi;
        int w1 = 0, w2 = 0;
        if (!lb) {
            int rc = s_rack_add(ps, name, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (!rb || sscanf(lb, "[%u%n-%u%n]", &lo, &w1, &hi, &w2) != 2 || lb[w2] != ']' || hi < lo ||
            hi - lo >= RB_PLAN_MAX_RACK_NODES)
            return rb_plan_fail(ps, line, "nodes: '%.64s': a range is written prefix[01-16]suffix",
                                name);
        for (unsigned i = lo; i <= hi; i++) {
            char one[RB_NAME_MAX * 2];
            snprintf(one, sizeof one, "%.*s%0*u%s", (int)(lb - name), name, w1 - 1, i, rb + 1);
            int rc = s_rack_add(ps, one, line);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

bool rb_plan_rack_match(char *name, char **arg)
{
    *arg = s_rack_section(name);
    return *arg != NULL;
}

int rb_plan_rack_end(rb_plan_parser_t *ps)
{
    if (!ps->racks[ps->nracks - 1].nnodes)
        return rb_plan_fail(ps, ps->racks[ps->nracks - 1].line,
                            "[rack %s] lists no nodes (nodes=a,b,c)",
                            ps->racks[ps->nracks - 1].name);
    return 0;
}

int rb_plan_rack_print(const rb_plan_t *p, FILE *f)
{
    for (uint32_t r = 0; r < p->nracks; r++) {
        fprintf(f, "\n[rack %s]\nnodes=", p->racks[r].name);
        for (uint32_t i = 0; i < p->racks[r].nnodes; i++)
            fprintf(f, "%s%s", i ? "," : "", p->racks[r].nodes[i]);
        fprintf(f, "\n");
    }
    return 0;
}
