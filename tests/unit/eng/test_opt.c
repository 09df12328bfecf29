/*
 * test_opt.c - options by dtrace's names, units and suffixes (opt.c):
 * sizes with k/m/g/t, rates in ns/us/ms/s/m/h/d and hz, booleans,
 * policies, defaults, every listed name settable, refusals of unknown
 * names and bad values, enable-time options refused after GO, and sizes
 * fitted to what tracing can allocate (bufresize).
 */
#include "eng_test.h"

static int64_t get(eng_hdl_t *h, const char *name)
{
	int64_t v = 0;

	assert_int_equal(eng_getopt(h, name, &v), 0);
	return v;
}

static void test_size_suffixes(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	assert_int_equal(eng_setopt(h, "bufsize", "4m"), 0);
	assert_int_equal(get(h, "bufsize"), 4 << 20);
	assert_int_equal(eng_setopt(h, "aggsize", "512k"), 0);
	assert_int_equal(get(h, "aggsize"), 512 << 10);
	/* manual: sizes stay as asked, even those too large to allocate */
	assert_int_equal(eng_setopt(h, "bufresize", "manual"), 0);
	assert_int_equal(eng_setopt(h, "dynvarsize", "2G"), 0);
	assert_int_equal(get(h, "dynvarsize"), 2LL << 30);
	assert_int_equal(eng_setopt(h, "specsize", "1t"), 0);
	assert_int_equal(get(h, "specsize"), 1LL << 40);
	assert_int_equal(eng_setopt(h, "strsize", "1024"), 0);
	assert_int_equal(get(h, "strsize"), 1024);
	eng_close(h);
}

static void test_rate_suffixes(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	assert_int_equal(eng_setopt(h, "switchrate", "10hz"), 0);
	assert_int_equal(get(h, "switchrate"), 100000000);
	assert_int_equal(eng_setopt(h, "aggrate", "1s"), 0);
	assert_int_equal(get(h, "aggrate"), 1000000000);
	assert_int_equal(eng_setopt(h, "statusrate", "250ms"), 0);
	assert_int_equal(get(h, "statusrate"), 250000000);
	assert_int_equal(eng_setopt(h, "cleanrate", "5us"), 0);
	assert_int_equal(get(h, "cleanrate"), 5000);
	assert_int_equal(eng_setopt(h, "aggrate", "2min"), 0);
	assert_int_equal(get(h, "aggrate"), 120000000000LL);
	assert_int_equal(eng_setopt(h, "aggrate", "500"), 0);
	assert_int_equal(get(h, "aggrate"), 500);
	eng_close(h);
}

static void test_booleans_and_words(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	assert_int_equal(get(h, "quiet"), DTRACEOPT_UNSET);
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	assert_true(eng_opt_isset(h, DTRACEOPT_QUIET));
	assert_int_equal(eng_setopt(h, "bufpolicy", "ring"), 0);
	assert_int_equal(get(h, "bufpolicy"), DTRACEOPT_BUFPOLICY_RING);
	assert_int_equal(eng_setopt(h, "bufpolicy", "fill"), 0);
	assert_int_equal(get(h, "bufpolicy"), DTRACEOPT_BUFPOLICY_FILL);
	assert_int_equal(eng_setopt(h, "bufresize", "manual"), 0);
	assert_int_equal(get(h, "bufresize"), DTRACEOPT_BUFRESIZE_MANUAL);
	assert_int_equal(eng_setopt(h, "oformat", "json"), 0);
	assert_int_equal(get(h, "oformat"), ENG_OFORMAT_JSON);
	assert_int_equal(eng_setopt(h, "errtags", NULL), 0);
	assert_true(eng_opt_isset(h, ENG_OPT_ERRTAGS));
	assert_int_equal(eng_setopt(h, "aggsortkeypos", "2"), 0);
	assert_int_equal(get(h, "aggsortkeypos"), 2);
	eng_close(h);
}

static void test_defaults(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	assert_int_equal(get(h, "bufsize"), 4 << 20);
	assert_int_equal(get(h, "bufpolicy"), DTRACEOPT_BUFPOLICY_SWITCH);
	assert_int_equal(get(h, "strsize"), 256);
	assert_int_equal(get(h, "stackindent"), 14);
	assert_int_equal(get(h, "nspec"), 1);
	assert_int_equal(get(h, "switchrate"), 1000000000);
	eng_close(h);
}

static void test_every_listed_option_settable(void **state)
{
	eng_hdl_t *h = et_open();
	const char *const *n = eng_option_names();
	int count = 0;

	(void)state;
	/* options whose values are text (dtrace cannot get those) */
	static const char *const text[][2] = { { "cppargs", "-DX" },
	    { "cpphdrs", NULL }, { "cpppath", "cpp" }, { "ctypes", "/dev/null" },
	    { "define", "X=1" }, { "dtypes", "/dev/null" }, { "incdir", "/" },
	    { "libdir", "/" }, { "stdc", "a" }, { "undef", "X" },
	    { "uroute", "uprobes" }, { "version", "1.0" },
	    { "amin", "Stable" }, { "disasm", "0" }, { "evaltime", "main" },
	    { "late", "static" }, { "linkmode", "kernel" },
	    { "linktype", "elf" }, { "tree", "1" }, { "useruid", "0" } };

	for (; *n != NULL; n++, count++) {
		int64_t v;
		const char *val = NULL;
		size_t t;

		for (t = 0; t < sizeof (text) / sizeof (text[0]); t++)
			if (strcmp(*n, text[t][0]) == 0)
				break;
		if (t < sizeof (text) / sizeof (text[0])) {
			if (eng_setopt(h, *n, text[t][1]) != 0)
				fail_msg("option %s: %s", *n, eng_errmsg(h));
			continue;
		}
		assert_int_equal(eng_getopt(h, *n, &v), 0);
		if (strcmp(*n, "bufpolicy") == 0)
			val = "switch";
		else if (strcmp(*n, "bufresize") == 0)
			val = "auto";
		else if (strcmp(*n, "oformat") == 0)
			val = "text";
		else if (strcmp(*n, "strsize") == 0)
			val = "2";
		else if (v != DTRACEOPT_UNSET || strcmp(*n, "cpu") == 0 ||
		    strcmp(*n, "zone") == 0 || strcmp(*n, "maxframes") == 0 ||
		    strcmp(*n, "scratchsize") == 0)
			val = "1";
		if (eng_setopt(h, *n, val) != 0)
			fail_msg("option %s: %s", *n, eng_errmsg(h));
	}
	assert_true(count >= 33);
	eng_close(h);
}

