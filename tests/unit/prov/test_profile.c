/*
 * test_profile.c - profile provider rate parsing (prov_profile.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "prov_impl.h"

static uint64_t period(const char *name, int want_kind)
{
	char err[128];
	uint64_t p = 0;
	int kind = 0;

	assert_int_equal(prov_profile_parse(name, &kind, &p, err,
	    sizeof(err)), 0);
	assert_int_equal(kind, want_kind);
	return p;
}

static void test_units(void **state)
{
	assert_int_equal(period("tick-1s", PROV_PROFILE_TICK), 1000000000ull);
	assert_int_equal(period("tick-10ms", PROV_PROFILE_TICK), 10000000ull);
	assert_int_equal(period("tick-500us", PROV_PROFILE_TICK), 500000ull);
	assert_int_equal(period("tick-300000ns", PROV_PROFILE_TICK), 300000ull);
	assert_int_equal(period("tick-2sec", PROV_PROFILE_TICK),
	    2000000000ull);
	assert_int_equal(period("tick-1m", PROV_PROFILE_TICK),
	    60000000000ull);
	assert_int_equal(period("tick-1h", PROV_PROFILE_TICK),
	    3600000000000ull);
	assert_int_equal(period("tick-1d", PROV_PROFILE_TICK),
	    86400000000000ull);
	assert_int_equal(period("tick-5msec", PROV_PROFILE_TICK), 5000000ull);
}

static void test_hz(void **state)
{
	assert_int_equal(period("tick-997hz", PROV_PROFILE_TICK),
	    1000000000ull / 997);
	assert_int_equal(period("profile-997", PROV_PROFILE_PROFILE),
	    1000000000ull / 997);
	assert_int_equal(period("tick-1", PROV_PROFILE_TICK), 1000000000ull);
	assert_int_equal(period("profile-4999", PROV_PROFILE_PROFILE),
	    1000000000ull / 4999);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"tick-", "tick-0", "tick-x", "tick-10parsecs", "tick--1",
		"profile-100us", "profile-10000", "tock-1s", "tick-1 s",
	};
	char err[128];
	uint64_t p;
	int kind;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(prov_profile_parse(bad[i], &kind, &p, err,
		    sizeof(err)), -1);
		assert_non_null(strstr(err, bad[i]));
	}
	prov_profile_parse("tick-3furlongs", &kind, &p, err, sizeof(err));
	assert_non_null(strstr(err, "unknown unit"));
	prov_profile_parse("profile-50us", &kind, &p, err, sizeof(err));
	assert_non_null(strstr(err, "200us"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_hz),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests_name("prov_profile", tests, NULL, NULL);
}
