/*
 * act_printf.c - printf(), system(), freopen() and printa() statements:
 * their formats parsed by pfmt.c (the consumer's parser too) and checked
 * as libdtrace's dt_printf_validate does.  Each conversion takes its
 * '*' arguments, then a value: the next argument for printf, the next
 * aggregation key for printa (whose %@ conversions take the
 * aggregation's value instead).  A conversion's dictionary entry says
 * which types it accepts; a mismatch is reported with dtrace's texts.
 */
#include <stdio.h>
#include <string.h>
#include "cc.h"
#include "pfmt.h"

/* One value a format may consume: a printf argument or a printa key. */
struct pfval {
	struct eng_node *v_node;	/* NULL for printa keys */
	const struct eng_type *v_type;
};

/* The C name of an integer type as CTF resolves it: fixed-width and
 * other typedef'd names give their base ("int64_t" is "long"). */
static const char *cname(const struct eng_type *t)
{
	static const char *const base[] = { "char", "signed char",
	    "unsigned char", "short", "unsigned short", "int", "unsigned int",
	    "long", "unsigned long", "long long", "unsigned long long", NULL };
	static const char *const names[2][4] = {
		{ "unsigned char", "unsigned short", "unsigned int",
		  "unsigned long" },
		{ "char", "short", "int", "long" }
	};

	t = eng_type_resolve((struct eng_type *)t);
	if (t == NULL)
		return "";
	if (t->t_kind != TY_INT)
		return t->t_name != NULL ? t->t_name : "";
	for (int i = 0; base[i] != NULL; i++)
		if (strcmp(t->t_name, base[i]) == 0)
			return t->t_name;
	return names[t->t_signed != 0][t->t_size == 1 ? 0 : t->t_size == 2 ?
	    1 : t->t_size == 4 ? 2 : 3];
}

/* Does t's typedef chain (or its name) include one of names? */
static int named(const struct eng_type *t, const char *const *names)
{
	for (; t != NULL; t = t->t_kind == TY_FORWARD || t->t_base == NULL ||
	    t->t_kind == TY_PTR || t->t_kind == TY_ARRAY ? NULL : t->t_base)
		for (int i = 0; names[i] != NULL && t->t_name != NULL; i++)
			if (strcmp(t->t_name, names[i]) == 0)
				return 1;
	return 0;
}

static int is_char_array(const struct eng_type *t)
{
	t = eng_type_resolve((struct eng_type *)t);
	return t != NULL && t->t_kind == TY_ARRAY && t->t_base != NULL &&
	    eng_type_is_int(eng_type_resolve(t->t_base)) &&
	    eng_type_resolve(t->t_base)->t_size == 1;
}

static int is_stack(const struct eng_node *n)
{
	const struct eng_func *f;

	return n != NULL && n->n_kind == N_CALL &&
	    (f = eng_sema_func(n->n_name)) != NULL &&
	    (f->f_id == DTRACEACT_STACK || f->f_id == DTRACEACT_USTACK ||
	    f->f_id == DTRACEACT_JSTACK);
}

