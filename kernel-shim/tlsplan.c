/*
 * tlsplan.c - which clauses may keep their thread-local (self->) variables
 * in the kernel, and their lowering into the decoded form a provider
 * turns into BPF (ks_ktls.h says what a kernel clause is).
 *
 * ks_clause_tlsplan(), once per clause at ENABLE: a clause that loads or
 * stores a self-> variable (or a thread-local array: never kernel-able)
 * gets kc_ktls 1 and its lowering (kc_kclause) when it writes no record,
 * its predicate lowers (lower()), each assignment (a void expression)
 * lowers into a STORE step, each aggregation's key and increment is
 * aggregation-only (aggplan.c: keyed on plan values at the replay), and
 * each aggregation's value is either aggregation-only or, for quantize,
 * lquantize and llquantize, lowers into a VALUE step (the kernel keys on the value's
 * bucket: a quantize's effect depends on nothing else).  Otherwise -1.
 *
 * The program-wide rule (never split a variable between the kernel and
 * the shim): state_kernel() answers for a whole consumer, from all of its
 * ECBs, so every probe's plan agrees.  A consumer's self-> variables are
 * in the kernel only when every ECB of it whose clause touches one is
 * kernel-able, on a probe its provider said it lowers (kp_kplan), and
 * that probe carries nothing but aggregation-only ECBs and at most
 * KS_KT_MAXCLAUSES kernel clauses, all of this consumer, with no
 * copyinstr() key (whose firings may fall back to the shim one by one).
 * A veto (a provider failed to lower) keeps them in the shim for good.
 * While ECBs come and go (an ENABLE, :restart) plans are re-made for
 * every probe at once; firings in flight at that moment may see the
 * variables on the side they are leaving.
 *
 * Invariant: a kernel clause's effect at a firing is its predicate, its
 * stores and its VALUE steps' buckets (computed in the kernel), and the
 * aggregation-only rest (computed by the shim from the plan's values).
 */
#include <stdlib.h>
#include <string.h>
#include "ks_impl.h"

static uint64_t next_kid = 1;		/* kkc_id; fire lock not needed:
					 * ENABLE runs under the state lock */

/* Does dp touch a thread-local variable? */
static int touches_tls(const ks_difo_t *dp)
{
	for (uint32_t pc = 0; dp != NULL && pc < dp->dtdo_len; pc++) {
		int op = DIF_INSTR_OP(dp->dtdo_buf[pc]);

		if (op == DIF_OP_LDTS || op == DIF_OP_STTS ||
		    op == DIF_OP_LDTA || op == DIF_OP_LDTAA ||
		    op == DIF_OP_STTAA)
			return 1;
	}
	return 0;
}

/* Is thread-local id of dp an integer (or pointer) held by value?  Of
 * any size: the shim keeps every by-value scalar in 8 bytes and stores
 * and loads the whole register (dif_var.c: vi_size 8, the compiler's
 * casts are in the DIF), as the BPF hash does, so an int self->x = 1
 * behaves the same on both sides. */
static int tls_int(const ks_difo_t *dp, uint32_t id)
{
	for (uint32_t k = 0; k < dp->dtdo_varlen; k++) {
		const dtrace_difv_t *v = &dp->dtdo_vartab[k];
		uint32_t sz = v->dtdv_type.dtdt_size;

		if (v->dtdv_id == id && v->dtdv_scope == DIFV_SCOPE_THREAD)
			return v->dtdv_type.dtdt_kind == DIF_TYPE_CTF &&
			    !(v->dtdv_type.dtdt_flags & DIF_TF_BYREF) &&
			    (sz == 1 || sz == 2 || sz == 4 || sz == 8);
	}
	return 0;
}

/* The builtin variables a BPF program reads at the event. */
static int ldgs_ok(uint32_t id)
{
	switch (id) {
	case DIF_VAR_TIMESTAMP: case DIF_VAR_PID: case DIF_VAR_TID:
	case DIF_VAR_UID: case DIF_VAR_GID: case DIF_VAR_CPU:
	case DIF_VAR_EXECNAME:
		return 1;
	default:
		return id >= DIF_VAR_ARG0 && id < DIF_VAR_ARG0 + 10;
	}
}

enum { PV_NONE, PV_COMM, PV_STR };	/* what a register holds, for SCMP */

