/* Write buffers that compress and dedupe as fio's (rb_fill.h). A unique
 * buffer is a run of chunks, each (100 - pct) % random bytes then pct %
 * fixed bytes. With dedupe_mode=repeat a repeated buffer replays the
 * generator from where the last unique buffer began, so it is that buffer
 * byte for byte. With working_set every unique buffer is a page made from
 * its own generator, seeded from the worker's base and the page's number,
 * so that any page of any worker can be made again: a repeated buffer is a
 * page of the working set drawn at random, as fio keeps a seed per page. */
#include "rb_fill.h"

#include <string.h>

/* Tells a worker's fill generators from its offsets' (same seed). */
#define S_FILL_SALT 0xbb67ae8584caa73bull

bool rb_fill_wanted(const rb_job_spec_t *js)
{
    return js->compress_pct || js->dedupe_pct;
}

void rb_fill_init(rb_fill_t *f, const rb_job_spec_t *js, uint64_t min_write, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->base = seed ^ S_FILL_SALT;
    rb_rand_seed(&f->rng, f->base);
    rb_rand_seed(&f->pick, f->base ^ 0x6a09e667f3bcc909ull);
    rb_rand_seed(&f->page, f->base ^ 0x3c6ef372fe94f82bull);
    f->last = f->rng;
    f->pct = js->compress_pct > 100 ? 100 : js->compress_pct;
    f->dedupe = js->dedupe_pct > 100 ? 100 : js->dedupe_pct;
    f->mode = js->dedupe_mode;
    f->chunk = js->compress_chunk;
    if (f->chunk == 0 || (min_write && f->chunk > min_write))
        f->chunk = min_write ? min_write : 1;
    if (js->buffer_mode == RB_BUF_PATTERN && js->pattern_len) {
        f->pattern = js->pattern;
        f->pattern_len = js->pattern_len;
    }
    /* fio: the worker's size times the percentage, in smallest writes */
    uint32_t ws = js->dedupe_ws_pct > 100 ? 100 : js->dedupe_ws_pct;
    uint64_t bytes = js->size / 100 * ws + js->size % 100 * ws / 100;
    f->pages = min_write ? bytes / min_write : 0;
    if (f->pages == 0)
        f->pages = 1;
    f->per_peer = f->pages;
}

void rb_fill_share(rb_fill_t *f, const uint64_t *seeds, uint32_t n, uint32_t self)
{
    if (f->mode != RB_DEDUPE_WORKING_SET || !seeds || n == 0 || self >= n)
        return;
    f->peers = seeds;
    f->npeers = n;
    f->self = self;
    f->per_peer = f->pages / n ? f->pages / n : 1;
}

/* len fixed bytes: the pattern from its start, or zeros. */
static void s_fixed(const rb_fill_t *f, uint8_t *p, size_t len)
{
    if (!f->pattern) {
        memset(p, 0, len);
        return;
    }
    while (len) {
        size_t n = len < f->pattern_len ? len : f->pattern_len;
        memcpy(p, f->pattern, n);
        p += n;
        len -= n;
    }
}

/* One buffer from generator r. */
static void s_make(const rb_fill_t *f, rb_rand_t *r, uint8_t *p, size_t len)
{
    if (!f->pct) {
        rb_rand_fill(r, p, len);
        return;
    }
    while (len) {
        size_t c = f->chunk < len ? (size_t)f->chunk : len;
        size_t rnd = (size_t)((uint64_t)c * (100 - f->pct) / 100);
        rb_rand_fill(r, p, rnd);
        s_fixed(f, p + rnd, c - rnd);
        p += c;
        len -= c;
    }
}

/* Page k of the worker whose fill base is base, made into buf. */
static void s_page(const rb_fill_t *f, uint64_t base, uint64_t k, uint8_t *buf, size_t len)
{
    uint64_t m = k + 1;
    m = (m ^ (m >> 33)) * 0xff51afd7ed558ccdull;
    m = (m ^ (m >> 33)) * 0xc4ceb9fe1a85ec53ull;
    rb_rand_t r;
    rb_rand_seed(&r, base ^ m ^ (m >> 33));
    s_make(f, &r, buf, len);
}

/* working_set: a unique buffer (the worker's next page), or a repeated one:
 * at 100 % every buffer is the first page, as fio never moves on then. */
static void s_working_set(rb_fill_t *f, bool dup, uint8_t *buf, size_t len)
{
    if (!dup) {
        s_page(f, f->base, f->uniq++, buf, len);
        return;
    }
    if (f->dedupe >= 100) {
        s_page(f, f->base, 0, buf, len);
        return;
    }
    uint64_t i = rb_rand_next(&f->page) % f->pages;
    if (!f->peers) {
        s_page(f, f->base, i, buf, len);
        return;
    }
    uint32_t owner = (uint32_t)((f->self + i / f->per_peer) % f->npeers);
    s_page(f, f->peers[owner] ^ S_FILL_SALT, i % f->per_peer, buf, len);
}

void rb_fill_buf(rb_fill_t *f, void *buf, size_t len)
{
    bool dup = f->dedupe && rb_rand_next(&f->pick) % 100 < f->dedupe;
    if (f->mode == RB_DEDUPE_WORKING_SET) {
        s_working_set(f, dup, buf, len);
        return;
    }
    if (dup) {
        rb_rand_t r = f->last;
        s_make(f, &r, buf, len);
        return;
    }
    f->last = f->rng;
    s_make(f, &f->rng, buf, len);
}
