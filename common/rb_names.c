/* An index of names kept elsewhere (rb_names.h). */
#include "rb_names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t s_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The slot holding name, or the free slot where it would go. */
static uint32_t *s_slot(const rb_names_t *x, const char *name, rb_name_at_fn at, const void *ctx)
{
    uint32_t mask = x->nslots - 1;
    for (uint32_t i = s_hash(name) & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &x->slots[i];
        if (!*slot || strcmp(at(ctx, *slot - 1), name) == 0)
            return slot;
    }
}

uint32_t rb_names_find(const rb_names_t *x, const char *name, rb_name_at_fn at, const void *ctx)
{
    if (!x->nslots)
        return UINT32_MAX;
    uint32_t *slot = s_slot(x, name, at, ctx);
    return *slot ? *slot - 1 : UINT32_MAX;
}

void rb_names_put(rb_names_t *x, uint32_t i, rb_name_at_fn at, const void *ctx)
{
    *s_slot(x, at(ctx, i), at, ctx) = i + 1;
}

void rb_names_rebuild(rb_names_t *x, uint32_t n, rb_name_at_fn at, const void *ctx)
{
    if (x->nslots)
        memset(x->slots, 0, x->nslots * sizeof *x->slots);
    for (uint32_t i = 0; i < n; i++)
        rb_names_put(x, i, at, ctx);
}

int rb_names_grow(rb_names_t *x, uint32_t have, rb_name_at_fn at, const void *ctx)
{
    if (2 * ((uint64_t)have + 1) <= x->nslots)
        return 0;
    uint32_t nslots = x->nslots ? 2 * x->nslots : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    free(x->slots);
    x->slots = slots;
    x->nslots = nslots;
    rb_names_rebuild(x, have, at, ctx);
    return 0;
}

void rb_names_fini(rb_names_t *x)
{
    free(x->slots);
    x->slots = NULL;
    x->nslots = 0;
}

static const char *s_array_name(const void *ctx, uint32_t i)
{
    const rb_names_array_t *x = ctx;
    return x->base + (size_t)i * x->stride + x->off;
}

int rb_names_array_build(rb_names_array_t *x, const void *base, size_t stride, size_t off,
                         uint32_t n)
{
    *x = (rb_names_array_t){.base = base, .stride = stride, .off = off, .n = n};
    for (uint32_t i = 0; i < n; i++) {
        if (rb_names_grow(&x->names, i, s_array_name, x) < 0) {
            rb_names_fini(&x->names);
            return -ENOMEM;
        }
        if (rb_names_find(&x->names, s_array_name(x, i), s_array_name, x) == UINT32_MAX)
            rb_names_put(&x->names, i, s_array_name, x);
    }
    return 0;
}

uint32_t rb_names_array_find(const rb_names_array_t *x, const char *name)
{
    uint32_t i = name ? rb_names_find(&x->names, name, s_array_name, x) : UINT32_MAX;
    return i < x->n ? i : x->n;
}

void rb_names_array_fini(rb_names_array_t *x)
{
    rb_names_fini(&x->names);
}

int rb_names_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

size_t rb_names_span(const char *s)
{
    size_t n = 0;
    while (s[n] && rb_names_char(s[n]))
        n++;
    return n;
}

int rb_names_in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *c = list; c && *c;) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == n && !strncmp(c, name, n))
            return 1;
        c = end ? end + 1 : NULL;
    }
    return 0;
}
