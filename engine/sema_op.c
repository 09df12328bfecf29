/*
 * sema_op.c - the operators of expressions: types of unary, binary and
 * ternary results as dtrace gives them (dt_type_promote: the operand of
 * higher rank, no promotion to int), pointer arithmetic (K&R A7.7, arrays
 * as the address of their first element), comparisons and constant
 * folding.  sema.c cooks the operands (eng_sema_expr) and calls these.
 */
#include "sema_impl.h"

/*
 * The type of a binary arithmetic result, as dtrace promotes: the
 * operand type of higher rank (its bits, plus one if unsigned), the left
 * one on a tie; an enum counts as int.  There is no promotion to int: a
 * char plus a char is a char, whose value is truncated when it is stored
 * or recorded (registers hold 64 bits meanwhile).
 */
static struct eng_type *arith(struct eng_pcb *pc, struct eng_type *a,
    struct eng_type *b)
{
	unsigned ra, rb;

	if (a->t_kind == TY_ENUM)
		a = tint(pc);
	if (b->t_kind == TY_ENUM)
		b = tint(pc);
	ra = a->t_size * 8 + !a->t_signed;
	rb = b->t_size * 8 + !b->t_signed;
	return rb > ra ? b : a;
}

/* An operand of pointer arithmetic: a pointer to an object of known
 * size, or an array (which stands for the address of its first element). */
static int is_objptr(const struct eng_type *t)
{
	return t->t_kind == TY_ARRAY || (eng_type_is_ptr(t) && !is_vfptr(t));
}

static struct eng_type *decay(struct eng_pcb *pc, struct eng_type *t)
{
	return t->t_kind == TY_ARRAY ? eng_type_ptr(pc, t->t_base) : t;
}

static void fold2(struct eng_pcb *pc, struct eng_node *n)
{
	uint64_t a = n->n_left->n_int, b = n->n_right->n_int, v;
	int sgn = n->n_type->t_signed;

	switch (n->n_op) {
	case '+': v = a + b; break;
	case '-': v = a - b; break;
	case '*': v = a * b; break;
	case '/': case '%':
		if (b == 0)
			eng_cc_xerror(pc, n, "D_DIV_ZERO", "expression contains "
			    "division by zero");
		if (sgn && (int64_t)b == -1)
			v = n->n_op == '/' ? -a : 0;
		else if (sgn)
			v = n->n_op == '/' ? (uint64_t)((int64_t)a / (int64_t)b) :
			    (uint64_t)((int64_t)a % (int64_t)b);
		else
			v = n->n_op == '/' ? a / b : a % b;
		break;
	case '&': v = a & b; break;
	case '|': v = a | b; break;
	case '^': v = a ^ b; break;
	case T_SHL: v = b >= 64 ? 0 : a << b; break;
	case T_SHR:
		v = b >= 64 ? 0 : sgn ? (uint64_t)((int64_t)a >> b) : a >> b;
		break;
	case T_LAND: v = a && b; break;
	case T_LOR: v = a || b; break;
	case T_LXOR: v = !a != !b; break;
	default: {
		int sc = n->n_ctype != NULL ? n->n_ctype->t_signed :
		    n->n_left->n_type->t_signed && n->n_right->n_type->t_signed;
		int lt = sc ? (int64_t)a < (int64_t)b : a < b;
		int gt = sc ? (int64_t)a > (int64_t)b : a > b;

		switch (n->n_op) {
		case T_EQ: v = a == b; break;
		case T_NE: v = a != b; break;
		case '<': v = lt; break;
		case '>': v = gt; break;
		case T_LE: v = !gt; break;
		case T_GE: v = !lt; break;
		default: return;
		}
	}
	}
	set_const(n, v);	/* registers are 64-bit; casts narrow */
}

void eng_sema_op1(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_node *l = n->n_left;
	struct eng_type *t;

	eng_sema_expr(pc, l);
	t = l->n_type;
	switch (n->n_op) {
	case '!':
		eng_sema_need_scalar(pc, l, '!');
		n->n_type = tint(pc);
		if (l->n_const)
			set_const(n, !l->n_int);
		return;
	case '~':
		if (!eng_type_is_int(t))
			eng_cc_xerror(pc, n, "D_OP_INT", "operator ~ requires an "
			    "operand of integral type");
		break;
	default:	/* '-', '+' */
		if (!is_arith(t))
			eng_cc_xerror(pc, n, "D_OP_ARITH", "operator %s "
			    "requires an operand of arithmetic type",
			    opname(n->n_op));
	}
	n->n_type = t->t_kind == TY_ENUM ? tint(pc) : t;
	if (l->n_const)
		set_const(n, norm(n->n_type, n->n_op == '~' ? ~l->n_int :
		    n->n_op == '-' ? -l->n_int : l->n_int));
}

/* NULL, 0 or a pointer that is not a string (char *): what a string may
 * be compared with as an address. */
static int null_like(const struct eng_node *n)
{
	const struct eng_type *t = n->n_type;

	if (eng_type_is_ptr(t))
		return t->t_base == NULL || t->t_base->t_size != 1;
	return eng_type_is_int(t) && n->n_const && n->n_int == 0;
}

