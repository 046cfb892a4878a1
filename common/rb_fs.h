/* Small file system helpers shared by the binaries. */
#ifndef RB_FS_H
#define RB_FS_H

/* Makes path and every missing folder above it (mode 0755), as mkdir -p.
 * 0 or -errno. */
int rb_fs_mkdirs(const char *path);

#endif
