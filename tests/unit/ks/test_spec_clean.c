/*
 * test_spec_clean.c - committed and discarded speculations come back:
 * once a cleanrate interval has passed, speculation() hands the buffer
 * out again without any STATUS call; before that, speculation() and
 * speculate() fail with the "busy" count, not "unavailable".
 */
#include <time.h>
#include "ks_test.h"

#define CLEAN_NS	500000000ull	/* cleanrate: 500 ms, far above a
					 * preemption between two firings */

/* The speculation ids EPID 1 recorded in cpu 0's buffer, in order. */
static int ids(ks_state_t *st, uint32_t *out, int max)
{
	char buf[4096];
	uint64_t off, n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
	int k = 0;

	for (off = 0; off + 16 <= n;) {
		dtrace_epid_t e;

		memcpy(&e, buf + off, 4);
		if (e == 1 && k < max)
			memcpy(&out[k++], buf + off + 12, 4);
		off += e == 2 ? 24 : 16;
	}
	return k;
}

static void wait_clean(void)
{
	struct timespec ts = { 0, (long)(CLEAN_NS + CLEAN_NS / 2) };

	nanosleep(&ts, NULL);
}

static void recycled_after_commit_and_discard(void **state)
{
	ks_state_t *st = kt_spec_state(1, 0, CLEAN_NS);
	uint32_t v[8];
	dtrace_status_t s;

	(void)state;
	kt_fire(0, 0, 0, 0);	/* 1 */
	kt_fire(1, 0, 1, 100);
	kt_fire(2, 0, 1, 0);	/* commit(1) */
	kt_fire(0, 0, 0, 0);	/* 0: still being cleaned (busy) */
	kt_fire(1, 0, 1, 101);	/* busy */
	wait_clean();
	kt_fire(0, 0, 0, 0);	/* 1 again, without STATUS */
	kt_fire(3, 0, 1, 0);	/* discard(1) */
	kt_fire(0, 0, 0, 0);	/* 0: busy */
	wait_clean();
	kt_fire(0, 0, 0, 0);	/* 1 */
	kt_fire(0, 0, 0, 0);	/* 0: in use, none cleaning: unavailable */
	assert_int_equal(ids(st, v, 8), 6);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 1);
	assert_int_equal(v[3], 0);
	assert_int_equal(v[4], 1);
	assert_int_equal(v[5], 0);
	s = kt_status(st);
	assert_int_equal(s.dtst_specdrops_busy, 3);
	assert_int_equal(s.dtst_specdrops_unavail, 1);
	ks_close(st);
}

static void speculate_after_clean_is_silent(void **state)
{
	ks_state_t *st = kt_spec_state(1, 0, CLEAN_NS);
	dtrace_status_t s;

	(void)state;
	kt_fire(0, 0, 0, 0);
	kt_fire(2, 0, 1, 0);	/* commit(1) */
	wait_clean();
	kt_fire(1, 0, 1, 5);	/* cleaned: INACTIVE, dropped silently */
	s = kt_status(st);
	assert_int_equal(s.dtst_specdrops_busy, 0);
	assert_int_equal(s.dtst_specdrops, 0);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recycled_after_commit_and_discard),
		cmocka_unit_test(speculate_after_clean_is_silent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
