/*
 * sema.c - identifiers and types of expressions ("cooking"), with
 * constant folding.
 *
 * eng_sema_expr() walks an expression bottom-up and gives every node a
 * type (n_type), resolves identifiers (n_ident / n_scope), marks lvalues,
 * folds integer constants (n_const, value in n_int) and refuses what D
 * refuses, with dtrace's tags and words.  Identifiers of variables live in
 * struct eng_cc (they outlive the compile); a global, thread-local,
 * clause-local or associative array comes into being at its first
 * assignment (in the order clauses are compiled) and takes the type of
 * the value assigned; a read before that is refused.  Operators are
 * cooked in sema_op.c, member references through a translator in
 * sema_xlate.c; the function and built-in variable tables are in ident.c.
 */
#include <stdlib.h>
#include <string.h>
#include "sema_impl.h"

static const struct eng_builtin *builtin(const char *name)
{
	return eng_sema_builtin(name);
}

/* ---- helpers ------------------------------------------------------------ */

/* An operand of op must be scalar; the texts are dtrace's per operator. */
void eng_sema_need_scalar(struct eng_pcb *pc, struct eng_node *n, int op)
{
	if (eng_type_is_scalar(n->n_type) || eng_type_is_string(n->n_type))
		return;
	if (op == '?')
		eng_cc_xerror(pc, n, "D_OP_SCALAR", "operator ?: expression "
		    "must be of scalar type");
	if (op == '!')
		eng_cc_xerror(pc, n, "D_OP_SCALAR", "operator ! requires an "
		    "operand of scalar type");
	if (op == T_INC || op == T_DEC)
		eng_cc_xerror(pc, n, "D_OP_SCALAR", "operator %s requires "
		    "operand of scalar type", opname(op));
	eng_cc_xerror(pc, n, "D_OP_SCALAR", "operator %s requires operands "
	    "of scalar type", opname(op));
}

/* ---- cooking ------------------------------------------------------------ */

static void cook(struct eng_pcb *pc, struct eng_node *n);

static void cook_int(struct eng_pcb *pc, struct eng_node *n)
{
	uint64_t v = n->n_int;
	int u = n->n_op, l = n->n_scope, size;

	/* C's rules: the first of int, unsigned int (not for decimal),
	 * long, unsigned long that holds the value */
	if (!l && (u == 1 ? v <= UINT32_MAX : v <= INT32_MAX))
		size = 4, u = u == 1;
	else if (!l && u == -1 && v <= UINT32_MAX)
		size = 4, u = 1;
	else if (u == 1 || v > INT64_MAX)
		size = 8, u = 1;
	else
		size = 8, u = 0;
	/* an LL suffix makes a long long, as dtrace's dt_node_int */
	n->n_type = l >= 2 ? eng_type_lookup(pc->pc_cc, u ?
	    "unsigned long long" : "long long") :
	    eng_type_int(pc->pc_cc, size, !u);
	set_const(n, v);
}

/*
 * dtrace's dt_ident_unref: a variable this compile made that nothing has
 * yet assigned, declared or read.  Variables come into being in the order
 * clauses are compiled (a clause's actions before its predicate), so a
 * read of one that only a later clause assigns is refused, as dtrace does.
 */
static int unref(const struct eng_pcb *pc, const struct eng_ident *id)
{
	return id->i_gen == pc->pc_cc->cc_gen &&
	    (id->i_flags & (IDF_REF | IDF_MOD | IDF_DECL)) == 0;
}

static void need_defined(struct eng_pcb *pc, const struct eng_node *n,
    const struct eng_ident *id)
{
	if (unref(pc, id))
		eng_cc_nerror(pc, n, "D_VAR_UNDEF", "%s%s has not yet been "
		    "declared or assigned", id->i_scope == SC_LOCAL ? "this->" :
		    id->i_scope == SC_THREAD ? "self->" : "", id->i_name);
}

