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

/* A handle with one dtrace:::BEGIN enabling and a buffer to fire it into. */
struct rig {
	eng_hdl_t *h;
	dtrace_eprobedesc_t *d;
	struct et_buf b;
};

/* EPID epid records r[0..n-1]; the buffer starts empty. */
static void rig_open(struct rig *g, dtrace_epid_t epid,
    const struct et_rec *r, int n)
{
	g->h = et_open();
	g->d = et_epid(g->h, epid, 1, et_begin, r, n, 1);
	g->b.len = 0;
}

static void fire(struct rig *g)
{
	et_fire(&g->b, g->d);
}

static void put(struct rig *g, int i, const void *p, size_t n)
{
	et_put(&g->b, g->d, i, p, n);
}

static void put64(struct rig *g, int i, int64_t v)
{
	et_put64(&g->b, g->d, i, v);
}

/* Decode the buffer as CPU cpu: the text printed must be want. */
static void expect_text(struct rig *g, int cpu, const char *want)
{
	char *s = et_consume(g->h, &g->b, cpu);

	assert_string_equal(s, want);
	free(s);
}

static void test_trace_int64_with_header(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	struct rig g;

	(void)state;
	rig_open(&g, 1, r, 1);
	fire(&g);
	put64(&g, 0, 1);
	expect_text(&g, 0, HDR BEGIN0 "                1\n");
	eng_close(g.h);
}

static void test_trace_sizes_and_signs(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 4, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 2, 0, 0, 0 }, { DTRACEACT_DIFEXPR, 1, 0, 0, 0 } };
	struct rig g;
	int32_t v4 = -5;
	uint16_t v2 = 65535;
	uint8_t v1 = 255;

	(void)state;
	rig_open(&g, 1, r, 3);
	fire(&g);
	put(&g, 0, &v4, 4);
	put(&g, 1, &v2, 2);
	put(&g, 2, &v1, 1);
	expect_text(&g, 1, HDR
	    "  1      1                           :BEGIN        -5 65535 255\n");
	eng_close(g.h);
}

static void test_trace_string_padded(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 32, 0, 0, 0 } };
	struct rig g;

	(void)state;
	rig_open(&g, 1, r, 1);
	fire(&g);
	put(&g, 0, "hello", 5);
	expect_text(&g, 0, HDR BEGIN0
	    "  hello                            \n");
	eng_close(g.h);
}

static void test_quiet_prints_values_only(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 16, 0, 0, 0 } };
	struct rig g;

	(void)state;
	rig_open(&g, 1, r, 2);
	assert_int_equal(eng_setopt(g.h, "quiet", NULL), 0);
	fire(&g);
	put64(&g, 0, -42);
	put(&g, 1, "ab", 2);
	fire(&g);
	put64(&g, 0, 7);
	put(&g, 1, "c", 1);
	expect_text(&g, 0, "-42ab7c");
	eng_close(g.h);
}

static void test_bytes_print_as_hex_dump(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 20, 0, 0, 0 } };
	struct rig g;
	unsigned char bytes[20];

	(void)state;
	for (int i = 0; i < 20; i++)
		bytes[i] = (unsigned char)(i == 1 ? 'A' : i);
	rig_open(&g, 1, r, 1);
	assert_int_equal(eng_setopt(g.h, "quiet", NULL), 0);
	fire(&g);
	put(&g, 0, bytes, 20);
	expect_text(&g, 0,
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 00 41 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"
	    "  .A..............\n"
	    "        10: 10 11 12 13                                    "
	    "  ....\n");
	eng_close(g.h);
}

static void test_printf_record_uses_following_args(void **state)
{
	struct et_rec r[] = { { DTRACEACT_PRINTF, 0, 0, 2, 3 },
	    { DTRACEACT_DIFEXPR, 8, 0, 0, 0 }, { DTRACEACT_DIFEXPR, 16, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 4, 0, 0, 0 } };
	struct rig g;
	int32_t v = 9;

	(void)state;
	rig_open(&g, 2, r, 4);
	et_fmt(g.h, 3, "n=%d s=%s\n");
	fire(&g);
	put64(&g, 1, 12);
	put(&g, 2, "str", 3);
	put(&g, 3, &v, 4);
	/* the third record is not printf's: it is traced after */
	expect_text(&g, 0, HDR BEGIN0 "n=12 s=str\n        9\n");
	eng_close(g.h);
}

