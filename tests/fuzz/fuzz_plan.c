/* libFuzzer target for the plan parser: any plan text must parse or be
 * refused with a message, never crash or leak; a plan that parses prints
 * (rb_plan_print) without failing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rb_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_plan_parse((const char *)data, size, "fuzz.ini", &p, &err) < 0) {
        if (!err.msg[0] || p)
            abort(); /* refused: with a reason, and no plan */
        return 0;
    }
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        rb_plan_print(p, f);
        fclose(f);
    }
    rb_plan_destroy(&p);
    rb_plan_destroy(&p);
    return 0;
}