static void cook_ident(struct eng_pcb *pc, struct eng_node *n)
{
	const struct eng_builtin *b;
	struct eng_ident *id = eng_cc_ident(pc, n->n_name, SC_GLOBAL, 0);

	if (id != NULL && id->i_kind == ID_INLINE &&
	    id->i_inline->n_kind == N_INLINE)
		eng_cc_xerror(pc, n, "D_IDENT_BADREF", "associative array "
		    "'%s' may not be referenced as scalar", n->n_name);
	if (id != NULL && id->i_kind == ID_INLINE) {
		n->n_ident = id;
		n->n_type = id->i_type;
		if (id->i_inline->n_const)
			set_const(n, norm(id->i_type, id->i_inline->n_int));
		return;
	}
	if (id != NULL && id->i_kind == ID_ENUMVAL) {
		n->n_type = id->i_type;
		set_const(n, (uint64_t)id->i_value);
		return;
	}
	if (id == NULL && strcmp(n->n_name, "NULL") == 0) {
		n->n_type = eng_type_lookup(pc->pc_cc, "uintptr_t");
		set_const(n, 0);
		return;
	}
	if ((b = builtin(n->n_name)) != NULL) {
		if (b->array)	/* args, uregs: dt_cook_ident's check */
			eng_cc_xerror(pc, n, "D_IDENT_BADREF", "associative array "
			    "'%s' may not be referenced as scalar", n->n_name);
		n->n_scope = SC_BUILTIN;
		n->n_int = b->id;
		n->n_type = eng_type_lookup(pc->pc_cc, b->type);
		return;
	}
	if (id == NULL || id->i_kind == ID_XLATOR)
		eng_cc_xerror(pc, n, "D_IDENT_UNDEF", "failed to resolve %s: "
		    "Unknown variable name", n->n_name);
	if (id->i_kind == ID_ARRAY)	/* sizeof(a), trace(a) ... */
		eng_cc_xerror(pc, n, "D_IDENT_BADREF", "associative array '%s' "
		    "may not be referenced as scalar", n->n_name);
	need_defined(pc, n, id);
	id->i_flags |= IDF_REF;
	n->n_ident = id;
	n->n_scope = SC_GLOBAL;
	n->n_type = id->i_type != NULL ? id->i_type :
	    eng_type_lookup(pc->pc_cc, "int64_t");
	n->n_lvalue = 1;
}

/* self->x, this->x: provisionally int64_t until assigned. */
static void cook_var(struct eng_pcb *pc, struct eng_node *n, int create)
{
	struct eng_ident *id = eng_cc_ident(pc, n->n_name, n->n_scope, create);

	if (id == NULL)
		id = eng_cc_ident(pc, n->n_name, n->n_scope, 1);
	n->n_ident = id;
	if (id->i_kind == ID_ARRAY && n->n_args == NULL && !create)
		eng_cc_xerror(pc, n, "D_ARR_BADREF", "%s%s[ ] must be "
		    "referenced with an index", n->n_scope == SC_THREAD ?
		    "self->" : "this->", n->n_name);
	if (!create) {
		need_defined(pc, n, id);
		id->i_flags |= IDF_REF;
	}
	n->n_type = id->i_type != NULL ? id->i_type :
	    eng_type_lookup(pc->pc_cc, "int64_t");
	n->n_lvalue = 1;
}

static int count_list(const struct eng_node *l)
{
	int n = 0;

	for (; l != NULL; l = l->n_next)
		n++;
	return n;
}

static void cook_list(struct eng_pcb *pc, struct eng_node *l)
{
	for (; l != NULL; l = l->n_next)
		cook(pc, l);
}

/* Is base, indexed, a string (a string variable or built-in) whose
 * characters s[i] reads?  Associative arrays are not. */
static int string_base(struct eng_pcb *pc, const struct eng_node *base)
{
	const struct eng_builtin *b;
	struct eng_ident *id;

	if (base->n_kind == N_IDENT && (b = builtin(base->n_name)) != NULL)
		return !b->array && strcmp(b->type, "string") == 0;
	if (base->n_kind != N_IDENT && base->n_kind != N_VAR)
		return 0;	/* any other base goes the pointer's way */
	id = eng_cc_ident(pc, base->n_name, base->n_kind == N_VAR ?
	    base->n_scope : SC_GLOBAL, 0);
	return id != NULL && id->i_kind == ID_VAR && id->i_nkeys < 0 &&
	    id->i_type != NULL && eng_type_is_string(id->i_type);
}

