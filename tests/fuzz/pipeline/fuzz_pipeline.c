/*
 * fuzz_pipeline.c - libFuzzer target for the whole pipeline: the input
 * bytes drive a generator of D programs (clauses on four probes of a
 * "fz" provider and BEGIN/END, with predicates, if/else, integer and
 * string expressions, trace, printf, aggregations of every function,
 * globals, thread-locals, clause-locals and speculations); the program is
 * compiled, enabled, fired a few rounds on several CPUs with arguments
 * taken from the input, stopped and consumed, and its aggregations
 * printed.  Everything runs twice, once under each DIF loop (the switch
 * and the computed goto): the two outputs, messages included, must be
 * the same byte for byte.  Nothing in the programs depends on time.
 * A program the compiler refuses is fine (with a message); any crash,
 * hang, leak, sanitizer report or difference between the loops is a bug.
 * FUZZ_VERBOSE=1 prints each program and its output.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "ks.h"
#include "ks_provider.h"
#include "dif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the generator --------------------------------------------------- */

struct gen {
	const uint8_t *p;
	size_t n;
	char *out;		/* the program text */
	size_t len, cap;
	int depth;
	uint32_t aggs;		/* aggregations defined so far (a bit each) */
};

static unsigned pick(struct gen *g, unsigned n)
{
	unsigned v;

	if (g->n == 0)
		return 0;
	v = *g->p++;
	g->n--;
	return n ? v % n : v;
}

static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->out + g->len, g->cap - g->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (g->len + (size_t)n < g->cap)
			break;
		char *nb = realloc(g->out, g->cap * 2 + (size_t)n);
		if (nb == NULL)
			return;
		g->out = nb;
		g->cap = g->cap * 2 + (size_t)n;
	}
	g->len += (size_t)n;
}

static void int_expr(struct gen *g);

static void str_expr(struct gen *g)
{
	static const char *const lits[] = { "\"\"", "\"fz\"", "\"a/b/c\"",
	    "\"Hello, World\"", "\"%d%s\"", "\"/usr/lib/../bin/./x\"" };

	if (++g->depth > 4) {
		emit(g, "%s", lits[pick(g, 6)]);
		g->depth--;
		return;
	}
	switch (pick(g, 12)) {
	case 0: emit(g, "%s", lits[pick(g, 6)]); break;
	case 1: emit(g, "probename"); break;
	case 2: emit(g, "probefunc"); break;
	case 3: emit(g, "strjoin("); str_expr(g); emit(g, ", ");
		str_expr(g); emit(g, ")"); break;
	case 4: emit(g, "substr("); str_expr(g); emit(g, ", ");
		int_expr(g); emit(g, ")"); break;
	case 5: emit(g, "lltostr("); int_expr(g); emit(g, ")"); break;
	case 6: emit(g, "toupper("); str_expr(g); emit(g, ")"); break;
	case 7: emit(g, "basename("); str_expr(g); emit(g, ")"); break;
	case 8: emit(g, "cleanpath("); str_expr(g); emit(g, ")"); break;
	case 9: emit(g, "strchr("); str_expr(g); emit(g, ", 'l')"); break;
	case 10: emit(g, "self->s"); break;
	default: emit(g, "gs"); break;
	}
	g->depth--;
}

static void int_expr(struct gen *g)
{
	static const char *const ops[] = { "+", "-", "*", "/", "%", "&", "|",
	    "^", "<<", ">>", "==", "!=", "<", ">", "<=", ">=", "&&", "||" };

	if (++g->depth > 5) {
		emit(g, "arg%u", pick(g, 6));
		g->depth--;
		return;
	}
	switch (pick(g, 16)) {
	case 0: emit(g, "%u", pick(g, 0)); break;
	case 1: emit(g, "%lld", (long long)(int8_t)pick(g, 0) *
		    (1ll << pick(g, 62))); break;
	case 2: case 3: emit(g, "arg%u", pick(g, 6)); break;
	case 4: emit(g, "g%u", pick(g, 3)); break;
	case 5: emit(g, "self->t"); break;
	case 6: emit(g, "this->c"); break;
	case 7: case 8: case 9:
		emit(g, "("); int_expr(g); emit(g, " %s ", ops[pick(g, 18)]);
		int_expr(g); emit(g, ")"); break;
	case 10: emit(g, "%c(", "-~!"[pick(g, 3)]); int_expr(g);
		emit(g, ")"); break;
	case 11: emit(g, "("); int_expr(g); emit(g, " ? "); int_expr(g);
		emit(g, " : "); int_expr(g); emit(g, ")"); break;
	case 12: emit(g, "strlen("); str_expr(g); emit(g, ")"); break;
	case 13: emit(g, "index("); str_expr(g); emit(g, ", ");
		str_expr(g); emit(g, ")"); break;
	case 14: emit(g, "(%s)", (const char *[]){ "(int8_t)arg1",
		    "(uint16_t)arg2", "(int32_t)arg3", "(uint64_t)arg4" }
		    [pick(g, 4)]); break;
	default: emit(g, "pid"); break;
	}
	g->depth--;
}

