/*
 * test_oom.c - allocation failure everywhere in the engine (and the shim
 * under it): a session that compiles a program touching most of the
 * compiler, enables it, fires BEGIN/END (trace, printf, every kind of
 * aggregation, speculations, strings, thread-locals), consumes and prints,
 * is run once counting its allocations, then once per allocation with
 * that one failing.  Each run must end with an error message from the
 * call that failed (or succeed, if the failure was absorbed), no crash,
 * and every byte given back after eng_close.
 *
 * The hook: this test replaces malloc/calloc/realloc/free (glibc's
 * documented interposition, forwarding to __libc_malloc...), so every
 * allocation the engine, the shim and the C library make on the engine's
 * behalf is counted and can be failed, without a wrapper in each of the
 * engine's files.  Under ASan (which owns malloc) the test is skipped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
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
	if (!armed)
		return 0;
	return counted++ == fail_at;
}

void *malloc(size_t n)
{
	void *p = fails() ? NULL : __libc_malloc(n);

	if (p != NULL)
		live++;
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = fails() ? NULL : __libc_calloc(n, size);

	if (p != NULL)
		live++;
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;

	if (old != NULL && n == 0) {
		live--;
		__libc_free(old);
		return NULL;
	}
	if ((p = fails() ? NULL : __libc_realloc(old, n)) != NULL &&
	    old == NULL)
		live++;
	return p;
}

void *memalign(size_t al, size_t n)
{
	void *p = fails() ? NULL : __libc_memalign(al, n);

	if (p != NULL)
		live++;
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
		live--;
	__libc_free(p);
}
#endif

static const char prog[] =
    "#pragma D option quiet\n"
    "#pragma D option bufsize=64k\n"
    "#pragma D option aggsize=64k\n"
    "#pragma D option dynvarsize=64k\n"
    "#pragma D option specsize=8k\n"
    "#pragma D option nspec=2\n"
    "inline int K = 3;\n"
    "struct pt { int x; char name[8]; };\n"
    "typedef struct pt pt_t;\n"
    "int sp;\n"
    "self string s;\n"
    "BEGIN {\n"
    "	self->s = strjoin(\"ab\", lltostr(K));\n"
    "	this->p = (pt_t *)alloca(sizeof (pt_t));\n"
    "	this->p->x = 5;\n"
    "	a[\"key\", 2] = 7;\n"
    "	@c[probename, K] = count(); @q = quantize(42);\n"
    "	@l = lquantize(3, 0, 10, 1); @ll = llquantize(500, 10, 0, 4, 10);\n"
    "	@s[\"k\"] = sum(7); @a = avg(3); @m = max(-1); @d = stddev(9);\n"
    "	printf(\"%s %d %x %5.2s|\\n\", self->s, this->p->x, 255, \"xyz\");\n"
    "	trace(a[\"key\", 2]); trace(\"str\");\n"
    "}\n"
    "BEGIN { sp = speculation(); }\n"
    "BEGIN { speculate(sp); printf(\"speculated %d\\n\", 1); }\n"
    "BEGIN { commit(sp); }\n"
    "BEGIN /K == 3/ { printa(\"%s %d %@d\\n\", @c); exit(0); }\n"
    "END { printf(\"end %s\\n\", self->s); }\n";

/* One session; 0 if it ran to the end, -1 (with a message) if a call
 * failed.  The output goes to a memory stream opened by the caller. */
static int session(FILE *out, char *why, size_t len)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof (err));
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
	long total, before, failed = 0, absorbed = 0;
	FILE *out;

	(void)state;
	/* a first run warms what the C library allocates once */
	out = open_memstream(&buf, &blen);
	assert_int_equal(session(out, why, sizeof (why)), 0);
	fclose(out);
	assert_non_null(strstr(buf, "speculated 1\n"));
	free(buf);
	/* count the allocations of a whole session */
	before = live;
	buf = NULL;
	out = open_memstream(&buf, &blen);
	counted = 0;
	armed = 1;
	assert_int_equal(session(out, why, sizeof (why)), 0);
	armed = 0;
	total = counted;
	fclose(out);
	free(buf);
	assert_int_equal(live, before);
	print_message("a session makes %ld allocations\n", total);
	for (long n = 0; n < total; n++) {
		before = live;
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
			if (why[0] == '\0')
				fail_msg("allocation %ld of %ld failed without a "
				    "message", n, total);
		} else {
			absorbed++;
		}
		if (live != before)
			fail_msg("allocation %ld of %ld failing leaked %ld "
			    "allocations (%s)", n, total, live - before,
			    rc ? why : "the session went on");
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
