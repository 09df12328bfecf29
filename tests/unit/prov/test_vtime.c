/*
 * test_vtime.c - the per-thread CPU time accounting behind vtimestamp on
 * the perf route (vtime.c): switch records fed by hand, values checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "prov_impl.h"

static int reset(void **state)
{
	(void)state;
	prov_vtime_reset();
	return 0;
}

/* Time on CPU adds up over switch-in/switch-out pairs only. */
static void switches_accumulate(void **state)
{
	(void)state;
	prov_vtime_switch(0, 0, 100, 1000);
	assert_int_equal(prov_vtime_get(0, 100, 1500, 1), 500);
	prov_vtime_switch(0, 100, 0, 2000);
	assert_int_equal(prov_vtime_get(0, 100, 5000, 0), 1000);  /* asleep */
	prov_vtime_switch(0, 0, 100, 6000);
	assert_int_equal(prov_vtime_get(0, 100, 6250, 1), 1250);
	prov_vtime_switch(0, 100, 101, 7000);
	assert_int_equal(prov_vtime_get(0, 100, 9000, 0), 2000);
	/* first seen firing: counted from its switch-in on this CPU */
	assert_int_equal(prov_vtime_get(0, 101, 9000, 1), 2000);
}

/* Two CPUs: each thread gets only its own time, wherever it runs. */
static void two_cpus(void **state)
{
	(void)state;
	prov_vtime_switch(0, 0, 1, 0);
	assert_int_equal(prov_vtime_get(0, 1, 0, 1), 0);
	prov_vtime_switch(1, 0, 2, 100);
	assert_int_equal(prov_vtime_get(1, 2, 100, 1), 0);
	prov_vtime_switch(0, 1, 3, 400);
	assert_int_equal(prov_vtime_get(0, 3, 400, 1), 0);
	prov_vtime_switch(1, 2, 1, 500);	/* 1 moves to CPU 1 */
	prov_vtime_switch(0, 3, 2, 900);	/* 2 moves to CPU 0 */
	assert_int_equal(prov_vtime_get(1, 1, 1000, 1), 400 + 500);
	assert_int_equal(prov_vtime_get(0, 2, 1000, 1), 400 + 100);
	assert_int_equal(prov_vtime_get(0, 3, 1000, 0), 500);
}

/* A move between CPUs whose switch-in is handled before the switch-out
 * (records of two rings drained in different passes) loses nothing and
 * never goes back. */
static void cpus_out_of_order(void **state)
{
	(void)state;
	prov_vtime_switch(0, 0, 5, 0);
	assert_int_equal(prov_vtime_get(0, 5, 0, 1), 0);
	prov_vtime_switch(1, 0, 5, 1010);	/* before CPU 0's 1000 */
	assert_int_equal(prov_vtime_get(1, 5, 1500, 1), 490);
	prov_vtime_switch(0, 5, 0, 1000);
	assert_int_equal(prov_vtime_get(1, 5, 1600, 1), 1000 + 590);
	prov_vtime_switch(1, 5, 0, 2000);
	assert_int_equal(prov_vtime_get(0, 5, 3000, 0), 1000 + 990);
}

/* Threads are counted from their first firing; an unknown thread asked
 * about as not running is 0 and not added; switches nobody saw are
 * inferred from the firings. */
static void first_seen(void **state)
{
	(void)state;
	assert_int_equal(prov_vtime_get(0, 7, 10000, 0), 0);
	prov_vtime_switch(0, 7, 0, 10500);	/* unknown: nothing to add */
	assert_int_equal(prov_vtime_get(0, 7, 11000, 0), 0);
	assert_int_equal(prov_vtime_get(0, 7, 12000, 1), 0);
	assert_int_equal(prov_vtime_get(0, 7, 12400, 1), 400);
	prov_vtime_switch(0, 7, 0, 13000);
	/* its switch-in on CPU 1 was lost: the firing says it runs there */
	assert_int_equal(prov_vtime_get(1, 7, 20000, 1), 1000);
	assert_int_equal(prov_vtime_get(1, 7, 20300, 1), 1300);
	/* 7 -> 8 was not seen: 8 is taken to run since 7 came, and 7
	 * keeps what it was last given */
	assert_int_equal(prov_vtime_get(1, 8, 20500, 1), 500);
	assert_int_equal(prov_vtime_get(1, 7, 30000, 0), 1300);
}

