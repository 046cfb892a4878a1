/* libFuzzer target for the plan parser: any plan text must parse or be
 * refused with a message, never crash or leak. A plan that parses must
 * print (rb_plan_print), the printed text must parse again, and printing
 * that second plan must give the same text: the normalised print is a
 * fixed point. A refusal is -EINVAL with a message that names the file; a
 * note is a whole line that does too. Any break aborts, so libFuzzer keeps
 * the input. Its seeds include the plans of test_plan, whose own mutation
 * run (test_plan --mutations) is in the fuzz tier too. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The plan printed into a new string (caller frees) with its length; NULL
 * when printing fails. */
static char *s_print(const rb_plan_t *p, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    int rc = rb_plan_print(p, f);
    if (fclose(f) != 0 || rc < 0) {
        free(text);
        return NULL;
    }
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rb_plan_t *p = NULL, *again = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse((const char *)data, size, "fuzz.ini", &p, &err);
    if (rc < 0) {
        /* refused as a bad plan, with a reason that names the file, and no plan */
        if (rc != -EINVAL || strncmp(err.msg, "fuzz.ini:", 9) != 0 || p)
            abort();
        return 0;
    }
    if (p->nphases < 1)
        abort(); /* a plan that parses has something to run */
    for (const char *c = p->notes; c && *c; c = strchr(c, '\n') + 1)
        if (strncmp(c, "fuzz.ini:", 9) != 0 || !strchr(c, '\n'))
            abort(); /* every note a whole line that names where it stands */
    size_t len1 = 0, len2 = 0;
    char *first = s_print(p, &len1);
    if (!first)
        abort(); /* a plan that parsed prints */
    rb_err_clear(&err);
    /* the same source name: the print's first line names it */
    if (rb_plan_parse(first, len1, "fuzz.ini", &again, &err) < 0) {
        fprintf(stderr, "the printed plan does not parse: %s\n%s", err.msg, first);
        abort();
    }
    char *second = s_print(again, &len2);
    if (!second)
        abort();
    if (len1 != len2 || memcmp(first, second, len1) != 0) {
        fprintf(stderr, "printing the printed plan changed it:\n--- first\n%s--- second\n%s", first,
                second);
        abort();
    }
    free(first);
    free(second);
    rb_plan_destroy(&again);
    rb_plan_destroy(&p);
    rb_plan_destroy(&p);
    return 0;
}
