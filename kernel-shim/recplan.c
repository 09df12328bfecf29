/*
 * recplan.c - which probes may have their records built in the kernel
 * (ks_krec.h): the plan of one probe, made when the provider asks
 * (ks_probe_recplan), and the commit of a record the kernel built
 * (ks_krec_commit, ecb.c).
 *
 * A value is accepted only in the shapes the D compiler gives a plain
 * variable or constant: "ldgs VAR, %rN; ret %rN", "setx I, %rN; ret %rN"
 * or "sets S, %rN; ret %rN".  Anything else (arithmetic, casts, args[N]
 * typed through a translator, copyinstr) keeps the clause in the shim,
 * where it is run as before: a refusal costs speed, never an answer.
 *
 * Invariant: for an accepted ECB, the record the provider builds from
 * the plan is byte for byte the one ecb.c's run_clause would write for
 * the same event, and the firings the filter lets through are exactly
 * those for which the predicate is nonzero.
 */
#include <stdlib.h>
#include <string.h>
#include "ks_krec.h"
#include "ks_impl.h"

/* DTUI_REC_KERNEL=0: never build records in the kernel (tests compare
 * both paths). */
static int rec_enabled(void)
{
	static int on = -1;
	const char *e;

	if (on < 0) {
		e = getenv("DTUI_REC_KERNEL");
		on = !(e != NULL && strcmp(e, "0") == 0);
	}
	return on;
}

/* A builtin variable a kernel value stands for; 0 if none. */
static int var_kind(uint32_t id, uint8_t *arg)
{
	if (id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9) {
		*arg = (uint8_t)(id - DIF_VAR_ARG0);
		return KS_KRV_ARG;
	}
	switch (id) {
	case DIF_VAR_PID: return KS_KRV_PID;
	case DIF_VAR_TID: return KS_KRV_TID;
	case DIF_VAR_UID: return KS_KRV_UID;
	case DIF_VAR_GID: return KS_KRV_GID;
	case DIF_VAR_CPU: return KS_KRV_CPU;
	case DIF_VAR_TIMESTAMP: return KS_KRV_TIMESTAMP;
	case DIF_VAR_EXECNAME: return KS_KRV_COMM;
	default: return 0;
	}
}

/* A string constant for value v (NUL-terminated text of a record of
 * size bytes); 0 if it does not fit the plan. */
static int str_value(ks_krval_t *v, const char *s, uint32_t size)
{
	size_t n = strlen(s);

	if (n + 1 > sizeof(v->kkv_str) || n + 1 > size)
		return 0;		/* truncation: left to the shim */
	v->kkv_kind = KS_KRV_STR;
	memcpy(v->kkv_str, s, n + 1);
	return 1;
}

/* The value of action a of an ECB on probe p; 0 if not one step. */
static int act_value(const ks_act_t *a, const ks_ecb_t *e, ks_krval_t *v,
    ks_recplan_t *out)
{
	const ks_difo_t *dp = a->ka_difo;
	const ks_probe_t *p = e->ke_probe;
	dif_instr_t i0, i1;
	int str;
	uint32_t id, rd;

	if (dp == NULL || dp->dtdo_len != 2)
		return 0;
	i0 = dp->dtdo_buf[0];
	i1 = dp->dtdo_buf[1];
	rd = DIF_INSTR_RD(i0);
	if (DIF_INSTR_OP(i1) != DIF_OP_RET || DIF_INSTR_RD(i1) != rd ||
	    rd == 0)
		return 0;
	str = dp->dtdo_rtype.dtdt_kind == DIF_TYPE_STRING;
	if (!str && ((dp->dtdo_rtype.dtdt_flags & DIF_TF_BYREF) ||
	    (a->ka_size != 1 && a->ka_size != 2 && a->ka_size != 4 &&
	    a->ka_size != 8)))
		return 0;
	memset(v, 0, sizeof(*v));
	v->kkv_off = a->ka_offset;
	v->kkv_size = a->ka_size;
	switch (DIF_INSTR_OP(i0)) {
	case DIF_OP_SETX:
		if (str || DIF_INSTR_INTEGER(i0) >= dp->dtdo_intlen)
			return 0;
		v->kkv_kind = KS_KRV_INT;
		v->kkv_val = dp->dtdo_inttab[DIF_INSTR_INTEGER(i0)];
		return 1;
	case DIF_OP_SETS:
		if (!str || DIF_INSTR_STRING(i0) >= dp->dtdo_strlen ||
		    memchr(dp->dtdo_strtab + DIF_INSTR_STRING(i0), '\0',
		    dp->dtdo_strlen - DIF_INSTR_STRING(i0)) == NULL)
			return 0;
		return str_value(v, dp->dtdo_strtab + DIF_INSTR_STRING(i0),
		    a->ka_size);
	case DIF_OP_LDGS:
		break;
	default:
		return 0;
	}
	id = DIF_INSTR_VAR(i0);
	switch (id) {
	case DIF_VAR_PROBEPROV:
		return str && str_value(v, p->kp_prov->kv_name, a->ka_size);
	case DIF_VAR_PROBEMOD:
		return str && str_value(v, p->kp_mod, a->ka_size);
	case DIF_VAR_PROBEFUNC:
		return str && str_value(v, p->kp_func, a->ka_size);
	case DIF_VAR_PROBENAME:
		return str && str_value(v, p->kp_name, a->ka_size);
	case DIF_VAR_EPID:
	case DIF_VAR_ID:
		v->kkv_kind = KS_KRV_INT;
		v->kkv_val = id == DIF_VAR_EPID ? e->ke_epid : p->kp_id;
		return !str;
	default:
		break;
	}
	v->kkv_kind = (uint8_t)var_kind(id, &v->kkv_arg);
	if (v->kkv_kind == 0 || str != (v->kkv_kind == KS_KRV_COMM))
		return 0;
	if (v->kkv_kind == KS_KRV_COMM && a->ka_size < 16)
		return 0;		/* a cut name: left to the shim */
	if (v->kkv_kind == KS_KRV_ARG) {
		out->krp_vars |= 1u << KS_FV_ARG;
		out->krp_args |= 1u << v->kkv_arg;
	}
	return 1;
}