static void cook_index(struct eng_pcb *pc, struct eng_node *n, int create)
{
	struct eng_node *base = n->n_left;
	const struct eng_builtin *b;

	if (base->n_kind == N_AGG)	/* @a[0][1] */
		eng_cc_xerror(pc, n, "D_AGG_MDIM", "improper attempt to "
		    "reference @%s as a multi-dimensional array", base->n_name);
	cook_list(pc, n->n_args);
	if (base->n_kind == N_IDENT && (b = builtin(base->n_name)) != NULL &&
	    b->array) {
		struct eng_node *ix = n->n_args;

		if (ix->n_next != NULL)		/* dt_idcook_args, _regs */
			eng_cc_xerror(pc, n, "D_PROTO_LEN", "%s[ ] prototype "
			    "mismatch: %d args passed, 1 expected", b->name,
			    count_list(ix));
		if (!ix->n_const || !eng_type_is_int(ix->n_type))
			eng_cc_xerror(pc, n, "D_PROTO_ARG", "%s[ ] argument #1 is "
			    "incompatible with prototype:\n\tprototype: int\n\t "
			    "argument: %s", b->name, eng_type_tname(ix->n_type));
		n->n_scope = SC_BUILTIN;
		n->n_int = b->id;
		n->n_type = eng_type_lookup(pc->pc_cc, b->type);
		if (b->id == DIF_VAR_ARGS && ix->n_const) {
			int i = (int)ix->n_int;

			if (pc->pc_nargs >= 0 && (i < 0 || i >= pc->pc_nargs ||
			    i >= DTRACE_MAXARGS))
				eng_cc_xerror(pc, n, "D_ARGS_IDX", "index %d is "
				    "out of range for %s args[ ]", i,
				    pc->pc_pdesc.dtpd_name[0] ?
				    pc->pc_pdesc.dtpd_name : "probe");
			if (pc->pc_nargs > i && i >= 0 && i < DTRACE_MAXARGS &&
			    pc->pc_argtypes[i][0] != '\0')
				n->n_type = eng_type_parse_name(pc,
				    pc->pc_argtypes[i]);
			if (pc->pc_nargs > i && i >= 0 && i < DTRACE_MAXARGS &&
			    pc->pc_argnative[i][0] != '\0')	/* sema_xlate.c */
				eng_cc_xerror(pc, n, "D_XLATE_SOU", "args[%d] is "
				    "translated to %s and must be followed by a "
				    "member reference", i, pc->pc_argtypes[i]);
			if (pc->pc_nargs > i && i >= 0 && i < DTRACE_MAXARGS &&
			    ix->n_kind == N_INT)	/* read from its argN */
				ix->n_int = (uint64_t)pc->pc_argmap[i];
		}
		return;
	}
	if (string_base(pc, base))
		goto pointer;
	if (base->n_kind == N_IDENT || base->n_kind == N_VAR) {
		int sc = base->n_kind == N_VAR ? base->n_scope : SC_GLOBAL;
		struct eng_ident *id = eng_cc_ident(pc, base->n_name, sc, 0);

		if (id != NULL && id->i_kind == ID_INLINE &&
		    id->i_inline->n_kind == N_INLINE && !create) {
			eng_sema_inline_index(pc, n, id);
			return;
		}

		if (id == NULL)		/* a read of it is refused below */
			id = eng_cc_ident(pc, base->n_name, sc, 1);
		if (id->i_kind == ID_VAR && id->i_type != NULL &&
		    (eng_type_is_ptr(id->i_type) ||
		    id->i_type->t_kind == TY_ARRAY)) {
			if (n->n_args->n_next != NULL)	/* x[1, 2] */
				eng_cc_xerror(pc, n, "D_ARR_BADREF", "cannot "
				    "access scalar %s as an associative array",
				    base->n_name);
			goto pointer;
		}
		if (sc == SC_LOCAL)
			eng_cc_xerror(pc, n, "D_ARR_LOCAL", "this->%s: "
			    "clause-local variables may not be associative arrays",
			    base->n_name);
		if (id->i_kind == ID_VAR && id->i_nkeys < 0 && id->i_type &&
		    !create)
			eng_cc_xerror(pc, n, "D_IDENT_BADREF", "scalar '%s' may "
			    "not be referenced as associative array",
			    base->n_name);
		id->i_kind = ID_ARRAY;
		if (id->i_line == 0)
			id->i_line = n->n_line;
		if (!create) {		/* a[k] read before any a[k] = v */
			need_defined(pc, base, id);
			id->i_flags |= IDF_REF;
		}
		eng_sema_keys(pc, n, id, n->n_args, "");
		n->n_ident = id;
		n->n_scope = sc;
		n->n_type = id->i_type != NULL ? id->i_type :
		    eng_type_lookup(pc->pc_cc, "int64_t");
		n->n_lvalue = 1;
		return;
	}
pointer:
	/* p[i] is *(p + i); s[i] of a string too (Oracle's) */
	cook(pc, base);
	if (!eng_type_is_ptr(base->n_type) && base->n_type->t_kind != TY_ARRAY &&
	    !eng_type_is_string(base->n_type))
		eng_cc_xerror(pc, n, "D_IDENT_BADREF", "operator [ ] may not "
		    "be applied to operand of type \"%s\"", eng_type_tname(base->n_type));
	if (n->n_args->n_next != NULL || !eng_type_is_int(n->n_args->n_type))
		eng_cc_xerror(pc, n, "D_OP_INT", "index must be of integral "
		    "type");
	if (base->n_type->t_kind == TY_ARRAY && base->n_type->t_nelems > 0 &&
	    n->n_args->n_const && n->n_args->n_int >= base->n_type->t_nelems)
		eng_cc_xerror(pc, n, "D_ARR_BOUNDS", "index outside array "
		    "bounds: %llu, max is %u", (unsigned long long)
		    n->n_args->n_int, base->n_type->t_nelems);
	n->n_kind = N_DEREF;
	{
		struct eng_node *add = eng_node_new(pc, N_OP2, n->n_line,
		    n->n_col);

		add->n_op = '+';
		add->n_left = base;
		add->n_right = n->n_args;
		add->n_right->n_next = NULL;
		n->n_left = add;
		n->n_args = NULL;
		cook(pc, n);
	}
}

