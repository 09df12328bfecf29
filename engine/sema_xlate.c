/*
 * sema_xlate.c - translators in expressions: xlate<T>(x).m and
 * xlate<T *>(x)->m, and inlines whose body is such an xlate (curpsinfo).
 *
 * A translator definition (parse_decl.c) is an ID_XLATOR identifier whose
 * i_inline is the N_XLATOR node: output type n_ctype, input type n_type,
 * input name n_name, one N_ASSIGN per member in n_args.  A member
 * reference through xlate<> is replaced, in place, by a copy of that
 * member's expression with the input name substituted by the operand,
 * then cooked like any expression (eng_sema_expr); the definition itself
 * is never modified.  Copies live in the program's arena.
 */
#include <stdio.h>
#include <string.h>
#include "cc.h"

/* The translator from n's input type to its output type (or *type). */
static void cook_xlate(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *out = n->n_ctype;
	struct eng_ident *found = NULL;

	eng_sema_expr(pc, n->n_left);
	if (eng_type_is_ptr(out))
		out = out->t_base;
	for (int i = 0; i < ENG_CC_NHASH && found == NULL; i++) {
		for (struct eng_ident *id = pc->pc_cc->cc_hash[i]; id != NULL;
		    id = id->i_next) {
			struct eng_node *x = id->i_inline;

			if (id->i_kind == ID_XLATOR && (x->n_ctype == out ||
			    (x->n_ctype->t_name && out->t_name &&
			    !strcmp(x->n_ctype->t_name, out->t_name))) &&
			    eng_type_compat(x->n_type, n->n_left->n_type)) {
				found = id;
				break;
			}
		}
	}
	if (found == NULL)
		eng_cc_xerror(pc, n, "D_XLATE_NONE", "translator does not "
		    "exist: %s -> %s", eng_type_tname(n->n_left->n_type),
		    eng_type_tname(out));
	n->n_ident = found;
	n->n_type = n->n_ctype;
}

/* A copy of e (program arena) with identifier name replaced by repl. */
static struct eng_node *subst(struct eng_pcb *pc, const struct eng_node *e,
    const char *name, const struct eng_node *repl)
{
	struct eng_node *head = NULL, **tail = &head;

	for (; e != NULL; e = e->n_next) {	/* lists iterate */
		const struct eng_node *src = e;
		struct eng_node *c;

		if (e->n_kind == N_IDENT && strcmp(e->n_name, name) == 0)
			src = repl;
		c = eng_node_new(pc, src->n_kind, src->n_line, src->n_col);
		*c = *src;
		c->n_type = NULL;
		c->n_const = 0;
		c->n_left = subst(pc, src->n_left, name, repl);
		c->n_right = subst(pc, src->n_right, name, repl);
		c->n_third = subst(pc, src->n_third, name, repl);
		c->n_args = subst(pc, src->n_args, name, repl);
		c->n_next = NULL;
		*tail = c;
		tail = &c->n_next;
	}
	return head;
}

/* Could a value of type e be stored in a member of type m? (dtrace's
 * dt_node_is_argcompat, as a translator member needs) */
static int member_compat(const struct eng_type *m, const struct eng_type *e)
{
	if (eng_type_is_int(m) && eng_type_is_int(e))
		return 1;
	if (eng_type_is_string(m) || (m->t_kind == TY_ARRAY && m->t_base &&
	    m->t_base->t_size == 1))
		return eng_type_is_string(e) || (eng_type_is_ptr(e) &&
		    e->t_base != NULL && e->t_base->t_size == 1) ||
		    (e->t_kind == TY_ARRAY && e->t_base && e->t_base->t_size == 1);
	if (eng_type_is_ptr(m) && eng_type_is_ptr(e))
		return 1;	/* dtrace allows void * either way; be lenient */
	return eng_type_compat(m, e);
}

/*
 * A translator definition x as dt_node_xlator and dt_cook_xlator check
 * it: the output type is a complete struct or union, each member names
 * one of its members and is given a value of a compatible type (the
 * input stands for a value of the input type while checking).
 */
