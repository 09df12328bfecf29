/*
 * cg_store.c - DIF for assignment: `=`, compound assignment and ++/--
 * to variables, to memory reached through pointers, to members of a
 * variable's own by-reference value (copied to scratch, changed, stored
 * back) and to bit-fields (merged into their storage unit).
 */
#include "cg_impl.h"

static int is_mem(const struct eng_node *l)
{
	return l->n_kind == N_DEREF || l->n_kind == N_MEMBER ||
	    l->n_kind == N_PTRMEMBER;
}

/*
 * The variable whose own storage an lvalue is part of (v.m, v.m.n, v[i]
 * of a D array, a[k].m of an associative array), or NULL when the lvalue
 * is memory reached through a pointer.
 */
static struct eng_node *var_root(struct eng_node *l)
{
	for (;;) {
		switch (l->n_kind) {
		case N_MEMBER:
			l = l->n_left;
			break;
		case N_DEREF:
			if (l->n_left->n_kind != N_OP2 || l->n_left->n_op != '+' ||
			    l->n_left->n_left->n_type->t_kind != TY_ARRAY)
				return NULL;
			l = l->n_left->n_left;
			break;
		case N_IDENT: case N_VAR: case N_INDEX:
			return l->n_scope != SC_BUILTIN && l->n_ident != NULL &&
			    (l->n_ident->i_kind == ID_VAR ||
			    l->n_ident->i_kind == ID_ARRAY) &&
			    cg_is_byref(l->n_type) ? l : NULL;
		default:
			return NULL;
		}
	}
}

static void store_sized(struct cg *g, const struct eng_type *t, int r,
    int a)
{
	static const int ops[] = { DIF_OP_STB, DIF_OP_STH, DIF_OP_STW,
	    DIF_OP_STX };
	uint32_t sz = t->t_size;

	cg_emit(g, DIF_INSTR_STORE(ops[sz == 1 ? 0 : sz == 2 ? 1 : sz == 4 ? 2 :
	    3], r, a));
}

/*
 * [a] = r for lvalue l; a bit-field is merged into its unit:
 *	ld [a], %o; and %o, ~(mask << off); and r, mask, %v; sll %v, off;
 *	or %o, %v; st %o, [a]
 */
static void store_op(struct cg *g, const struct eng_node *l, int r, int a)
{
	const struct eng_member *m = l->n_kind == N_MEMBER ||
	    l->n_kind == N_PTRMEMBER ? (const struct eng_member *)(const void *)
	    l->n_ident : NULL;
	const struct eng_type *unit;
	uint64_t mask;
	int o, v;

	if (l->n_type->t_kind == TY_STRUCT || l->n_type->t_kind == TY_UNION) {
		o = cg_setx(g, l->n_type->t_size, l);	/* copys r, size, a */
		cg_emit(g, DIF_INSTR_COPYS(r, o, a));
		cg_rfree(g, o);
		return;
	}
	if (m == NULL || m->m_bits == 0) {
		store_sized(g, l->n_type, r, a);
		return;
	}
	unit = cg_bf_unit(g, m);
	mask = m->m_bits < 64 ? (1ULL << m->m_bits) - 1 : ~0ULL;
	o = cg_ralloc(g, l);
	v = cg_ralloc(g, l);
	cg_emit(g, DIF_INSTR_LOAD(cg_load_op(unit, 0), a, o));
	cg_op_const(g, DIF_OP_AND, o, ~(mask << m->m_bitoff));
	cg_emit(g, DIF_INSTR_MOV(r, v));
	cg_op_const(g, DIF_OP_AND, v, mask);
	if (m->m_bitoff != 0)
		cg_op_const(g, DIF_OP_SLL, v, (uint64_t)m->m_bitoff);
	cg_emit(g, DIF_INSTR_FMT(DIF_OP_OR, o, v, o));
	store_sized(g, unit, o, a);
	cg_rfree(g, v);
	cg_rfree(g, o);
}

/*
 * l = r where l is part of variable v's value (v.m = r): the value is
 * copied to scratch, changed there and stored back, so a variable is
 * only ever written by its own store instruction (which copies in):
 *	ld v, %v; allocs size, %c; tst %v; be skip; copys %v, size, %c
 *  skip: (address of l with %c for v), %a; st r, [%a]; st %c -> v
 */
