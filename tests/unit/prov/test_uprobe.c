/*
 * test_uprobe.c - the uprobe event source on this test binary's own
 * functions: every call hits (exact counts), entry hits carry the
 * argument registers and return hits the return value, the cookie comes
 * back, a pid filter drops other processes' hits, a USDT semaphore is
 * incremented while attached and decremented after, a bad site is
 * refused with a message, and sites uprobes cannot probe (a lock prefix,
 * an int3) are left out and counted while the others attach; through
 * both routes (BPF uprobe_multi, perf events one by one).  Root only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "providers.h"
#include "prov_impl.h"
#include "uprobe/uprobe.h"

#define CALLS 1000

/* A semaphore as <sys/sdt.h> lays it out: in .probes, file-backed. */
__attribute__((section(".probes"), used))
volatile unsigned short test_semaphore;

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static int hits, bad_cookie;
static uint64_t sum_arg, sum_ret;
static char self[4096];

__attribute__((noinline, used)) uint64_t test_uprobe_target(uint64_t x);
__attribute__((noinline, used)) uint64_t test_uprobe_target(uint64_t x)
{
	__asm__ volatile("" : : : "memory");
	return x * 3 + 1;
}

/* Instructions uprobes refuse: a lock prefix (seen in the file) and an
 * int3 (refused by the kernel, ENOTSUPP).  Never run. */
__asm__(".text\n"
    ".globl test_uprobe_locked\n"
    "test_uprobe_locked:\n\tlock incl (%rdi)\n\tret\n"
    ".globl test_uprobe_trap\n"
    "test_uprobe_trap:\n\tint3\n\tret\n");
extern char test_uprobe_locked[], test_uprobe_trap[];

static uint64_t probed;		/* the last hit's prov_uprobe_probed */

static void on_hit(void *arg, uint64_t cookie, const prov_perf_sample_t *s)
{
	pthread_mutex_lock(&lk);
	hits++;
	if (cookie != 0xc00c1e)
		bad_cookie++;
	sum_arg += prov_perf_ureg(s, PROV_UREG_RDI);
	sum_ret += prov_perf_ureg(s, PROV_UREG_RAX);
	probed = prov_uprobe_probed(s);
	pthread_mutex_unlock(&lk);
}

/* The file offset of address addr in this binary, from /proc/self/maps. */
static uint64_t file_offset(const void *addr)
{
	unsigned long lo, hi, off;
	char line[4352], path[4096];
	uint64_t a = (uint64_t)(uintptr_t)addr, r = 0;
	FILE *fp = fopen("/proc/self/maps", "r");

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi,
		    &off, path) < 3)
			continue;
		if (a >= lo && a < hi && strcmp(path, self) == 0) {
			r = a - lo + off;
			break;
		}
	}
	fclose(fp);
	assert_true(r != 0);
	return r;
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = '\0';
	if (geteuid() != 0 || !prov_uprobe_available())
		return 0;
	return prov_register_all();
}

static int teardown(void **state)
{
	prov_shutdown();
	return 0;
}

static void require(void)
{
	if (geteuid() != 0 || !prov_uprobe_available()) {
		print_message("needs root and the uprobe PMU\n");
		skip();
	}
}

static void reset(void)
{
	pthread_mutex_lock(&lk);
	hits = bad_cookie = 0;
	sum_arg = sum_ret = 0;
	pthread_mutex_unlock(&lk);
}

/* Attach to test_uprobe_target, call it CALLS times, detach. */
static void run(int pid, int flags, uint64_t refctr)
{
	prov_uprobe_site_t site = {
		.pus_offset = file_offset((const void *)test_uprobe_target),
		.pus_refctr = refctr, .pus_cookie = 0xc00c1e };
	prov_uprobe_t *u;

	reset();
	u = prov_uprobe_attach(self, &site, 1, pid, flags, on_hit, NULL);
	assert_non_null(u);
	if (refctr != 0)
		assert_int_equal(test_semaphore, 1);
	for (uint64_t i = 1; i <= CALLS; i++)
		test_uprobe_target(i);
	prov_flush();		/* every hit before here is delivered */
	prov_uprobe_detach(u);
	if (refctr != 0)
		assert_int_equal(test_semaphore, 0);
}

static void entry_hits(void **state)
{
	require();
	run(getpid(), 0, 0);
	assert_int_equal(hits, CALLS);
	assert_int_equal(bad_cookie, 0);
	assert_int_equal(sum_arg, (uint64_t)CALLS * (CALLS + 1) / 2);
}