void eng_sema_xlator_check(struct eng_pcb *pc, struct eng_node *x)
{
	struct eng_type *out = x->n_ctype, *in = x->n_type;
	struct eng_node zero, cast;

	if (out->t_kind == TY_FORWARD)
		eng_cc_xerror(pc, x, "D_XLATE_SOU", "incomplete struct/union/enum "
		    "%s", eng_type_tname(out));
	if (out->t_kind != TY_STRUCT && out->t_kind != TY_UNION)
		eng_cc_xerror(pc, x, "D_XLATE_SOU", "translator output type must "
		    "be a struct or union");
	memset(&zero, 0, sizeof(zero));
	zero.n_kind = N_INT;
	cast = zero;
	cast.n_kind = N_CAST;
	cast.n_ctype = in;
	cast.n_left = &zero;
	for (struct eng_node *m = x->n_args; m != NULL; m = m->n_next) {
		struct eng_member *mb = eng_type_member(out, m->n_name);
		struct eng_node *e;

		if (mb == NULL)
			eng_cc_xerror(pc, m, "D_XLATE_MEMB", "translator member %s "
			    "is not a member of %s", m->n_name,
			    eng_type_tname(out));
		if (!eng_type_is_scalar(in))
			continue;	/* the input can only be named by value */
		zero.n_line = cast.n_line = m->n_line;
		e = subst(pc, m->n_right, x->n_name, &cast);
		e->n_next = NULL;
		eng_sema_expr(pc, e);
		if (!member_compat(mb->m_type, e->n_type))
			eng_cc_xerror(pc, m, "D_XLATE_INCOMPAT", "translator member "
			    "%s definition uses incompatible types: \"%s\" = "
			    "\"%s\"", m->n_name, eng_type_tname(mb->m_type),
			    eng_type_tname(e->n_type));
	}
}

/* xlate<T>(x).m, xlate<T *>(x)->m: the translator's member expression. */
void eng_sema_xlmember(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_node *xl = n->n_left, *x, *m, *e, *next = n->n_next;

	cook_xlate(pc, xl);
	if ((n->n_kind == N_PTRMEMBER) != eng_type_is_ptr(xl->n_ctype))
		eng_cc_xerror(pc, n, "D_OP_PTR", "operator %s cannot be applied "
		    "to type \"%s\"", n->n_kind == N_MEMBER ? "." : "->",
		    eng_type_tname(xl->n_ctype));
	x = xl->n_ident->i_inline;
	for (m = x->n_args; m != NULL; m = m->n_next)
		if (strcmp(m->n_name, n->n_name) == 0)
			break;
	if (m == NULL)
		/* dtrace names the expression's own line for this one */
		eng_cc_nerror(pc, n, "D_XLATE_NOCONV", "translator does not "
		    "define conversion for member: %s", n->n_name);
	e = subst(pc, m->n_right, x->n_name, xl->n_left);
	e->n_next = NULL;
	*n = *e;
	n->n_next = next;
	eng_sema_expr(pc, n);
}

/* An inline whose body is xlate<T *>(x) (curpsinfo) stands for it. */
void eng_sema_xlate_inline(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_ident *id = eng_cc_ident(pc, n->n_left->n_name, SC_GLOBAL,
	    0);

	if (id != NULL && id->i_kind == ID_INLINE &&
	    id->i_inline->n_kind == N_XLATE)
		n->n_left = subst(pc, id->i_inline, "", NULL);
}

/* The index i of args[i] when the probe's provider translates it (its
 * argument has a native type besides the one D sees), else -1. */
static int xlated_arg(struct eng_pcb *pc, const struct eng_node *n)
{
	const struct eng_node *ix = n->n_args;
	int i;

	if (n->n_kind != N_INDEX || n->n_left->n_kind != N_IDENT ||
	    strcmp(n->n_left->n_name, "args") != 0 || ix == NULL ||
	    ix->n_next != NULL || ix->n_kind != N_INT)
		return -1;
	i = ix->n_int < DTRACE_MAXARGS ? (int)ix->n_int : -1;
	return i >= 0 && i < pc->pc_nargs && pc->pc_argnative[i][0] != '\0' ?
	    i : -1;
}

/*
 * args[i]->m of a translated argument (proc:::create's psinfo_t *): as
 * dtrace does with dtargd_native and dtargd_xlate, it is
 * xlate<psinfo_t *>((struct ks_task *)argN)->m, argN being the argument
 * the provider maps args[i] to.
 */
void eng_sema_xlate_args(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_node *a = n->n_left, *xl, *cast, *raw;
	char name[8];
	int i = xlated_arg(pc, a);

	if (i < 0)
		return;
	snprintf(name, sizeof(name), "arg%d", pc->pc_argmap[i]);
	raw = eng_node_new(pc, N_IDENT, a->n_line, a->n_col);
	raw->n_name = eng_cc_strdup(pc, name, strlen(name));
	cast = eng_node_new(pc, N_CAST, a->n_line, a->n_col);
	cast->n_ctype = eng_type_parse_name(pc, pc->pc_argnative[i]);
	cast->n_left = raw;
	xl = eng_node_new(pc, N_XLATE, a->n_line, a->n_col);
	xl->n_ctype = eng_type_parse_name(pc, pc->pc_argtypes[i]);
	xl->n_left = cast;
	n->n_left = xl;
}

/* Is n a translated pointer (xlate<T *>(x), args[i] of a translated
 * argument, or curpsinfo and the other inlines that stand for one)?  It
 * has no value of its own to record. */
