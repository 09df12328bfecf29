/*
 * aggplan.c - which probes a provider may count in the kernel
 * (ks_probe_aggplan, ks_filter.h): the analysis of one clause, done once
 * at ENABLE (a clause's DIF never changes) and cached in the clause
 * (kc_aggok, kc_aggvars, kc_aggargs), and the plan of a probe, the
 * conjunction of its ECBs' analyses.
 *
 * A clause is aggregation-only when it writes no record (kc_writes 0),
 * its only record-role actions are void DIF expressions (assignments to
 * clause-locals, the compiler's if/else flags), its keys are DIF values
 * or sym/mod/usym/umod/uaddr of values (no stacks), and every DIF object
 * (predicate, keys, increments, values) passes dif_ok(): a forward
 * data-flow over its instructions (DIF branches only go forward, so one
 * pass in program order reaches every instruction after all of its
 * predecessors) that tracks for each register what it may hold:
 *   AV_CONST  a known constant (folded through simple arithmetic, so
 *             args[c] finds its index),
 *   AV_INT    an integer computed from allowed sources (pid, tid, uid,
 *             gid, errno, cpu, argN, args[], epid, id: builtin()),
 *   AV_PTR    the address of memory whose text is fixed by allowed
 *             sources (execname, probeprov..probename, string
 *             constants, clause-local strings, which only ever hold such
 *             text): SCMP may read it, a string key may copy it,
 *   AV_BAD    a mix of pointer and integer: using it refuses the clause.
 * An AV_INT that is exactly argN as loaded (ldgs argN, moved, pushed) is
 * marked (av_t.a = N + 1): copyinstr of it alone is allowed, its text
 * read at argN's address, a value the plan keys on (kap_strs) when the
 * provider captured it at the event.  One that is exactly args[N] (N a
 * constant) is marked too (av_t.s = N + 1): a key DIF that returns it as
 * a string (args[N] typed string: a tracepoint's char[] field, served
 * from provider memory) keys on its text (kap_kstrs).
 * Integers may be combined by any ALU operation (a division by zero
 * faults the same way in each of n identical firings, and ecb.c repeats
 * the fault n times); a pointer may only be moved, compared as a string,
 * pushed as a string argument, stored in a string clause-local or
 * returned as a string.  Subroutines that are pure functions of integers
 * and such strings (htons ..., strlen, strjoin, substr, lltostr,
 * basename, toupper ...: subr_result) are calls like any ALU operation;
 * the tuple stack's depth and kinds are tracked for them.  Every other
 * instruction (memory loads, stores, other calls, globals,
 * thread-locals, associative arrays) refuses the clause.
 *
 * Invariant: an accepted clause's effect on a firing depends only on the
 * probe, the variables in kc_aggvars/kc_aggargs, cpu and the clause-locals
 * written earlier in the same firing by accepted clauses.
 */
#include <stdlib.h>
#include <string.h>
#include "ks_filter.h"
#include "ks_impl.h"

enum { AV_CONST, AV_INT, AV_PTR, AV_BAD };

typedef struct av {
	uint8_t k;			/* AV_* */
	uint8_t a;			/* exactly argN: N + 1, else 0 */
	uint8_t s;			/* exactly args[N]: N + 1, else 0 */
	uint64_t v;			/* AV_CONST value */
} av_t;

#define NTUP	KS_DIF_TUPLE_MAX
#define TUP_BAD	0xff			/* paths disagree on the tuple stack */

typedef struct ast {
	int live;			/* some path reaches this pc */
	av_t r[DIF_DIR_NREGS];
	uint8_t ntup;			/* tuple stack depth, or TUP_BAD */
	uint8_t tup[NTUP];		/* AV_INT or AV_PTR per entry */
	uint8_t tupa[NTUP];		/* the entry's av_t.a */
} ast_t;

/* What the caller does with a DIF object's result. */
enum { NEED_NONE, NEED_INT, NEED_PTR };

typedef struct plan {
	int ok;
	unsigned vars;			/* 1 << KS_FV_* */
	uint32_t args;
	uint32_t strs;			/* copyinstr(argN) read */
	uint32_t kstrs;			/* args[N] as a string key */
	uint32_t oargs;			/* argN read other than as qarg */
	uint8_t qarg;			/* N + 1: argN the exact value of a
					 * quantize kind (qagg, qparam) */
	uint16_t qagg;
	uint64_t qparam;
	int nret;			/* RETs seen, their meet: */
	av_t ret;
} plan_t;

