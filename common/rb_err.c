/* Keeps the first failure of an object with its message, so the user is told
 * the cause and not the last of its consequences. */
#include "rb_err.h"

#include <stdarg.h>
#include <stdio.h>

void rb_err_clear(rb_err_t *e)
{
    if (!e)
        return;
    e->code = 0;
    e->msg[0] = '\0';
}

int rb_err_set(rb_err_t *e, int code, const char *fmt, ...)
{
    if (!e || e->code != 0)
        return code;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}
