/*
 * filter.c - predicates translated into provider filters (ks_filter.h).
 *
 * A predicate's DIF is run symbolically along every path (predicates are
 * loop-free: every branch goes forward).  A register holds a constant, a
 * string constant, a filterable variable (pid, tid, cpu, uid, gid, argN,
 * execname, possibly cast by sll/sra or sll/srl by the same amount) or an
 * unknown value.  A conditional branch after comparing a variable with a
 * constant adds the comparison (taken) or its negation (not taken) to the
 * path; comparing constants decides the branch; anything else follows
 * both ways adding nothing, which only loosens.  A path reaching "ret" of
 * a nonzero or unknown value is one term of the filter; "ret 0" paths are
 * dropped.  Instructions with effects a filtered firing would lose (stores,
 * subroutine calls, memory loads that may fault, divisions) make the
 * predicate untranslatable: the filter is "always".
 *
 * Invariant: the filter is never stricter than the predicate (any firing
 * for which the predicate is nonzero satisfies some term).
 */
#include <pthread.h>
#include <string.h>
#include "ks_filter.h"
#include "ks_krec.h"
#include "ks_impl.h"

#define MAXPATHS 64
#define MAXSTEPS 4096

enum { S_UNK, S_CONST, S_STR, S_VAR };

typedef struct sym {
	uint8_t k;			/* S_* */
	uint8_t var, arg;		/* S_VAR: enum ks_fvar, arg index */
	uint8_t shl;			/* sll applied, waiting for sra/srl */
	uint8_t shift, sext;		/* a complete cast */
	uint64_t v;			/* S_CONST value */
	const char *s;			/* S_STR text */
} sym_t;

enum { CC_UNK, CC_CONST, CC_VAR, CC_STR };

typedef struct walk {
	const ks_difo_t *dp;
	ks_filter_term_t *out;
	int max, nout, steps, paths, bad;
	int loose;			/* some path was loosened */
} walk_t;

typedef struct path {
	sym_t r[DIF_DIR_NREGS];
	int cc;				/* CC_* */
	sym_t ca, cb;			/* what was compared */
	int loose;			/* a comparison was dropped */
	ks_filter_term_t t;
} path_t;

static pthread_mutex_t wlk = PTHREAD_MUTEX_INITIALIZER;
static void (*watcher)(void);
static uint64_t gen;
static int pending;

static sym_t cnst(uint64_t v)
{
	sym_t s = { .k = S_CONST, .v = v };

	return s;
}

/* A builtin variable: filterable unless it is errno (a filter atom
 * cannot test it) or not a provider-visible variable at all. */
static sym_t ldgs(uint32_t id)
{
	sym_t s = { .k = S_VAR };
	int fv = ks_dif_fold_fvar(id, &s.arg);

	if (fv < 0 || fv == KS_FV_ERRNO)
		s.k = S_UNK;
	else
		s.var = (uint8_t)fv;
	return s;
}

/* sll, srl, sra: constants fold; a variable may be cast. */
static sym_t shift(int op, sym_t a, sym_t b)
{
	sym_t u = { .k = S_UNK };
	uint64_t v;

	if (a.k == S_CONST && b.k == S_CONST && ks_dif_fold(op, a.v, b.v, &v))
		return cnst(v);
	if (a.k != S_VAR || b.k != S_CONST || a.var == KS_FV_EXECNAME ||
	    a.shift != 0 || b.v == 0 || b.v >= 64)
		return u;
	if (op == DIF_OP_SLL && a.shl == 0) {
		a.shl = (uint8_t)b.v;
		return a;
	}
	if (op != DIF_OP_SLL && a.shl == b.v) {
		a.shl = 0;
		a.shift = (uint8_t)b.v;
		a.sext = op == DIF_OP_SRA;
		return a;
	}
	return u;
}

static sym_t alu(int op, sym_t a, sym_t b)
{
	sym_t u = { .k = S_UNK };
	uint64_t v;

	if (op == DIF_OP_SLL || op == DIF_OP_SRL || op == DIF_OP_SRA)
		return shift(op, a, b);
	if (a.k == S_CONST && b.k == S_CONST && ks_dif_fold(op, a.v, b.v, &v))
		return cnst(v);
	return u;
}

