/*
 * sema_call.c - the checks of a call and of a key list: a function's
 * prototype (argument count and kinds, destructive subroutines, actions
 * and aggregating functions as void values), and the keys of associative
 * arrays and aggregations against their first use, with dtrace's tags
 * and texts.  sema.c cooks the operands (eng_sema_expr).
 */
#include <string.h>
#include "cc.h"

static int count(const struct eng_node *l)
{
	int n = 0;

	for (; l != NULL; l = l->n_next)
		n++;
	return n;
}

/*
 * The keys of an associative array or aggregation (what is "" or "@"):
 * the first use fixes their number and types, later uses must match as
 * dtrace's dt_idcook_sign checks (integers match integers of any size).
 * Keys travel in the tuple registers, of which DIF has eight.
 */
void eng_sema_keys(struct eng_pcb *pc, struct eng_node *n,
    struct eng_ident *id, struct eng_node *keys, const char *what)
{
	int nk = count(keys), i = 0;
	const char *kind = *what == '@' ? "aggregation" : "associative array";

	if (nk > DIF_DTR_NREGS)
		eng_cc_error(pc, 0, 0, NULL, "Insufficient tuple registers to "
		    "generate code");
	for (struct eng_node *k = keys; k != NULL; k = k->n_next, i++)
		if (eng_sema_is_xlptr(pc, k))	/* @a[curpsinfo]: dynamic */
			eng_cc_xerror(pc, k, "D_KEY_TYPE", "%s expression may not "
			    "be used as %s index: key #%d",
			    eng_type_tname(k->n_type), kind, i + 1);
	i = 0;
	if (id->i_nkeys < 0) {
		for (struct eng_node *k = keys; k != NULL; k = k->n_next, i++)
			if (k->n_type != NULL && (k->n_type->t_kind == TY_VOID ||
			    (!eng_type_is_scalar(k->n_type) &&
			    !eng_type_is_string(k->n_type) &&
			    k->n_type->t_kind != TY_STRUCT &&
			    k->n_type->t_kind != TY_UNION)))
				eng_cc_xerror(pc, k, "D_KEY_TYPE", "%s expression "
				    "may not be used as %s index: key #%d",
				    eng_type_tname(k->n_type), kind, i + 1);
		id->i_nkeys = nk;
		id->i_keys = eng_arena_alloc(&pc->pc_cc->cc_arena,
		    sizeof(*id->i_keys) * (size_t)(nk + 1));
		i = 0;
		for (struct eng_node *k = keys; k != NULL; k = k->n_next)
			id->i_keys[i++] = k->n_type;
		return;
	}
	if (id->i_nkeys != nk)
		eng_cc_xerror(pc, n, "D_PROTO_LEN", "%s%s[ ] prototype mismatch: "
		    "%d key%spassed, %d expected", what, id->i_name, nk,
		    nk == 1 ? " " : "s ", id->i_nkeys);
	i = 0;
	for (struct eng_node *k = keys; k != NULL; k = k->n_next, i++) {
		struct eng_type *want = id->i_keys[i], *t = k->n_type;

		if (want == NULL || t == NULL ||
		    (eng_type_is_int(want) && eng_type_is_int(t)) ||
		    (eng_type_is_string(want) && eng_type_is_string(t)) ||
		    (!eng_type_is_string(want) && !eng_type_is_string(t) &&
		    t->t_kind != TY_VOID && eng_type_compat(want, t)))
			continue;
		eng_cc_xerror(pc, k, "D_PROTO_ARG", "%s%s[ ] key #%d is "
		    "incompatible with prototype:\n\tprototype: %s\n\t%9s: %s",
		    what, id->i_name, i + 1, eng_type_tname(want), "key",
		    eng_type_tname(t));
	}
}

