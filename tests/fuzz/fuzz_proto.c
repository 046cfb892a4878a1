/* libFuzzer target for the wire decoder: any frame a peer could send must
 * decode or be refused with an error, never crash, leak or read out of
 * bounds. A frame that decodes must encode again; those bytes must decode,
 * and encoding that message must give the same bytes: encode after decode
 * is a fixed point. (The input itself need not come back byte for byte:
 * msgpack allows several encodings of one value, and the decoder accepts
 * them.) A frame of any version of the window is written back in its own
 * version and reads as that version. The fast path of the decoder gives
 * what the full one gives. Any break aborts, so libFuzzer keeps
 * the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* rb_msg_decode's fast path accepts no frame the full path refuses, and
 * fills the message as that path does: both write the same bytes. */
static void s_same_as_full(const uint8_t *data, size_t size, int rc, const rb_msg_t *m)
{
    static rb_msg_t full;
    rb_err_t err;
    rb_err_clear(&err);
    int frc = rb_msg_decode_full(data, size, &full, &err);
    if (frc != rc) {
        fprintf(stderr, "decoded %d, without the fast path %d\n", rc, frc);
        abort();
    }
    if (rc < 0)
        return;
    void *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    int ea = rb_msg_encode_v(m, m->version, &a, &alen, &err);
    int eb = rb_msg_encode_v(&full, full.version, &b, &blen, &err);
    if (ea != eb || (ea == 0 && (alen != blen || memcmp(a, b, alen) != 0))) {
        fprintf(stderr, "%s: the fast and the full path decoded it differently\n",
                rb_msg_type_name(m->type));
        abort();
    }
    free(a);
    free(b);
    rb_msg_fini(&full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_msg_decode(data, size, &m, &err);
    s_same_as_full(data, size, rc, &m);
    if (rc < 0) {
        if (!err.msg[0])
            abort(); /* a refusal always says why */
        return 0;
    }
    void *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    rb_err_clear(&err);
    if (rb_msg_encode_v(&m, m.version, &buf, &len, &err) == 0) {
        rb_msg_t again;
        rb_err_clear(&err);
        if (rb_msg_decode(buf, len, &again, &err) < 0) {
            fprintf(stderr, "re-encoded %s does not decode: %s\n", rb_msg_type_name(m.type),
                    err.msg);
            abort(); /* what we encode, we must decode */
        }
        if (again.version != m.version) {
            fprintf(stderr, "%s of protocol %u came back as %u\n", rb_msg_type_name(m.type),
                    m.version, again.version);
            abort();
        }
        rb_err_clear(&err);
        if (rb_msg_encode_v(&again, again.version, &buf2, &len2, &err) < 0) {
            fprintf(stderr, "decoded %s does not encode again: %s\n", rb_msg_type_name(again.type),
                    err.msg);
            abort();
        }
        if (len2 != len || memcmp(buf, buf2, len) != 0) {
            fprintf(stderr, "%s: encoding the decoded message changed it (%zu bytes, then %zu)\n",
                    rb_msg_type_name(m.type), len, len2);
            abort();
        }
        free(buf2);
        rb_msg_fini(&again);
        free(buf);
    }
    rb_msg_fini(&m);
    rb_msg_fini(&m); /* documented as safe twice */
    return 0;
}
