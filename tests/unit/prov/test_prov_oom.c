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

#if defined(__SANITIZE_ADDRESS__)
#define OOM_HOOK 0
#else
#define OOM_HOOK 1
#endif

#if OOM_HOOK
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static long live;		/* allocations not yet freed */
static long counted;		/* allocations since armed */
static long fail_at = -1;	/* the counted allocation that fails */
static int armed;

static int fails(void)
{
	if (!__atomic_load_n(&armed, __ATOMIC_RELAXED))
		return 0;
	return __atomic_fetch_add(&counted, 1, __ATOMIC_RELAXED) == fail_at;
}

void *malloc(size_t n)
{
	void *p = fails() ? NULL : __libc_malloc(n);

	if (p != NULL)
		__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = fails() ? NULL : __libc_calloc(n, size);

	if (p != NULL)
		__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (old != NULL && n == 0) {
		__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
		__libc_free(old);
		return NULL;
	}
	if ((p = fails() ? NULL : __libc_realloc(old, n)) != NULL &&
	    old == NULL)
		__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	return p;
}

void *memalign(size_t al, size_t n)
{
	void *p = fails() ? NULL : __libc_memalign(al, n);

	if (p != NULL)
		__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	return p;
}

int posix_memalign(void **pp, size_t al, size_t n)
{
	void *p = memalign(al, n);

	if (p == NULL)
		return 12;		/* ENOMEM */
	*pp = p;
	return 0;
}

void *aligned_alloc(size_t al, size_t n)
{
	return memalign(al, n);
}

void free(void *p)
{
	if (p != NULL)
		__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	__libc_free(p);
}
#endif

#define STRIDE_RUNS 60		/* runs of the sweep in make check */

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
static int session(FILE *out, char *why, size_t len)
{
	char err[256];
	eng_hdl_t *h = eng_open(0, err, sizeof (err));
	eng_prog_t *p = NULL;
	int rc = -1;

	why[0] = '\0';
	if (h == NULL) {
		snprintf(why, len, "open: %s", err);
		return -1;
	}
	if ((p = eng_compile_str(h, prog, NULL, 0, NULL)) == NULL ||
	    eng_prog_exec(h, p, NULL) != 0 || eng_go(h) != 0)
		goto out;
	for (int i = 0; i < 200; i++) {
		syscall(SYS_getppid);
		syscall(SYS_getpgid, i % 7);
	}
	(void)eng_status(h);
	if (eng_work(h, out) != 0 || eng_stop(h) != 0 ||
	    eng_work(h, out) != 0 || eng_agg_snap(h) != 0 ||
	    eng_agg_print(h, out) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0)
		snprintf(why, len, "%s", eng_errmsg(h));
	eng_prog_free(p);
	eng_close(h);
	return rc;
}

static void sweep(void **state)
{
#if OOM_HOOK
	char why[512], *buf = NULL;
	size_t blen = 0;
	long total, stride, failed = 0, absorbed = 0;
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
	buf = NULL;
	out = open_memstream(&buf, &blen);
	counted = 0;
	armed = 1;
	assert_int_equal(session(out, why, sizeof (why)), 0);
	armed = 0;
	total = counted;
	fclose(out);
	free(buf);
	stride = getenv("PROV_OOM_FULL") != NULL ? 1 :
	    total / STRIDE_RUNS + 1;
	print_message("a session makes about %ld allocations; failing one "
	    "in %ld\n", total, stride);
	for (long n = 0; n < total; n += stride) {
		buf = NULL;
		out = open_memstream(&buf, &blen);
		counted = 0;
		fail_at = n;
		armed = 1;
		int rc = session(out, why, sizeof (why));
		armed = 0;
		fail_at = -1;
		fclose(out);
		free(buf);
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
