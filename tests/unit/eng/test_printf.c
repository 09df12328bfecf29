/*
 * test_printf.c - dtrace's printf() conversions and flags (printf.c):
 * integers by record size and sign, %d %i %u %o %x %X %c %s %S %p %e %f
 * %g %Y %T %%, widths, precisions, %*d, flags - + space # 0, size
 * prefixes (h converts to short), %@ aggregation values, and refusal
 * of a conversion outside dtrace's dictionary.
 */
#include <time.h>
#include <unistd.h>
#include "eng_test.h"

/* Arguments built from (size, value or string) pairs. */
struct pfa {
	dtrace_recdesc_t rec[8];
	char data[8][64];
	eng_pfarg_t args[8];
	int n;
};

static void add_int(struct pfa *a, uint32_t size, int64_t v)
{
	int i = a->n++;

	memset(&a->rec[i], 0, sizeof (a->rec[i]));
	a->rec[i].dtrd_action = DTRACEACT_DIFEXPR;
	a->rec[i].dtrd_size = size;
	memcpy(a->data[i], &v, size);	/* little-endian: low bytes first */
	a->args[i].pa_rec = &a->rec[i];
	a->args[i].pa_data = a->data[i];
	a->args[i].pa_normal = 1;
}

static void add_str(struct pfa *a, const char *s)
{
	int i = a->n++;

	memset(&a->rec[i], 0, sizeof (a->rec[i]));
	memset(a->data[i], 0, sizeof (a->data[i]));
	a->rec[i].dtrd_action = DTRACEACT_DIFEXPR;
	a->rec[i].dtrd_size = 64;
	strcpy(a->data[i], s);
	a->args[i].pa_rec = &a->rec[i];
	a->args[i].pa_data = a->data[i];
	a->args[i].pa_normal = 1;
}

static char *fmt(eng_hdl_t *h, const char *f, struct pfa *a)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	assert_true(eng_printf(h, fp, f, a->args, a->n, NULL, 0) >= 0);
	fclose(fp);
	return s;
}

#define CHECK(h, f, a, want) do { \
	char *s_ = fmt(h, f, a); \
	if (strcmp(s_, want) != 0) \
		fail_msg("printf(\"%s\") gave \"%s\", want \"%s\"", f, s_, \
		    want); \
	free(s_); \
} while (0)

static void test_integers_by_size_and_sign(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	add_int(&a, 4, -1);
	add_int(&a, 4, -1);
	add_int(&a, 1, 200);
	add_int(&a, 8, -9);
	CHECK(h, "%d %u %d %i", &a, "-1 4294967295 -56 -9");
	eng_close(h);
}

static void test_radix_and_flags(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	for (int i = 0; i < 6; i++)
		add_int(&a, 8, 255);
	CHECK(h, "%o %x %X %#x %#o %p", &a, "377 ff FF 0xff 0377 ff");
	eng_close(h);
}

static void test_width_precision_and_padding(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	add_int(&a, 8, 42);
	add_int(&a, 8, 42);
	add_int(&a, 8, 42);
	add_int(&a, 8, 42);
	add_int(&a, 8, 42);
	CHECK(h, "[%5d][%-5d][%05d][%+d][% d]", &a,
	    "[   42][42   ][00042][+42][ 42]");
	eng_close(h);
}

static void test_star_width_and_precision(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	add_int(&a, 4, 6);
	add_int(&a, 8, 7);
	add_int(&a, 4, -4);
	add_int(&a, 8, 1);
	add_int(&a, 4, 2);
	add_str(&a, "abcdef");
	CHECK(h, "[%*d][%*d][%.*s]", &a, "[     7][1   ][ab]");
	eng_close(h);
}

static void test_strings_chars_and_escapes(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	add_str(&a, "hi");
	add_str(&a, "hi");
	add_int(&a, 1, 'x');
	add_str(&a, "a\tb\n");
	CHECK(h, "[%s][%-4s]%c %S", &a, "[hi][hi  ]x a\\tb\\n");
	eng_close(h);
}

static void test_size_prefixes_accepted(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	add_int(&a, 8, 1);
	add_int(&a, 8, 2);
	add_int(&a, 8, 3);
	add_int(&a, 8, 4);
	add_int(&a, 8, 5);
	CHECK(h, "%hd %lu %ld %lld %llu%%", &a, "1 2 3 4 5%");
	eng_close(h);
}

/* h converts to short as printf(3C) does with it */
static void test_short_and_char_sizes(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	(void)state;
	add_int(&a, 4, 70000);
	add_int(&a, 8, -1);
	add_int(&a, 4, 70000);
	add_int(&a, 2, -2);
	add_int(&a, 8, 70000);
	CHECK(h, "%hd %hu %hx %hi %ld", &a, "4464 65535 1170 -2 70000");
	eng_close(h);
}