/* Does branch op jump for a OP b? */
static int decide(int op, uint64_t a, uint64_t b)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	switch (op) {
	case DIF_OP_BE: return a == b;
	case DIF_OP_BNE: return a != b;
	case DIF_OP_BG: return sa > sb;
	case DIF_OP_BGU: return a > b;
	case DIF_OP_BGE: return sa >= sb;
	case DIF_OP_BGEU: return a >= b;
	case DIF_OP_BL: return sa < sb;
	case DIF_OP_BLU: return a < b;
	case DIF_OP_BLE: return sa <= sb;
	default: return a <= b;		/* DIF_OP_BLEU */
	}
}

/* The comparison a branch op makes when taken; *uns: unsigned. */
static int branch_fop(int op, int *uns)
{
	*uns = op == DIF_OP_BGU || op == DIF_OP_BGEU || op == DIF_OP_BLU ||
	    op == DIF_OP_BLEU;
	switch (op) {
	case DIF_OP_BE: return KS_FOP_EQ;
	case DIF_OP_BNE: return KS_FOP_NE;
	case DIF_OP_BG: case DIF_OP_BGU: return KS_FOP_GT;
	case DIF_OP_BGE: case DIF_OP_BGEU: return KS_FOP_GE;
	case DIF_OP_BL: case DIF_OP_BLU: return KS_FOP_LT;
	default: return KS_FOP_LE;
	}
}

static int fop_not(int op)
{
	static const int neg[] = { 0, KS_FOP_NE, KS_FOP_EQ, KS_FOP_GE,
		KS_FOP_GT, KS_FOP_LE, KS_FOP_LT };

	return neg[op];
}

/* constant OP variable is variable OP' constant */
static int fop_swap(int op)
{
	static const int sw[] = { 0, KS_FOP_EQ, KS_FOP_NE, KS_FOP_GT,
		KS_FOP_GE, KS_FOP_LT, KS_FOP_LE };

	return sw[op];
}

/* Add "var OP const" to the path (dropped, i.e. loosened, when full). */
static void add_atom(path_t *p, const sym_t *var, int op, int uns,
    uint64_t val, const char *str)
{
	ks_filter_atom_t *a;

	if (p->t.kft_natoms == KS_FILTER_MAXATOMS) {
		p->loose = 1;
		return;
	}
	a = &p->t.kft_atoms[p->t.kft_natoms++];
	memset(a, 0, sizeof(*a));
	a->kfa_var = var->var;
	a->kfa_arg = var->arg;
	a->kfa_op = (uint8_t)op;
	a->kfa_unsigned = (uint8_t)uns;
	a->kfa_shift = var->shift;
	a->kfa_sext = var->sext;
	a->kfa_val = val;
	if (str != NULL)
		strncpy(a->kfa_str, str, sizeof(a->kfa_str) - 1);
}

/* Record the comparison of a with b for the next branch. */
static void compare(path_t *p, sym_t a, sym_t b, int strings)
{
	p->ca = a;
	p->cb = b;
	p->cc = CC_UNK;
	if (!strings) {
		if (a.k == S_CONST && b.k == S_CONST)
			p->cc = CC_CONST;
		else if ((a.k == S_VAR && a.shl == 0 && b.k == S_CONST) ||
		    (b.k == S_VAR && b.shl == 0 && a.k == S_CONST))
			p->cc = a.var == KS_FV_EXECNAME ||
			    b.var == KS_FV_EXECNAME ? CC_UNK : CC_VAR;
		return;
	}
	if (a.k == S_STR && b.k == S_STR)
		p->cc = CC_CONST;
	else if ((a.k == S_VAR && a.var == KS_FV_EXECNAME && b.k == S_STR) ||
	    (b.k == S_VAR && b.var == KS_FV_EXECNAME && a.k == S_STR))
		p->cc = CC_STR;
	if (p->cc == CC_CONST) {		/* fold strcmp's sign */
		int c = strcmp(a.s, b.s);

		p->ca = cnst((uint64_t)(int64_t)c);
		p->cb = cnst(0);
	}
}