int eng_sema_is_xlptr(struct eng_pcb *pc, const struct eng_node *n)
{
	struct eng_ident *id;
	int i = xlated_arg(pc, n);

	if (i >= 0)
		return eng_type_is_ptr(eng_type_parse_name(pc,
		    pc->pc_argtypes[i]));

	if (n->n_kind == N_IDENT &&
	    (id = eng_cc_ident(pc, n->n_name, SC_GLOBAL, 0)) != NULL &&
	    id->i_kind == ID_INLINE && id->i_inline != NULL)
		n = id->i_inline;
	return n->n_kind == N_XLATE && n->n_ctype != NULL &&
	    eng_type_is_ptr(n->n_ctype);
}

/* Cook an xlate<>() that an inline names (not a value on its own). */
void eng_sema_xlate(struct eng_pcb *pc, struct eng_node *n)
{
	cook_xlate(pc, n);
}

/* A member access base.m of a copy of base (the assignment's left side). */
static struct eng_node *member_of(struct eng_pcb *pc, const struct eng_node *base,
    const char *name)
{
	struct eng_node *m = eng_node_new(pc, N_MEMBER, base->n_line,
	    base->n_col);

	m->n_left = subst(pc, base, "", NULL);
	m->n_name = name;
	return m;
}

/*
 * lhs = xlate<struct T>(x): a whole-struct translation.  As dtrace, each
 * member the translator defines gets its expression and every other
 * (scalar) member zero: n becomes the comma list of those assignments,
 * cooked as any expression.
 */
void eng_sema_xlate_assign(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_node *xl = n->n_right, *x, *list = NULL, *next = n->n_next;
	struct eng_type *out;

	cook_xlate(pc, xl);
	x = xl->n_ident->i_inline;
	out = eng_type_resolve(xl->n_ctype);
	for (struct eng_member *mb = out->t_members; mb != NULL;
	    mb = mb->m_next) {
		struct eng_node *m, *a, *e = NULL;

		for (m = x->n_args; m != NULL; m = m->n_next)
			if (strcmp(m->n_name, mb->m_name) == 0)
				break;
		if (m != NULL) {
			e = subst(pc, m->n_right, x->n_name, xl->n_left);
			e->n_next = NULL;
		} else if (eng_type_is_scalar(mb->m_type) &&
		    eng_type_resolve(mb->m_type)->t_kind != TY_ARRAY) {
			e = eng_node_new(pc, N_INT, n->n_line, n->n_col);
			e->n_int = 0;
		}
		if (e == NULL)
			continue;	/* no value for an untranslated aggregate */
		a = eng_node_new(pc, N_ASSIGN, n->n_line, n->n_col);
		a->n_op = '=';
		a->n_left = member_of(pc, n->n_left, mb->m_name);
		a->n_right = e;
		if (list != NULL) {
			struct eng_node *c = eng_node_new(pc, N_OP2, n->n_line,
			    n->n_col);

			c->n_op = ',';
			c->n_left = list;
			c->n_right = a;
			a = c;
		}
		list = a;
	}
	if (list == NULL)
		eng_cc_xerror(pc, n, "D_XLATE_SOU", "translator to %s defines no "
		    "member", eng_type_tname(xl->n_ctype));
	*n = *list;
	n->n_next = next;
	eng_sema_expr(pc, n);
}

/*
 * f[a, b] of an inline with keys (inline int f[int x, int y] = x + y):
 * a copy of its expression with each key name replaced by the value
 * given, cooked in n's place.
 */
void eng_sema_inline_index(struct eng_pcb *pc, struct eng_node *n,
    struct eng_ident *id)
{
	struct eng_node *w = id->i_inline, *e = w->n_left, *p, *a,
	    *next = n->n_next;
	int np = 0, na = 0;

	for (p = w->n_args; p != NULL; p = p->n_next)
		np++;
	for (a = n->n_args; a != NULL; a = a->n_next)
		na++;
	if (np != na)
		eng_cc_xerror(pc, n, "D_PROTO_LEN", "%s[ ] prototype mismatch: "
		    "%d arg%s passed, %d expected", id->i_name, na,
		    na == 1 ? "" : "s", np);
	e = subst(pc, e, "", NULL);	/* a copy to change */
	for (p = w->n_args, a = n->n_args; p != NULL; p = p->n_next,
	    a = a->n_next) {
		struct eng_node *one = subst(pc, a, "", NULL), *cast;

		one->n_next = NULL;
		cast = eng_node_new(pc, N_CAST, a->n_line, a->n_col);
		cast->n_ctype = p->n_ctype;	/* the key's declared type */
		cast->n_left = one;
		e = subst(pc, e, p->n_name, cast);
	}
	e->n_next = NULL;
	*n = *e;
	n->n_next = next;
	eng_sema_expr(pc, n);
}
