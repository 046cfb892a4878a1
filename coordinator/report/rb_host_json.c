/* A node's "host" in summary.json, written from its HELLO and read back
 * into one, so that a report of a folder shows the same inventory as the run. */
#include "rb_host_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const s_access[] = {"none", "read", "write"};

const char *rb_host_access_name(uint32_t access)
{
    return access <= RB_DEV_WRITE ? s_access[access] : "none";
}

void rb_host_json_dev(rb_jw_t *w, const rb_dev_id_t *d)
{
    rb_jw_str(w, "path", d->path);
    rb_jw_str(w, "name", d->name);
    rb_jw_str(w, "model", d->model);
    rb_jw_str(w, "vendor", d->vendor);
    rb_jw_str(w, "serial", d->serial);
    rb_jw_str(w, "firmware", d->firmware);
    rb_jw_u64(w, "size", d->size);
    rb_jw_bool(w, "rotational", d->rotational);
    rb_jw_u64(w, "logical_block_size", d->lbs);
    rb_jw_u64(w, "physical_block_size", d->pbs);
    rb_jw_str(w, "scheduler", d->scheduler);
    rb_jw_u64(w, "read_ahead_kb", d->read_ahead_kb);
    rb_jw_u64(w, "nr_requests", d->nr_requests);
    rb_jw_u64(w, "queue_depth", d->queue_depth);
}

