/* fio's verify methods (agent/job/rb_verify.c, rb_verify_sum.c): the
 * checksums against known values (fio's CRC tables, the libraries' test
 * vectors), and every method's blocks stamped, checked, and caught when a
 * byte flips, a header moves or a block sits at another offset. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rb_verify.h"
#include "rb_verify_sum.h"

#define BS 4096u

/* Entries of fio's tables (crc/crc64.c, crc16.c, crc7.c) are the CRCs of one
 * byte; "123456789" gives each CRC's catalogue check value. */
static void test_crcs(void **state)
{
    (void)state;
    uint8_t b = 1;
    assert_true(rb_verify_crc64(0, &b, 1) == 0x7ad870c830358979ULL);
    b = 0x80;
    assert_true(rb_verify_crc64(0, &b, 1) == 0x95AC9329AC4BC9B5ULL);
    b = 1;
    assert_int_equal(rb_verify_crc16(0, &b, 1), 0xC0C1);
    b = 0xff;
    assert_int_equal(rb_verify_crc16(0, &b, 1), 0x4040);
    b = 1;
    assert_int_equal(rb_verify_crc7(0, &b, 1), 0x09);
    b = 0x80;
    assert_int_equal(rb_verify_crc7(0, &b, 1), 0x41);
    b = 0xff;
    assert_int_equal(rb_verify_crc7(0, &b, 1), 0x79);
    assert_int_equal(rb_verify_crc16(0, "123456789", 9), 0xBB3D); /* CRC-16/ARC */
    /* continuing from an earlier CRC is one CRC of both pieces */
    assert_true(rb_verify_crc64(rb_verify_crc64(0, "1234", 4), "56789", 5) ==
                rb_verify_crc64(0, "123456789", 9));
    assert_int_equal(rb_verify_crc7(rb_verify_crc7(0, "12", 2), "3456789", 7),
                     rb_verify_crc7(0, "123456789", 9));
}

/* The libraries' checksums of "abc" in two pieces, as their standards give them. */
static void test_library_sums(void **state)
{
    (void)state;
    static const struct {
        rb_verify_t t;
        const char *hex;
    } want[] = {
        {RB_VERIFY_MD5, "900150983cd24fb0d6963f7d28e17f72"},
        {RB_VERIFY_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {RB_VERIFY_SHA256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {RB_VERIFY_CRC32, "c2412435"},  /* 0x352441c2, little-endian */
        {RB_VERIFY_CRC32C, "b73f4b36"}, /* 0x364b3fb7 */
        {RB_VERIFY_XXHASH, "ffa83daa"}, /* XXH32("abc", seed 1) = 0xaa3da8ff */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        uint8_t out[RB_VERIFY_SUM_MAX];
        char hex[2 * RB_VERIFY_SUM_MAX + 1] = "";
        assert_int_equal(rb_verify_sum(want[i].t, "a", 1, "bc", 2, out), 0);
        for (uint32_t k = 0; k < rb_verify_sum_len(want[i].t); k++)
            snprintf(hex + 2 * k, 3, "%02x", out[k]);
        assert_string_equal(hex, want[i].hex);
    }
    uint8_t out[RB_VERIFY_SUM_MAX];
    assert_int_equal(rb_verify_sum(RB_VERIFY_SHA512, "a", 1, "bc", 2, out), 0);
    assert_int_equal(out[0], 0xdd);
    assert_int_equal(out[63], 0x9f);
}

static void s_fill(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 8));
}

