/* The table of IO engines by name (rb_engine_info.h). */
#include "rb_engine_info.h"

#include "rb_names.h"

#include <stdio.h>
#include <string.h>

static const rb_engine_info_t s_engines[] = {
    {"sync", "psync", 0, "pread and pwrite, one IO at a time (fio's psync)"},
    {"libaio", "aio,linuxaio", RB_ENGINE_INFO_F_ASYNC,
     "Linux native asynchronous IO, iodepth IOs in flight"},
    {"io_uring", NULL, RB_ENGINE_INFO_F_ASYNC,
     "io_uring with registered files and buffers, iodepth IOs in flight"},
    {"pvsync", NULL, 0, "preadv and pwritev of one vector, one IO at a time (fio's pvsync)"},
    {"pvsync2", NULL, 0,
     "preadv2 and pwritev2 of one vector with no flags, one IO at a time (fio's pvsync2)"},
    {"vsync", NULL, 0,
     "lseek, then readv or writev of one vector, one IO at a time (fio's vsync at iodepth=1)"},
    {"posixaio", NULL, RB_ENGINE_INFO_F_ASYNC,
     "POSIX aio_read and aio_write, iodepth IOs in flight (fio's posixaio)"},
    {"mmap", NULL, 0,
     "memcpy into and out of the file mapped with mmap, one IO at a time (fio's mmap)"},
    {"null", NULL, RB_ENGINE_INFO_F_NO_DATA | RB_ENGINE_INFO_F_ASYNC,
     "no IO at all: rackbench's own cost per IO"},
};

#define S_NENGINES (sizeof s_engines / sizeof s_engines[0])

const rb_engine_info_t *rb_engine_info_find(const char *name)
{
    for (size_t i = 0; name && i < S_NENGINES; i++)
        if (!strcmp(s_engines[i].name, name) || rb_names_in_list(s_engines[i].aliases, name))
            return &s_engines[i];
    return NULL;
}

size_t rb_engine_info_count(void)
{
    return S_NENGINES;
}

const rb_engine_info_t *rb_engine_info_at(size_t i)
{
    return i < S_NENGINES ? &s_engines[i] : NULL;
}

char *rb_engine_info_list(char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < S_NENGINES; i++) {
        const char *names[2] = {s_engines[i].name, s_engines[i].aliases};
        for (size_t k = 0; k < 2; k++) {
            if (!names[k])
                continue;
            /* a comma-separated alias list reads as more names of the list */
            for (const char *a = names[k]; *a;) {
                size_t an = strcspn(a, ",");
                int w = snprintf(buf + n, len - n, "%s%.*s", n ? ", " : "", (int)an, a);
                if (w < 0 || (size_t)w >= len - n)
                    return buf;
                n += (size_t)w;
                a += an + (a[an] == ',');
            }
        }
    }
    return buf;
}

int rb_engine_info_moves_data(const char *name)
{
    const rb_engine_info_t *e = rb_engine_info_find(name);
    return !e || !(e->flags & RB_ENGINE_INFO_F_NO_DATA);
}

unsigned rb_engine_info_depth(const char *name, unsigned iodepth)
{
    const rb_engine_info_t *e = rb_engine_info_find(name && name[0] ? name : "sync");
    if (!iodepth || (e && !(e->flags & RB_ENGINE_INFO_F_ASYNC)))
        return 1;
    return iodepth;
}
