/*
 * test_record.c - decoding hand-built principal-buffer data (record.c):
 * the header and per-firing prefix, trace() of every size, strings and
 * byte runs, quiet mode, flowindent, printf records with arguments,
 * exit(), tracemem, padding and unknown EPIDs.  Expected texts follow
 * dtrace(1M)'s formats (OUTPUT-FORMATS.md).
 */
#include "eng_test.h"

#define HDR "CPU     ID                    FUNCTION:NAME\n"
#define BEGIN0 "  0      1                           :BEGIN "

static void test_trace_int64_with_header(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };
	char *s;

	(void)state;
	et_fire(&b, d);
	et_put64(&b, d, 0, 1);
	s = et_consume(h, &b, 0);
	assert_string_equal(s, HDR BEGIN0 "                1\n");
	free(s);
	eng_close(h);
}

static void test_trace_sizes_and_signs(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 4, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 2, 0, 0, 0 }, { DTRACEACT_DIFEXPR, 1, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 3, 1);
	struct et_buf b = { .len = 0 };
	int32_t v4 = -5;
	uint16_t v2 = 65535;
	uint8_t v1 = 255;
	char *s;

	(void)state;
	et_fire(&b, d);
	et_put(&b, d, 0, &v4, 4);
	et_put(&b, d, 1, &v2, 2);
	et_put(&b, d, 2, &v1, 1);
	s = et_consume(h, &b, 1);
	assert_string_equal(s, HDR
	    "  1      1                           :BEGIN        -5 65535 255\n");
	free(s);
	eng_close(h);
}

static void test_trace_string_padded(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 32, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };
	char *s;

	(void)state;
	et_fire(&b, d);
	et_put(&b, d, 0, "hello", 5);
	s = et_consume(h, &b, 0);
	assert_string_equal(s, HDR BEGIN0
	    "  hello                            \n");
	free(s);
	eng_close(h);
}

static void test_quiet_prints_values_only(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 16, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 2, 1);
	struct et_buf b = { .len = 0 };
	char *s;

	(void)state;
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	et_fire(&b, d);
	et_put64(&b, d, 0, -42);
	et_put(&b, d, 1, "ab", 2);
	et_fire(&b, d);
	et_put64(&b, d, 0, 7);
	et_put(&b, d, 1, "c", 1);
	s = et_consume(h, &b, 0);
	assert_string_equal(s, "-42ab7c");
	free(s);
	eng_close(h);
}

static void test_bytes_print_as_hex_dump(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 20, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };
	unsigned char bytes[20];
	char *s;

	(void)state;
	for (int i = 0; i < 20; i++)
		bytes[i] = (unsigned char)(i == 1 ? 'A' : i);
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	et_fire(&b, d);
	et_put(&b, d, 0, bytes, 20);
	s = et_consume(h, &b, 0);
	assert_string_equal(s,
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 00 41 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"
	    "  .A..............\n"
	    "        10: 10 11 12 13                                    "
	    "  ....\n");
	free(s);
	eng_close(h);
}

static void test_printf_record_uses_following_args(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_PRINTF, 0, 0, 2, 3 },
	    { DTRACEACT_DIFEXPR, 8, 0, 0, 0 }, { DTRACEACT_DIFEXPR, 16, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 4, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 2, 1, et_begin, r, 4, 1);
	struct et_buf b = { .len = 0 };
	int32_t v = 9;
	char *s;

	(void)state;
	et_fmt(h, 3, "n=%d s=%s\n");
	et_fire(&b, d);
	et_put64(&b, d, 1, 12);
	et_put(&b, d, 2, "str", 3);
	et_put(&b, d, 3, &v, 4);
	s = et_consume(h, &b, 0);
	/* the third record is not printf's: it is traced after */
	assert_string_equal(s, HDR BEGIN0 "n=12 s=str\n        9\n");
	free(s);
	eng_close(h);
}

static void test_exit_record_sets_status(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_EXIT, 4, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };
	int32_t st = 3;
	char *s;

	(void)state;
	et_fire(&b, d);
	et_put(&b, d, 0, &st, 4);
	s = et_consume(h, &b, 0);
	assert_string_equal(s, HDR BEGIN0 "\n");
	assert_int_equal(eng_exit_status(h), 3);
	free(s);
	eng_close(h);
}

static void test_flowindent_entry_return(void **state)
{
	eng_hdl_t *h = et_open();
	const char *ent[4] = { "pid", "a.out", "foo", "entry" };
	const char *ret[4] = { "pid", "a.out", "foo", "return" };
	dtrace_eprobedesc_t *e = et_epid(h, 1, 5, ent, NULL, 0, 1);
	dtrace_eprobedesc_t *r = et_epid(h, 2, 6, ret, NULL, 0, 1);
	struct et_buf b = { .len = 0 };
	char *s;

	(void)state;
	assert_int_equal(eng_setopt(h, "flowindent", NULL), 0);
	et_fire(&b, e);
	et_fire(&b, e);
	et_fire(&b, r);
	et_fire(&b, r);
	s = et_consume(h, &b, 0);
	assert_string_equal(s,
	    "CPU FUNCTION                                 \n"
	    "  0 -> foo                                    \n"
	    "  0   -> foo                                  \n"
	    "  0   <- foo                                  \n"
	    "  0 <- foo                                    \n");
	free(s);
	eng_close(h);
}

