/* File system helpers (see rb_fs.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rb_fs.h"

int rb_fs_mkdirs(const char *path)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/* mountinfo's escapes (\040 for a space, \011, \012, \134) undone in place. */
static void s_unescape(char *s)
{
    char *o = s;
    for (char *c = s; *c; c++) {
        if (c[0] == '\\' && c[1] >= '0' && c[1] <= '3' && c[2] >= '0' && c[2] <= '7' &&
            c[3] >= '0' && c[3] <= '7') {
            *o++ = (char)((c[1] - '0') * 64 + (c[2] - '0') * 8 + (c[3] - '0'));
            c += 3;
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
}

/* 1 when mount point m holds path p (m is p, or a folder above it). */
static int s_under(const char *p, const char *m)
{
    size_t n = strlen(m);
    if (n == 1 && m[0] == '/')
        return 1;
    return strncmp(p, m, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int rb_fs_mount_of(const char *path, char *type, size_t type_len, char *source, size_t source_len)
{
    return rb_fs_mount_opts(path, type, type_len, source, source_len, NULL, 0);
}

int rb_fs_mount_opts(const char *path, char *type, size_t type_len, char *source, size_t source_len,
                     char *opts, size_t opts_len)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return -errno;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    char line[4 * PATH_MAX];
    size_t best = 0;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
        char *save = NULL, *fld[6];
        int i = 0;
        for (char *t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
            fld[i++] = t;
            if (i == 6)
                break; /* the rest, from the optional fields on, below */
        }
        if (i < 6)
            continue;
        char *t;
        while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-") != 0)
            ;
        char *ty = t ? strtok_r(NULL, " \n", &save) : NULL;
        char *src = ty ? strtok_r(NULL, " \n", &save) : NULL;
        if (!src)
            continue;
        char *mp = fld[4];
        s_unescape(mp);
        size_t n = strlen(mp);
        if (!s_under(real, mp) || (found && n < best))
            continue;
        s_unescape(src);
        snprintf(type, type_len, "%s", ty);
        snprintf(source, source_len, "%s", src);
        if (opts && opts_len)
            snprintf(opts, opts_len, "%s", fld[5]);
        best = n;
        found = 1; /* a later mount on the same point covers an earlier one */
    }
    fclose(f);
    return found ? 0 : -ENOENT;
}

int rb_fs_type_shared(const char *type)
{
    static const char *const shared[] = {
        "nfs",        "nfs4",          "cifs",         "smb3",           "glusterfs", "lustre",
        "ceph",       "beegfs",        "gpfs",         "orangefs",       "pvfs2",     "9p",
        "afs",        "ocfs2",         "gfs2",         "fuse.glusterfs", "fuse.ceph", "fuse.beegfs",
        "fuse.sshfs", "fuse.lizardfs", "fuse.moosefs", "fuse.juicefs",   "weka",      "wekafs",
        "panfs",      "fuse.s3fs"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        if (!strcmp(type, shared[i]))
            return 1;
    return 0;
}