/* Does value v suit conversion d (libdtrace's pfcheck_* functions)? */
static int conv_ok(struct eng_pcb *pc, const struct eng_pfdef *d,
    const struct pfval *v)
{
	static const char *const shorts[] = { "short", "signed short",
	    "unsigned short", NULL };
	static const char *const longs[] = { "long", "signed long",
	    "unsigned long", NULL };
	static const char *const llongs[] = { "long long",
	    "signed long long", "unsigned long long", NULL };
	static const char *const int64s[] = { "int64_t", "uint64_t", NULL };
	const struct eng_type *t = eng_type_resolve((struct eng_type *)
	    v->v_type);
	int isint = eng_type_is_int(t), isptr = eng_type_is_ptr(t);
	const char *n = cname(t);

	/* a printa key made by stack(), ustack() or jstack(): only %k
	 * prints it (as dtrace's pfcheck_* refuse its "stack" type) */
	if (v->v_node != NULL && v->v_node->n_kind == N_AGG)
		return 0;	/* printf("%d", @a): no conversion takes one */
	if (v->v_type == NULL)
		return d->pd_check == PFC_STACK;
	switch (d->pd_check) {
	case PFC_XINT: case PFC_DINT:
		return isint;
	case PFC_CSI:
		return isint && t->t_size <= 4;
	case PFC_FP:
		return t != NULL && t->t_kind == TY_FLOAT;
	case PFC_ADDR: case PFC_KADDR:
		return isint || isptr;
	case PFC_UADDR:
		return (isint || isptr) && ((pc->pc_args != NULL &&
		    pc->pc_args->target_pid != 0) || (v->v_type->t_name != NULL &&
		    strcmp(v->v_type->t_name, "_usymaddr") == 0));
	case PFC_STR:
		/* as dtrace's pfcheck_str: a char * is refused (the
		 * prototype says "or use stringof") */
		return eng_type_is_string(t) || is_char_array(t);
	case PFC_WSTR:
		return t != NULL && t->t_kind == TY_ARRAY && t->t_base != NULL &&
		    eng_type_is_int(t->t_base) && t->t_base->t_size == 4;
	case PFC_STACK:
		return is_stack(v->v_node);
	case PFC_TIME:
		return isint && t->t_size == 8;
	case PFC_XSHORT:
		return isint && named(&(struct eng_type){ .t_name = n }, shorts);
	case PFC_XLONG:
		return isint && named(&(struct eng_type){ .t_name = n }, longs);
	case PFC_XLONGLONG:
		return isint && (named(&(struct eng_type){ .t_name = n },
		    llongs) || named(v->v_type, int64s));
	case PFC_TYPE: {
		const struct eng_type *want = eng_type_lookup(pc->pc_cc,
		    d->pd_proto);

		return want != NULL && t != NULL && (t->t_kind == TY_INT ||
		    t->t_kind == TY_FLOAT || t->t_kind == TY_ENUM) &&
		    strcmp(n, cname(want)) == 0;
	}
	case PFC_PCT:
		return 1;
	}
	return 0;
}

static int is_unsigned(const struct eng_type *t)
{
	t = eng_type_resolve((struct eng_type *)t);
	return t != NULL && t->t_kind == TY_INT && !t->t_signed;
}

/* The C name of a value's type for messages. */
static const char *tname(const struct pfval *v)
{
	if (v->v_node != NULL && v->v_node->n_kind == N_AGG)
		return "aggregation";
	return v->v_type != NULL ? eng_type_tname(v->v_type) : "stack";
}

/*
 * Check fmt against vals (n of them); agg is the aggregating function
 * for printa (0 for printf), whose value %@ conversions print.  Returns
 * the number of values the format consumes.
 */
static int check_format(struct eng_pcb *pc, struct eng_node *call,
    const char *fmt, char *mut, struct pfval *vals, int n, int agg)
{
	const char *fn = call->n_name;
	int convno = 0, used = 0;
	struct pfval aggval = { NULL, NULL };	/* the type: when needed */

	for (const char *p = fmt; (p = strchr(p, '%')) != NULL; ) {
		struct eng_pfconv cv;
		const struct eng_pfdef *d;
		char err[128], vname[32];
		const struct pfval *v;

		if (eng_pf_parse(p, ++convno, &cv, err, sizeof(err)) != 0)
			eng_cc_xerror(pc, call, "D_SYNTAX", "%s", err);
		p = cv.pc_end;
		d = cv.pc_def;
		if (d->pd_check == PFC_PCT)
			continue;
		/* the width's argument, then the precision's */
		for (int dyn = 0; dyn < 2; dyn++) {
			const char *what = dyn == 0 ? "*" : ".*";

			if (!(cv.pc_flags & (dyn == 0 ? ENG_PF_DYNW :
			    ENG_PF_DYNP)))
				continue;
			if (used == n)
				eng_cc_xerror(pc, call, "D_PRINTF_DYN_PROTO", "%s( ) "
				    "prototype mismatch: conversion #%d (%%%s) is "
				    "missing a corresponding \"%s\" argument", fn,
				    convno, d->pd_name, what);
			if (!eng_type_is_int(eng_type_resolve((struct eng_type *)
			    vals[used].v_type)))
				eng_cc_xerror(pc, call, "D_PRINTF_DYN_TYPE", "%s( ) "
				    "argument #%d is incompatible with conversion "
				    "#%d prototype:\n\tconversion: %% %s %s\n\t "
				    "prototype: int\n\t  argument: %s", fn,
				    used + 2, convno, what, d->pd_name,
				    tname(&vals[used]));
			used++;
		}
		if (cv.pc_flags & ENG_PF_AGG) {
			if (agg == 0)
				eng_cc_xerror(pc, call, "D_PRINTF_AGG_CONV", "%%@ "
				    "conversion requires an aggregation and is "
				    "not for use with %s( )", fn);
			snprintf(vname, sizeof(vname), "aggregating action");
			if (aggval.v_type == NULL)
				aggval.v_type = eng_type_lookup(pc->pc_cc,
				    agg == DTRACEAGG_COUNT ? "uint64_t" :
				    "int64_t");
			v = &aggval;
		} else if (used == n) {
			eng_cc_xerror(pc, call, "D_PRINTF_ARG_PROTO", "%s( ) "
			    "prototype mismatch: conversion #%d (%%%s) is "
			    "missing a corresponding value argument", fn, convno,
			    d->pd_name);
		} else {
			snprintf(vname, sizeof(vname), "argument #%d", used + 2);
			v = &vals[used++];
		}
		if (!conv_ok(pc, d, v))
			eng_cc_xerror(pc, call, "D_PRINTF_ARG_TYPE", "%s( ) %s is "
			    "incompatible with conversion #%d prototype:\n\t"
			    "conversion: %%%s\n\t prototype: %s\n\t  argument: "
			    "%s", fn, vname, convno, d->pd_name, d->pd_proto,
			    tname(v));
		/* %d of an unsigned value prints it unsigned, as
		 * libdtrace's pfcheck_dint turns the conversion into %u */
		if (mut != NULL && d->pd_check == PFC_DINT && v != &aggval &&
		    is_unsigned(v->v_type))
			mut[cv.pc_end - 1 - fmt] = 'u';
	}
	return used;
}