/* A switch nobody reported (68 to 5 below: Linux 6.18 hides some): the
 * thread switching out later is credited since the hidden one came. */
static void unseen_switch(void **state)
{
	(void)state;
	prov_vtime_switch(0, 0, 5, 0);
	assert_int_equal(prov_vtime_get(0, 5, 0, 1), 0);
	prov_vtime_switch(0, 5, 68, 100);
	prov_vtime_switch(0, 5, 0, 1000);	/* 68 -> 5 at ? not seen */
	assert_int_equal(prov_vtime_get(0, 5, 2000, 0), 100 + 900);
	prov_vtime_switch(0, 0, 5, 3000);
	assert_int_equal(prov_vtime_get(0, 5, 3500, 1), 1500);
}

/* Values never go backwards, even for an event older than the switch
 * that the drain thread has already seen. */
static void monotonic(void **state)
{
	uint64_t last = 0, t = 0;

	(void)state;
	prov_vtime_switch(0, 0, 9, 1000);
	assert_int_equal(prov_vtime_get(0, 9, 900, 1), 0);
	for (int i = 0; i < 100; i++) {
		uint64_t v;
		uint32_t cpu = (uint32_t)(i / 3) % 2;

		t += 1000 + (uint64_t)(i % 7) * 100;
		if (i % 3 == 0)
			prov_vtime_switch(cpu, 9, 0, t);
		else if (i % 3 == 1)
			prov_vtime_switch(cpu, 0, 9, t);
		v = prov_vtime_get(cpu, 9, t - 200, i % 3 != 0);
		assert_true(v >= last);
		last = v;
	}
	assert_true(last > 0);
}

/* Exited threads are forgotten without losing any other thread, however
 * their slots collide. */
static void forget_keeps_others(void **state)
{
	(void)state;
	for (int32_t tid = 1; tid <= 3000; tid++) {	/* tid runs 2tid+1 */
		uint64_t t = (uint64_t)tid * (uint64_t)tid;

		prov_vtime_switch(0, tid - 1, tid, t);
		assert_int_equal(prov_vtime_get(0, tid, t, 1), 0);
	}
	prov_vtime_switch(0, 3000, 0, 3001ull * 3001ull);
	for (int32_t tid = 2; tid <= 3000; tid += 2)
		prov_vtime_forget(tid);
	prov_vtime_forget(99999);		/* never seen */
	for (int32_t tid = 1; tid <= 3000; tid++) {
		uint64_t want = tid % 2 ? 2 * (uint64_t)tid + 1 : 0;

		assert_int_equal(prov_vtime_get(0, tid, 1ull << 40, 0), want);
	}
	/* a new thread with a forgotten tid starts from 0 */
	assert_int_equal(prov_vtime_get(1, 4, 1ull << 41, 1), 0);
	assert_int_equal(prov_vtime_get(1, 4, (1ull << 41) + 100, 1), 100);
}

/* More live threads than the table bounds: it starts again, no harm. */
static void table_full(void **state)
{
	(void)state;
	for (int32_t tid = 1; tid <= 40000; tid++) {
		prov_vtime_switch(0, tid - 1, tid, 1000 + (uint64_t)tid);
		assert_int_equal(prov_vtime_get(0, tid, 1000 + (uint64_t)tid,
		    1), 0);
	}
	assert_int_equal(prov_vtime_get(0, 40000, 41500, 1), 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(switches_accumulate, reset),
		cmocka_unit_test_setup(two_cpus, reset),
		cmocka_unit_test_setup(cpus_out_of_order, reset),
		cmocka_unit_test_setup(first_seen, reset),
		cmocka_unit_test_setup(unseen_switch, reset),
		cmocka_unit_test_setup(monotonic, reset),
		cmocka_unit_test_setup(forget_keeps_others, reset),
		cmocka_unit_test_setup(table_full, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