static void cook_agg(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_ident *id = eng_cc_agg(pc, n->n_name, 1);
	int i = 0;

	for (struct eng_node *k = n->n_args; k != NULL; k = k->n_next) {
		const struct eng_func *f;

		i++;
		if (k->n_kind == N_AGG)	/* dynamic: dt_idcook_assc's check */
			eng_cc_xerror(pc, k, "D_KEY_TYPE", "aggregation expression "
			    "may not be used as aggregation index: key #%d", i);

		if (k->n_kind == N_CALL && (f = eng_sema_func(k->n_name)) &&
		    (f->f_flags & F_KEYOK)) {
			/* a stack key has no D type (NULL, "stack" in
			 * messages); sym() and friends key on an address
			 * typed as dtrace types it */
			cook_list(pc, k->n_args);
			k->n_type = f->f_id == DTRACEACT_STACK ||
			    f->f_id == DTRACEACT_USTACK ||
			    f->f_id == DTRACEACT_JSTACK ? NULL :
			    eng_type_lookup(pc->pc_cc, f->f_id ==
			    DTRACEACT_SYM || f->f_id == DTRACEACT_MOD ?
			    "_symaddr" : "_usymaddr");
			continue;
		}
		cook(pc, k);
	}
	if (id->i_line == 0)
		id->i_line = n->n_line;
	eng_sema_keys(pc, n, id, n->n_args, "@");
	n->n_ident = id;
	n->n_type = eng_type_lookup(pc->pc_cc, "int64_t");
}

/* The type a variable takes from its first assignment. */
static struct eng_type *storable(struct eng_pcb *pc, struct eng_node *r)
{
	struct eng_type *t = r->n_type;

	eng_sema_not_value(pc, r);
	if (t->t_kind == TY_VOID)
		eng_cc_xerror(pc, r, "D_OP_VOID", "operator = cannot be applied "
		    "to an operand of type \"void\"");
	if (t->t_kind == TY_ARRAY)
		return eng_type_ptr(pc, t->t_base);
	return t;
}

/*
 * A global named for the first time on the left of an operator: "=" gives
 * it the type of the value, ++ and -- make it an int64_t (as dtrace
 * does); a compound assignment reads a value that was never there.
 */
static void cook_newglobal(struct eng_pcb *pc, struct eng_node *l,
    struct eng_node *r, int op)
{
	struct eng_ident *id = eng_cc_ident(pc, l->n_name, SC_GLOBAL, 0);
	int incdec = op == T_INC || op == T_DEC;

	if (id != NULL && id->i_kind != ID_VAR)
		eng_cc_xerror(pc, l, "D_OP_LVAL", "operator %s requires "
		    "modifiable lvalue as an operand", opname(op));
	if ((id == NULL || id->i_type == NULL) && r == NULL && !incdec)
		eng_cc_nerror(pc, l, "D_VAR_UNDEF", "%s has not yet been "
		    "declared or assigned", l->n_name);
	if (id == NULL)
		id = eng_cc_ident(pc, l->n_name, SC_GLOBAL, 1);
	if (id->i_type == NULL) {
		id->i_type = r != NULL ? storable(pc, r) :
		    eng_type_lookup(pc->pc_cc, "int64_t");
		id->i_line = l->n_line;
	}
	id->i_flags |= IDF_MOD;
}