/* Constrain path p by "branch op taken" (taken != 0) or not.  0 if the
 * path is impossible. */
static int constrain(path_t *p, int op, int taken)
{
	int uns, fop;
	const sym_t *v, *c;

	if (p->cc == CC_UNK) {
		p->loose = 1;
		return 1;
	}
	if (p->cc == CC_CONST)
		return decide(op, p->ca.v, p->cb.v) == taken;
	v = p->ca.k == S_VAR ? &p->ca : &p->cb;
	c = p->ca.k == S_VAR ? &p->cb : &p->ca;
	fop = branch_fop(op, &uns);
	if (v == &p->cb)
		fop = fop_swap(fop);
	if (!taken)
		fop = fop_not(fop);
	if (p->cc == CC_VAR) {
		add_atom(p, v, fop, uns, c->v, NULL);
		return 1;
	}
	if ((fop != KS_FOP_EQ && fop != KS_FOP_NE) || uns ||
	    strlen(c->s) > 15) {
		/* an ordering of strings, or a name no comm can have */
		if (fop == KS_FOP_EQ && strlen(c->s) > 15)
			return 0;
		p->loose |= fop != KS_FOP_NE || uns || strlen(c->s) <= 15;
		return 1;
	}
	add_atom(p, v, fop, 0, 0, c->s);
	return 1;
}

static void run(walk_t *w, path_t *p, uint32_t pc);

/* A path returned: keep its term unless the value is 0. */
static void finish(walk_t *w, const path_t *p, const sym_t *rv)
{
	if (rv->k == S_CONST && rv->v == 0)
		return;
	if (rv->k != S_CONST || p->loose)
		w->loose = 1;		/* this term holds more often */
	if (p->t.kft_natoms == 0 || w->nout == w->max) {
		w->bad = 1;			/* true, or too many terms */
		return;
	}
	w->out[w->nout++] = p->t;
}

static void branch(walk_t *w, path_t *p, uint32_t pc, dif_instr_t in)
{
	uint32_t to = DIF_INSTR_LABEL(in);
	int op = DIF_INSTR_OP(in);
	path_t q;

	if (to <= pc || to >= w->dp->dtdo_len) {
		w->bad = 1;			/* a loop or a wild label */
		return;
	}
	if (++w->paths > MAXPATHS) {
		w->bad = 1;
		return;
	}
	q = *p;
	if (constrain(&q, op, 1))
		run(w, &q, to);
	if (!w->bad && constrain(p, op, 0))
		run(w, p, pc + 1);
}

/* One instruction that neither branches nor returns; 0 if refused. */
static int step(walk_t *w, path_t *p, dif_instr_t in)
{
	const ks_difo_t *dp = w->dp;
	int op = DIF_INSTR_OP(in), r1 = DIF_INSTR_R1(in);
	int r2 = DIF_INSTR_R2(in), rd = DIF_INSTR_RD(in);
	sym_t v;

	switch (op) {
	case DIF_OP_NOP:
		return 1;
	case DIF_OP_CMP: case DIF_OP_SCMP:
		compare(p, p->r[r1], p->r[r2], op == DIF_OP_SCMP);
		return 1;
	case DIF_OP_TST:
		compare(p, p->r[r1], cnst(0), 0);
		return 1;
	case DIF_OP_MOV:
		v = p->r[r1];
		break;
	case DIF_OP_NOT:
		v = p->r[r1].k == S_CONST ? cnst(~p->r[r1].v) : (sym_t){ 0 };
		break;
	case DIF_OP_OR: case DIF_OP_XOR: case DIF_OP_AND: case DIF_OP_SLL:
	case DIF_OP_SRL: case DIF_OP_SUB: case DIF_OP_ADD: case DIF_OP_MUL:
	case DIF_OP_SRA:
		v = alu(op, p->r[r1], p->r[r2]);
		break;
	case DIF_OP_SETX:
		if (DIF_INSTR_INTEGER(in) >= dp->dtdo_intlen)
			return 0;
		v = cnst(dp->dtdo_inttab[DIF_INSTR_INTEGER(in)]);
		break;
	case DIF_OP_SETS:
		if (DIF_INSTR_STRING(in) >= dp->dtdo_strlen ||
		    memchr(dp->dtdo_strtab + DIF_INSTR_STRING(in), '\0',
		    dp->dtdo_strlen - DIF_INSTR_STRING(in)) == NULL)
			return 0;
		v = (sym_t){ .k = S_STR,
		    .s = dp->dtdo_strtab + DIF_INSTR_STRING(in) };
		break;
	case DIF_OP_LDGS:
		v = ldgs(DIF_INSTR_VAR(in));
		break;
	case DIF_OP_LDTS: case DIF_OP_LDLS:
		v = (sym_t){ 0 };
		break;
	case DIF_OP_LDGA:
		if (r1 != DIF_VAR_ARGS)
			return 0;		/* uregs[] may fault */
		v = p->r[r2].k == S_CONST && p->r[r2].v < 10 ?
		    ldgs(DIF_VAR_ARG0 + (uint32_t)p->r[r2].v) : (sym_t){ 0 };
		break;
	default:
		return 0;
	}
	if (rd == 0 || rd >= DIF_DIR_NREGS)
		return rd == 0;			/* %r0 stays 0 */
	p->r[rd] = v;
	return 1;
}