static av_t mk(int k, uint64_t v)
{
	av_t a = { (uint8_t)k, 0, 0, v };

	return a;
}

static av_t meet(av_t a, av_t b)
{
	if (a.k == AV_INT && b.k == AV_INT && a.a == b.a && a.s == b.s)
		return a;
	if (a.k == AV_CONST && b.k == AV_CONST)
		return a.v == b.v ? a : mk(AV_INT, 0);
	if (a.k == AV_PTR || b.k == AV_PTR)
		return a.k == b.k ? a : mk(AV_BAD, 0);
	if (a.k == AV_BAD || b.k == AV_BAD)
		return mk(AV_BAD, 0);
	return mk(AV_INT, 0);
}

/* Merge state s into the state of instruction pc. */
static void flow(ast_t *st, uint32_t pc, const ast_t *s)
{
	if (!st[pc].live) {
		st[pc] = *s;
		return;
	}
	for (int i = 0; i < DIF_DIR_NREGS; i++)
		st[pc].r[i] = meet(st[pc].r[i], s->r[i]);
	if (st[pc].ntup != s->ntup ||
	    memcmp(st[pc].tup, s->tup, st[pc].ntup <= NTUP ? st[pc].ntup : 0) ||
	    memcmp(st[pc].tupa, s->tupa, st[pc].ntup <= NTUP ? st[pc].ntup : 0))
		st[pc].ntup = TUP_BAD;
}

static int isint(av_t a)
{
	return a.k == AV_CONST || a.k == AV_INT;
}

static av_t fold(int op, av_t a, av_t b)
{
	uint64_t v;

	if (a.k == AV_CONST && b.k == AV_CONST && ks_dif_fold(op, a.v, b.v, &v))
		return mk(AV_CONST, v);
	return mk(AV_INT, 0);
}

/* The builtin variable id as the plan sees it. */
static av_t builtin(plan_t *pl, uint32_t id)
{
	uint8_t arg = 0;
	int fv = ks_dif_fold_fvar(id, &arg);

	if (fv == KS_FV_ARG) {
		pl->args |= 1u << arg;
		pl->vars |= 1u << KS_FV_ARG;
		return (av_t){ AV_INT, (uint8_t)(arg + 1), 0, 0 };
	}
	if (fv == KS_FV_EXECNAME) {
		pl->vars |= 1u << KS_FV_EXECNAME;
		return mk(AV_PTR, 0);
	}
	if (fv > 0 && fv != KS_FV_CPU) {	/* the CPU is always known */
		pl->vars |= 1u << fv;
		return mk(AV_INT, 0);
	}
	switch (id) {
	case DIF_VAR_CPU: case DIF_VAR_EPID: case DIF_VAR_ID: break;
	case DIF_VAR_PROBEPROV: case DIF_VAR_PROBEMOD:
	case DIF_VAR_PROBEFUNC: case DIF_VAR_PROBENAME:
	case DIF_VAR_ZONENAME:
		return mk(AV_PTR, 0);
	default:
		return mk(AV_BAD, 0);
	}
	return mk(AV_INT, 0);
}

/* args[ndx]: one argument, or all of them for an unknown index. */
static av_t args_elem(plan_t *pl, av_t ndx)
{
	if (ndx.k == AV_CONST) {
		av_t v = mk(AV_INT, 0);

		if (ndx.v < DTRACE_MAXARGS) {
			pl->vars |= 1u << KS_FV_ARG;
			pl->args |= 1u << ndx.v;
			v.s = (uint8_t)(ndx.v + 1);
		}
		return v;
	}
	if (ndx.k != AV_INT)
		return mk(AV_BAD, 0);
	pl->vars |= 1u << KS_FV_ARG;
	pl->args |= (1u << DTRACE_MAXARGS) - 1;
	return mk(AV_INT, 0);
}