/*
 * A self->, this-> or array variable assigned by operator op: "=" gives a
 * new one the value's type, ++ and -- make it an int64_t; a compound
 * assignment reads it first, so it must have a value already.
 */
static void settle(struct eng_pcb *pc, struct eng_node *l,
    struct eng_node *r, int op)
{
	struct eng_ident *id = l->n_ident;

	if (op != '=' && op != T_INC && op != T_DEC)
		need_defined(pc, l->n_kind == N_INDEX ? l->n_left : l, id);
	if (id->i_type == NULL) {
		id->i_type = r != NULL ? storable(pc, r) :
		    eng_type_lookup(pc->pc_cc, "int64_t");
		l->n_type = id->i_type;
	}
	id->i_flags |= IDF_MOD;
}

static void cook_lvalue(struct eng_pcb *pc, struct eng_node *l,
    struct eng_node *r, int op)
{
	switch (l->n_kind) {
	case N_IDENT:
		if (builtin(l->n_name) != NULL)
			eng_cc_xerror(pc, l, "D_OP_WRITE", "operator %s can only "
			    "be applied to a writable variable", opname(op));
		cook_newglobal(pc, l, r, op);
		cook_ident(pc, l);
		break;
	case N_VAR:
		cook_var(pc, l, 1);
		settle(pc, l, r, op);
		break;
	case N_INDEX:
		cook_index(pc, l, 1);
		if (l->n_kind == N_INDEX && l->n_ident != NULL)
			settle(pc, l, r, op);
		if (l->n_kind == N_DEREF && (!eng_type_is_scalar(l->n_type) ||
		    l->n_type->t_kind == TY_ARRAY || !l->n_lvalue))
			goto bad;	/* p[i] is a store into memory; s[i] is
					 * a string's, read only */
		break;
	case N_DEREF: case N_MEMBER: case N_PTRMEMBER:
		/* stores into memory (scratch from alloca, as dtrace allows) */
		cook(pc, l);
		if (((!eng_type_is_scalar(l->n_type) || l->n_type->t_kind ==
		    TY_ARRAY) && !(r != NULL && (l->n_type->t_kind == TY_STRUCT ||
		    l->n_type->t_kind == TY_UNION))) ||
		    (l->n_kind == N_DEREF && !l->n_lvalue))
			goto bad;	/* a struct member takes a struct value */
		break;
	default:
		cook(pc, l);
bad:
		eng_cc_xerror(pc, l, "D_OP_LVAL", "operator %s requires "
		    "modifiable lvalue as an operand", opname(op));
	}
}

static void check_assign(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *lt = n->n_left->n_type, *rt = n->n_right->n_type;

	if (n->n_op == '=') {
		if (lt->t_kind == TY_ARRAY)
			eng_cc_xerror(pc, n, "D_OP_ARRFUN", "operator = may not "
			    "be applied to operand of type \"%s\"",
			    eng_type_tname(lt));
		if (eng_type_compat(lt, rt) || ((eng_type_is_ptr(lt) ||
		    eng_type_is_string(lt)) && eng_type_is_int(rt) &&
		    n->n_right->n_const && n->n_right->n_int == 0) || (eng_type_is_string(lt) &&
		    eng_type_is_ptr(rt) && rt->t_base->t_size == 1))
			return;
		eng_cc_xerror(pc, n, "D_OP_INCOMPAT", "operands have "
		    "incompatible types: \"%s\" = \"%s\"", eng_type_tname(lt),
		    eng_type_tname(rt));
	}
	/* += and -= take arithmetic operands or a sized pointer and an
	 * integer; dtrace names every other pairing D_OP_VFPTR */
	if ((n->n_op == T_ADD_EQ || n->n_op == T_SUB_EQ) &&
	    !(is_arith(lt) && is_arith(rt)) && !(eng_type_is_ptr(lt) &&
	    !is_vfptr(lt) && eng_type_is_int(rt)))
		eng_cc_xerror(pc, n, "D_OP_VFPTR", "operator %s requires "
		    "left-hand scalar operand of known size", opname(n->n_op));
	if (!is_arith(lt) && !(eng_type_is_ptr(lt) &&
	    (n->n_op == T_ADD_EQ || n->n_op == T_SUB_EQ)))
		eng_cc_xerror(pc, n, "D_OP_ARITH", "operator %s requires "
		    "operands of arithmetic type", opname(n->n_op));
	if (!is_arith(rt))
		eng_cc_xerror(pc, n, "D_OP_ARITH", "operator %s requires "
		    "operands of arithmetic type", opname(n->n_op));
}