/* Is pc the target of a branch of dp? */
static int is_target(const ks_difo_t *dp, uint32_t pc)
{
	for (uint32_t i = 0; i < dp->dtdo_len; i++) {
		int op = DIF_INSTR_OP(dp->dtdo_buf[i]);

		if (op >= DIF_OP_BA && op <= DIF_OP_BLEU &&
		    DIF_INSTR_LABEL(dp->dtdo_buf[i]) == pc)
			return 1;
	}
	return 0;
}

/* One instruction into o; 0 if a BPF program cannot run it.  pv: what
 * each register holds (reset at branch targets, so it is what every path
 * leaves there). */
static int lower_one(const ks_difo_t *dp, uint32_t pc, ks_kop_t *o,
    uint8_t *pv)
{
	dif_instr_t in = dp->dtdo_buf[pc];
	int op = DIF_INSTR_OP(in), prev = pc > 0 ?
	    DIF_INSTR_OP(dp->dtdo_buf[pc - 1]) : DIF_OP_NOP;
	uint32_t idx;

	memset(o, 0, sizeof(*o));
	o->ko_op = (uint8_t)op;
	o->ko_r1 = (uint8_t)DIF_INSTR_R1(in);
	o->ko_r2 = (uint8_t)DIF_INSTR_R2(in);
	o->ko_rd = (uint8_t)DIF_INSTR_RD(in);
	if (op >= DIF_OP_BA && op <= DIF_OP_BLEU)	/* a label there */
		o->ko_r1 = o->ko_r2 = o->ko_rd = 0;
	else if (o->ko_rd >= DIF_DIR_NREGS)	/* others: rd (rs) there */
		return 0;
	switch (op) {			/* r1, r2 only where the format has
					 * registers there */
	case DIF_OP_NOP: case DIF_OP_RET:
		return 1;
	case DIF_OP_CMP: case DIF_OP_TST:
		return o->ko_r1 < DIF_DIR_NREGS && o->ko_r2 < DIF_DIR_NREGS;
	case DIF_OP_MOV: case DIF_OP_NOT:
	case DIF_OP_OR: case DIF_OP_XOR: case DIF_OP_AND: case DIF_OP_SLL:
	case DIF_OP_SRL: case DIF_OP_SUB: case DIF_OP_ADD: case DIF_OP_MUL:
	case DIF_OP_SRA:
		if (o->ko_r1 >= DIF_DIR_NREGS || o->ko_r2 >= DIF_DIR_NREGS)
			return 0;
		pv[o->ko_rd] = op == DIF_OP_MOV ? pv[o->ko_r1] : PV_NONE;
		return 1;
	case DIF_OP_SCMP:		/* execname against a constant */
		if (o->ko_r1 >= DIF_DIR_NREGS || o->ko_r2 >= DIF_DIR_NREGS)
			return 0;
		return (pv[o->ko_r1] == PV_COMM && pv[o->ko_r2] == PV_STR) ||
		    (pv[o->ko_r1] == PV_STR && pv[o->ko_r2] == PV_COMM);
	case DIF_OP_SETX:
		if ((idx = DIF_INSTR_INTEGER(in)) >= dp->dtdo_intlen)
			return 0;
		o->ko_imm = dp->dtdo_inttab[idx];
		o->ko_r1 = o->ko_r2 = 0;
		pv[o->ko_rd] = PV_NONE;
		return 1;
	case DIF_OP_SETS:
		idx = DIF_INSTR_STRING(in);
		if (idx >= dp->dtdo_strlen || memchr(dp->dtdo_strtab + idx,
		    '\0', dp->dtdo_strlen - idx) == NULL)
			return 0;
		o->ko_imm = strlen(dp->dtdo_strtab + idx) > 15;
		o->ko_r1 = o->ko_r2 = 0;
		strncpy(o->ko_str, dp->dtdo_strtab + idx,
		    sizeof(o->ko_str) - 1);
		pv[o->ko_rd] = PV_STR;
		return 1;
	case DIF_OP_LDGS:
		o->ko_r1 = o->ko_r2 = 0;
		o->ko_var = DIF_INSTR_VAR(in);
		pv[o->ko_rd] = o->ko_var == DIF_VAR_EXECNAME ? PV_COMM :
		    PV_NONE;
		return ldgs_ok(o->ko_var);
	case DIF_OP_LDTS:
		o->ko_r1 = o->ko_r2 = 0;
		o->ko_var = DIF_INSTR_VAR(in);
		pv[o->ko_rd] = PV_NONE;
		return tls_int(dp, o->ko_var);
	case DIF_OP_STTS:
		o->ko_var = DIF_INSTR_VAR(in);
		o->ko_r1 = (uint8_t)DIF_INSTR_RS(in);
		o->ko_r2 = o->ko_rd = 0;
		return o->ko_r1 < DIF_DIR_NREGS && tls_int(dp, o->ko_var);
	case DIF_OP_BA:
		o->ko_var = DIF_INSTR_LABEL(in);
		return o->ko_var > pc && o->ko_var < dp->dtdo_len;
	default:
		break;
	}
	if (op < DIF_OP_BE || op > DIF_OP_BLEU)
		return 0;
	/* a conditional branch right behind its compare (never a target
	 * itself): the compare every path to it made; after SCMP only
	 * equality means something (the kernel knows equal or not) */
	o->ko_var = DIF_INSTR_LABEL(in);
	if (o->ko_var <= pc || o->ko_var >= dp->dtdo_len ||
	    is_target(dp, pc) || (prev != DIF_OP_CMP && prev != DIF_OP_TST &&
	    prev != DIF_OP_SCMP))
		return 0;
	return prev != DIF_OP_SCMP || op == DIF_OP_BE || op == DIF_OP_BNE;
}