static void s_json_devices(rb_jw_t *w, const rb_host_t *h)
{
    rb_jw_arr_begin(w, "devices");
    rb_dev_id_t tmp;
    for (uint32_t k = 0; k < h->ndevs; k++) {
        const rb_dev_id_t *d = rb_host_dev(h, k, &tmp);
        rb_jw_obj_begin(w, NULL);
        rb_host_json_dev(w, d);
        rb_jw_str(w, "access", rb_host_access_name(d->access));
        rb_jw_str(w, "use", d->use);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    if (h->ndevs_seen > h->ndevs)
        rb_jw_u64(w, "devices_seen", h->ndevs_seen);
}

void rb_host_json_write(rb_jw_t *w, const rb_host_t *h)
{
    rb_jw_obj_begin(w, "host");
    rb_jw_str(w, "kernel", h->kernel);
    rb_jw_str(w, "cpu_model", h->cpu_model);
    rb_jw_arr_begin(w, "nics");
    for (uint32_t k = 0; k < h->nnics && k < RB_TELEM_NICS; k++) {
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", h->nics[k].name);
        rb_jw_u64(w, "speed_mbps", h->nics[k].speed_mbps);
        rb_jw_str(w, "mac", h->nics[k].mac);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_arr_begin(w, "roots");
    rb_root_info_t tmp;
    for (uint32_t k = 0; k < h->nroots; k++) {
        const rb_root_info_t *r = rb_host_root(h, k, &tmp);
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "path", r->path);
        rb_jw_str(w, "fs_type", r->fs_type);
        rb_jw_str(w, "source", r->source);
        rb_jw_str(w, "options", r->options);
        rb_jw_u64(w, "size", r->total_bytes);
        rb_jw_u64(w, "free", r->free_bytes);
        rb_jw_str(w, "dev_model", r->dev_model);
        rb_jw_str(w, "dev_serial", r->dev_serial);
        rb_jw_bool(w, "dev_rotational", r->dev_rotational);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    s_json_devices(w, h);
    rb_jw_obj_end(w);
}

static uint32_t s_u32(const rb_json_t *o, const char *key)
{
    uint64_t v = rb_json_get_u64(o, key);
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void rb_host_json_dev_read(const rb_json_t *x, rb_dev_id_t *d)
{
    rb_json_get_str(x, "path", d->path, sizeof d->path);
    rb_json_get_str(x, "name", d->name, sizeof d->name);
    rb_json_get_str(x, "model", d->model, sizeof d->model);
    rb_json_get_str(x, "vendor", d->vendor, sizeof d->vendor);
    rb_json_get_str(x, "serial", d->serial, sizeof d->serial);
    rb_json_get_str(x, "firmware", d->firmware, sizeof d->firmware);
    d->size = rb_json_get_u64(x, "size");
    d->rotational = rb_json_bool(rb_json_get(x, "rotational"), 0) != 0;
    d->lbs = s_u32(x, "logical_block_size");
    d->pbs = s_u32(x, "physical_block_size");
    rb_json_get_str(x, "scheduler", d->scheduler, sizeof d->scheduler);
    d->read_ahead_kb = s_u32(x, "read_ahead_kb");
    d->nr_requests = s_u32(x, "nr_requests");
    d->queue_depth = s_u32(x, "queue_depth");
}

static void s_read_device(const rb_json_t *x, rb_dev_id_t *d)
{
    rb_host_json_dev_read(x, d);
    const char *a = rb_json_str(rb_json_get(x, "access"));
    for (uint32_t k = 0; a && k <= RB_DEV_WRITE; k++)
        if (!strcmp(a, s_access[k]))
            d->access = k;
    rb_json_get_str(x, "use", d->use, sizeof d->use);
}

int rb_host_json_read(const rb_json_t *host, rb_host_t **out)
{
    const rb_json_t *nics = rb_json_get(host, "nics"), *roots = rb_json_get(host, "roots"),
                    *devs = rb_json_get(host, "devices");
    size_t nn = rb_json_len(nics) < RB_TELEM_NICS ? rb_json_len(nics) : RB_TELEM_NICS,
           nr = rb_json_len(roots) < RB_MAX_ROOTS ? rb_json_len(roots) : RB_MAX_ROOTS,
           nd = rb_json_len(devs) < RB_MAX_DEVS ? rb_json_len(devs) : RB_MAX_DEVS;
    /* read whole, then packed (rb_host_make) */
    rb_host_t head = {.ndevs_seen = s_u32(host, "devices_seen")};
    rb_nic_info_t *n = calloc(nn ? nn : 1, sizeof *n);
    rb_root_info_t *r = calloc(nr ? nr : 1, sizeof *r);
    rb_dev_id_t *d = calloc(nd ? nd : 1, sizeof *d);
    int rc = -ENOMEM;
    if (!n || !r || !d)
        goto out;
    rb_json_get_str(host, "kernel", head.kernel, sizeof head.kernel);
    rb_json_get_str(host, "cpu_model", head.cpu_model, sizeof head.cpu_model);
    for (size_t k = 0; k < nn; k++) {
        const rb_json_t *x = rb_json_at(nics, k);
        rb_json_get_str(x, "name", n[k].name, sizeof n[k].name);
        n[k].speed_mbps = s_u32(x, "speed_mbps");
        rb_json_get_str(x, "mac", n[k].mac, sizeof n[k].mac);
    }
    for (size_t k = 0; k < nr; k++) {
        const rb_json_t *x = rb_json_at(roots, k);
        rb_root_info_t *c = &r[k];
        rb_json_get_str(x, "path", c->path, sizeof c->path);
        rb_json_get_str(x, "fs_type", c->fs_type, sizeof c->fs_type);
        rb_json_get_str(x, "source", c->source, sizeof c->source);
        rb_json_get_str(x, "options", c->options, sizeof c->options);
        c->total_bytes = rb_json_get_u64(x, "size");
        c->free_bytes = rb_json_get_u64(x, "free");
        rb_json_get_str(x, "dev_model", c->dev_model, sizeof c->dev_model);
        rb_json_get_str(x, "dev_serial", c->dev_serial, sizeof c->dev_serial);
        c->dev_rotational = rb_json_bool(rb_json_get(x, "dev_rotational"), 0) != 0;
    }
    for (size_t k = 0; k < nd; k++)
        s_read_device(rb_json_at(devs, k), &d[k]);
    *out = rb_host_make(&head, r, (uint32_t)nr, n, (uint32_t)nn, d, (uint32_t)nd);
    rc = *out ? 0 : -ENOMEM;
out:
    free(n);
    free(r);
    free(d);
    return rc;
}