/* @<key type><function>[key] = function(...): one name per key type and
 * function, so that every use of a name agrees. */
static void aggregate(struct gen *g)
{
	static const char *const fn[] = { "count()", "sum(", "min(", "max(",
	    "avg(", "stddev(", "quantize(", "lquantize(", "llquantize(" };
	unsigned f = pick(g, 9), str = pick(g, 2);

	emit(g, "@%c%u[", str ? 's' : 'i', f);
	if (str)
		str_expr(g);
	else
		int_expr(g);
	emit(g, "] = %s", fn[f]);
	g->aggs |= 1u << (f * 2 + str);
	if (f == 0)
		return;
	int_expr(g);
	if (f == 7)
		emit(g, ", %d, %d, %u", -(int)f, 100, 10);
	else if (f == 8)
		emit(g, ", 10, 0, 3, 10");
	emit(g, ")");
}

/* printa() of an aggregation defined earlier (else a trace) */
static void printa(struct gen *g)
{
	unsigned want = pick(g, 18);

	for (unsigned i = 0; i < 18; i++) {
		unsigned k = (want + i) % 18;

		if (g->aggs & (1u << k)) {
			emit(g, "printa(@%c%u);\n", k % 2 ? 's' : 'i', k / 2);
			return;
		}
	}
	emit(g, "trace(g2);\n");
}

static void statement(struct gen *g)
{
	switch (pick(g, 12)) {
	case 0: emit(g, "trace("); int_expr(g); emit(g, ");\n"); break;
	case 1: emit(g, "trace("); str_expr(g); emit(g, ");\n"); break;
	case 2: emit(g, "printf(\"%%d %%s|%%x\\n\", "); int_expr(g);
		emit(g, ", "); str_expr(g); emit(g, ", "); int_expr(g);
		emit(g, ");\n"); break;
	case 3: case 4: aggregate(g); emit(g, ";\n"); break;
	case 5: emit(g, "g%u = ", pick(g, 3)); int_expr(g); emit(g, ";\n");
		break;
	case 6: emit(g, "self->t = "); int_expr(g); emit(g, ";\n"); break;
	case 7: emit(g, "self->s = "); str_expr(g); emit(g, ";\n"); break;
	case 8: emit(g, "gs = "); str_expr(g); emit(g, ";\n"); break;
	case 9: emit(g, "this->c = "); int_expr(g); emit(g, ";\n"); break;
	case 10: printa(g); break;
	default: emit(g, "if ("); int_expr(g); emit(g, ") { ");
		emit(g, "trace("); int_expr(g); emit(g, "); } else { ");
		emit(g, "g0++; }\n"); break;
	}
}

/* One clause: probe, optional predicate, a body (maybe speculative). */
static void clause(struct gen *g)
{
	static const char *const probes[] = { "fz:::p0", "fz:::p1",
	    "fz:::p2", "fz:::p3", "fz:::p*", "BEGIN", "END" };
	unsigned kind = pick(g, 8), n = pick(g, 5) + 1;

	emit(g, "%s\n", probes[pick(g, 7)]);
	if (pick(g, 3) == 0) {
		emit(g, "/");
		int_expr(g);
		emit(g, "/\n");
	}
	emit(g, "{\n");
	/* clause-locals start undefined: give it a value first */
	emit(g, "this->c = arg0;\n");
	if (kind == 0) {
		emit(g, "sp = speculation();\n");
	} else if (kind == 1) {
		emit(g, "speculate(sp);\n");
		n = 1;
		if (pick(g, 2))
			emit(g, "printf(\"spec %%d\\n\", "), int_expr(g),
			    emit(g, ");\n");
		else
			emit(g, "trace("), str_expr(g), emit(g, ");\n");
		emit(g, "}\n");
		return;
	} else if (kind == 2) {
		/* nothing that records may follow commit() or discard() */
		emit(g, "%s(sp);\n}\n", pick(g, 2) ? "commit" : "discard");
		return;
	}
	while (n-- > 0)
		statement(g);
	emit(g, "}\n");
}

/* The program for the input, NUL-terminated (malloc'd). */
static char *generate(struct gen *g)
{
	unsigned n;

	g->cap = 1024;
	g->len = 0;
	g->depth = 0;
	g->aggs = 0;
	if ((g->out = malloc(g->cap)) == NULL)
		return NULL;
	g->out[0] = '\0';
	/* cleanrate 60 s: a committed or discarded speculation is cleaned
	 * at STATUS only, never because the machine was slow between two
	 * firings, so both runs see the same busy buffers */
	emit(g, "#pragma D option quiet\n#pragma D option nspec=2\n"
	    "#pragma D option cleanrate=60s\n"
	    "int g0, g1, g2, sp;\nstring gs;\nself int t;\nself string s;\n"
	    "this int c;\n");
	for (n = pick(g, 5) + 1; n > 0; n--)
		clause(g);
	return g->out;
}