static void cook_assign(struct eng_pcb *pc, struct eng_node *n)
{
	if (n->n_left->n_kind == N_AGG)
		eng_cc_xerror(pc, n, "D_AGG_FUNC", "@%s must be assigned the "
		    "result of an aggregating function", n->n_left->n_name);
	if (n->n_op == '=' && n->n_right->n_kind == N_XLATE &&
	    !eng_type_is_ptr(n->n_right->n_ctype)) {
		eng_sema_xlate_assign(pc, n);	/* s = xlate<struct T>(x) */
		return;
	}
	cook(pc, n->n_right);
	cook_lvalue(pc, n->n_left, n->n_op == '=' ? n->n_right : NULL,
	    n->n_op);
	check_assign(pc, n);
	n->n_type = n->n_left->n_type;
	if (n->n_right->n_const && eng_type_is_int(n->n_type))
		n->n_right->n_int = norm(n->n_type, n->n_right->n_int);
}

static void cook_incdec(struct eng_pcb *pc, struct eng_node *n)
{
	int op = n->n_kind == N_PREINC || n->n_kind == N_POSTINC ? T_INC :
	    T_DEC;

	cook_lvalue(pc, n->n_left, NULL, op);
	if (!is_arith(n->n_left->n_type) && !eng_type_is_ptr(n->n_left->n_type))
		eng_cc_xerror(pc, n, "D_OP_SCALAR", "operator %s requires "
		    "operand of scalar type", opname(op));
	if (is_vfptr(n->n_left->n_type))
		eng_cc_xerror(pc, n, "D_OP_VFPTR", "operator %s requires an "
		    "operand of known size", opname(op));
	n->n_type = n->n_left->n_type;
}

static void cook_deref(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *t;

	cook(pc, n->n_left);
	t = n->n_left->n_type;
	if (eng_type_is_string(t) && n->n_left->n_kind == N_OP2) {
		/* s[i] (s + i): a character of a string, read only */
		n->n_type = eng_type_lookup(pc->pc_cc, "char");
		return;
	}
	if ((!eng_type_is_ptr(t) && t->t_kind != TY_ARRAY) ||
	    t->t_base == NULL)
		eng_cc_xerror(pc, n, "D_DEREF_NONPTR", "cannot dereference "
		    "non-pointer type");
	if (eng_type_resolve(t->t_base)->t_kind == TY_VOID)
		eng_cc_xerror(pc, n, "D_DEREF_VOID", "cannot dereference "
		    "pointer to void");
	n->n_type = t->t_base;
	n->n_lvalue = 1;
}

static void cook_member(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *t;
	struct eng_member *m;

	cook(pc, n->n_left);
	t = n->n_left->n_type;
	if (n->n_kind == N_PTRMEMBER) {
		if (!eng_type_is_ptr(t))
			eng_cc_xerror(pc, n, "D_OP_PTR", "operator -> cannot be "
			    "applied to non-pointer type \"%s\"", eng_type_tname(t));
		t = t->t_base;
	}
	if (t != NULL && t->t_kind == TY_FORWARD) {
		struct eng_type *def = t->t_name != NULL ?
		    eng_type_lookup(pc->pc_cc, t->t_name) : NULL;

		if (def == NULL || def->t_kind == TY_FORWARD)
			eng_cc_xerror(pc, n, "D_OP_INCOMPLETE", "operator %s "
			    "cannot be applied to a forward declaration: no %s "
			    "definition is available", n->n_kind == N_MEMBER ?
			    "." : "->", eng_type_tname(t));
		t = def;
	}
	if (t == NULL || (t->t_kind != TY_STRUCT && t->t_kind != TY_UNION))
		eng_cc_xerror(pc, n, "D_OP_SOU", "operator %s cannot be applied "
		    "to a non-struct/union type \"%s\"", n->n_kind == N_MEMBER ?
		    "." : "->", eng_type_tname(t));
	if ((m = eng_type_member(t, n->n_name)) == NULL)
		eng_cc_xerror(pc, n, "D_TYPE_MEMBER", "%s is not a member of "
		    "%s", n->n_name, eng_type_tname(t));
	n->n_type = m->m_type;
	n->n_ident = (struct eng_ident *)(void *)m;	/* the member */
}