/* Does clause-local id hold a reference (a string) in dp's table? */
static int local_byref(const ks_difo_t *dp, uint32_t id)
{
	for (uint32_t k = 0; k < dp->dtdo_varlen; k++) {
		const dtrace_difv_t *v = &dp->dtdo_vartab[k];

		if (v->dtdv_id == id && v->dtdv_scope == DIFV_SCOPE_LOCAL)
			return (v->dtdv_type.dtdt_flags & DIF_TF_BYREF) ||
			    v->dtdv_type.dtdt_kind == DIF_TYPE_STRING;
	}
	return 0;
}

/*
 * Subroutines that are functions of their arguments alone (no memory but
 * the argument strings, no state, no randomness): what they return, for
 * arguments that are integers and fixed-text strings; AV_BAD for any
 * other subroutine.
 */
static int subr_result(uint32_t subr)
{
	switch (subr) {
	case DIF_SUBR_htons: case DIF_SUBR_htonl: case DIF_SUBR_htonll:
	case DIF_SUBR_ntohs: case DIF_SUBR_ntohl: case DIF_SUBR_ntohll:
	case DIF_SUBR_getmajor: case DIF_SUBR_getminor:
	case DIF_SUBR_strlen: case DIF_SUBR_strtoll:
	case DIF_SUBR_index: case DIF_SUBR_rindex:
		return AV_INT;
	case DIF_SUBR_strjoin: case DIF_SUBR_substr: case DIF_SUBR_lltostr:
	case DIF_SUBR_basename: case DIF_SUBR_dirname:
	case DIF_SUBR_cleanpath: case DIF_SUBR_strchr: case DIF_SUBR_strrchr:
	case DIF_SUBR_strstr: case DIF_SUBR_toupper: case DIF_SUBR_tolower:
		return AV_PTR;
	default:
		return AV_BAD;
	}
}

/* copyinstr(argN), its only argument exactly argN: a string keyed on
 * (kap_strs); any other copyinstr reads memory the plan cannot know. */
static int copyinstr_arg(plan_t *pl, const ast_t *s, av_t *v)
{
	if (s->ntup != 1 || s->tup[0] != AV_INT || s->tupa[0] == 0 ||
	    s->tupa[0] > DTRACE_MAXARGS)
		return 0;
	pl->vars |= 1u << KS_FV_USTR;
	pl->strs |= 1u << (s->tupa[0] - 1);
	*v = mk(AV_PTR, 0);
	return 1;
}

/* The tuple stack instructions and CALL on state s; 0 if refused. */
static int tuple_step(plan_t *pl, ast_t *s, dif_instr_t in, av_t *v)
{
	int op = DIF_INSTR_OP(in);
	av_t e = s->r[DIF_INSTR_RS(in)];

	if (s->ntup == TUP_BAD)
		return 0;
	switch (op) {
	case DIF_OP_FLUSHTS:
		s->ntup = 0;
		return 1;
	case DIF_OP_POPTS:
		if (s->ntup > 0)
			s->ntup--;
		return 1;
	case DIF_OP_PUSHTV: case DIF_OP_PUSHTR:
		/* a string by reference, or an integer by value */
		if (s->ntup == NTUP || (op == DIF_OP_PUSHTR ?
		    DIF_INSTR_R1(in) != DIF_TYPE_STRING || e.k != AV_PTR :
		    !isint(e)))
			return 0;
		s->tupa[s->ntup] = e.k == AV_INT ? e.a : 0;
		s->tup[s->ntup++] = e.k == AV_PTR ? AV_PTR : AV_INT;
		return 1;
	default:			/* DIF_OP_CALL */
		if (DIF_INSTR_SUBR(in) == DIF_SUBR_copyinstr)
			return copyinstr_arg(pl, s, v);
		*v = mk(subr_result(DIF_INSTR_SUBR(in)), 0);
		return v->k != AV_BAD;
	}
}

static int ret_ok(av_t a, int need)
{
	if (need == NEED_NONE)
		return 1;
	return need == NEED_PTR ? a.k == AV_PTR : isint(a);
}

/* One instruction that neither branches nor returns, on state s; 0 if
 * it is not allowed. */