void eng_sema_call(struct eng_pcb *pc, struct eng_node *n)
{
	const struct eng_func *f = eng_sema_func(n->n_name);
	int nargs = count(n->n_args), i = 0;

	if (f == NULL)
		eng_cc_xerror(pc, n, "D_FUNC_UNDEF", "undefined function "
		    "name: %s", n->n_name);
	if (nargs < f->f_min || nargs > f->f_max) {
		if (f->f_min == f->f_max)
			eng_cc_xerror(pc, n, "D_PROTO_LEN", "%s( ) prototype "
			    "mismatch: %d arg%s passed, %d expected",
			    n->n_name, nargs, nargs == 1 ? "" : "s", f->f_min);
		eng_cc_xerror(pc, n, "D_PROTO_LEN", "%s( ) prototype "
		    "mismatch: %d arg%s passed, %s %d expected", n->n_name,
		    nargs, nargs == 1 ? "" : "s", nargs < f->f_min ?
		    "at least" : "no more than", nargs < f->f_min ? f->f_min :
		    f->f_max);
	}
	if (f->f_kind == F_NOTLINUX) {
		/* as dtrace cooks a call: count, then arguments, then the
		 * function itself (which Linux lacks) */
		for (struct eng_node *a = n->n_args; a != NULL; a = a->n_next)
			eng_sema_expr(pc, a);
		eng_cc_xerror(pc, n, "D_FUNC_UNDEF", "%s( ) is not available "
		    "on Linux", n->n_name);
	}
	if (f->f_kind != F_SUBR) {
		/*
		 * An action or aggregating function used as a value: as in
		 * dtrace it is void, so what uses it refuses it with its own
		 * check (D_TRACE_VOID, D_PROTO_ARG, D_KEY_TYPE ...); code for
		 * it is refused last (eng_sema_not_value, D_CG_EXPR).
		 */
		for (struct eng_node *a = n->n_args; a != NULL; a = a->n_next)
			eng_sema_expr(pc, a);
		n->n_int = (uint64_t)f->f_id;
		n->n_type = eng_type_void(pc->pc_cc);
		return;
	}
	for (struct eng_node *a = n->n_args; a != NULL; a = a->n_next, i++) {
		char want = f->f_args[i];

		eng_sema_expr(pc, a);
		if ((want == 's' && !eng_type_is_string(a->n_type) &&
		    !(eng_type_is_ptr(a->n_type) &&
		    a->n_type->t_base->t_size == 1) &&
		    !(a->n_const && a->n_int == 0)) ||	/* strtok(NULL, .) */
		    ((want == 'i' || want == 'p') &&
		    !eng_type_is_scalar(a->n_type)) ||
		    (want == 'c' && !eng_type_is_scalar(a->n_type) &&
		    !eng_type_is_string(a->n_type)))	/* Oracle's: a string
							 * as a source */
			eng_cc_xerror(pc, a, "D_PROTO_ARG", "%s( ) argument #%d "
			    "is incompatible with prototype:\n\tprototype: %s\n"
			    "\t argument: %s", n->n_name, i + 1, want == 's' ?
			    "string" : "integer", eng_type_tname(a->n_type));
	}
	n->n_int = (uint64_t)f->f_id;
	n->n_type = f->f_ret != NULL ? eng_type_parse_name(pc, f->f_ret) :
	    eng_type_void(pc->pc_cc);
}

/* n calls an action or aggregating function: it has no value to give
 * (dtrace's code generator refuses it). */
void eng_sema_not_value(struct eng_pcb *pc, const struct eng_node *n)
{
	const struct eng_func *f;

	if (n->n_kind == N_CALL && (f = eng_sema_func(n->n_name)) != NULL &&
	    (f->f_kind == F_ACT || f->f_kind == F_AGG))
		eng_cc_xerror(pc, n, "D_CG_EXPR", "%s %s( ) may not be called "
		    "from a D expression (D program context required)",
		    f->f_kind == F_AGG ? "aggregating function" :
		    "tracing function", n->n_name);
}
