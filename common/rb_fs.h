/* Small file system helpers shared by the binaries. */
#ifndef RB_FS_H
#define RB_FS_H

#include <stddef.h>

/* Makes path and every missing folder above it (mode 0755), as mkdir -p.
 * 0 or -errno. */
int rb_fs_mkdirs(const char *path);

/* The mount that holds path (the longest mount point above its real path,
 * from /proc/self/mountinfo): its file system type ("ext4",
 * "fuse.glusterfs") and its source ("/dev/vda1", "gfs1:/vol0"), each cut
 * to its buffer. 0, or -errno (-ENOENT when no mount is found). */
int rb_fs_mount_of(const char *path, char *type, size_t type_len, char *source, size_t source_len);

/* rb_fs_mount_of, and the mount's options ("rw,noatime") into opts (NULL: not wanted). */
int rb_fs_mount_opts(const char *path, char *type, size_t type_len, char *source, size_t source_len,
                     char *opts, size_t opts_len);

/* 1 for a file system type that several hosts mount at once (NFS, CIFS,
 * GlusterFS, Lustre, CephFS, BeeGFS, GPFS, ...), so that one source seen
 * from two hosts is one file system. */
int rb_fs_type_shared(const char *type);

#endif