static int step(const ks_difo_t *dp, plan_t *pl, ast_t *s, dif_instr_t in)
{
	int op = DIF_INSTR_OP(in), r1 = DIF_INSTR_R1(in);
	int r2 = DIF_INSTR_R2(in), rd = DIF_INSTR_RD(in);
	av_t v;

	switch (op) {			/* registers: checked by the verifier */
	case DIF_OP_NOP:
		return 1;
	case DIF_OP_CMP:
		return isint(s->r[r1]) && isint(s->r[r2]);
	case DIF_OP_TST:
		return isint(s->r[r1]);
	case DIF_OP_SCMP:
		return s->r[r1].k == AV_PTR && s->r[r2].k == AV_PTR;
	case DIF_OP_MOV:
		v = s->r[r1];
		break;
	case DIF_OP_NOT:
		if (!isint(s->r[r1]))
			return 0;
		v = s->r[r1].k == AV_CONST ? mk(AV_CONST, ~s->r[r1].v) :
		    mk(AV_INT, 0);
		break;
	case DIF_OP_OR: case DIF_OP_XOR: case DIF_OP_AND: case DIF_OP_SLL:
	case DIF_OP_SRL: case DIF_OP_SUB: case DIF_OP_ADD: case DIF_OP_MUL:
	case DIF_OP_SRA: case DIF_OP_SDIV: case DIF_OP_UDIV:
	case DIF_OP_SREM: case DIF_OP_UREM:
		if (!isint(s->r[r1]) || !isint(s->r[r2]))
			return 0;
		v = fold(op, s->r[r1], s->r[r2]);
		break;
	case DIF_OP_SETX:
		if (DIF_INSTR_INTEGER(in) >= dp->dtdo_intlen)
			return 0;
		v = mk(AV_CONST, dp->dtdo_inttab[DIF_INSTR_INTEGER(in)]);
		break;
	case DIF_OP_SETS:
		v = mk(AV_PTR, 0);
		break;
	case DIF_OP_LDGS:
		v = builtin(pl, DIF_INSTR_VAR(in));
		break;
	case DIF_OP_LDGA:
		if (r1 != DIF_VAR_ARGS)
			return 0;
		v = args_elem(pl, s->r[r2]);
		break;
	case DIF_OP_LDLS:
		v = mk(local_byref(dp, DIF_INSTR_VAR(in)) ? AV_PTR : AV_INT, 0);
		break;
	case DIF_OP_STLS:
		return ret_ok(s->r[rd], local_byref(dp, DIF_INSTR_VAR(in)) ?
		    NEED_PTR : NEED_INT);
	case DIF_OP_FLUSHTS: case DIF_OP_POPTS: case DIF_OP_PUSHTV:
	case DIF_OP_PUSHTR:
		return tuple_step(pl, s, in, &v);
	case DIF_OP_CALL:
		if (!tuple_step(pl, s, in, &v))
			return 0;
		break;
	default:
		return 0;
	}
	if (v.k == AV_BAD)
		return 0;
	if (rd != 0)
		s->r[rd] = v;
	return 1;
}

/* A string key that is exactly args[N] (a string-typed argument, text
 * from provider memory): keyed on its text (kap_kstrs). */
static int kstr_key(plan_t *pl, av_t a, int need)
{
	if (need != NEED_PTR || a.k != AV_INT || a.s == 0)
		return 0;
	pl->vars |= 1u << KS_FV_KSTR;
	pl->kstrs |= 1u << (a.s - 1);
	return 1;
}

/* Is dp allowed, its result used as need?  Adds what it reads to pl. */
static int dif_ok(const ks_difo_t *dp, int need, plan_t *pl)
{
	ast_t *st, s;
	int ok = 1;

	if (dp == NULL || dp->dtdo_len == 0)
		return 1;
	if ((st = ks_calloc((size_t)dp->dtdo_len + 1, sizeof(*st))) == NULL)
		return 0;
	st[0].live = 1;			/* every register starts at 0 */
	for (uint32_t pc = 0; pc < dp->dtdo_len && ok; pc++) {
		dif_instr_t in = dp->dtdo_buf[pc];
		int op = DIF_INSTR_OP(in);
		uint32_t to = DIF_INSTR_LABEL(in);

		if (!st[pc].live)
			continue;
		s = st[pc];
		if (op == DIF_OP_RET) {
			ok = DIF_INSTR_RD(in) < DIF_DIR_NREGS;
			if (ok)
				pl->ret = pl->nret++ == 0 ?
				    s.r[DIF_INSTR_RD(in)] :
				    meet(pl->ret, s.r[DIF_INSTR_RD(in)]);
			ok = ok && (ret_ok(s.r[DIF_INSTR_RD(in)], need) ||
			    kstr_key(pl, s.r[DIF_INSTR_RD(in)], need));
			continue;
		}
		if (op >= DIF_OP_BA && op <= DIF_OP_BLEU) {
			if (to <= pc || to >= dp->dtdo_len) {
				ok = 0;
				continue;
			}
			flow(st, to, &s);
			if (op == DIF_OP_BA)
				continue;
		} else if (!step(dp, pl, &s, in)) {
			ok = 0;
			continue;
		}
		flow(st, pc + 1, &s);
	}
	ok = ok && !st[dp->dtdo_len].live;	/* no falling off the end */
	free(st);
	return ok;
}