static void cook_cast(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *to = n->n_ctype, *from;

	cook(pc, n->n_left);
	from = n->n_left->n_type;
	/* to void, or to its own type ((struct s)v) */
	if (to->t_kind == TY_VOID || to == from || (to->t_kind == from->t_kind &&
	    (to->t_kind == TY_STRUCT || to->t_kind == TY_UNION) &&
	    eng_type_compat(to, from))) {
		n->n_type = to;
		return;
	}
	if (!(eng_type_is_scalar(to) || eng_type_is_string(to)) ||
	    !(eng_type_is_scalar(from) || (eng_type_is_string(from) &&
	    eng_type_is_string(to))) || (eng_type_is_string(to) &&
	    eng_type_is_int(from)))
		eng_cc_xerror(pc, n, "D_CAST_INVAL", "invalid cast expression: "
		    "\"%s\" to \"%s\"", eng_type_tname(from), eng_type_tname(to));
	n->n_type = to;
	if (n->n_left->n_const && eng_type_is_int(to))
		set_const(n, norm(to, n->n_left->n_int));
}

/* Is n a reference to a bit-field member? */
static int is_bitfield(const struct eng_node *n)
{
	return (n->n_kind == N_MEMBER || n->n_kind == N_PTRMEMBER) &&
	    n->n_ident != NULL &&
	    ((const struct eng_member *)(const void *)n->n_ident)->m_bits != 0;
}

static void cook_sizeof(struct eng_pcb *pc, struct eng_node *n)
{
	struct eng_type *t = n->n_ctype;

	if (t == NULL) {
		cook(pc, n->n_left);
		t = n->n_left->n_type;
		if (n->n_left->n_kind == N_STR) {	/* char [n + 1], as C */
			n->n_type = eng_type_lookup(pc->pc_cc, "size_t");
			set_const(n, strlen(n->n_left->n_name) + 1);
			return;
		}
		if (is_bitfield(n->n_left))
			eng_cc_xerror(pc, n, "D_SIZEOF_BITFIELD", "cannot apply "
			    "sizeof to a bit-field");
	}
	if (t->t_kind == TY_STRING)
		n->n_int = (uint64_t)pc->pc_strsize;
	else if (t->t_size == 0)
		eng_cc_xerror(pc, n, "D_SIZEOF_TYPE", "cannot apply sizeof to "
		    "an expression of incomplete type \"%s\"", eng_type_tname(t));
	n->n_type = eng_type_lookup(pc->pc_cc, "size_t");
	set_const(n, t->t_kind == TY_STRING ? (uint64_t)pc->pc_strsize :
	    t->t_size);
}