static void store_in_var(struct cg *g, struct eng_node *l,
    struct eng_node *v, int r)
{
	int val = cg_ralloc(g, l), c = cg_ralloc(g, l), sz, a, user = 0;
	int skip = cg_newlabel(g);

	cg_load_var(g, v, val);
	sz = cg_setx(g, v->n_type->t_size, l);
	cg_emit(g, DIF_INSTR_ALLOCS(sz, c));
	cg_emit(g, DIF_INSTR_TST(val));
	cg_branch(g, DIF_OP_BE, skip);
	cg_emit(g, DIF_INSTR_COPYS(val, sz, c));
	cg_label(g, skip);
	cg_rfree(g, sz);
	cg_rfree(g, val);
	g->subst = v;
	g->subst_reg = c;
	a = cg_addr(g, l, &user);
	g->subst = NULL;
	store_op(g, l, r, a);
	cg_rfree(g, a);
	cg_store_var(g, v, c);
	cg_rfree(g, c);
}

/* [address of l] = r, by the size of l's type. */
static void store_mem(struct cg *g, struct eng_node *l, int r)
{
	struct eng_node *v = var_root(l);
	int user = 0, a;

	if (v != NULL) {
		store_in_var(g, l, v, r);
		return;
	}
	a = cg_addr(g, l, &user);
	store_op(g, l, r, a);
	cg_rfree(g, a);
}

/* Load the value an lvalue (variable or memory) holds into r. */
static void load_lval(struct cg *g, struct eng_node *l, int r)
{
	int user = 0, a;

	if (!is_mem(l)) {
		cg_load_var(g, l, r);
		return;
	}
	a = cg_addr(g, l, &user);
	if ((l->n_kind == N_MEMBER || l->n_kind == N_PTRMEMBER) &&
	    ((struct eng_member *)(void *)l->n_ident)->m_bits != 0)
		cg_bf_load(g, a, (struct eng_member *)(void *)l->n_ident, user);
	else
		cg_load(g, a, l->n_type, user);
	cg_emit(g, DIF_INSTR_MOV(a, r));
	cg_rfree(g, a);
}

static void store_lval(struct cg *g, struct eng_node *l, int r)
{
	if (is_mem(l))
		store_mem(g, l, r);
	else
		cg_store_var(g, l, r);
}

int cg_assign(struct cg *g, struct eng_node *n)
{
	struct eng_node *l = n->n_left;
	int r, v;

	if (n->n_op == '=') {
		r = cg_expr(g, n->n_right);
		if (!n->n_right->n_const)
			cg_narrow(g, r, l->n_type);
		store_lval(g, l, r);
		return r;
	}
	r = cg_ralloc(g, n);
	load_lval(g, l, r);
	v = cg_expr(g, n->n_right);
	if (eng_type_is_ptr(l->n_type))
		cg_scale(g, v, l->n_type);
	cg_emit(g, DIF_INSTR_FMT(cg_arith_op(n->n_op, l->n_type->t_signed), r, v, r));
	cg_rfree(g, v);
	cg_narrow(g, r, l->n_type);
	store_lval(g, l, r);
	return r;
}

int cg_incdec(struct cg *g, struct eng_node *n)
{
	int post = n->n_kind == N_POSTINC || n->n_kind == N_POSTDEC;
	int inc = n->n_kind == N_POSTINC || n->n_kind == N_PREINC;
	int r = cg_ralloc(g, n), one, nv;

	load_lval(g, n->n_left, r);
	one = cg_setx(g, eng_type_is_ptr(n->n_type) && n->n_type->t_base ?
	    n->n_type->t_base->t_size : 1, n);
	nv = post ? cg_ralloc(g, n) : r;
	cg_emit(g, DIF_INSTR_FMT(inc ? DIF_OP_ADD : DIF_OP_SUB, r, one, nv));
	cg_rfree(g, one);
	cg_narrow(g, nv, n->n_type);
	store_lval(g, n->n_left, nv);
	if (post)
		cg_rfree(g, nv);
	return r;
}
