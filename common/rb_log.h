/* Logging to stderr with a program name and level; never on the per-IO path. */
#ifndef RB_LOG_H
#define RB_LOG_H

enum { RB_LOG_ERROR = 0, RB_LOG_WARN = 1, RB_LOG_INFO = 2, RB_LOG_DEBUG = 3 };

/* Sets the name printed before every line ("rackbench-agent[node1]"); copied. */
void rb_log_set_ident(const char *ident);

/* Sets the most verbose level printed (default RB_LOG_INFO). */
void rb_log_set_level(int level);

/* Current level, so callers can skip building costly messages. */
int rb_log_level(void);

/* Prints one line "ident: level: message" to stderr if level is enabled. */
void rb_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define rb_error(...) rb_log(RB_LOG_ERROR, __VA_ARGS__)
#define rb_warn(...)  rb_log(RB_LOG_WARN, __VA_ARGS__)
#define rb_info(...)  rb_log(RB_LOG_INFO, __VA_ARGS__)
#define rb_debug(...) rb_log(RB_LOG_DEBUG, __VA_ARGS__)

#endif
