/* Helpers for integration tests that start the real rackbench binaries:
 * a scratch folder on a real file system, running a command with its output
 * captured, waiting for what a run shows (its files, its samples, an exit)
 * with a deadline, and reading what a run left behind. */
#ifndef IT_UTIL_H
#define IT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The factor on every deadline and timing ceiling (tests/CMakeLists.txt:
 * 1, or 4 under the sanitizers). */
#ifndef RB_TEST_TIME_SCALE
#define RB_TEST_TIME_SCALE 1
#endif

/* How long it_sh and it_wait wait for one command before killing it, in ms
 * (scaled): far above any run of these tests, below ctest's limit. */
#define IT_COMMAND_MS 240000

/* Makes a fresh scratch folder under the build tree (a real disk file system,
 * so O_DIRECT works) and returns its path (static storage). */
const char *it_scratch(const char *test_name);

/* Removes a folder tree (best effort). */
void it_rmtree(const char *path);

/* Writes text to path; aborts the test on failure. */
void it_write(const char *path, const char *text);

/* Reads a whole file into a new NUL-terminated string (caller frees), or NULL. */
char *it_read(const char *path);

/* Runs a shell command line with stdout and stderr sent to out_path
 * (stdout) and err_path (stderr); returns the exit code (128+signal if killed). */
int it_sh(const char *out_path, const char *err_path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* As it_sh, in the background: returns the shell's pid for it_wait(). */
int it_sh_bg(const char *out_path, const char *err_path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Waits for a background command; returns its exit code as it_sh does.
 * After IT_COMMAND_MS it kills the command, says so, and returns -1. */
int it_wait(int pid);

/* A deadline ms from now, scaled by RB_TEST_TIME_SCALE, on rb_time_mono_ns()'s
 * clock: what the it_wait_for_... calls take. */
uint64_t it_deadline(unsigned ms);

/* Calls ready(arg) every 10 ms until it returns nonzero (returns 0) or the
 * deadline passes (returns -ETIMEDOUT). ready is called once more at the
 * deadline, so a slow machine's last look still counts. */
int it_wait_until(int (*ready)(void *arg), void *arg, uint64_t deadline);

/* Waits until at least n regular files are below path (it_count_files);
 * the count reached, or -ETIMEDOUT (the count printed). */
int it_wait_for_files(const char *path, int n, uint64_t deadline);

/* Waits until the samples.csv of the one run folder in runs_dir holds text
 * at least n times (",PHASE,NODE," finds a node's samples of a phase: the
 * coordinator has seen that node in that phase); 0 or -ETIMEDOUT. */
int it_wait_for_samples(const char *runs_dir, const char *text, int n, uint64_t deadline);

/* Waits until the file at path holds text (a log line a process wrote);
 * 0, or -ETIMEDOUT with the file's content printed. */
int it_wait_for_text(const char *path, const char *text, uint64_t deadline);

/* Waits for a background command until the deadline; its exit code as
 * it_sh gives it, or -ETIMEDOUT with the command killed (SIGKILL). */
int it_wait_exit(int pid, uint64_t deadline);

/* How many processes have a command line that contains all of the given
 * words (NULL-terminated list): a lab's check that nothing of its own is
 * left running. It signals nothing. */
int it_count_matching(const char *word, ...);

/* The pid of the one child of parent (a process the test started) whose
 * command line contains all of the given words (NULL-terminated list); 0
 * when there is none, -1 when more than one matches. */
int it_child_matching(int parent, const char *word, ...);

/* Runs tests[0 .. n-1] as cmocka's group name; with argv[1] "K/N" only
 * the K-th of N slices of them (the entries NAME_K of rb_integration_test's
 * PARTS). cmocka's exit code; 2 for a bad argument. */
struct CMUnitTest;
int it_run_tests(const char *name, const struct CMUnitTest *tests, size_t n, int argc, char **argv);

/* Sends sig to every child of parent, then to parent itself: a coordinator
 * the test started and the local agents it started. Returns how many
 * processes were signalled. Nothing else on the machine is touched. */
int it_kill_tree(int parent, int sig);

/* Regular files anywhere below path (0 if it does not exist). */
int it_count_files(const char *path);

/* The number a shell command prints, its output kept in dir/count; -1 when
 * the command fails. */
long it_sh_number(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The one run folder inside runs_dir, into out; 0 or -1 if not exactly one. */
int it_run_folder(const char *runs_dir, char *out, size_t len);

/* Prints the command's stderr (err_path) when code is not 0, for the test log;
 * returns code. */
int it_show_failure(int code, const char *err_path);

/* Parses summary.json of the one run folder in runs_dir (its path into
 * folder); NULL, with the reason printed, when there is none or it is bad. */
struct rb_json *it_summary(const char *runs_dir, char *folder, size_t len);

/* Path of a built binary ("rackbench", "rackbench-agent"), static storage. */
const char *it_bin(const char *name);

#endif
