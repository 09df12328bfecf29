/*
 * oomhook.h - the failing-malloc hook of the allocation-failure tests
 * (tests/unit/eng/test_oom.c, tests/unit/prov/test_prov_oom.c).  It
 * replaces malloc/calloc/realloc/memalign/posix_memalign/aligned_alloc/
 * free (glibc's documented interposition, forwarding to __libc_malloc...),
 * so every allocation the code under test, and the C library on its
 * behalf, makes is counted and can be failed without a wrapper in each
 * file.  Counters are atomic: the providers' threads allocate too.
 * Include it in one test file only (it defines malloc).  Under ASan,
 * which owns malloc, OOM_HOOK is 0 and nothing is defined.
 *   oom_live          allocations not yet freed
 *   oom_run(fn, n, why, len, &rc)
 *                     run one session fn(out, why, len) with its output
 *                     to a memory stream (freed after) and counted
 *                     allocation n failing (-1: none); its result in rc;
 *                     returns how many allocations it counted
 *   oom_session(out, why, len, flags, prog, fire)
 *                     the session both tests run (below)
 */
#ifndef OOMHOOK_H
#define OOMHOOK_H

#include <stdio.h>
#include <stdlib.h>
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

static long oom_live;		/* allocations not yet freed */
static long oom_counted;	/* allocations since armed */
static long oom_fail_at = -1;	/* the counted allocation that fails */
static int oom_armed;

static int oom_fails(void)
{
	if (!__atomic_load_n(&oom_armed, __ATOMIC_RELAXED))
		return 0;
	return __atomic_fetch_add(&oom_counted, 1, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&oom_fail_at, __ATOMIC_RELAXED);
}

static void oom_got(const void *p)
{
	if (p != NULL)
		__atomic_add_fetch(&oom_live, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
	void *p = oom_fails() ? NULL : __libc_malloc(n);

	oom_got(p);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = oom_fails() ? NULL : __libc_calloc(n, size);

	oom_got(p);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (old != NULL && n == 0) {
		__atomic_sub_fetch(&oom_live, 1, __ATOMIC_RELAXED);
		__libc_free(old);
		return NULL;
	}
	p = oom_fails() ? NULL : __libc_realloc(old, n);
	if (old == NULL)
		oom_got(p);
	return p;
}

void *memalign(size_t al, size_t n)
{
	void *p = oom_fails() ? NULL : __libc_memalign(al, n);

	oom_got(p);
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
		__atomic_sub_fetch(&oom_live, 1, __ATOMIC_RELAXED);
	__libc_free(p);
}

typedef int oom_session_f(FILE *out, char *why, size_t len);

/* Open an engine handle (flags), compile and run prog, GO, fire() (the
 * events, if any), consume, stop, consume again and print the
 * aggregations to out; 0 if it ran to the end, -1 with the failing
 * call's message in why. */
static int oom_session(FILE *out, char *why, size_t len, int flags,
    const char *prog, void (*fire)(void))
{
	char err[256];
	eng_hdl_t *h = eng_open(flags, err, sizeof (err));
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
	if (fire != NULL)
		fire();
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

static long oom_run(oom_session_f *fn, long n, char *why, size_t len,
    int *rc)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *out = open_memstream(&buf, &blen);
	long counted;

	__atomic_store_n(&oom_counted, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&oom_fail_at, n, __ATOMIC_RELAXED);
	__atomic_store_n(&oom_armed, 1, __ATOMIC_RELAXED);
	*rc = fn(out, why, len);
	__atomic_store_n(&oom_armed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&oom_fail_at, -1, __ATOMIC_RELAXED);
	counted = __atomic_load_n(&oom_counted, __ATOMIC_RELAXED);
	fclose(out);
	free(buf);
	return counted;
}
#endif

#endif