static void test_refusals(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	assert_int_equal(eng_setopt(h, "nosuchoption", NULL), -1);
	assert_string_equal(eng_errmsg(h), "Invalid option name");
	assert_int_equal(eng_setopt(h, "bufsize", "4q"), -1);
	assert_string_equal(eng_errmsg(h), "Invalid value for specified option");
	assert_int_equal(eng_setopt(h, "bufsize", NULL), -1);
	assert_int_equal(eng_setopt(h, "switchrate", "3fortnights"), -1);
	assert_int_equal(eng_setopt(h, "bufpolicy", "circular"), -1);
	assert_int_equal(eng_setopt(h, "oformat", "xml"), -1);
	assert_int_equal(eng_setopt(h, "nspec", "-1"), -1);
	eng_close(h);
}

static void test_enable_time_options_refused_after_go(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	h->eh_go = 1;			/* as after eng_go */
	assert_int_equal(eng_setopt(h, "bufsize", "1m"), -1);
	assert_string_equal(eng_errmsg(h),
	    "Operation illegal when tracing is active");
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	assert_int_equal(eng_setopt(h, "aggsortrev", NULL), 0);
	h->eh_go = 0;
	eng_close(h);
}

/* Sizes too large to allocate are halved as DTrace's kernel does under
 * bufresize=auto (and reported as lowered); under manual they stay and
 * enabling fails; strsize, nspec, stack frames are capped. */
static void test_sizes_fitted(void **state)
{
	eng_hdl_t *h = et_open();
	int64_t asked = 0, now = 0;

	(void)state;
	assert_int_equal(eng_opt_fitted(h, "bufsize", &asked, &now), 0);
	assert_int_equal(eng_setopt(h, "bufsize", "100g"), 0);
	assert_int_equal(get(h, "bufsize"), (100LL << 30) >> 7);  /* 800m */
	assert_int_equal(eng_opt_fitted(h, "bufsize", &asked, &now), 1);
	assert_int_equal(asked, 100LL << 30);
	assert_int_equal(now, 800LL << 20);
	assert_int_equal(eng_setopt(h, "bufresize", "manual"), 0);
	assert_int_equal(get(h, "bufsize"), 100LL << 30);
	assert_int_equal(eng_opt_fitted(h, "bufsize", &asked, &now), -1);
	assert_int_equal(eng_setopt(h, "bufresize", "auto"), 0);
	assert_int_equal(get(h, "bufsize"), 800LL << 20);
	assert_int_equal(eng_setopt(h, "bufsize", "1m"), 0);	/* fits */
	assert_int_equal(eng_opt_fitted(h, "bufsize", &asked, &now), 0);
	assert_int_equal(get(h, "bufsize"), 1 << 20);
	/* halved sizes stay 8-byte aligned */
	assert_int_equal(eng_setopt(h, "aggsize", "3000000001"), 0);
	assert_int_equal(get(h, "aggsize"), 750000000);
	assert_int_equal(eng_setopt(h, "specsize", "1g"), 0);
	assert_int_equal(get(h, "specsize"), 64 << 20);
	assert_int_equal(eng_setopt(h, "strsize", "100000"), 0);
	assert_int_equal(get(h, "strsize"), 65536);	/* dtrace_strsize_max */
	assert_int_equal(eng_opt_fitted(h, "strsize", &asked, &now), 0);
	assert_int_equal(eng_setopt(h, "nspec", "100000"), 0);
	assert_int_equal(get(h, "nspec"), 4096);
	assert_int_equal(eng_setopt(h, "stackframes", "5000"), 0);
	assert_int_equal(get(h, "stackframes"), 1024);
	/* zero sizes: the shim's floor (bufsize then fails at go) */
	assert_int_equal(eng_setopt(h, "bufsize", "0"), 0);
	assert_int_equal(get(h, "bufsize"), 1);
	/* a string needs room for a character and its NUL: strsize 0 or
	 * 1 is refused as Oracle's dtrace refuses it, the value kept */
	assert_int_equal(eng_setopt(h, "strsize", "0"), -1);
	assert_string_equal(eng_errmsg(h), "Invalid value for specified option");
	assert_int_equal(eng_setopt(h, "strsize", "1"), -1);
	assert_int_equal(get(h, "strsize"), 65536);
	assert_int_equal(eng_setopt(h, "strsize", "2"), 0);
	assert_int_equal(get(h, "strsize"), 2);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_suffixes),
		cmocka_unit_test(test_rate_suffixes),
		cmocka_unit_test(test_booleans_and_words),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_listed_option_settable),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_enable_time_options_refused_after_go),
		cmocka_unit_test(test_sizes_fitted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
