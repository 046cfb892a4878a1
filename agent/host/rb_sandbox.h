/* The agent's sandbox: the only folders it may write in (--root), one run
 * folder of its own per directory a plan uses, files created only inside those
 * run folders, and their removal when the run ends. It also holds the block
 * devices the agent was allowed (--allow-device) and the free space a plan
 * must leave (--reserve). */
#ifndef RB_SANDBOX_H
#define RB_SANDBOX_H

#include <stdint.h>

#include "rb_device.h"
#include "rb_err.h"
#include "rb_proto.h"

#define RB_SANDBOX_MAX_RUNDIRS 16
#define RB_SANDBOX_MAX_DEVICES 16

typedef struct rb_sandbox rb_sandbox_t;

/* New sandbox with no roots; NULL on allocation failure. */
rb_sandbox_t *rb_sandbox_new(void);

/* Removes what is left of the run (as rb_sandbox_cleanup), frees, nulls *p. Safe on NULL. */
void rb_sandbox_destroy(rb_sandbox_t **p);

/* Adds a root folder (resolved with realpath; must be an existing directory).
 * Returns 0 or -errno with err naming the path. */
int rb_sandbox_add_root(rb_sandbox_t *sb, const char *path, rb_err_t *err);

/* Number of roots, and root i's resolved path (borrowed). */
uint32_t rb_sandbox_nroots(const rb_sandbox_t *sb);
const char *rb_sandbox_root(const rb_sandbox_t *sb, uint32_t i);

/* Fills info for root i (path, free and total bytes). 0 or -errno. */
int rb_sandbox_root_info(const rb_sandbox_t *sb, uint32_t i, rb_root_info_t *info);

/* Resolves a plan's directory to a folder inside a root: "" → the first root,
 * a relative path → under the first root, an absolute path → must resolve
 * (symlinks followed) inside one of the roots. Writes the resolved path to
 * out. -EACCES with the path and the roots named when it is outside. */
int rb_sandbox_resolve(const rb_sandbox_t *sb, const char *directory, char *out, size_t outlen,
                       rb_err_t *err);

/* Makes (or finds, when already made for this run) the run folder
 * "DIR/rackbench.RUN.NODE" for a resolved directory and returns its index
 * (>= 0) or -errno. A folder of that name that this sandbox did not make is
 * refused (-EEXIST); a run id or node that is not a plain name is refused
 * (-EINVAL). The folder is held with flock() until cleanup, so that
 * `rackbench-agent --cleanup` leaves it alone while the run lives. */
int rb_sandbox_rundir(rb_sandbox_t *sb, const char *resolved_dir, const char *run_id,
                      const char *node, rb_err_t *err);

/* Path of run folder idx (borrowed), and free/total bytes of its file system. */
const char *rb_sandbox_rundir_path(const rb_sandbox_t *sb, int idx);
int rb_sandbox_rundir_space(const rb_sandbox_t *sb, int idx, uint64_t *free_bytes,
                            uint64_t *total_bytes);

/* Opens (creating when asked) a plain file name inside run folder idx with
 * openat(O_NOFOLLOW); name must not contain '/'. flags are open(2) flags.
 * A file opened to write must be a regular file with no other hard link
 * (-EPERM otherwise): the agent writes only what it made.
 * Returns an fd the caller closes, or -errno with err naming the path. */
int rb_sandbox_open(rb_sandbox_t *sb, int idx, const char *name, int flags, rb_err_t *err);

/* Opens, read-only, a file that is there before the run (a job's existing
 * file): plain name name in the plan's directory, resolved inside a root as
 * rb_sandbox_resolve does; no symlink (O_NOFOLLOW), a regular file. flags
 * may add only O_DIRECT to O_RDONLY: the agent never writes a file it did
 * not make. Its path goes to path. Returns an fd or -errno with err naming
 * the path and why. */
int rb_sandbox_open_existing(const rb_sandbox_t *sb, const char *directory, const char *name,
                             int flags, char *path, size_t pathlen, rb_err_t *err);

/* Removes file name from run folder idx (unlink, unlink_each_loop); one
 * already gone is no error. 0 or -errno with err naming the path. */
int rb_sandbox_unlink(rb_sandbox_t *sb, int idx, const char *name, rb_err_t *err);

/* Size of file name in run folder idx, or -errno (-ENOENT when absent). */
int64_t rb_sandbox_file_size(rb_sandbox_t *sb, int idx, const char *name);

/* This agent's node name, as given when its first run folder was made ("" before). */
const char *rb_sandbox_node(const rb_sandbox_t *sb);

/* Opens (making it if missing) the folder "DIR/rackbench.RUN.shared" beside run
 * folder idx, shared by every agent of the run that writes in DIR (a shared
 * file system, or local agents with one root). Files the agent puts there must
 * start with "NODE."; cleanup removes those and the folder once it is empty.
 * Returns a directory fd the caller closes, or -errno with err set. */