static void return_hits(void **state)
{
	require();
	run(0, PROV_UPROBE_RETURN, 0);
	assert_int_equal(hits, CALLS);
	/* sum of 3i + 1 */
	assert_int_equal(sum_ret, (uint64_t)3 * CALLS * (CALLS + 1) / 2 +
	    CALLS);
}

/* The same through the perf route (one perf event per site). */
static void perf_route(void **state)
{
	require();
	setenv("DTUI_UPROBE_ROUTE", "perf", 1);
	run(getpid(), 0, file_offset((const void *)&test_semaphore));
	unsetenv("DTUI_UPROBE_ROUTE");
	assert_int_equal(hits, CALLS);
	assert_int_equal(sum_arg, (uint64_t)CALLS * (CALLS + 1) / 2);
	setenv("DTUI_UPROBE_ROUTE", "perf", 1);
	run(0, PROV_UPROBE_RETURN, 0);
	unsetenv("DTUI_UPROBE_ROUTE");
	assert_int_equal(hits, CALLS);
	assert_int_equal(sum_ret, (uint64_t)3 * CALLS * (CALLS + 1) / 2 +
	    CALLS);
}

/* An attachment of many sites: each hit names its site (the cookie),
 * and detaching them is quick (the multi route: one link). */
static void many_sites(void **state)
{
	enum { NS = 200 };
	static prov_uprobe_site_t sites[NS];
	uint64_t off = file_offset((const void *)test_uprobe_target);
	prov_uprobe_t *u;

	require();
	/* one real site among NS - 1 at the same offset: the kernel keeps
	 * one breakpoint, every consumer runs */
	for (int i = 0; i < NS; i++) {
		sites[i].pus_offset = off;
		sites[i].pus_cookie = 0xc00c1e;
	}
	reset();
	u = prov_uprobe_attach(self, sites, NS, getpid(), 0, on_hit, NULL);
	assert_non_null(u);
	for (uint64_t i = 1; i <= 10; i++)
		test_uprobe_target(i);
	prov_flush();
	prov_uprobe_detach(u);
	assert_int_equal(bad_cookie, 0);
	assert_int_equal(hits, 10 * NS);
}

static void other_pid_filtered(void **state)
{
	require();
	run(getpid() == 1 ? 2 : 1, 0, 0);
	assert_int_equal(hits, 0);
}

static void semaphore_counted(void **state)
{
	require();
	assert_int_equal(test_semaphore, 0);
	run(getpid(), 0, file_offset((const void *)&test_semaphore));
	assert_int_equal(hits, CALLS);
}

static void bad_site_refused(void **state)
{
	prov_uprobe_site_t site = { .pus_offset = 0x10 };

	require();
	assert_null(prov_uprobe_attach("/nonexistent/file", &site, 1, 0, 0,
	    on_hit, NULL));
	assert_null(prov_uprobe_attach("relative", &site, 1, 0, 0, on_hit,
	    NULL));
}

/* Sites uprobes cannot probe among good ones: left out and counted, the
 * good ones hit; a return hit of the multi route names its function. */
static void refused_left_out(void **state)
{
	uint64_t off = file_offset((const void *)test_uprobe_target);
	prov_uprobe_site_t sites[5] = {
		{ .pus_offset = off, .pus_cookie = 0xc00c1e },
		{ .pus_offset = file_offset(test_uprobe_locked), .pus_cookie = 1 },
		{ .pus_offset = off, .pus_cookie = 0xc00c1e },
		{ .pus_offset = file_offset(test_uprobe_trap), .pus_cookie = 2 },
		{ .pus_offset = off, .pus_cookie = 0xc00c1e },
	};
	prov_uprobe_t *u;

	require();
	for (int route = 0; route < 2; route++) {
		if (route == 1)
			setenv("DTUI_UPROBE_ROUTE", "perf", 1);
		reset();
		u = prov_uprobe_attach(self, sites, 5, getpid(),
		    PROV_UPROBE_RETURN, on_hit, NULL);
		unsetenv("DTUI_UPROBE_ROUTE");
		assert_non_null(u);
		assert_int_equal(prov_uprobe_refused(u), 2);
		for (uint64_t i = 1; i <= 10; i++)
			test_uprobe_target(i);
		prov_flush();
		prov_uprobe_detach(u);
		assert_int_equal(bad_cookie, 0);
		assert_int_equal(hits, 30);
		assert_true(probed == (uint64_t)(uintptr_t)test_uprobe_target);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entry_hits),
		cmocka_unit_test(return_hits),
		cmocka_unit_test(other_pid_filtered),
		cmocka_unit_test(perf_route),
		cmocka_unit_test(many_sites),
		cmocka_unit_test(semaphore_counted),
		cmocka_unit_test(bad_site_refused),
		cmocka_unit_test(refused_left_out),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
