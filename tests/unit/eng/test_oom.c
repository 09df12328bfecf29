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
 * The hook (tests/support/oomhook.h) replaces malloc, so every
 * allocation the engine, the shim and the C library make on the engine's
 * behalf is counted and can be failed.  Under ASan (which owns malloc)
 * the test is skipped.
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
#include "oomhook.h"

#if OOM_HOOK
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
	return oom_session(out, why, len, ENG_O_NOPROVIDERS, prog, NULL);
}
#endif

static void sweep(void **state)
{
#if OOM_HOOK
	char why[512], *buf = NULL;
	size_t blen = 0;
	long total, before, failed = 0, absorbed = 0;
	int rc;
	FILE *out;

	(void)state;
	/* a first run warms what the C library allocates once */
	out = open_memstream(&buf, &blen);
	assert_int_equal(session(out, why, sizeof (why)), 0);
	fclose(out);
	assert_non_null(strstr(buf, "speculated 1\n"));
	free(buf);
	/* count the allocations of a whole session */
	before = oom_live;
	total = oom_run(session, -1, why, sizeof (why), &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(oom_live, before);
	print_message("a session makes %ld allocations\n", total);
	for (long n = 0; n < total; n++) {
		before = oom_live;
		(void)oom_run(session, n, why, sizeof (why), &rc);
		if (rc != 0) {
			failed++;
			if (why[0] == '\0')
				fail_msg("allocation %ld of %ld failed without a "
				    "message", n, total);
		} else {
			absorbed++;
		}
		if (oom_live != before)
			fail_msg("allocation %ld of %ld failing leaked %ld "
			    "allocations (%s)", n, total, oom_live - before,
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
