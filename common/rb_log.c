/* Diagnostics for people watching a run: each line names the program and the
 * level and reaches stderr in a single write, so that lines from many agents
 * and threads sharing a terminal or a pipe do not interleave. */
#include "rb_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define S_DEFAULT_IDENT "rackbench"
#define S_IDENT_MAX     128
/* Writes to a pipe of at most PIPE_BUF (4096) bytes are atomic; longer
 * messages are cut to fit. */
#define S_LINE_MAX 4096

static pthread_mutex_t s_ident_lock = PTHREAD_MUTEX_INITIALIZER;
static char s_ident[S_IDENT_MAX] = S_DEFAULT_IDENT; /* guarded by s_ident_lock */
static int s_level = RB_LOG_INFO;                   /* accessed atomically */

/* NULL or "" restores the default ident; longer idents are cut. */
void rb_log_set_ident(const char *ident)
{
    if (!ident || !*ident)
        ident = S_DEFAULT_IDENT;
    pthread_mutex_lock(&s_ident_lock);
    snprintf(s_ident, sizeof s_ident, "%s", ident);
    pthread_mutex_unlock(&s_ident_lock);
}

/* Levels outside ERROR..DEBUG are clamped: errors are always printed. */
void rb_log_set_level(int level)
{
    if (level < RB_LOG_ERROR)
        level = RB_LOG_ERROR;
    if (level > RB_LOG_DEBUG)
        level = RB_LOG_DEBUG;
    __atomic_store_n(&s_level, level, __ATOMIC_RELAXED);
}

int rb_log_level(void)
{
    return __atomic_load_n(&s_level, __ATOMIC_RELAXED);
}

static const char *s_level_name(int level)
{
    switch (level) {
    case RB_LOG_ERROR:
        return "error";
    case RB_LOG_WARN:
        return "warning";
    case RB_LOG_INFO:
        return "info";
    default:
        return "debug";
    }
}

/* errno is preserved, so a caller may log and then return -errno. A trailing
 * newline in the message is dropped: every line gets exactly one. */
void rb_log(int level, const char *fmt, ...)
{
    char line[S_LINE_MAX];
    int saved_errno = errno;

    if (level > rb_log_level())
        return;

    pthread_mutex_lock(&s_ident_lock);
    int n = snprintf(line, sizeof line, "%s: %s: ", s_ident, s_level_name(level));
    pthread_mutex_unlock(&s_ident_lock);
    if (n < 0)
        n = 0;
    size_t used = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 1;

    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + used, sizeof line - used, fmt, ap);
    va_end(ap);
    if (m > 0)
        used += (size_t)m < sizeof line - used ? (size_t)m : sizeof line - used - 1;
    if (used > 0 && line[used - 1] == '\n')
        used--;
    if (used > sizeof line - 1)
        used = sizeof line - 1;
    line[used++] = '\n';

    const char *p = line;
    while (used > 0) {
        ssize_t w = write(STDERR_FILENO, p, used);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        used -= (size_t)w;
    }
    errno = saved_errno;
}
