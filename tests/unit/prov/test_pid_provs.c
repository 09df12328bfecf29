/*
 * test_pid_provs.c - the pid provider's providers follow their processes:
 * pid<N> of a process that is gone is unregistered when the next new
 * provider is made, so that more processes than the provider keeps at
 * once (64) have had probes over a session; one whose process lives on
 * keeps its provider and its probes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "providers.h"
#include "ks_provider.h"

#define NPROCS 100			/* more than the 64 kept at once */

/* A child that waits to be killed. */
static pid_t child(void)
{
	pid_t p = fork();

	if (p == 0) {
		for (;;)
			pause();
	}
	assert_true(p > 0);
	return p;
}

static uint32_t probe(int pid)
{
	prov_pid_site_t ps = {
		.pps_pid = pid, .pps_kind = PROV_PID_ENTRY,
		.pps_mod = "a.out", .pps_func = "main", .pps_name = "entry",
		.pps_path = "/proc/self/exe", .pps_foff = 0x1000,
	};

	return prov_pid_probe(&ps);
}

static void test_gone_unregistered(void **state)
{
	pid_t keep = child();
	uint32_t kept = probe(keep);

	(void)state;
	assert_int_not_equal(kept, DTRACE_IDNONE);
	for (int i = 0; i < NPROCS; i++) {
		pid_t p = child();
		uint32_t id = probe(p);

		uint32_t again = probe(p);	/* the same probe again */

		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
		if (id == DTRACE_IDNONE || again != id) {
			kill(keep, SIGKILL);
			waitpid(keep, NULL, 0);
			fail_msg("process %d of %d: probe %u then %u", i + 1,
			    NPROCS, id, again);
		}
	}
	/* the living process kept its provider and probe */
	assert_int_equal(probe(keep), kept);
	kill(keep, SIGKILL);
	waitpid(keep, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gone_unregistered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