int rb_sandbox_shared_dir(rb_sandbox_t *sb, int idx, const char *run_id, rb_err_t *err);

/* Opens (creating when asked) file name in the shared folder beside run
 * folder idx (made when missing), with openat(O_NOFOLLOW). The name must
 * start with the name of a node of the run and '.': that node removes it.
 * The file's path is written to path (for messages). fd or -errno, err set. */
int rb_sandbox_open_shared(rb_sandbox_t *sb, int idx, const char *run_id, const char *name,
                           int flags, char *path, size_t pathlen, rb_err_t *err);

/* Opens file name, read-only, in the run folder another node of the run
 * made beside run folder idx ("DIR/rackbench.RUN.PEER": a shared file
 * system, or local agents with one root). Flags that write are refused
 * (-EPERM). The file's path is written to path. fd or -errno, err set. */
int rb_sandbox_open_peer(rb_sandbox_t *sb, int idx, const char *run_id, const char *peer,
                         const char *name, int flags, char *path, size_t pathlen, rb_err_t *err);

/* Allows plans to name the block devices of one --allow-device argument: a
 * path, a glob or a /dev/disk/by-id/ name, with ":wipe" for an exact one
 * (rb_device_allow_add). 0 or -errno with err naming it. */
int rb_sandbox_allow_device(rb_sandbox_t *sb, const char *arg, rb_err_t *err);

/* The --allow-device patterns (borrowed). */
const rb_device_allow_t *rb_sandbox_allowed(const rb_sandbox_t *sb);

/* --allow-open-writers: allowed devices other programs write may be written. */
void rb_sandbox_allow_open_writers(rb_sandbox_t *sb, int on);

/* Where /sys is read when devices are probed (default "/sys"); copied. */
void rb_sandbox_set_sys_root(rb_sandbox_t *sb, const char *sys_root);

/* Where /sys is read ("/sys" unless set). */
const char *rb_sandbox_sys_root(const rb_sandbox_t *sb);

/* Claims the block device at path for the current run: it must be allowed,
 * not in use, and, when write is set, hold nothing writing would destroy
 * unless allowed with ":wipe". It is then held open with O_EXCL until
 * cleanup. A device claimed already is checked again for write. Returns
 * its probe (borrowed, valid until cleanup), or NULL with err naming the
 * device and the reason (err->code -EACCES or -EBUSY). Nothing is written. */
const rb_device_info_t *rb_sandbox_claim_device(rb_sandbox_t *sb, const char *path, int write,
                                                rb_err_t *err);

/* Opens a claimed device again with flags (open(2) flags without O_CREAT or
 * O_TRUNC; writing needs a claim for write). fd the caller closes, or -errno. */
int rb_sandbox_open_device(rb_sandbox_t *sb, const char *path, int flags, rb_err_t *err);

/* The allowed devices that are idle (not in use and, when write is set,
 * holding nothing, or allowed with ":wipe"): real paths into out, up to max.
 * Those this run holds already (an earlier job's) count as idle. Returns
 * the count. */
uint32_t rb_sandbox_idle_devices(rb_sandbox_t *sb, int write, char (*out)[PATH_MAX], uint32_t max);

/* Checks whether a job's directory, or its directory joined with filename
 * ("" for none), names a block device (symlinks followed; a relative
 * directory is under the first root). 0 when neither does; -EACCES when the
 * device is not allowed (err names it and the option that allows it);
 * -EOPNOTSUPP when it is allowed: a device is named with filename=/dev/X. */
int rb_sandbox_check_device(const rb_sandbox_t *sb, const char *directory, const char *filename,
                            rb_err_t *err);

/* Checks that need bytes leave at least reserve_pct % of the file system
 * (free_bytes free out of total_bytes) free; path names it in the message.
 * 0, or -ENOSPC with err giving the figures. */
int rb_sandbox_space_check(const char *path, uint64_t need, uint64_t free_bytes,
                           uint64_t total_bytes, unsigned reserve_pct, rb_err_t *err);

/* rb_sandbox_space_check for the file system of run folder idx. 0 (also when its
 * space cannot be read) or -ENOSPC with err set. */
int rb_sandbox_check_space(const rb_sandbox_t *sb, int idx, uint64_t need, unsigned reserve_pct,
                           rb_err_t *err);

/* Removes what the folder open as fd (at path, for messages) holds,
 * subfolders included, without following symlinks; adds the count of
 * removed files to *removed. 0 or the first -errno (err set). */
int rb_sandbox_rm_tree(int fd, const char *path, uint64_t *removed, rb_err_t *err);

/* Removes every file in every run folder and the folders themselves
 * (subfolders included), and this node's files in shared folders; adds the
 * count of removed files to *removed. 0 or the first -errno (err set). */
int rb_sandbox_cleanup(rb_sandbox_t *sb, uint64_t *removed, rb_err_t *err);

#endif
