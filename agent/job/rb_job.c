/* Where a job's bytes live: file names, file sizes, and the offset of each
 * worker's IO region in a file of its own or in a file shared across the
 * run. The layout, the prefill and the data workload all ask here, so that
 * what is written before GO is what the workers then read. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_engine.h"
#include "rb_job.h"
#include "rb_perm.h"

int rb_job_fallocate(int fd, uint32_t mode, uint64_t end)
{
    if (mode == RB_FALLOC_NATIVE || mode == RB_FALLOC_POSIX || mode == RB_FALLOC_KEEP) {
        if (fallocate(fd, mode == RB_FALLOC_KEEP ? FALLOC_FL_KEEP_SIZE : 0, 0, (off_t)end) < 0) {
            /* as fio: a file system that cannot allocate ahead (EOPNOTSUPP) or
             * will not for this file (EINVAL) is no error; the writes size it */
        }
    } else if (mode == RB_FALLOC_TRUNCATE && ftruncate(fd, (off_t)end) < 0) {
        return -errno;
    }
    return 0;
}

int rb_job_filename(const rb_job_spec_t *job, uint32_t worker, uint32_t filenum, char *out,
                    size_t len)
{
    const char *f = job->filename_format[0] ? job->filename_format : "$jobname.$jobnum.$filenum";
    size_t o = 0;
    if (job->filename[0]) {
        if (strlen(job->filename) + 1 > len)
            return -ENAMETOOLONG;
        snprintf(out, len, "%s", job->filename);
        return strchr(out, '/') || !strcmp(out, ".") || !strcmp(out, "..") ? -EINVAL : 0;
    }
    while (*f) {
        char piece[RB_NAME_MAX + 16];
        size_t adv;
        if (strncmp(f, "$jobname", 8) == 0) {
            snprintf(piece, sizeof piece, "%s", job->name);
            adv = 8;
        } else if (strncmp(f, "$jobnum", 7) == 0) {
            snprintf(piece, sizeof piece, "%u", worker);
            adv = 7;
        } else if (strncmp(f, "$filenum", 8) == 0) {
            snprintf(piece, sizeof piece, "%u", filenum);
            adv = 8;
        } else if (*f == '/' || *f == '$') {
            return -EINVAL;
        } else {
            piece[0] = *f;
            piece[1] = '\0';
            adv = 1;
        }
        size_t n = strlen(piece);
        if (o + n + 1 > len)
            return -ENAMETOOLONG;
        memcpy(out + o, piece, n);
        o += n;
        f += adv;
    }
    out[o] = '\0';
    if (o == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
        return -EINVAL;
    return 0;
}

rb_engine_opts_t rb_job_engine_opts(const rb_job_spec_t *job)
{
    int r = rb_rw_reads(job->rw), w = rb_rw_writes(job->rw);
    /* mmap maps as fio's: write only unless the job reads or verifies */
    uint8_t prot = r && w                               ? RB_ENGINE_MAP_RW
                   : w && job->verify != RB_VERIFY_NONE ? RB_ENGINE_MAP_RW
                   : w                                  ? RB_ENGINE_MAP_WRITE
                                                        : RB_ENGINE_MAP_READ;
    return (rb_engine_opts_t){.hipri = job->hipri,
                              .sqpoll = job->sqpoll,
                              .sqpoll_aff = job->sqpoll_aff,
                              .sqpoll_cpu = job->sqpoll_cpu,
                              .map_prot = prot,
                              .map_random = (uint8_t)rb_rw_random(job->rw),
                              .map_direct = job->direct,
                              .map_len = (job->device[0] && !job->size) || job->shared_file
                                             ? 0 /* the whole file: its regions lie across it */
                                             : rb_job_filesize(job)};
}

int rb_job_uses_files(const rb_job_spec_t *job)
{
    if (job->network)
        return 0;
    const rb_engine_ops_t *ops = rb_engine_find(job->ioengine[0] ? job->ioengine : "sync");
    return !ops || !(ops->flags & RB_ENGINE_F_NO_DATA);
}

uint64_t rb_job_filesize(const rb_job_spec_t *job)
{
    uint32_t n = job->nrfiles ? job->nrfiles : 1;
    return job->filesize ? job->filesize : job->size / n;
}

const char *rb_job_peer(const rb_job_ctx_t *ctx, uint32_t shift)
{
    for (uint32_t i = 0; shift && i < ctx->npeers; i++)
        if (ctx->peers[i].shift == shift)
            return ctx->peers[i].name;
    return "";
}

int rb_job_settle_random(rb_job_spec_t *js, const rb_job_ctx_t *ctx)
{
    if (js->read_shift != RB_READ_RANDOM)
        return 0;
    uint32_t n = ctx->nnodes ? ctx->nnodes : 1, r = ctx->rank % n;
    uint32_t *next = malloc((size_t)n * sizeof *next);
    if (!next)
        return -ENOMEM;
    rb_perm_cycle(next, n, rb_job_read_seed(js));
    js->read_shift = (next[r] + n - r) % n;
    free(next);
    return 0;
}

uint64_t rb_job_offset(const rb_job_spec_t *job, uint32_t worker)
{
    return job->offset + (uint64_t)worker * job->offset_increment;
}

uint32_t rb_job_region_count(const rb_job_spec_t *job, uint32_t nnodes)
{
    return job->shared_file ? job->numjobs * (nnodes ? nnodes : 1) : job->numjobs;
}

uint64_t rb_job_map(const rb_job_spec_t *job, uint32_t nregions, uint32_t region, uint64_t rel,
                    uint64_t *room)
{
    if (room)
        *room = UINT64_MAX;
    if (!job->shared_file)
        return rb_job_offset(job, region) + rel;
    if (job->layout == RB_LAYOUT_SEGMENTED)
        return job->offset + (uint64_t)region * rb_job_filesize(job) + rel;
    uint64_t t = job->transfer ? job->transfer : job->bs;
    if (room)
        *room = t - rel % t;
    return job->offset + ((rel / t) * nregions + region) * t + rel % t;
}

int rb_job_shared_name(const rb_job_spec_t *job, const char *lead, char *out, size_t len)
{
    char name[RB_NAME_MAX * 2];
    int rc = rb_job_filename(job, 0, 0, name, sizeof name);
    if (rc < 0)
        return rc;
    int n = snprintf(out, len, "%s.%s", lead, name);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

uint32_t rb_job_ndirs(const rb_job_spec_t *job)
{
    uint32_t n = 1;
    for (const char *c = job->directory; *c; c++)
        n += *c == ':';
    return n < RB_DIRS_MAX ? n : RB_DIRS_MAX;
}

int rb_job_dir(const rb_job_spec_t *job, uint32_t i, char *out, size_t len)
{
    const char *p = job->directory;
    for (uint32_t k = 0; k < i; k++) {
        p = strchr(p, ':');
        if (!p)
            return -EINVAL;
        p++;
    }
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= len)
        return -ENAMETOOLONG;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

uint32_t rb_job_dir_of(const rb_job_spec_t *job, uint32_t worker)
{
    return job->filename[0] ? 0 : worker % rb_job_ndirs(job);
}