static void cook_compare(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *a = n->n_left->n_type, *b = n->n_right->n_type;
	int sa = eng_type_is_string(a), sb = eng_type_is_string(b);

	n->n_type = tint(pc);
	if ((sa && null_like(n->n_right)) || (sb && null_like(n->n_left)))
		return;		/* Oracle's: a string's address against NULL */
	if (sa || sb) {
		if ((sa || (eng_type_is_ptr(a) && a->t_base->t_size == 1)) &&
		    (sb || (eng_type_is_ptr(b) && b->t_base->t_size == 1))) {
			n->n_scope = 1;		/* string comparison */
			return;
		}
	} else if (eng_type_is_scalar(a) && eng_type_is_scalar(b)) {
		/* the usual arithmetic conversions decide the signedness */
		if (eng_type_is_int(a) && eng_type_is_int(b))
			n->n_ctype = arith(pc, a, b);
		if (n->n_left->n_const && n->n_right->n_const) {
			n->n_type = arith(pc, eng_type_is_int(a) ? a : tint(pc),
			    eng_type_is_int(b) ? b : tint(pc));
			fold2(pc, n);
			n->n_type = tint(pc);
		}
		return;
	}
	eng_cc_xerror(pc, n, "D_OP_INCOMPAT", "operands have incompatible "
	    "types: \"%s\" %s \"%s\"", eng_type_tname(a), opname(n->n_op),
	    eng_type_tname(b));
}

/*
 * + and - with a pointer or array operand (K&R A7.7): pointer + integer
 * and integer + pointer keep the pointer's type, pointer - pointer of
 * compatible types is a ptrdiff_t.  Pointers to void or functions have
 * no size to scale by.  Returns 0 when both operands are not pointers.
 */
static int additive_ptr(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *a = n->n_left->n_type, *b = n->n_right->n_type;
	int op = n->n_op;

	if (op == '+' && eng_type_is_string(a) && eng_type_is_int(b)) {
		n->n_type = a;	/* Oracle's: the string from character n */
		return 1;
	}
	if (is_objptr(a) && eng_type_is_int(b)) {
		n->n_type = decay(pc, a);
		return 1;
	}
	if (op == '+' && eng_type_is_int(a) && is_objptr(b)) {
		n->n_type = decay(pc, b);
		return 1;
	}
	if (op == '-' && is_objptr(a) && is_objptr(b) &&
	    eng_type_compat(decay(pc, a), decay(pc, b))) {
		n->n_type = eng_type_lookup(pc->pc_cc, "long");
		return 1;
	}
	if (!eng_type_is_ptr(a) && !eng_type_is_ptr(b) &&
	    a->t_kind != TY_ARRAY && b->t_kind != TY_ARRAY)
		return 0;
	eng_cc_xerror(pc, n, "D_OP_INCOMPAT", "operands have incompatible "
	    "types: \"%s\" %s \"%s\"", eng_type_tname(a), opname(op),
	    eng_type_tname(b));
}

void eng_sema_op2(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_node *l = n->n_left, *r = n->n_right;
	int op = n->n_op;

	eng_sema_expr(pc, l);
	eng_sema_expr(pc, r);
	switch (op) {
	case ',':
		n->n_type = r->n_type;
		return;
	case T_LAND: case T_LOR: case T_LXOR:
		eng_sema_need_scalar(pc, l, op);
		eng_sema_need_scalar(pc, r, op);
		n->n_type = tint(pc);
		if (l->n_const && r->n_const)
			fold2(pc, n);
		else if (l->n_const && op == T_LAND && l->n_int == 0)
			set_const(n, 0);
		else if (l->n_const && op == T_LOR && l->n_int != 0)
			set_const(n, 1);
		return;
	case T_EQ: case T_NE: case '<': case '>': case T_LE: case T_GE:
		cook_compare(pc, n);
		return;
	case '+': case '-':
		if (additive_ptr(pc, n))
			return;
		/* FALLTHROUGH */
	case '*': case '/':
		if (!is_arith(l->n_type) || !is_arith(r->n_type))
			eng_cc_xerror(pc, n, "D_OP_ARITH", "operator %s requires "
			    "operands of arithmetic type", opname(op));
		break;
	default:	/* % & | ^ << >> */
		if (!eng_type_is_int(l->n_type) || !eng_type_is_int(r->n_type))
			eng_cc_xerror(pc, n, "D_OP_INT", "operator %s requires "
			    "operands of integral type", opname(op));
	}
	if (op == T_SHL || op == T_SHR)
		n->n_type = l->n_type->t_kind == TY_ENUM ? tint(pc) : l->n_type;
	else
		n->n_type = arith(pc, l->n_type, r->n_type);
	if (l->n_const && r->n_const)
		fold2(pc, n);
}

void eng_sema_op3(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_node *c = n->n_left, *a = n->n_right, *b = n->n_third;

	eng_sema_expr(pc, c);
	eng_sema_expr(pc, a);
	eng_sema_expr(pc, b);
	eng_sema_need_scalar(pc, c, '?');
	if (eng_type_is_int(a->n_type) && eng_type_is_int(b->n_type))
		n->n_type = arith(pc, a->n_type, b->n_type);
	else if (eng_type_compat(a->n_type, b->n_type))
		n->n_type = a->n_type;
	else
		eng_cc_xerror(pc, n, "D_OP_INCOMPAT", "operator ?: operands "
		    "must have compatible types");
	for (struct eng_node *x = a; x != NULL; x = x == a ? b : NULL) {
		const struct eng_func *f;

		if (x->n_kind == N_CALL && (f = eng_sema_func(x->n_name)) &&
		    f->f_kind == F_ACT)
			eng_cc_xerror(pc, x, "D_OP_ACT", "action cannot be used in "
			    "a conditional context");
	}
	if (c->n_const && a->n_const && b->n_const)
		set_const(n, c->n_int ? a->n_int : b->n_int);
}