/* dp (NULL: none) into x; 0 if some instruction cannot be lowered. */
static int lower(const ks_difo_t *dp, ks_kexpr_t *x)
{
	uint8_t pv[DIF_DIR_NREGS] = { 0 };

	x->kx_n = 0;
	if (dp == NULL || dp->dtdo_len == 0)
		return 1;
	if (dp->dtdo_len > KS_KX_MAXOPS ||
	    DIF_INSTR_OP(dp->dtdo_buf[dp->dtdo_len - 1]) != DIF_OP_RET)
		return 0;
	for (uint32_t pc = 0; pc < dp->dtdo_len; pc++) {
		if (is_target(dp, pc))
			memset(pv, PV_NONE, sizeof(pv));
		if (!lower_one(dp, pc, &x->kx_ops[pc], pv))
			return 0;
	}
	x->kx_n = (uint16_t)dp->dtdo_len;
	return 1;
}

/* Action a of a kernel clause into kc (a step, or read through vars);
 * 0 if it cannot be. */
static int lower_act(ks_act_t *a, ks_kclause_t *kc, ks_clause_t *c)
{
	ks_kstep_t *s = &kc->kkc_steps[kc->kkc_nsteps];

	a->ka_kstep = 0;
	if (a->ka_role == KS_ROLE_RECORD) {
		if (a->ka_kind != DTRACEACT_DIFEXPR ||
		    kc->kkc_nsteps == KS_KT_MAXSTEPS ||
		    !lower(a->ka_difo, &s->kks_x))
			return 0;
		s->kks_kind = KS_KSTEP_STORE;
	} else if (ks_act_aggok(a, &c->kc_aggvars, &c->kc_aggargs,
	    &c->kc_aggstrs, &c->kc_aggkstrs)) {
		kc->kkc_nshim++;
		return 1;		/* the shim computes it at the replay */
	} else {
		if (a->ka_role != KS_ROLE_AGG ||
		    (a->ka_kind != DTRACEAGG_QUANTIZE &&
		    a->ka_kind != DTRACEAGG_LQUANTIZE &&
		    a->ka_kind != DTRACEAGG_LLQUANTIZE) ||
		    kc->kkc_nsteps == KS_KT_MAXSTEPS ||
		    !lower(a->ka_difo, &s->kks_x) || s->kks_x.kx_n == 0)
			return 0;
		s->kks_kind = KS_KSTEP_VALUE;
		s->kks_agg = (uint16_t)a->ka_kind;
		s->kks_arg = a->ka_arg;
	}
	a->ka_kstep = (uint8_t)++kc->kkc_nsteps;
	return 1;
}

