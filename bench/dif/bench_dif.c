/*
 * bench_dif.c - nanoseconds per DIF instruction on a realistic clause,
 * with the plain-switch and the computed-goto emulator loops.
 *
 * One "firing" runs three verified DIF objects, each along a path that
 * executes every instruction up to its RET (so the instruction count is
 * exact):
 *   predicate  execname == "foo" && arg0 > 10                (10 instr)
 *   action 1   this->x = arg0 * 2 + arg1; trace(this->x)     ( 8 instr)
 *   action 2   counts[strjoin(execname, "-x"), pid]++        (15 instr)
 * Output: one line per dispatch style with ns/instruction (best of
 * several rounds) and ns per firing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dif.h"

#define ROUNDS	7
#define FIRINGS	200000

typedef struct prog {
	ks_difo_t dp;
	dif_instr_t text[32];
	uint64_t ints[8];
	char strs[64];
	dtrace_difv_t vars[4];
	uint32_t npath;			/* instructions executed per run */
} prog_t;

static void prog_init(prog_t *p, const dif_instr_t *in, uint32_t n,
    const char *strs, size_t slen, uint32_t npath)
{
	memset(p, 0, sizeof (*p));
	memcpy(p->text, in, n * sizeof (*in));
	memcpy(p->strs, strs, slen);
	p->dp.dtdo_buf = p->text;
	p->dp.dtdo_len = n;
	p->dp.dtdo_inttab = p->ints;
	p->dp.dtdo_strtab = p->strs;
	p->dp.dtdo_strlen = (uint32_t)slen;
	p->dp.dtdo_vartab = p->vars;
	p->dp.dtdo_rtype.dtdt_kind = DIF_TYPE_CTF;
	p->dp.dtdo_rtype.dtdt_size = 8;
	p->npath = npath;
}

static void predicate(prog_t *p)
{
	const dif_instr_t in[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_EXECNAME, 1),
		DIF_INSTR_SETS(1, 2),			/* "foo" */
		DIF_INSTR_CMP(DIF_OP_SCMP, 1, 2),
		DIF_INSTR_BRANCH(DIF_OP_BNE, 10),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 3),
		DIF_INSTR_SETX(0, 4),			/* 10 */
		DIF_INSTR_CMP(DIF_OP_CMP, 3, 4),
		DIF_INSTR_BRANCH(DIF_OP_BLE, 10),
		DIF_INSTR_SETX(1, 5),			/* 1 */
		DIF_INSTR_RET(5),
		DIF_INSTR_RET(0),
	};

	prog_init(p, in, 11, "\0foo", 5, 10);
	p->ints[0] = 10;
	p->ints[1] = 1;
	p->dp.dtdo_intlen = 2;
}

static void action_arith(prog_t *p)
{
	const dif_instr_t in[] = {
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1),
		DIF_INSTR_SETX(0, 2),
		DIF_INSTR_FMT(DIF_OP_MUL, 1, 2, 3),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG1, 4),
		DIF_INSTR_FMT(DIF_OP_ADD, 3, 4, 3),
		DIF_INSTR_STV(DIF_OP_STLS, DIF_VAR_OTHER_UBASE, 3),
		DIF_INSTR_LDV(DIF_OP_LDLS, DIF_VAR_OTHER_UBASE, 5),
		DIF_INSTR_RET(5),
	};

	prog_init(p, in, 8, "", 1, 8);
	p->ints[0] = 2;
	p->dp.dtdo_intlen = 1;
	p->vars[0].dtdv_id = DIF_VAR_OTHER_UBASE;
	p->vars[0].dtdv_kind = DIFV_KIND_SCALAR;
	p->vars[0].dtdv_scope = DIFV_SCOPE_LOCAL;
	p->vars[0].dtdv_type.dtdt_size = 8;
	p->dp.dtdo_varlen = 1;
}

