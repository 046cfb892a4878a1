/* What lies under and over a block device, and who else has it open: the
 * sysfs facts of one device (partitions, mounts, swap, holders, a
 * signature), the walk through its stack (the device a loop device lies
 * on, the loop devices that share its backing file or lie on it, the
 * members of a dm or md volume, the disk of a partition), and the other
 * processes that have block devices open for writing (/proc/PID/fd).
 * Nothing here writes to a device. */
#ifndef RB_DEVSTACK_H
#define RB_DEVSTACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* First line of a small sysfs file into buf (newline cut); 0 or -errno. */
int rb_devsys_line(const char *path, char *buf, size_t len);

/* Device numbers of the partitions of the device at sysfs folder dir into
 * devs, their names into names (", "-separated); returns the count. */
uint32_t rb_devsys_partitions(const char *dir, dev_t *devs, uint32_t max, char *names, size_t len);

/* Where one of devs[0..n) is mounted, into at; 1 if it is. */
int rb_devsys_mounted(const dev_t *devs, uint32_t n, char *at, size_t len);

/* 1 if one of devs[0..n) is in use as swap. */
int rb_devsys_swap(const dev_t *devs, uint32_t n);

/* Names in the holders folder of sysfs folder dir, but skip, into out; 1
 * if there are any. */
int rb_devsys_holders(const char *dir, const char *skip, char *out, size_t len);

/* A file system, RAID member or partition table signature libblkid finds
 * on the device open as fd (or at path when fd < 0), into out; 1 if one is
 * there (or none could be looked for). Reads only. */
int rb_devsys_signature(const char *path, int fd, char *out, size_t len);

#define RB_DEVWRITERS_MAX 512

/* Block devices other processes have open for writing, taken at one time. */
typedef struct rb_devwriters {
    uint32_t n;
    /* processes whose open files the agent may not read (/proc/PID/fd
     * refused: it lacks CAP_SYS_PTRACE or CAP_DAC_READ_SEARCH): whether
     * they write a device is unknown; the first one's pid and errno */
    uint32_t unseen;
    int unseen_pid, unseen_errno;
    struct {
        dev_t dev;
        int pid;
        char comm[32];
    } w[RB_DEVWRITERS_MAX];
} rb_devwriters_t;

/* Reads every /proc/PID/fd of the other processes into w. */
void rb_devwriters_scan(rb_devwriters_t *w);

/* Who has dev open for writing, per w, into out ("process 812 (qemu)");
 * 1 if a process has. */
int rb_devwriters_find(const rb_devwriters_t *w, dev_t dev, char *out, size_t len);

/* What w could not look at, into out ("the open files of 41 processes
 * (process 1: Permission denied) cannot be read"); 1 if any. */
int rb_devwriters_unseen(const rb_devwriters_t *w, char *out, size_t len);

/* The stack of the device dev (kernel name name) under sys_root, walked
 * down and up, with w for the other writers of its devices: into stack
 * what makes writing it unsafe whatever --allow-device says (a device of
 * its stack mounted, swap, a member of another volume, open for writing:
 * "it lies on loop9 (loop18 -> loop9), which is mounted at /mnt"), into
 * holds what writing it would destroy unless it is allowed with ":wipe" (a
 * signature on a device under a loop device, or on a loop device over
 * it). Each "" when there is nothing to say. */
void rb_devstack_check(const char *sys_root, const char *name, dev_t dev, const rb_devwriters_t *w,
                       char *stack, size_t slen, char *holds, size_t hlen);

#endif