/* What a DIF value's record copies: a string or a reference needs a
 * pointer, anything else an integer. */
static int value_need(const ks_difo_t *dp)
{
	const dtrace_diftype_t *t = &dp->dtdo_rtype;

	return t->dtdt_kind == DIF_TYPE_STRING || (t->dtdt_flags &
	    DIF_TF_BYREF) ? NEED_PTR : NEED_INT;
}

/* One action of an aggregation-only clause. */
static int act_ok(const ks_act_t *a, plan_t *pl)
{
	switch (a->ka_role) {
	case KS_ROLE_RECORD:		/* kc_writes 0: a void expression */
		return a->ka_kind == DTRACEACT_DIFEXPR &&
		    dif_ok(a->ka_difo, NEED_NONE, pl);
	case KS_ROLE_INCR:
		return dif_ok(a->ka_difo, NEED_INT, pl);
	case KS_ROLE_AGG:
		return DTRACEACT_ISAGG(a->ka_kind) &&
		    a->ka_kind <= DTRACEAGG_LLQUANTIZE &&
		    dif_ok(a->ka_difo, NEED_INT, pl);
	default:
		break;
	}
	switch (a->ka_kind) {		/* KS_ROLE_KEY */
	case DTRACEACT_DIFEXPR:
		return a->ka_difo == NULL ||
		    dif_ok(a->ka_difo, value_need(a->ka_difo), pl);
	case DTRACEACT_USYM: case DTRACEACT_UMOD: case DTRACEACT_UADDR:
		pl->vars |= 1u << KS_FV_PID;	/* recorded with the pid */
		/* FALLTHROUGH */
	case DTRACEACT_SYM: case DTRACEACT_MOD:
		return dif_ok(a->ka_difo, NEED_INT, pl);
	default:
		return 0;			/* stacks and the rest */
	}
}

/* A use of argN (n = N + 1) as the exact value of aggregation agg with
 * parameters param: one such (arg, agg, param) is bucketed (qarg); an
 * argument used another way, or by a different quantize, stays exact
 * (oargs). */
static void q_use(plan_t *pl, uint8_t n, uint16_t agg, uint64_t param)
{
	if (pl->qarg == 0) {
		pl->qarg = n;
		pl->qagg = agg;
		pl->qparam = param;
	} else if (pl->qarg != n) {
		pl->oargs |= 1u << (n - 1);
	} else if (pl->qagg != agg || pl->qparam != param) {
		pl->oargs |= 1u << (n - 1);
	}
}

/* act_ok, noting whether a is a quantize kind of exactly one argument
 * (q_use) or reads its arguments another way (oargs). */
static int act_plan(const ks_act_t *a, plan_t *pl)
{
	plan_t sp = { .ok = 1 };
	uint8_t n;

	if (!act_ok(a, &sp))
		return 0;
	n = sp.ret.a != 0 ? sp.ret.a : sp.ret.s;
	if (a->ka_role == KS_ROLE_AGG && (a->ka_kind == DTRACEAGG_QUANTIZE ||
	    a->ka_kind == DTRACEAGG_LQUANTIZE ||
	    a->ka_kind == DTRACEAGG_LLQUANTIZE) && sp.nret > 0 &&
	    sp.ret.k == AV_INT && n != 0 && n <= DTRACE_MAXARGS &&
	    (sp.ret.a == 0 || sp.ret.s == 0) &&
	    sp.args == 1u << (n - 1) && sp.vars == 1u << KS_FV_ARG &&
	    sp.strs == 0 && sp.kstrs == 0)
		q_use(pl, n, (uint16_t)a->ka_kind, a->ka_arg);
	else
		pl->oargs |= sp.args;
	pl->vars |= sp.vars;
	pl->args |= sp.args;
	pl->strs |= sp.strs;
	pl->kstrs |= sp.kstrs;
	return 1;
}