static void test_exit_record_sets_status(void **state)
{
	struct et_rec r[] = { { DTRACEACT_EXIT, 4, 0, 0, 0 } };
	struct rig g;
	int32_t st = 3;

	(void)state;
	rig_open(&g, 1, r, 1);
	fire(&g);
	put(&g, 0, &st, 4);
	expect_text(&g, 0, HDR BEGIN0 "\n");
	assert_int_equal(eng_exit_status(g.h), 3);
	eng_close(g.h);
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
	struct et_rec r[] = {
	    { DTRACEACT_TRACEMEM, 8, DTRACE_TRACEMEM_DYNAMIC, 0, 0 },
	    { DTRACEACT_TRACEMEM, 8, DTRACE_TRACEMEM_SIZE, 0, 0 } };
	struct rig g;

	(void)state;
	rig_open(&g, 1, r, 2);
	assert_int_equal(eng_setopt(g.h, "quiet", NULL), 0);
	fire(&g);
	put(&g, 0, "hi there", 8);
	put64(&g, 1, 2);
	expect_text(&g, 0,
	    "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
	    "  0123456789abcdef\n"
	    "         0: 68 69                                          "
	    "  hi\n");
	eng_close(g.h);
}

static void test_padding_epid_skipped(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	struct rig g;

	(void)state;
	rig_open(&g, 1, r, 1);
	memset(g.b.data, 0, 8);		/* EPID 0: padding */
	g.b.len = 8;
	assert_int_equal(eng_setopt(g.h, "quiet", NULL), 0);
	fire(&g);
	put64(&g, 0, 5);
	expect_text(&g, 0, "5");
	eng_close(g.h);
}

static void test_truncated_record_is_refused(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	struct rig g;
	FILE *fp = fopen("/dev/null", "w");

	(void)state;
	rig_open(&g, 1, r, 1);
	fire(&g);
	assert_int_equal(eng_rec_consume(g.h, fp, 0, g.b.data, 16), -1);
	assert_non_null(strstr(eng_errmsg(g.h), "corrupt record"));
	fclose(fp);
	eng_close(g.h);
}

static void test_json_firing(void **state)
{
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 },
	    { DTRACEACT_DIFEXPR, 16, 0, 0, 0 } };
	struct rig g;

	(void)state;
	rig_open(&g, 1, r, 2);
	assert_int_equal(eng_setopt(g.h, "oformat", "json"), 0);
	fire(&g);
	put64(&g, 0, 42);
	put(&g, 1, "a\"b", 3);
	expect_text(&g, 0, "{\"type\":\"probe\",\"cpu\":0,\"id\":1,"
	    "\"epid\":1,\"timestamp\":1000,\"probe\":{\"provider\":\"dtrace\","
	    "\"module\":\"\",\"function\":\"\",\"name\":\"BEGIN\"},\"records\":"
	    "[{\"action\":\"trace\",\"value\":42},{\"action\":\"trace\","
	    "\"string\":\"a\\\"b\"}]}\n");
	eng_close(g.h);
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
	struct et_rec r[] = { { DTRACEACT_DIFEXPR, 8, 0, 0, 0 } };
	struct rig g;

	(void)state;
	bufout[0] = '\0';
	rig_open(&g, 1, r, 1);
	assert_int_equal(eng_setopt(g.h, "quiet", NULL), 0);
	eng_handle_buffered(g.h, on_buffered, NULL);
	fire(&g);
	put64(&g, 0, 4);
	fire(&g);
	put64(&g, 0, 5);
	assert_int_equal(eng_rec_consume(g.h, NULL, 1, g.b.data, g.b.len), 0);
	assert_string_equal(bufout, "45");
	assert_int_equal(bufcpu, 1);
	eng_close(g.h);
}

static void test_exit_seen_without_output(void **state)
{
	struct et_rec r[] = { { DTRACEACT_EXIT, 4, 0, 0, 0 } };
	struct rig g;
	int32_t st = 9;

	(void)state;
	rig_open(&g, 1, r, 1);
	fire(&g);
	put(&g, 0, &st, 4);
	/* no FILE and no handler: nothing printed, exit() still noted */
	assert_int_equal(eng_rec_consume(g.h, NULL, 0, g.b.data, g.b.len), 0);
	assert_int_equal(eng_exit_status(g.h), 9);
	eng_close(g.h);
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