static void run(walk_t *w, path_t *p, uint32_t pc)
{
	for (; pc < w->dp->dtdo_len && !w->bad; pc++) {
		dif_instr_t in = w->dp->dtdo_buf[pc];
		int op = DIF_INSTR_OP(in);

		if (++w->steps > MAXSTEPS) {
			w->bad = 1;
			return;
		}
		if (op == DIF_OP_RET) {
			int rd = DIF_INSTR_RD(in);

			if (rd >= DIF_DIR_NREGS)
				w->bad = 1;
			else
				finish(w, p, &p->r[rd]);
			return;
		}
		if (op == DIF_OP_BA) {
			if (DIF_INSTR_LABEL(in) <= pc) {
				w->bad = 1;
				return;
			}
			pc = DIF_INSTR_LABEL(in) - 1;
			continue;
		}
		if (op >= DIF_OP_BE && op <= DIF_OP_BLEU) {
			branch(w, p, pc, in);
			return;
		}
		if (!step(w, p, in))
			w->bad = 1;
	}
	w->bad = 1;				/* fell off the end */
}

/* The walk both entry points share; exact: refuse a loose translation. */
static int pred_walk(const struct ks_difo *pred, ks_filter_term_t *term,
    int max, int exact)
{
	walk_t w = { .dp = pred, .out = term, .max = max };
	path_t p;

	if (pred == NULL || pred->dtdo_len == 0)
		return -1;
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < DIF_DIR_NREGS; i++)
		p.r[i] = cnst(0);
	for (int i = 1; i < DIF_DIR_NREGS; i++)
		p.r[i].k = S_UNK;
	run(&w, &p, 0);
	return w.bad || (exact && w.loose) ? -1 : w.nout;
}

int ks_filter_pred(const struct ks_difo *pred, ks_filter_term_t *term,
    int max)
{
	return pred_walk(pred, term, max, 0);
}

int ks_filter_pred_exact(const struct ks_difo *pred, ks_filter_term_t *term,
    int max)
{
	return pred_walk(pred, term, max, 1);
}

int ks_probe_filter(dtrace_id_t id, ks_filter_t *out)
{
	ks_probe_t *p = ks_probe_get(id);
	const ks_ecb_t *e;

	memset(out, 0, sizeof(*out));
	out->kf_gen = ks_filter_gen();
	out->kf_always = 1;
	if (p == NULL)
		return -1;
	if (__atomic_load_n(&pending, __ATOMIC_ACQUIRE) != 0)
		return 0;
	out->kf_always = 0;
	pthread_mutex_lock(&ks_fire_lock);
	for (e = p->kp_ecbs; e != NULL && !out->kf_always; e = e->ke_pnext) {
		int n = ks_filter_pred(e->ke_clause->kc_pred,
		    out->kf_terms + out->kf_nterms,
		    KS_FILTER_MAXTERMS - out->kf_nterms);

		if (n < 0)
			out->kf_always = 1;
		else
			out->kf_nterms += n;
	}
	pthread_mutex_unlock(&ks_fire_lock);
	if (out->kf_always)
		out->kf_nterms = 0;
	return 0;
}

