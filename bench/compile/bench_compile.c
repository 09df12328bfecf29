/*
 * bench_compile.c - how long the D compiler takes for 10,000 clauses
 * (aim: under a second), as one script and as 10,000 separate compiles,
 * from source text to DOF image, probe matching included (handle with the
 * dtrace provider only).  Prints one line per measurement; best of three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"

#define NCLAUSES 10000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A clause of the kind people write: predicate, variables, printf, agg. */
static int clause(char *buf, size_t len, int i)
{
	return snprintf(buf, len,
	    "BEGIN, END /arg0 > %d && self->t%d == 0/\n{\n"
	    "\tthis->d = timestamp - self->t%d;\n"
	    "\tx%d = this->d / 1000 + %d;\n"
	    "\tprintf(\"%%s %%d %%d\\n\", execname, pid, x%d);\n"
	    "\t@lat[probename, %d] = quantize(this->d);\n"
	    "\t@cnt[execname] = count();\n}\n", i, i % 50, i % 50, i, i, i,
	    i % 7);
}

static double one_script(void)
{
	size_t cap = (size_t)NCLAUSES * 300, n = 0;
	char *src = malloc(cap), err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	eng_prog_t *p;
	size_t dofsize = 0;
	double t0, t;

	if (src == NULL || h == NULL) {
		fprintf(stderr, "setup failed: %s\n", err);
		exit(1);
	}
	for (int i = 0; i < NCLAUSES; i++)
		n += (size_t)clause(src + n, cap - n, i);
	t0 = now();
	p = eng_compile_str(h, src, "bench.d", 0, NULL);
	t = now() - t0;
	if (p == NULL) {
		fprintf(stderr, "compile failed: %s\n", eng_errmsg(h));
		exit(1);
	}
	eng_prog_dof(p, &dofsize);
	if (eng_prog_nprobes(p) != 2 * NCLAUSES) {
		fprintf(stderr, "matched %u probes\n", eng_prog_nprobes(p));
		exit(1);
	}
	fprintf(stderr, "  (one script: %zu bytes of D, DOF %zu bytes)\n", n,
	    dofsize);
	eng_prog_free(p);
	eng_close(h);
	free(src);
	return t;
}

static double separate(void)
{
	char src[1024], err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));
	double t0, t = 0;

	if (h == NULL)
		exit(1);
	for (int i = 0; i < NCLAUSES; i++) {
		eng_prog_t *p;

		clause(src, sizeof(src), i);
		t0 = now();
		p = eng_compile_str(h, src, NULL, 0, NULL);
		t += now() - t0;
		if (p == NULL) {
			fprintf(stderr, "compile failed: %s\n", eng_errmsg(h));
			exit(1);
		}
		eng_prog_free(p);
	}
	eng_close(h);
	return t;
}

int main(void)
{
	double a = 1e9, b = 1e9;

	for (int r = 0; r < 3; r++) {
		double x = one_script(), y = separate();

		a = x < a ? x : a;
		b = y < b ? y : b;
	}
	printf("compile %d clauses as one script: %.3f s (%.1f us/clause)\n",
	    NCLAUSES, a, a * 1e6 / NCLAUSES);
	printf("compile %d clauses one by one: %.3f s (%.1f us/clause)\n",
	    NCLAUSES, b, b * 1e6 / NCLAUSES);
	return a < 1.0 ? 0 : 1;
}