void eng_act_printf(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f)
{
	struct eng_node *fmt = call->n_args, *a;
	struct pfval *vals;
	struct eng_act *act;
	int used, n = 0;
	char *mut;

	if (fmt->n_kind != N_STR) {
		eng_sema_expr(pc, fmt);
		eng_cc_nerror(pc, call, "D_PRINTF_ARG_FMT", "%s( ) argument #1 "
		    "is incompatible with prototype:\n\tprototype: string "
		    "constant\n\t argument: %s", call->n_name,
		    eng_type_tname(fmt->n_type));
	}
	if (fmt->n_name[0] == '\0' && f->f_id != DTRACEACT_FREOPEN)
		eng_cc_nerror(pc, call, "D_PRINTF_FMT_EMPTY", "%s( ) format "
		    "string is empty", call->n_name);
	for (a = fmt->n_next; a != NULL; a = a->n_next)
		n++;
	vals = eng_cc_alloc(pc, sizeof(*vals) * (size_t)(n + 1));
	n = 0;
	for (a = fmt->n_next; a != NULL; a = a->n_next, n++) {
		if (a->n_kind != N_AGG)	/* checked as "aggregation" */
			eng_sema_expr(pc, a);
		vals[n].v_node = a;
		vals[n].v_type = a->n_type;
	}
	mut = eng_cc_strdup(pc, fmt->n_name, strlen(fmt->n_name));
	used = check_format(pc, call, fmt->n_name, mut, vals, n, 0);
	if (used < n)
		eng_cc_xerror(pc, call, "D_PRINTF_ARG_EXTRA", "%s( ) prototype "
		    "mismatch: only %d arguments required by this format string",
		    call->n_name, used);
	eng_act_order(pc, call, (uint32_t)f->f_id);
	act = eng_act_new(pc, (uint32_t)f->f_id);
	act->a_str = mut;
	act->a_uarg = (uint64_t)n;
	for (a = fmt->n_next; a != NULL; a = a->n_next) {
		dtrace_diftype_t *t = &eng_act_difexpr(pc, a, call->n_name)->
		    a_difo->dd_rtype;

		/* C's default promotion: char and short travel as int */
		if (t->dtdt_kind == DIF_TYPE_CTF && t->dtdt_ckind !=
		    CTF_K_POINTER && t->dtdt_size > 0 && t->dtdt_size < 4 &&
		    !(t->dtdt_flags & DIF_TF_BYREF))
			t->dtdt_size = 4;
	}
}

/* Argument i of call must be a defined aggregation (tags for the call). */
struct eng_ident *eng_act_aggarg(struct eng_pcb *pc, struct eng_node *call,
    struct eng_node *a, int i, const char *argtag, const char *badtag)
{
	struct eng_ident *id;