/* One job as it checks: its method, interval and offset. */
static void s_roundtrip(const rb_job_spec_t *js)
{
    uint8_t *b = malloc(BS), *c = malloc(BS);
    char why[240];
    const uint64_t run = 11, file = 22, off = 5 * BS;
    s_fill(b, BS, 3);
    rb_verify_stamp(js, b, BS, run, 2, file, off, 1);
    memcpy(c, b, BS);
    assert_int_equal(rb_verify_check(js, c, BS, run, 2, file, off, why, sizeof why), 0);
    if (js->verify == RB_VERIFY_NULL)
        goto out;
    /* a byte flipped in the payload of the last interval (meta: in its header) */
    uint64_t unit = js->verify_interval ? js->verify_interval : BS;
    uint64_t at = js->verify == RB_VERIFY_META ? BS - unit + js->verify_offset + 20 : BS - 100;
    memcpy(c, b, BS);
    c[at] ^= 0x40;
    assert_int_equal(rb_verify_check(js, c, BS, run, 2, file, off, why, sizeof why), -EBADMSG);
    if (js->verify == RB_VERIFY_PATTERN) {
        char want[64];
        snprintf(want, sizeof want, "at offset %llu", (unsigned long long)(off + at));
        assert_non_null(strstr(why, want));
    } else if (unit < BS) {
        char want[64];
        snprintf(want, sizeof want, "interval at offset %llu",
                 (unsigned long long)(off + BS - unit));
        assert_non_null(strstr(why, want));
    }
    assert_non_null(strstr(why, js->verify == RB_VERIFY_PATTERN ? "pattern" : "checksum"));
    if (js->verify != RB_VERIFY_PATTERN) {
        /* the block where another one belongs; a node that did not write it */
        memcpy(c, b, BS);
        assert_int_equal(rb_verify_check(js, c, BS, run, 2, file, off + BS, why, sizeof why),
                         -EBADMSG);
        assert_non_null(strstr(why, "written at offset"));
        memcpy(c, b, BS);
        assert_int_equal(rb_verify_check(js, c, BS, run, 3, file, off, why, sizeof why), -EBADMSG);
        assert_non_null(strstr(why, "node rank 1"));
    } else if (js->pattern_ofs) {
        memcpy(c, b, BS);
        assert_int_equal(rb_verify_check(js, c, BS, run, 2, file, off + BS, why, sizeof why),
                         -EBADMSG);
    }
out:
    free(b);
    free(c);
}

static void test_every_method(void **state)
{
    (void)state;
    for (rb_verify_t t = RB_VERIFY_CRC32C; t <= RB_VERIFY_NULL; t++) {
        rb_job_spec_t js = {.verify = t, .bs = BS};
        if (t == RB_VERIFY_PATTERN) {
            memcpy(js.pattern, "\xaa\x55\x5a\xa5", 4);
            js.pattern_len = 4;
            js.buffer_mode = RB_BUF_PATTERN;
        }
        s_roundtrip(&js);
        if (!rb_verify_hdr_len(t))
            continue;
        js.verify_interval = 512; /* surface-scan.fio's */
        s_roundtrip(&js);
        js.verify_offset = 256;
        s_roundtrip(&js);
    }
}

/* A header of one method is not taken for another's. */
static void test_method_in_header(void **state)
{
    (void)state;
    rb_job_spec_t md5 = {.verify = RB_VERIFY_MD5, .bs = BS}, sha1 = {.verify = RB_VERIFY_SHA1};
    uint8_t *b = malloc(BS);
    char why[240];
    s_fill(b, BS, 1);
    rb_verify_stamp(&md5, b, BS, 1, 1, 1, 0, 0);
    assert_int_equal(rb_verify_check(&sha1, b, BS, 1, 1, 1, 0, why, sizeof why), -EBADMSG);
    assert_non_null(strstr(why, "another verify method"));
    free(b);
}

/* verify_pattern's %o: the block's offset, little-endian, where it stands. */
static void test_pattern_offset(void **state)
{
    (void)state;
    rb_job_spec_t js = {.verify = RB_VERIFY_PATTERN, .bs = BS, .buffer_mode = RB_BUF_PATTERN};
    memcpy(js.pattern, "\xde\xad\0\0\0\0\0\0\0\0", 10);
    js.pattern_len = 10;
    js.pattern_ofs = 1u << 2;
    uint8_t *b = malloc(BS);
    rb_verify_stamp(&js, b, BS, 0, 0, 0, 0x1234, 0);
    assert_int_equal(b[0], 0xde);
    assert_int_equal(b[2], 0x34);
    assert_int_equal(b[3], 0x12);
    assert_int_equal(b[10], 0xde);
    assert_int_equal(b[12], 0x34);
    s_roundtrip(&js);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crcs),           cmocka_unit_test(test_library_sums),
        cmocka_unit_test(test_every_method),   cmocka_unit_test(test_method_in_header),
        cmocka_unit_test(test_pattern_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
