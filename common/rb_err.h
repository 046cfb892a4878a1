/* The error type every rackbench object carries: the first failure's code and
 * a message that says what failed, on which path or peer, and why. */
#ifndef RB_ERR_H
#define RB_ERR_H

#define RB_ERR_MSG_MAX 1024

typedef struct rb_err {
    int code;                 /* 0, or a negative errno of the first failure */
    char msg[RB_ERR_MSG_MAX]; /* human-readable message of the first failure */
} rb_err_t;

/* Clears e (lives in caller memory). */
void rb_err_clear(rb_err_t *e);

/* Records code (a negative errno) and a formatted message unless e already
 * holds an error, so the first cause wins. e may be NULL. Returns code. */
int rb_err_set(rb_err_t *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