void ks_clause_tlsplan(ks_clause_t *c)
{
	ks_kclause_t *kc;
	int touch = touches_tls(c->kc_pred), ok;

	for (int i = 0; i < c->kc_nacts; i++)
		touch |= touches_tls(c->kc_acts[i].ka_difo);
	c->kc_ktls = 0;
	if (!touch)
		return;
	c->kc_ktls = -1;
	if (c->kc_writes || c->kc_aggok > 0 ||
	    (kc = calloc(1, sizeof(*kc))) == NULL)
		return;
	c->kc_aggvars = c->kc_aggargs = c->kc_aggstrs = c->kc_aggkstrs = 0;
	ok = lower(c->kc_pred, &kc->kkc_pred);
	for (int i = 0; i < c->kc_nacts && ok; i++)
		ok = lower_act(&c->kc_acts[i], kc, c);
	if (!ok || c->kc_aggstrs != 0 || c->kc_aggkstrs != 0) {
		for (int i = 0; i < c->kc_nacts; i++)
			c->kc_acts[i].ka_kstep = 0;
		c->kc_aggvars = c->kc_aggargs = c->kc_aggstrs = 0;
		c->kc_aggkstrs = 0;
		free(kc);
		return;
	}
	kc->kkc_id = __atomic_fetch_add(&next_kid, 1, __ATOMIC_RELAXED);
	c->kc_kclause = kc;
	c->kc_ktls = 1;
}

/* Does probe p carry only aggregation-only ECBs and at most
 * KS_KT_MAXCLAUSES kernel clauses, all of st, with no copyinstr key? */
static int probe_ok(const ks_probe_t *p, const ks_state_t *st)
{
	int n = 0;

	if (!p->kp_kplan)
		return 0;
	for (const ks_ecb_t *e = p->kp_ecbs; e != NULL; e = e->ke_pnext) {
		const ks_clause_t *c = e->ke_clause;

		if (c->kc_ktls > 0) {
			if (e->ke_state != st || ++n > KS_KT_MAXCLAUSES)
				return 0;
		} else if (c->kc_aggok <= 0) {
			return 0;
		}
		if (c->kc_aggstrs != 0 || c->kc_aggkstrs != 0)
			return 0;
	}
	return 1;
}

/* Are st's self-> variables in the kernel (see the top; fire lock)? */
static int state_kernel(const ks_state_t *st)
{
	int any = 0;

	if (st->st_ktls_veto || st->st_vstate == NULL)
		return 0;
	for (uint32_t i = 0; i < st->st_necbs; i++) {
		const ks_ecb_t *e = st->st_ecbs[i];

		if (e == NULL || e->ke_disabled || e->ke_clause->kc_ktls == 0)
			continue;
		if (e->ke_clause->kc_ktls < 0 || !probe_ok(e->ke_probe, st))
			return 0;
		any = 1;
	}
	return any;
}

int ks_tls_probe_plan_locked(const ks_probe_t *p, ks_aggplan_t *out)
{
	out->kap_nkc = 0;
	for (const ks_ecb_t *e = p->kp_ecbs; e != NULL; e = e->ke_pnext) {
		const ks_clause_t *c = e->ke_clause;
		const ks_state_t *st = e->ke_state;

		if (c->kc_ktls <= 0)
			continue;
		if (!state_kernel(st) || out->kap_nkc == KS_KT_MAXCLAUSES)
			return -1;
		out->kap_kc[out->kap_nkc++] = *c->kc_kclause;
		out->kap_tlsstate = st->st_serial;
		out->kap_tlscap = (uint32_t)ks_vstate_tls_capacity(
		    st->st_vstate);
	}
	return 0;
}

void ks_probe_kplan_able(dtrace_id_t id, int able)
{
	ks_probe_t *p = ks_probe_get(id);

	if (p == NULL)
		return;
	pthread_mutex_lock(&ks_fire_lock);
	p->kp_kplan = able;
	pthread_mutex_unlock(&ks_fire_lock);
}

int ks_tls_veto(uint32_t serial)
{
	ks_state_t *st;
	int changed = 0;

	pthread_mutex_lock(&ks_fire_lock);
	if ((st = ks_state_by_serial(serial)) != NULL && !st->st_ktls_veto) {
		st->st_ktls_veto = 1;
		changed = 1;
	}
	pthread_mutex_unlock(&ks_fire_lock);
	return changed;
}

int ks_tls_dyndrops(uint32_t serial, uint64_t n)
{
	ks_state_t *st;

	pthread_mutex_lock(&ks_fire_lock);
	if ((st = ks_state_by_serial(serial)) != NULL && st->st_vstate != NULL)
		ks_vstate_add_dyndrops(st->st_vstate, n);
	pthread_mutex_unlock(&ks_fire_lock);
	return st != NULL ? 0 : -1;
}