	if (a->n_kind != N_AGG || a->n_args != NULL) {
		if (a->n_kind != N_AGG)
			eng_sema_expr(pc, a);
		eng_cc_nerror(pc, a, argtag, "%s( ) argument #%d is incompatible "
		    "with prototype:\n\tprototype: aggregation\n\t argument: %s",
		    call->n_name, i, a->n_kind == N_AGG ? "int64_t" :
		    eng_type_tname(a->n_type));
	}
	id = eng_cc_agg(pc, a->n_name, 0);
	if (id == NULL || id->i_aggfunc == 0)
		eng_cc_nerror(pc, a, badtag, "undefined aggregation: @%s",
		    a->n_name);
	return id;
}

/* Two aggregations printed together: keys alike (dt_printa_validate). */
static void same_keys(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_ident *l, const struct eng_ident *r)
{
	if (l->i_nkeys != r->i_nkeys)
		eng_cc_xerror(pc, call, "D_PRINTA_AGGKEY", "printa( ): @%s and @%s "
		    "do not have matching key signatures: @%s has %d key%s, @%s "
		    "has %d key%s", l->i_name, r->i_name, l->i_name, l->i_nkeys,
		    l->i_nkeys == 1 ? "" : "s", r->i_name, r->i_nkeys,
		    r->i_nkeys == 1 ? "" : "s");
	for (int i = 0; i < l->i_nkeys; i++) {
		const struct eng_type *a = eng_type_resolve(l->i_keys[i]);
		const struct eng_type *b = eng_type_resolve(r->i_keys[i]);

		if ((a == NULL && b == NULL) ||
		    (eng_type_is_int(a) && eng_type_is_int(b)) ||
		    (eng_type_is_string(a) && eng_type_is_string(b)) ||
		    (a != NULL && b != NULL && eng_type_compat(a, b)))
			continue;
		eng_cc_xerror(pc, call, "D_PRINTA_AGGPROTO", "printa( ): @%s[ ] "
		    "key #%d is incompatible with @%s:\n%9s key #%d: %s\n%9s "
		    "key #%d: %s", r->i_name, i + 1, l->i_name, l->i_name, i + 1,
		    a != NULL ? eng_type_tname(a) : "stack", r->i_name, i + 1,
		    b != NULL ? eng_type_tname(b) : "stack");
	}
}

void eng_act_printa(struct eng_pcb *pc, struct eng_node *call)
{
	struct eng_node *a = call->n_args;
	const struct eng_ident *first = NULL;
	const char *fmt = NULL;
	char *mut = NULL;
	struct eng_act *act;
	int i = 1, n = 0;

	for (struct eng_node *x = a; x != NULL; x = x->n_next)
		n++;
	if (a->n_kind == N_STR) {
		fmt = a->n_name;
		a = a->n_next;
		i = 2;
		if (a == NULL)
			eng_cc_nerror(pc, call, "D_PRINTA_PROTO", "printa( ) "
			    "prototype mismatch: %d args passed, 2 expected", n);
	}
	eng_act_order(pc, call, DTRACEACT_PRINTA);
	act = eng_act_new(pc, DTRACEACT_PRINTA);
	/* a copy: %d of an unsigned key becomes %u in it */
	if (fmt != NULL)
		mut = eng_cc_strdup(pc, fmt, strlen(fmt));
	act->a_str = mut;
	act->a_uarg = (uint64_t)(n - (i - 1));
	for (; a != NULL; a = a->n_next, i++) {
		struct eng_ident *id = eng_act_aggarg(pc, call, a, i,
		    "D_PRINTA_AGGARG", "D_PRINTA_AGGBAD");
		struct eng_act *c;

		if (first != NULL)
			same_keys(pc, call, first, id);
		else
			first = id;
		if (fmt != NULL) {
			int nk = id->i_nkeys < 0 ? 0 : id->i_nkeys;
			struct pfval *keys = eng_cc_alloc(pc, sizeof(*keys) *
			    (size_t)(nk + 1));

			for (int k = 0; k < nk; k++)
				keys[k] = (struct pfval){ NULL, id->i_keys[k] };
			check_format(pc, call, fmt, mut, keys, nk,
			    id->i_aggfunc);
			fmt = NULL;
		}
		c = eng_act_new(pc, DTRACEACT_DIFEXPR);
		c->a_difo = eng_cg_const(pc, id->i_id, "printa()");
	}
}