static void test_tracemem_dynamic_size(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = {
	    { DTRACEACT_TRACEMEM, 8, DTRACE_TRACEMEM_DYNAMIC, 0, 0 },
	    { DTRACEACT_TRACEMEM, 8, DTRACE_TRACEMEM_SIZE, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 2, 1);
	struct et_buf b = { .len = 0 };
	char *s;

	(void)state;
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	et_fire(&b, d);
	et_put(&b, d, 0, "hi there", 8);
	et_put64(&b, d, 1, 2);
	s = et_consume(h, &b, 0);
	assert_string_equal(s,
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 68 69                                          "
	    "  hi\n");
	free(s);
	eng_close(h);
}

static void test_padding_epid_skipped(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 8 };
	char *s;

	(void)state;
	memset(b.data, 0, 8);
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	et_fire(&b, d);
	et_put64(&b, d, 0, 5);
	s = et_consume(h, &b, 0);
	assert_string_equal(s, "5");
	free(s);
	eng_close(h);
}

static void test_truncated_record_is_refused(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };
	FILE *fp = fopen("/dev/null", "w");

	(void)state;
	et_fire(&b, d);
	assert_int_equal(eng_rec_consume(h, fp, 0, b.data, 16), -1);
	assert_non_null(strstr(eng_errmsg(h), "corrupt record"));
	fclose(fp);
	eng_close(h);
}

static void test_json_firing(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 16, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 2, 1);
	struct et_buf b = { .len = 0 };
	char *s;

	(void)state;
	assert_int_equal(eng_setopt(h, "oformat", "json"), 0);
	et_fire(&b, d);
	et_put64(&b, d, 0, 42);
	et_put(&b, d, 1, "a\"b", 3);
	s = et_consume(h, &b, 0);
	assert_string_equal(s, "{\"type\":\"probe\",\"cpu\":0,\"id\":1,"
	    "\"epid\":1,\"timestamp\":1000,\"probe\":{\"provider\":\"dtrace\","
	    "\"module\":\"\",\"function\":\"\",\"name\":\"BEGIN\"},\"records\":"
	    "[{\"action\":\"trace\",\"value\":42},{\"action\":\"trace\","
	    "\"string\":\"a\\\"b\"}]}\n");
	free(s);
	eng_close(h);
}

static char bufout[512];
static int bufcpu = -1;

static void on_buffered(const eng_bufdata_t *bd, void *arg)
{
	(void)arg;
	snprintf(bufout + strlen(bufout), sizeof (bufout) - strlen(bufout),
	    "%.*s", (int)bd->ebd_len, bd->ebd_text);
	bufcpu = bd->ebd_cpu;
	assert_int_equal(bd->ebd_probe, 1);
	assert_int_equal(bd->ebd_timestamp, 1000);
}

static void test_buffered_handler_gets_each_firing(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };

	(void)state;
	bufout[0] = '\0';
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	eng_handle_buffered(h, on_buffered, NULL);
	et_fire(&b, d);
	et_put64(&b, d, 0, 4);
	et_fire(&b, d);
	et_put64(&b, d, 0, 5);
	assert_int_equal(eng_rec_consume(h, NULL, 1, b.data, b.len), 0);
	assert_string_equal(bufout, "45");
	assert_int_equal(bufcpu, 1);
	eng_close(h);
}

static void test_exit_seen_without_output(void **state)
{
	eng_hdl_t *h = et_open();
	struct et_rec r[] = { { DTRACEACT_EXIT, 4, 0, 0, 0 } };
	dtrace_eprobedesc_t *d = et_epid(h, 1, 1, et_begin, r, 1, 1);
	struct et_buf b = { .len = 0 };
	int32_t st = 9;

	(void)state;
	et_fire(&b, d);
	et_put(&b, d, 0, &st, 4);
	/* no FILE and no handler: nothing printed, exit() still noted */
	assert_int_equal(eng_rec_consume(h, NULL, 0, b.data, b.len), 0);
	assert_int_equal(eng_exit_status(h), 9);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_int64_with_header),
		cmocka_unit_test(test_trace_sizes_and_signs),
		cmocka_unit_test(test_trace_string_padded),
		cmocka_unit_test(test_quiet_prints_values_only),
		cmocka_unit_test(test_bytes_print_as_hex_dump),
		cmocka_unit_test(test_printf_record_uses_following_args),
		cmocka_unit_test(test_exit_record_sets_status),
		cmocka_unit_test(test_flowindent_entry_return),
		cmocka_unit_test(test_tracemem_dynamic_size),
		cmocka_unit_test(test_padding_epid_skipped),
		cmocka_unit_test(test_truncated_record_is_refused),
		cmocka_unit_test(test_json_firing),
		cmocka_unit_test(test_buffered_handler_gets_each_firing),
		cmocka_unit_test(test_exit_seen_without_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