static void action_lookup(prog_t *p)
{
	const dif_instr_t in[] = {
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_EXECNAME, 1),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 1),
		DIF_INSTR_SETS(1, 2),			/* "-x" */
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 2),
		DIF_INSTR_CALL(DIF_SUBR_strjoin, 3),
		DIF_INSTR_FLUSHTS,
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 3),
		DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 4),
		DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 4),
		DIF_INSTR_LDV(DIF_OP_LDGAA, DIF_VAR_OTHER_UBASE, 5),
		DIF_INSTR_SETX(0, 6),
		DIF_INSTR_FMT(DIF_OP_ADD, 5, 6, 5),
		DIF_INSTR_STV(DIF_OP_STGAA, DIF_VAR_OTHER_UBASE, 5),
		DIF_INSTR_RET(5),
	};

	prog_init(p, in, 15, "\0-x", 4, 15);
	p->ints[0] = 1;
	p->dp.dtdo_intlen = 1;
	p->vars[0].dtdv_id = DIF_VAR_OTHER_UBASE;
	p->vars[0].dtdv_kind = DIFV_KIND_ARRAY;
	p->vars[0].dtdv_scope = DIFV_SCOPE_GLOBAL;
	p->vars[0].dtdv_type.dtdt_size = 8;
	p->dp.dtdo_varlen = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Best ns per firing over ROUNDS rounds of FIRINGS firings. */
static double bench(prog_t *const *p, int np, ks_mstate_t *ms, int dispatch)
{
	double best = 1e30;

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns(), sum = 0;

		for (int i = 0; i < FIRINGS; i++) {
			ms->kms_scratch_used = 0;
			for (int k = 0; k < np; k++) {
				sum += ks_dif_emulate_with(&p[k]->dp, ms,
				    dispatch);
				if (ms->kms_fault) {
					fprintf(stderr, "fault %u in program "
					    "%d\n", ms->kms_fault, k);
					exit(1);
				}
			}
		}
		double ns = (double)(now_ns() - t0) / FIRINGS;
		if (ns < best)
			best = ns;
		if (sum == 0)
			fprintf(stderr, "unexpected zero sum\n");
	}
	return best;
}

int main(void)
{
	static char scratch[65536] __attribute__((aligned(16)));
	static prog_t pred, arith, lookup;
	prog_t *all[3] = { &pred, &arith, &lookup };
	uint64_t locals[4] = { 0 };
	ks_probe_ctx_t ctx;
	ks_mstate_t ms;
	char err[256];
	uint32_t ninstr = 0;
	ks_vstate_t *vs = ks_vstate_create(1 << 20, 256);

	predicate(&pred);
	action_arith(&arith);
	action_lookup(&lookup);
	for (int k = 0; k < 3; k++) {
		if (ks_dif_verify(&all[k]->dp, err, sizeof (err)) != 0 ||
		    ks_vstate_declare(vs, &all[k]->dp, err, sizeof (err)) != 0) {
			fprintf(stderr, "program %d: %s\n", k, err);
			return 1;
		}
		ninstr += all[k]->npath;
	}
	memset(&ctx, 0, sizeof (ctx));
	strcpy(ctx.kpc_execname, "foo");
	ctx.kpc_pid = getpid();
	ctx.kpc_tid = getpid();
	ctx.kpc_args[0] = 42;
	ctx.kpc_args[1] = 7;
	memset(&ms, 0, sizeof (ms));
	ms.kms_ctx = &ctx;
	ms.kms_vstate = vs;
	ms.kms_locals = locals;
	ms.kms_nlocals = 4;
	ms.kms_strsize = 256;
	ms.kms_scratch = scratch;
	ms.kms_scratch_size = sizeof (scratch);
	printf("DIF emulator: %u instructions per firing "
	    "(predicate 10, arith 8, strjoin+lookup 15)\n", ninstr);
	for (int d = 0; d < 2; d++) {
		double f = bench(all, 3, &ms, d);
		double p = bench(all, 1, &ms, d);
		double a = bench(all + 1, 1, &ms, d);
		double l = bench(all + 2, 1, &ms, d);

		printf("%-6s  %5.2f ns/instr overall (%6.1f ns/firing); "
		    "predicate %.2f, arith %.2f, strjoin+lookup %.2f\n",
		    d == KS_DIF_DISPATCH_GOTO ? "goto" : "switch", f / ninstr,
		    f, p / pred.npath, a / arith.npath, l / lookup.npath);
	}
	ks_vstate_destroy(vs);
	return 0;
}