/* Give n and its children types; fold constants; check operands. */
static void cook(struct eng_pcb *pc, struct eng_node *n)
{
	/* a left-deep chain (1 + 1 + ... + 1) is as deep as it is long */
	if (++pc->pc_depth > 4000)
		eng_cc_xerror(pc, n, "D_SYNTAX", "expression nested too deeply");
	switch (n->n_kind) {
	case N_INT: cook_int(pc, n); break;
	case N_STR:
		n->n_type = eng_type_string(pc->pc_cc);
		break;
	case N_IDENT: cook_ident(pc, n); break;
	case N_VAR: cook_var(pc, n, 0); break;
	case N_AGG:
		eng_cc_xerror(pc, n, "D_AGG_SCALAR", "aggregation @%s may not be "
		    "used in an expression", n->n_name);
	case N_OP1: eng_sema_op1(pc, n); break;
	case N_OP2: eng_sema_op2(pc, n); break;
	case N_OP3: eng_sema_op3(pc, n); break;
	case N_ASSIGN: cook_assign(pc, n); break;
	case N_PREINC: case N_PREDEC: case N_POSTINC: case N_POSTDEC:
		cook_incdec(pc, n);
		break;
	case N_CALL: eng_sema_call(pc, n); break;
	case N_INDEX: cook_index(pc, n, 0); break;
	case N_MEMBER: case N_PTRMEMBER:
		if (n->n_kind == N_MEMBER && n->n_left->n_kind == N_DEREF &&
		    eng_sema_is_xlptr(pc, n->n_left->n_left)) {
			n->n_kind = N_PTRMEMBER;	/* (*curpsinfo).m */
			n->n_left = n->n_left->n_left;
		}
		if (n->n_left->n_kind == N_IDENT)
			eng_sema_xlate_inline(pc, n);
		else if (n->n_left->n_kind == N_INDEX)
			eng_sema_xlate_args(pc, n);
		if (n->n_left->n_kind == N_XLATE)
			eng_sema_xlmember(pc, n);
		else
			cook_member(pc, n);
		break;
	case N_CAST: cook_cast(pc, n); break;
	case N_SIZEOF: cook_sizeof(pc, n); break;
	case N_OFFSETOF: {
		struct eng_member *m = NULL;

		if (n->n_ctype->t_kind == TY_STRUCT ||
		    n->n_ctype->t_kind == TY_UNION)
			m = eng_type_member(n->n_ctype, n->n_name);
		if (m == NULL)
			eng_cc_xerror(pc, n, "D_OFFSETOF_TYPE", "offsetof: %s is "
			    "not a member of %s", n->n_name, eng_type_tname(n->n_ctype));
		if (m->m_bits != 0)
			eng_cc_xerror(pc, n, "D_OFFSETOF_BITFIELD", "cannot take "
			    "offset of a bit-field: %s", n->n_name);
		n->n_type = eng_type_lookup(pc->pc_cc, "size_t");
		set_const(n, m->m_off);
		break;
	}
	case N_STRINGOF:
		cook(pc, n->n_left);
		if (!eng_type_is_scalar(n->n_left->n_type) &&
		    !eng_type_is_string(n->n_left->n_type))
			eng_cc_xerror(pc, n, "D_STRINGOF_TYPE", "cannot apply "
			    "stringof to a value of type %s",
			    eng_type_tname(n->n_left->n_type));
		n->n_type = eng_type_string(pc->pc_cc);
		break;
	case N_XLATE:
		eng_cc_xerror(pc, n, "D_XLATE_SOU", "xlate<%s>( ) must be "
		    "followed by a member reference", eng_type_tname(n->n_ctype));
	case N_ADDR:
		if (n->n_left->n_kind == N_AGG)	/* &@a */
			eng_cc_xerror(pc, n, "D_ADDROF_VAR", "cannot take address "
			    "of dynamic variable");
		cook(pc, n->n_left);
		if ((n->n_left->n_kind == N_IDENT || n->n_left->n_kind == N_VAR ||
		    n->n_left->n_kind == N_INDEX) && n->n_left->n_ident != NULL &&
		    (n->n_left->n_ident->i_kind == ID_VAR ||
		    n->n_left->n_ident->i_kind == ID_ARRAY))
			eng_cc_xerror(pc, n, "D_ADDROF_VAR", "cannot take address "
			    "of dynamic variable");
		if (is_bitfield(n->n_left))
			eng_cc_xerror(pc, n, "D_ADDROF_BITFIELD", "cannot take "
			    "address of bit-field");
		if (n->n_left->n_kind != N_DEREF &&
		    n->n_left->n_kind != N_PTRMEMBER)
			eng_cc_xerror(pc, n, "D_ADDROF_LVAL", "unacceptable "
			    "operand for unary & operator");
		n->n_type = eng_type_ptr(pc, n->n_left->n_type);
		break;
	case N_DEREF: cook_deref(pc, n); break;
	default:
		eng_cc_xerror(pc, n, "D_SYNTAX", "unexpected statement");
	}
	pc->pc_depth--;
}

void eng_sema_expr(struct eng_pcb *pc, struct eng_node *n)
{
	cook(pc, n);
}

/* Cook a statement (aggregation statements are cooked by act.c). */
void eng_sema_stmt(struct eng_pcb *pc, struct eng_node *n)
{
	switch (n->n_kind) {
	case N_EXPR_STMT:
		if (n->n_left->n_kind == N_CALL) {
			const struct eng_func *f = eng_sema_func(n->n_left->n_name);

			if (f != NULL && f->f_kind == F_ACT)
				return;		/* act.c checks actions */
		}
		cook(pc, n->n_left);
		break;
	case N_AGG_STMT:
		cook_agg(pc, n->n_left->n_left);
		break;
	case N_IF:
		cook(pc, n->n_left);
		eng_sema_need_scalar(pc, n->n_left, T_EOF);
		break;
	default:
		break;
	}
}

void eng_sema_clause(struct eng_pcb *pc, struct eng_node *clause)
{
	if (clause->n_pred != NULL) {
		cook(pc, clause->n_pred);
		if (!eng_type_is_scalar(clause->n_pred->n_type) ||
		    clause->n_pred->n_type->t_kind == TY_ARRAY)
			eng_cc_xerror(pc, clause->n_pred, "D_PRED_SCALAR",
			    "predicate result must be of scalar type");
	}
}