/* ---- running it ------------------------------------------------------ */

static dtrace_id_t probes[4];

static void setup(void)
{
	static const ks_provider_ops_t ops = { 0 };
	ks_provider_id_t id;
	cpu_set_t set;

	if (probes[0] != DTRACE_IDNONE)
		return;
	if (ks_provider_register("fz", &ops, NULL, &id) != 0)
		abort();
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof (name), "p%d", i);
		probes[i] = ks_probe_create(id, "mod", "func", name, 0, NULL);
	}
	/* BEGIN and END run on the caller's CPU, which decides the order
	 * of consumption: the same CPU for both runs */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	(void)sched_setaffinity(0, sizeof (set), &set);
}

static void fire(unsigned round, const uint64_t *seed)
{
	ks_probe_ctx_t ctx;

	for (int i = 0; i < 4; i++) {
		memset(&ctx, 0, sizeof (ctx));
		ctx.kpc_id = probes[i];
		ctx.kpc_cpu = (round + (unsigned)i) % ks_ncpus();
		ctx.kpc_pid = ctx.kpc_tid = 4242 + (int)(round % 2);
		ctx.kpc_timestamp = 1000000ull * (round + 1);
		snprintf(ctx.kpc_execname, sizeof (ctx.kpc_execname), "fuzz");
		for (int k = 0; k < DTRACE_MAXARGS; k++)
			ctx.kpc_args[k] = seed[k] * (round + 1) + (uint64_t)i;
		ks_probe_fire(&ctx);
	}
}

static void on_err(const eng_errdata_t *ed, void *arg)
{
	fputs(ed->eed_msg, arg);
}

static void on_drop(const eng_dropdata_t *dd, void *arg)
{
	fputs(dd->edd_msg, arg);
}

/* Run prog under one loop; the output and messages (malloc'd), NULL if
 * it did not compile. */
static char *run(const char *prog, int dispatch, const uint64_t *seed)
{
	char err[256], *out = NULL;
	size_t len = 0;
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof (err));
	eng_prog_t *p;
	FILE *fp;

	if (h == NULL)
		abort();
	if ((p = eng_compile_str(h, prog, NULL, 0, NULL)) == NULL) {
		if (eng_errmsg(h)[0] == '\0')
			abort();	/* a refusal must say why */
		if (getenv("FUZZ_VERBOSE") != NULL)
			printf("compile: %s\n", eng_diag(h) ? eng_diag(h)->ed_msg : "");
		eng_close(h);
		return NULL;
	}
	if ((fp = open_memstream(&out, &len)) == NULL)
		abort();
	eng_handle_err(h, on_err, fp);
	eng_handle_drop(h, on_drop, fp);
	ks_dif_set_dispatch(dispatch);
	if (eng_prog_exec(h, p, NULL) != 0 || eng_go(h) != 0) {
		fprintf(fp, "enable: %s\n", eng_errmsg(h));
	} else {
		for (unsigned r = 0; r < 6; r++) {
			fire(r, seed);
			if (r % 2 == 1) {
				(void)eng_status(h);
				if (eng_work(h, fp) != 0)
					fprintf(fp, "work: %s\n", eng_errmsg(h));
			}
		}
		(void)eng_stop(h);
		(void)eng_status(h);
		if (eng_work(h, fp) != 0)
			fprintf(fp, "work: %s\n", eng_errmsg(h));
		if (eng_agg_snap(h) != 0 || eng_agg_print(h, fp) != 0)
			fprintf(fp, "aggs: %s\n", eng_errmsg(h));
	}
	ks_dif_set_dispatch(KS_DIF_DISPATCH_GOTO);
	fclose(fp);
	eng_prog_free(p);
	eng_close(h);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gen g = { data, size, NULL, 0, 0, 0, 0 };

	uint64_t seed[DTRACE_MAXARGS];
	char *prog, *a, *b;

	setup();
	for (int k = 0; k < DTRACE_MAXARGS; k++) {
		seed[k] = 0;
		for (int i = 0; i < 2; i++)
			seed[k] = seed[k] << 8 | pick(&g, 0);
		seed[k] -= 1000;
	}
	if ((prog = generate(&g)) == NULL)
		return 0;
	a = run(prog, KS_DIF_DISPATCH_SWITCH, seed);
	b = a != NULL ? run(prog, KS_DIF_DISPATCH_GOTO, seed) : NULL;
	if (getenv("FUZZ_VERBOSE") != NULL)
		printf("---- program\n%s---- output\n%s", prog,
		    a != NULL ? a : "(not compiled)\n");
	if (a != NULL && (b == NULL || strcmp(a, b) != 0)) {
		fprintf(stderr, "switch and goto loops differ on:\n%s\n"
		    "---- switch\n%s---- goto\n%s", prog, a, b ? b : "(null)");
		abort();
	}
	free(a);
	free(b);
	free(prog);
	return 0;
}