/* Variables the filter's atoms read, into out (the predicate is exactly
 * these terms). */
static void pred_vars(const ks_filter_term_t *t, int n, ks_recplan_t *out)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < t[i].kft_natoms; j++) {
			const ks_filter_atom_t *a = &t[i].kft_atoms[j];

			out->krp_vars |= 1u << a->kfa_var;
			if (a->kfa_var == KS_FV_ARG)
				out->krp_args |= 1u << a->kfa_arg;
		}
}

static const unsigned kind_var[] = {
	[KS_KRV_PID] = 1u << KS_FV_PID, [KS_KRV_TID] = 1u << KS_FV_TID,
	[KS_KRV_UID] = 1u << KS_FV_UID, [KS_KRV_GID] = 1u << KS_FV_GID,
	[KS_KRV_CPU] = 1u << KS_FV_CPU, [KS_KRV_COMM] = 1u << KS_FV_EXECNAME,
};

/* The plan of ECB e alone on its probe (fire lock held). */
static int ecb_plan(const ks_ecb_t *e, ks_recplan_t *out)
{
	const ks_clause_t *c = e->ke_clause;
	ks_filter_term_t t[KS_FILTER_MAXTERMS];
	int n;

	if (!c->kc_writes || c->kc_naggs > 0 || c->kc_ktls != 0 ||
	    (c->kc_needs & ~KS_NEED_ARG0) != 0 || c->kc_size > KS_KR_RECMAX ||
	    e->ke_disabled)
		return 0;
	if (c->kc_pred != NULL) {
		if ((n = ks_filter_pred_exact(c->kc_pred, t,
		    KS_FILTER_MAXTERMS)) <= 0)
			return 0;	/* inexact, or never true */
		pred_vars(t, n, out);
		out->krp_pred = 1;
	}
	for (int i = 0; i < c->kc_nacts; i++) {
		const ks_act_t *a = &c->kc_acts[i];
		ks_krval_t *v = &out->krp_vals[out->krp_nvals];

		if (a->ka_role != KS_ROLE_RECORD)
			return 0;
		if (a->ka_kind == DTRACEACT_PRINTF)
			continue;	/* stores nothing (ecb.c) */
		if (a->ka_kind != DTRACEACT_DIFEXPR || a->ka_size == 0 ||
		    out->krp_nvals == KS_KR_MAXVALS || !act_value(a, e, v, out))
			return 0;
		if (v->kkv_kind < sizeof(kind_var) / sizeof(kind_var[0]))
			out->krp_vars |= kind_var[v->kkv_kind];
		out->krp_nvals++;
	}
	out->krp_serial = e->ke_state->st_serial;
	out->krp_epid = e->ke_epid;
	out->krp_size = c->kc_size;
	return 1;
}

int ks_probe_recplan(dtrace_id_t id, ks_recplan_t *out)
{
	ks_probe_t *p = ks_probe_get(id);
	const ks_ecb_t *e;

	memset(out, 0, sizeof(*out));
	out->krp_gen = ks_filter_gen();
	if (p == NULL)
		return -1;
	if (ks_filter_pending() || !rec_enabled())
		return 0;
	pthread_mutex_lock(&ks_fire_lock);
	e = p->kp_ecbs;
	if (e != NULL && e->ke_pnext == NULL)
		out->krp_ok = ecb_plan(e, out);
	pthread_mutex_unlock(&ks_fire_lock);
	if (!out->krp_ok) {
		memset(out, 0, sizeof(*out));
		out->krp_gen = ks_filter_gen();
	}
	return 0;
}