int ks_act_aggok(const ks_act_t *a, unsigned *vars, uint32_t *args,
    uint32_t *strs, uint32_t *kstrs)
{
	plan_t pl = { .ok = 1 };

	if (!act_ok(a, &pl))
		return 0;
	*vars |= pl.vars;
	*args |= pl.args;
	*strs |= pl.strs;
	*kstrs |= pl.kstrs;
	return 1;
}

void ks_clause_aggplan(ks_clause_t *c)
{
	plan_t pl = { .ok = 1 };

	if (c->kc_writes || !dif_ok(c->kc_pred, NEED_INT, &pl))
		pl.ok = 0;
	pl.oargs = pl.args;		/* the predicate's */
	for (int i = 0; i < c->kc_nacts && pl.ok; i++)
		pl.ok = act_plan(&c->kc_acts[i], &pl);
	if (!pl.ok || (pl.qarg != 0 && (pl.oargs & (1u << (pl.qarg - 1)))))
		pl.qarg = 0;
	c->kc_aggoargs = pl.ok ? pl.oargs : 0;
	c->kc_aggqarg = pl.qarg;
	c->kc_aggqagg = pl.qagg;
	c->kc_aggqparam = pl.qparam;
	c->kc_aggok = pl.ok ? 1 : -1;
	c->kc_aggvars = pl.ok ? pl.vars : 0;
	c->kc_aggargs = pl.ok ? pl.args : 0;
	c->kc_aggstrs = pl.ok ? pl.strs : 0;
	c->kc_aggkstrs = pl.ok ? pl.kstrs : 0;
}

int ks_probe_aggplan(dtrace_id_t id, ks_aggplan_t *out)
{
	ks_probe_t *p = ks_probe_get(id);
	const ks_ecb_t *e;
	plan_t q = { .ok = 1 };

	memset(out, 0, sizeof(*out));
	out->kap_gen = ks_filter_gen();
	if (p == NULL)
		return -1;
	if (ks_filter_pending())
		return 0;
	pthread_mutex_lock(&ks_fire_lock);
	out->kap_ok = p->kp_ecbs != NULL;
	for (e = p->kp_ecbs; e != NULL && out->kap_ok; e = e->ke_pnext) {
		const ks_clause_t *c = e->ke_clause;

		out->kap_ok = c->kc_aggok > 0 || c->kc_ktls > 0;
		out->kap_vars |= c->kc_aggvars;
		out->kap_args |= c->kc_aggargs;
		out->kap_strs |= c->kc_aggstrs;
		out->kap_kstrs |= c->kc_aggkstrs;
		if (c->kc_aggok > 0) {
			q.oargs |= c->kc_aggoargs;
			if (c->kc_aggqarg != 0)
				q_use(&q, c->kc_aggqarg, c->kc_aggqagg,
				    c->kc_aggqparam);
		} else {
			q.oargs |= c->kc_aggargs;	/* self-> clauses */
		}
	}
	if (q.qarg != 0 && !(q.oargs & (1u << (q.qarg - 1)))) {
		out->kap_qarg = q.qarg;
		out->kap_qagg = q.qagg;
		out->kap_qparam = q.qparam;
	}
	if (out->kap_ok && ks_tls_probe_plan_locked(p, out) != 0)
		out->kap_ok = 0;	/* self-> stays in the shim */
	pthread_mutex_unlock(&ks_fire_lock);
	if (!out->kap_ok) {
		out->kap_vars = out->kap_args = out->kap_strs = 0;
		out->kap_kstrs = 0;
		out->kap_nkc = 0;
		out->kap_qarg = 0;
	}
	return 0;
}

int ks_probe_aggonly_locked(const ks_probe_t *p, int kres)
{
	const ks_ecb_t *e;

	for (e = p->kp_ecbs; e != NULL; e = e->ke_pnext)
		if (e->ke_clause->kc_aggok <= 0 &&
		    !(kres && e->ke_clause->kc_ktls > 0))
			return 0;
	return 1;
}
