/*
 * test_prov_oom.c - allocation failure in the providers (root only), the
 * idea of tests/unit/eng/test_oom.c carried to a session with real event
 * sources: syscall probes (BPF filtered, counted in the kernel), their
 * return probes with a thread-local, sched, profile and tick, on this
 * process's own calls.  The session is run once counting its
 * allocations, then again with one allocation failing, for every one up
 * to STRIDE apart (every one with PROV_OOM_FULL=1 in the environment):
 * (PROV_OOM_VERBOSE=1 prints each failing run's message):
 * each run must end with an error message from the call that failed, or
 * run to the end (the failure absorbed, or said as a provider fault), and
 * never crash or hang.  The providers' threads allocate too, at moments
 * that vary from run to run, so the count is not exact and leaks are not
 * checked here (test_oom checks them for the engine and the shim).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "engine.h"
#include "oomhook.h"

#define STRIDE_RUNS 60		/* runs of the sweep in make check */

#if OOM_HOOK
static const char prog[] =
    "#pragma D option quiet\n"
    "#pragma D option bufsize=64k\n"
    "#pragma D option aggsize=64k\n"
    "syscall::getppid:entry /pid == $pid/ { @c[probefunc] = count(); "
    "self->t = timestamp; }\n"
    "syscall::getppid:return /self->t/ { @q = quantize(timestamp - "
    "self->t); self->t = 0; }\n"
    "syscall::getpgid:entry /pid == $pid/ { @k[arg0] = count(); }\n"
    "sched:::on-cpu /pid == $pid/ { @o = count(); }\n"
    "profile-997 /pid == $pid/ { @p = count(); }\n"
    "tick-1ms { @t = count(); }\n"
    "END { printf(\"end\\n\"); }\n";

/* One session; 0 if it ran to the end, -1 (with a message) if a call
 * failed. */
static void fire(void)
{
	for (int i = 0; i < 200; i++) {
		syscall(SYS_getppid);
		syscall(SYS_getpgid, i % 7);
	}
}

static int session(FILE *out, char *why, size_t len)
{
	return oom_session(out, why, len, 0, prog, fire);
}
#endif

static void sweep(void **state)
{
#if OOM_HOOK
	char why[512], *buf = NULL;
	size_t blen = 0;
	long total, stride, failed = 0, absorbed = 0;
	int rc;
	FILE *out;

	(void)state;
	if (geteuid() != 0) {
		print_message("needs root (the providers' event sources)\n");
		skip();
	}
	/* a first run warms what is made once (providers, the C library) */
	out = open_memstream(&buf, &blen);
	if (session(out, why, sizeof (why)) != 0) {
		fclose(out);
		free(buf);
		print_message("the session cannot run here: %s\n", why);
		skip();
	}
	fclose(out);
	assert_non_null(strstr(buf, "getppid"));
	free(buf);
	total = oom_run(session, -1, why, sizeof (why), &rc);
	assert_int_equal(rc, 0);
	stride = getenv("PROV_OOM_FULL") != NULL ? 1 :
	    total / STRIDE_RUNS + 1;
	print_message("a session makes about %ld allocations; failing one "
	    "in %ld\n", total, stride);
	for (long n = 0; n < total; n += stride) {
		(void)oom_run(session, n, why, sizeof (why), &rc);
		if (rc != 0) {
			failed++;
			if (getenv("PROV_OOM_VERBOSE") != NULL)
				print_message("%ld: %s\n", n, why);
			if (why[0] == '\0')
				fail_msg("allocation %ld of %ld failed without a "
				    "message", n, total);
		} else {
			absorbed++;
		}
	}
	print_message("%ld failures reported, %ld absorbed\n", failed,
	    absorbed);
#else
	(void)state;
	print_message("SKIP: the allocation hook replaces malloc, which ASan "
	    "owns\n");
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