int ks_probe_busy(dtrace_id_t id)
{
	ks_probe_t *p = ks_probe_get(id);
	int busy;

	if (p == NULL)
		return 0;
	pthread_mutex_lock(&ks_fire_lock);
	busy = p->kp_ecbs != NULL;
	pthread_mutex_unlock(&ks_fire_lock);
	return busy;
}

int ks_filter_pending(void)
{
	return __atomic_load_n(&pending, __ATOMIC_ACQUIRE) != 0;
}

uint64_t ks_filter_gen(void)
{
	return __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
}

void ks_filter_watch(void (*fn)(void))
{
	pthread_mutex_lock(&wlk);
	watcher = fn;
	pthread_mutex_unlock(&wlk);
}

static void changed(int d)
{
	void (*fn)(void);

	pthread_mutex_lock(&wlk);
	__atomic_add_fetch(&pending, d, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL);
	fn = watcher;
	if (fn != NULL)
		fn();
	pthread_mutex_unlock(&wlk);
}

void ks_filter_begin(void)
{
	changed(1);
}

void ks_filter_end(void)
{
	changed(-1);
}

void ks_filter_changed(void)
{
	changed(0);
}

/* ---- evaluation in user space (tests, providers without BPF) ---- */

static uint64_t value(const ks_filter_atom_t *a, int32_t pid, int32_t tid,
    uint32_t cpu, uint32_t uid, uint32_t gid, const uint64_t *args)
{
	uint64_t v;

	switch (a->kfa_var) {
	case KS_FV_PID: v = (uint64_t)(int64_t)pid; break;
	case KS_FV_TID: v = (uint64_t)(int64_t)tid; break;
	case KS_FV_CPU: v = cpu; break;
	case KS_FV_UID: v = uid; break;
	case KS_FV_GID: v = gid; break;
	default: v = a->kfa_arg < DTRACE_MAXARGS ? args[a->kfa_arg] : 0;
	}
	if (a->kfa_shift != 0) {
		v <<= a->kfa_shift;
		v = a->kfa_sext ? (uint64_t)((int64_t)v >> a->kfa_shift) :
		    v >> a->kfa_shift;
	}
	return v;
}

static int atom_true(const ks_filter_atom_t *a, uint64_t v)
{
	int64_t s = (int64_t)v, c = (int64_t)a->kfa_val;
	uint64_t u = a->kfa_val;

	switch (a->kfa_op) {
	case KS_FOP_EQ: return v == u;
	case KS_FOP_NE: return v != u;
	case KS_FOP_LT: return a->kfa_unsigned ? v < u : s < c;
	case KS_FOP_LE: return a->kfa_unsigned ? v <= u : s <= c;
	case KS_FOP_GT: return a->kfa_unsigned ? v > u : s > c;
	default: return a->kfa_unsigned ? v >= u : s >= c;
	}
}

int ks_filter_match(const ks_filter_t *f, int32_t pid, int32_t tid,
    uint32_t cpu, uint32_t uid, uint32_t gid, const uint64_t *args,
    const char *comm)
{
	if (f->kf_always)
		return 1;
	for (int t = 0; t < f->kf_nterms; t++) {
		const ks_filter_term_t *tm = &f->kf_terms[t];
		int ok = 1;

		for (int i = 0; i < tm->kft_natoms && ok; i++) {
			const ks_filter_atom_t *a = &tm->kft_atoms[i];

			if (a->kfa_var == KS_FV_EXECNAME)
				ok = (strncmp(comm, a->kfa_str, 16) == 0) ==
				    (a->kfa_op == KS_FOP_EQ);
			else
				ok = atom_true(a, value(a, pid, tid, cpu,
				    uid, gid, args));
		}
		if (ok)
			return 1;
	}
	return 0;
}