/* A umod() record (pid, address) prints as its module under any
 * textual conversion, as libdtrace's pfprint_umod; usym under %A as
 * object`symbol. */
static void test_umod_record_prints_module(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };
	uint64_t w[2] = { (uint64_t)getpid(),
	    (uint64_t)(uintptr_t)&test_umod_record_prints_module };

	(void)state;
	for (int i = 0; i < 3; i++) {
		add_int(&a, 8, 0);
		a.rec[i].dtrd_action = i < 2 ? DTRACEACT_UMOD : DTRACEACT_USYM;
		a.rec[i].dtrd_size = 16;
		memcpy(a.data[i], w, 16);
	}
	CHECK(h, "[%A] [%-12s] [%A]", &a, "[test_printf] [test_printf ] "
	    "[test_printf`test_umod_record_prints_module]");
	eng_close(h);
}

static void test_floating_conversions(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };

	const double d[2] = { 3, 1500 };
	const float f = -2.5f;
	int64_t bits[3] = { 0, 0, 0 };

	(void)state;
	/* the records hold a double, a double and a float (pfprint_fp) */
	memcpy(&bits[0], &d[0], 8);
	memcpy(&bits[1], &d[1], 8);
	memcpy(&bits[2], &f, 4);
	add_int(&a, 8, bits[0]);
	add_int(&a, 8, bits[1]);
	add_int(&a, 4, bits[2]);
	CHECK(h, "%.2f %e %g", &a, "3.00 1.500000e+03 -2.5");
	eng_close(h);
}

static void test_walltimestamp_Y(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };
	char want[64];
	time_t t = 1700000000;
	struct tm tm;

	(void)state;
	add_int(&a, 8, (int64_t)t * 1000000000LL + 5);
	localtime_r(&t, &tm);
	strftime(want, sizeof (want), "%Y %b %e %T", &tm);
	CHECK(h, "%Y", &a, want);
	eng_close(h);
}

/* %T: RFC 822 time as libdtrace's pfprint_time822 ("%a, %d %b %G %T %Z") */
static void test_walltimestamp_T(void **state)
{
	eng_hdl_t *h = et_open();
	struct pfa a = { .n = 0 };
	time_t t = 1700000000;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	add_int(&a, 8, (int64_t)t * 1000000000LL + 5);
	CHECK(h, "[%T]", &a, "[Tue, 14 Nov 2023 22:13:20 UTC]");
	eng_close(h);
}

static void test_agg_value_conversion(void **state)
{
	eng_hdl_t *h = et_open();
	dtrace_recdesc_t r = { .dtrd_action = DTRACEAGG_AVG, .dtrd_size = 16 };
	int64_t v[2] = { 4, 10 };		/* count, sum */
	eng_pfarg_t agg = { &r, (const char *)v, 1 };
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	(void)state;
	assert_true(eng_printf(h, fp, "avg=%@d", NULL, 0, &agg, 1) >= 0);
	fclose(fp);
	assert_string_equal(s, "avg=2");
	free(s);
	eng_close(h);
}

static void test_bad_conversion_refused(void **state)
{
	eng_hdl_t *h = et_open();
	FILE *fp = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(eng_printf(h, fp, "%q", NULL, 0, NULL, 0), -1);
	assert_string_equal(eng_errmsg(h),
	    "format conversion #1 is undefined: %q");
	/* not in dtrace's dictionary: C's hh, z and F */
	assert_int_equal(eng_printf(h, fp, "%d %hhd", NULL, 0, NULL, 0), -1);
	assert_string_equal(eng_errmsg(h),
	    "format conversion #2 is undefined: %hhd");
	assert_int_equal(eng_printf(h, fp, "%zu", NULL, 0, NULL, 0), -1);
	assert_int_equal(eng_printf(h, fp, "%F", NULL, 0, NULL, 0), -1);
	fclose(fp);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_by_size_and_sign),
		cmocka_unit_test(test_radix_and_flags),
		cmocka_unit_test(test_width_precision_and_padding),
		cmocka_unit_test(test_star_width_and_precision),
		cmocka_unit_test(test_strings_chars_and_escapes),
		cmocka_unit_test(test_size_prefixes_accepted),
		cmocka_unit_test(test_short_and_char_sizes),
		cmocka_unit_test(test_umod_record_prints_module),
		cmocka_unit_test(test_floating_conversions),
		cmocka_unit_test(test_walltimestamp_Y),
		cmocka_unit_test(test_walltimestamp_T),
		cmocka_unit_test(test_agg_value_conversion),
		cmocka_unit_test(test_bad_conversion_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
