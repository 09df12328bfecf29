/*
 * cg.c - the DIF code generator: a cooked expression -> one DIF object.
 *
 * struct cg holds the object under construction: instructions, integer,
 * string and variable tables, the register set and forward labels.
 * cg_expr() returns the register holding a node's value; registers %r1-%r7
 * are handed out by cg_ralloc() and given back by cg_rfree() (%r0 is zero); an
 * expression needing more than seven live values is refused with
 * D_NOREG ("expression too complex"), never miscompiled.  Branches only
 * go forward (spec ch. 8): a label is an index into g->lbl, fixed up
 * when the object is finished.  Tuples (subroutine arguments, array
 * keys) are evaluated into registers first, then pushed after FLUSHTS,
 * so nested calls cannot disturb the tuple stack.
 */
#include <string.h>
#include "cg_impl.h"


/* ---- buffers -------------------------------------------------------------- */

static void *grow(struct cg *g, void *p, uint32_t *cap, uint32_t need,
    size_t esz)
{
	void *np;
	uint32_t nc;

	if (need <= *cap)
		return p;
	nc = *cap ? *cap * 2 : 32;
	while (nc < need)
		nc *= 2;
	np = eng_cc_alloc(g->pc, nc * esz);
	if (p != NULL)
		memcpy(np, p, *cap * esz);
	*cap = nc;
	return np;
}

void cg_emit(struct cg *g, dif_instr_t in)
{
	g->buf = grow(g, g->buf, &g->cap, g->len + 1, sizeof(*g->buf));
	g->buf[g->len++] = in;
}

int cg_newlabel(struct cg *g)
{
	if (g->nlbl >= DIF_LABEL_MAX)
		eng_cc_error(g->pc, 0, 0, "D_NOREG", "expression too complex: "
		    "too many branches");
	g->lbl = grow(g, g->lbl, &g->lblcap, g->nlbl + 1, sizeof(*g->lbl));
	g->lbl[g->nlbl] = UINT32_MAX;
	return (int)g->nlbl++;
}

void cg_label(struct cg *g, int l)
{
	g->lbl[l] = g->len;
}

void cg_branch(struct cg *g, int op, int l)
{
	uint32_t cap = (uint32_t)g->fixcap;

	g->fix = grow(g, g->fix, &cap, (uint32_t)g->nfix + 1,
	    sizeof(*g->fix));
	g->fixcap = (int)cap;
	g->fix[g->nfix++] = g->len;
	cg_emit(g, DIF_INSTR_BRANCH(op, l));
}

static uint32_t intidx(struct cg *g, uint64_t v)
{
	for (uint32_t i = 0; i < g->ilen; i++)
		if (g->itab[i] == v)
			return i;
	if (g->ilen > DIF_INTOFF_MAX)
		eng_cc_error(g->pc, 0, 0, "D_INT_OFLOW", "too many integer "
		    "constants in one expression");
	g->itab = grow(g, g->itab, &g->icap, g->ilen + 1, sizeof(*g->itab));
	g->itab[g->ilen] = v;
	return g->ilen++;
}

static uint32_t stridx(struct cg *g, const char *s)
{
	size_t n = strlen(s) + 1;

	for (uint32_t i = 0; i < g->slen; i += (uint32_t)strlen(g->stab + i) + 1)
		if (strcmp(g->stab + i, s) == 0)
			return i;
	if (g->slen + n > DIF_STROFF_MAX)
		eng_cc_error(g->pc, 0, 0, "D_STR_OFLOW", "too many strings in "
		    "one expression");
	g->stab = grow(g, g->stab, &g->scap, g->slen + (uint32_t)n, 1);
	memcpy(g->stab + g->slen, s, n);
	g->slen += (uint32_t)n;
	return g->slen - (uint32_t)n;
}

/* ---- registers -------------------------------------------------------- */

int cg_ralloc(struct cg *g, const struct eng_node *n)
{
	/* -x iregs=N: %r0 and N - 1 registers, as dtrace's dtc_difintregs */
	int nregs = (int)eng_xopt_get(g->pc->pc_hdl, ENG_XOPT_IREGS);

	if (nregs <= 0 || nregs > DIF_DIR_NREGS)
		nregs = DIF_DIR_NREGS;
	for (int r = 1; r < nregs; r++)
		if (!g->used[r]) {
			g->used[r] = 1;
			return r;
		}
	eng_cc_nerror(g->pc, n, "D_NOREG", "expression too complex: "
	    "insufficient registers to generate code");
}

void cg_rfree(struct cg *g, int r)
{
	if (r > 0)
		g->used[r] = 0;
}

/* ---- types ---------------------------------------------------------------- */

/* Values held by reference: strings, structs, unions, arrays and the
 * floating-point types wider than a register (long double). */
int cg_is_byref(const struct eng_type *t)
{
	return t->t_kind == TY_STRING || t->t_kind == TY_STRUCT ||
	    t->t_kind == TY_UNION || t->t_kind == TY_ARRAY ||
	    (t->t_kind == TY_FLOAT && t->t_size > 8);
}

/* Narrow an integer register to type to (shift left, shift back). */
void cg_narrow(struct cg *g, int r, const struct eng_type *to)
{
	uint32_t sh;

	if (!eng_type_is_int(to) || to->t_size >= 8 || to->t_size == 0)
		return;
	sh = intidx(g, 64 - to->t_size * 8);
	int t = cg_ralloc(g, NULL);

	cg_emit(g, DIF_INSTR_SETX(sh, t));
	cg_emit(g, DIF_INSTR_FMT(DIF_OP_SLL, r, t, r));
	cg_emit(g, DIF_INSTR_FMT(to->t_signed ? DIF_OP_SRA : DIF_OP_SRL, r, t, r));
	cg_rfree(g, t);
}

/* ---- variables ------------------------------------------------------------ */

static void addvar(struct cg *g, const struct eng_ident *id, int kind,
    int scope, int flags)
{
	dtrace_difv_t *v;

	for (uint32_t i = 0; i < g->vlen; i++) {
		v = &g->vtab[i];
		if (v->dtdv_id == id->i_id && v->dtdv_scope == scope &&
		    v->dtdv_kind == kind) {
			v->dtdv_flags |= (uint16_t)flags;
			return;
		}
	}
	g->vtab = grow(g, g->vtab, &g->vcap, g->vlen + 1, sizeof(*g->vtab));
	v = &g->vtab[g->vlen++];
	memset(v, 0, sizeof(*v));
	v->dtdv_name = stridx(g, id->i_name);
	v->dtdv_id = id->i_id;
	v->dtdv_kind = (uint8_t)kind;
	v->dtdv_scope = (uint8_t)scope;
	v->dtdv_flags = (uint16_t)flags;
	v->dtdv_type = eng_cg_rtype(g->pc, id->i_type != NULL ? id->i_type :
	    eng_type_lookup(g->pc->pc_cc, "int64_t"));
	if (id->i_type == NULL || v->dtdv_type.dtdt_size == 0)
		v->dtdv_type.dtdt_size = 8;
}

static int difv_scope(int sc)
{
	return sc == SC_THREAD ? DIFV_SCOPE_THREAD : sc == SC_LOCAL ?
	    DIFV_SCOPE_LOCAL : DIFV_SCOPE_GLOBAL;
}

/* Evaluate a key list and push it on the tuple stack (after FLUSHTS). */
static void tuple(struct cg *g, struct eng_node *args)
{
	int regs[DIF_DTR_NREGS], n = 0;
	struct eng_node *a;

	for (a = args; a != NULL; a = a->n_next) {
		if (n == DIF_DTR_NREGS)
			eng_cc_nerror(g->pc, a, "D_NOREG", "expression too "
			    "complex: too many arguments");
		regs[n++] = cg_expr(g, a);
	}
	cg_emit(g, DIF_INSTR_FLUSHTS);
	n = 0;
	for (a = args; a != NULL; a = a->n_next, n++) {
		int str = eng_type_is_string(a->n_type);

		if (cg_is_byref(a->n_type) && !str) {
			int sz = cg_ralloc(g, a);

			cg_emit(g, DIF_INSTR_SETX(intidx(g, a->n_type->t_size), sz));
			cg_emit(g, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_CTF, sz,
			    regs[n]));
			cg_rfree(g, sz);
		} else {
			cg_emit(g, DIF_INSTR_PUSHTS(str ? DIF_OP_PUSHTR :
			    DIF_OP_PUSHTV, str ? DIF_TYPE_STRING : DIF_TYPE_CTF,
			    0, regs[n]));
		}
		cg_rfree(g, regs[n]);
	}
}

/* Load the variable an lvalue node names into register r. */
int cg_load_var(struct cg *g, struct eng_node *n, int r)
{
	struct eng_ident *id = n->n_ident;
	int sc = n->n_kind == N_IDENT ? SC_GLOBAL : n->n_scope;

	if (n->n_kind == N_INDEX) {
		tuple(g, n->n_args);
		if (r < 0)	/* taken after the keys: a[1, a[2, a[3]]] nests */
			r = cg_ralloc(g, n);
		addvar(g, id, DIFV_KIND_ARRAY, difv_scope(sc), DIFV_F_REF);
		cg_emit(g, DIF_INSTR_LDV(sc == SC_THREAD ? DIF_OP_LDTAA :
		    DIF_OP_LDGAA, id->i_id, r));
		return r;
	}
	if (r < 0)
		r = cg_ralloc(g, n);
	addvar(g, id, DIFV_KIND_SCALAR, difv_scope(sc), DIFV_F_REF);
	cg_emit(g, DIF_INSTR_LDV(sc == SC_THREAD ? DIF_OP_LDTS : sc == SC_LOCAL ?
	    DIF_OP_LDLS : DIF_OP_LDGS, id->i_id, r));
	return r;
}

/* Store register r into the variable an lvalue node names. */
void cg_store_var(struct cg *g, struct eng_node *n, int r)
{
	struct eng_ident *id = n->n_ident;
	int sc = n->n_kind == N_IDENT ? SC_GLOBAL : n->n_scope;

	if (n->n_kind == N_INDEX) {
		tuple(g, n->n_args);
		addvar(g, id, DIFV_KIND_ARRAY, difv_scope(sc), DIFV_F_MOD);
		cg_emit(g, DIF_INSTR_STV(sc == SC_THREAD ? DIF_OP_STTAA :
		    DIF_OP_STGAA, id->i_id, r));
		return;
	}
	addvar(g, id, DIFV_KIND_SCALAR, difv_scope(sc), DIFV_F_MOD);
	cg_emit(g, DIF_INSTR_STV(sc == SC_THREAD ? DIF_OP_STTS : sc == SC_LOCAL ?
	    DIF_OP_STLS : DIF_OP_STGS, id->i_id, r));
}

/* ---- expressions ------------------------------------------------------ */

int cg_setx(struct cg *g, uint64_t v, const struct eng_node *n)
{
	int r = cg_ralloc(g, n);

	if (v == 0)
		cg_emit(g, DIF_INSTR_MOV(DIF_REG_R0, r));
	else
		cg_emit(g, DIF_INSTR_SETX(intidx(g, v), r));
	return r;
}

/* r = cc-true ? 1 : 0, after a compare already emitted. */
static void set_bool(struct cg *g, int brop, int r)
{
	int t = cg_newlabel(g), e = cg_newlabel(g);

	cg_branch(g, brop, t);
	cg_emit(g, DIF_INSTR_MOV(DIF_REG_R0, r));
	cg_branch(g, DIF_OP_BA, e);
	cg_label(g, t);
	cg_emit(g, DIF_INSTR_SETX(intidx(g, 1), r));
	cg_label(g, e);
}

static int compare(struct cg *g, struct eng_node *n)
{
	int a = cg_expr(g, n->n_left), b = cg_expr(g, n->n_right), op;
	int sgn = n->n_scope == 1 || (n->n_ctype != NULL &&
	    n->n_ctype->t_signed);

	cg_emit(g, DIF_INSTR_CMP(n->n_scope == 1 ? DIF_OP_SCMP : DIF_OP_CMP, a, b));
	cg_rfree(g, b);
	switch (n->n_op) {
	case T_EQ: op = DIF_OP_BE; break;
	case T_NE: op = DIF_OP_BNE; break;
	case '<': op = sgn ? DIF_OP_BL : DIF_OP_BLU; break;
	case '>': op = sgn ? DIF_OP_BG : DIF_OP_BGU; break;
	case T_LE: op = sgn ? DIF_OP_BLE : DIF_OP_BLEU; break;
	default: op = sgn ? DIF_OP_BGE : DIF_OP_BGEU; break;
	}
	set_bool(g, op, a);
	return a;
}

static int logical(struct cg *g, struct eng_node *n)
{
	int a = cg_expr(g, n->n_left), b, yes = cg_newlabel(g), no = cg_newlabel(g);
	int end = cg_newlabel(g);

	if (n->n_op == T_LXOR) {
		cg_emit(g, DIF_INSTR_TST(a));
		set_bool(g, DIF_OP_BNE, a);
		b = cg_expr(g, n->n_right);
		cg_emit(g, DIF_INSTR_TST(b));
		set_bool(g, DIF_OP_BNE, b);
		cg_emit(g, DIF_INSTR_FMT(DIF_OP_XOR, a, b, a));
		cg_rfree(g, b);
		return a;
	}
	cg_emit(g, DIF_INSTR_TST(a));
	cg_branch(g, n->n_op == T_LAND ? DIF_OP_BE : DIF_OP_BNE,
	    n->n_op == T_LAND ? no : yes);
	cg_rfree(g, a);
	b = cg_expr(g, n->n_right);
	cg_emit(g, DIF_INSTR_TST(b));
	cg_branch(g, n->n_op == T_LAND ? DIF_OP_BE : DIF_OP_BNE,
	    n->n_op == T_LAND ? no : yes);
	if (n->n_op == T_LAND)
		cg_branch(g, DIF_OP_BA, yes);
	cg_label(g, no);
	cg_emit(g, DIF_INSTR_MOV(DIF_REG_R0, b));
	cg_branch(g, DIF_OP_BA, end);
	cg_label(g, yes);
	cg_emit(g, DIF_INSTR_SETX(intidx(g, 1), b));
	cg_label(g, end);
	return b;
}

int cg_arith_op(int op, int sgn)
{
	switch (op) {
	case '+': case T_ADD_EQ: case T_INC: return DIF_OP_ADD;
	case '-': case T_SUB_EQ: case T_DEC: return DIF_OP_SUB;
	case '*': case T_MUL_EQ: return DIF_OP_MUL;
	case '/': case T_DIV_EQ: return sgn ? DIF_OP_SDIV : DIF_OP_UDIV;
	case '%': case T_MOD_EQ: return sgn ? DIF_OP_SREM : DIF_OP_UREM;
	case '&': case T_AND_EQ: return DIF_OP_AND;
	case '|': case T_OR_EQ: return DIF_OP_OR;
	case '^': case T_XOR_EQ: return DIF_OP_XOR;
	case T_SHL: case T_SHL_EQ: return DIF_OP_SLL;
	default: return sgn ? DIF_OP_SRA : DIF_OP_SRL;
	}
}

/* Scale register r by the size of what pointer type t points at. */
void cg_scale(struct cg *g, int r, const struct eng_type *t)
{
	uint32_t sz = t->t_base != NULL ? t->t_base->t_size : 1;

	if (sz > 1) {
		int s = cg_setx(g, sz, NULL);

		cg_emit(g, DIF_INSTR_FMT(DIF_OP_MUL, r, s, r));
		cg_rfree(g, s);
	}
}

/* A pointer or an array (the address of its first element). */
static int is_ptrlike(const struct eng_type *t)
{
	return eng_type_is_ptr(t) || t->t_kind == TY_ARRAY;
}

static int binop(struct cg *g, struct eng_node *n)
{
	struct eng_type *lt = n->n_left->n_type, *rt = n->n_right->n_type;
	int a = cg_expr(g, n->n_left), b = cg_expr(g, n->n_right);
	int sgn = n->n_type->t_signed;

	if (n->n_op == ',') {
		cg_rfree(g, a);
		return b;
	}
	if (n->n_op == T_SHR)
		sgn = lt->t_signed;
	if (is_ptrlike(lt) && eng_type_is_int(rt))
		cg_scale(g, b, lt);
	else if (is_ptrlike(rt) && eng_type_is_int(lt))
		cg_scale(g, a, rt);
	cg_emit(g, DIF_INSTR_FMT(cg_arith_op(n->n_op, sgn), a, b, a));
	cg_rfree(g, b);
	if (is_ptrlike(lt) && is_ptrlike(rt) && lt->t_base &&
	    lt->t_base->t_size > 1) {
		int s = cg_setx(g, lt->t_base->t_size, n);

		cg_emit(g, DIF_INSTR_FMT(DIF_OP_SDIV, a, s, a));
		cg_rfree(g, s);
	}
	return a;
}

/* c ? a : b, holding no register across a branch (as dtrace): the result
 * is b's register, and a's MOV into it is patched in once b is known. */
static int ternary(struct cg *g, struct eng_node *n)
{
	int c = cg_expr(g, n->n_left), a, b, other = cg_newlabel(g);
	int end = cg_newlabel(g);
	uint32_t mov;

	cg_emit(g, DIF_INSTR_TST(c));
	cg_rfree(g, c);
	cg_branch(g, DIF_OP_BE, other);
	a = cg_expr(g, n->n_right);
	mov = g->len;
	cg_emit(g, DIF_INSTR_NOP);
	cg_rfree(g, a);
	cg_branch(g, DIF_OP_BA, end);
	cg_label(g, other);
	b = cg_expr(g, n->n_third);
	g->buf[mov] = DIF_INSTR_MOV(a, b);
	cg_label(g, end);
	return b;
}

int cg_load_op(const struct eng_type *t, int user)
{
	static const int k[2][2][4] = {
		{ { DIF_OP_LDUB, DIF_OP_LDUH, DIF_OP_LDUW, DIF_OP_LDX },
		  { DIF_OP_LDSB, DIF_OP_LDSH, DIF_OP_LDSW, DIF_OP_LDX } },
		{ { DIF_OP_ULDUB, DIF_OP_ULDUH, DIF_OP_ULDUW, DIF_OP_ULDX },
		  { DIF_OP_ULDSB, DIF_OP_ULDSH, DIF_OP_ULDSW, DIF_OP_ULDX } }
	};
	int i = t->t_size == 1 ? 0 : t->t_size == 2 ? 1 : t->t_size == 4 ? 2 :
	    3;

	return k[user != 0][t->t_signed != 0][i];
}

/* Load a value of type t from the address in r (aggregates stay addresses). */
void cg_load(struct cg *g, int r, const struct eng_type *t, int user)
{
	if (cg_is_byref(t) || t->t_size == 0)
		return;
	cg_emit(g, DIF_INSTR_LOAD(cg_load_op(t, user), r, r));
}

/* The address of an lvalue in memory (deref, member). */
int cg_addr(struct cg *g, struct eng_node *n, int *user)
{
	int r;
	struct eng_member *m;

	switch (n->n_kind) {
	case N_DEREF:
		/* dtrace builds the whole translated struct (*curpsinfo);
		 * here a translation is read a member at a time */
		if (eng_sema_is_xlptr(g->pc, n->n_left))
			eng_cc_nerror(g->pc, n, "D_XLATE_SOU", "*%s: the "
			    "translation to %s must be followed by a member "
			    "reference", n->n_left->n_name != NULL ?
			    n->n_left->n_name : "xlate",
			    eng_type_tname(n->n_type));
		*user = n->n_left->n_type->t_userland;
		return cg_expr(g, n->n_left);
	case N_PTRMEMBER:
	case N_MEMBER:
		if (n->n_kind == N_PTRMEMBER) {
			*user = n->n_left->n_type->t_userland;
			r = cg_expr(g, n->n_left);
		} else {
			r = cg_addr(g, n->n_left, user);
		}
		m = (struct eng_member *)(void *)n->n_ident;
		if (m->m_off != 0) {
			int o = cg_setx(g, m->m_off, n);

			cg_emit(g, DIF_INSTR_FMT(DIF_OP_ADD, r, o, r));
			cg_rfree(g, o);
		}
		return r;
	default:
		if (cg_is_byref(n->n_type)) {
			*user = 0;
			return cg_expr(g, n);
		}
		eng_cc_nerror(g->pc, n, "D_ADDROF_LVAL", "cannot take the address "
		    "of this expression");
	}
}

/* The bytes a bit-field's value is loaded from and stored to: the
 * smallest power of two holding its bits from its byte offset on. */
const struct eng_type *cg_bf_unit(struct cg *g,
    const struct eng_member *m)
{
	uint32_t n = ((uint32_t)(m->m_bitoff + m->m_bits) + 7) / 8, sz = 1;

	while (sz < n)
		sz <<= 1;
	return eng_type_int(g->pc->pc_cc, (int)sz, 0);
}

/* r op= constant v */
void cg_op_const(struct cg *g, int op, int r, uint64_t v)
{
	int s = cg_setx(g, v, NULL);

	cg_emit(g, DIF_INSTR_FMT(op, r, s, r));
	cg_rfree(g, s);
}

/*
 * The value of bit-field m from its unit at the address in r, sign
 * extended for a signed type (shift the field to the top, then
 * arithmetic-shift it down), else shifted down and masked.
 */
void cg_bf_load(struct cg *g, int r, const struct eng_member *m,
    int user)
{
	cg_emit(g, DIF_INSTR_LOAD(cg_load_op(cg_bf_unit(g, m), user), r, r));
	if (m->m_type->t_signed) {
		cg_op_const(g, DIF_OP_SLL, r, 64 - (uint64_t)(m->m_bitoff +
		    m->m_bits));
		cg_op_const(g, DIF_OP_SRA, r, 64 - (uint64_t)m->m_bits);
		return;
	}
	if (m->m_bitoff != 0)
		cg_op_const(g, DIF_OP_SRL, r, (uint64_t)m->m_bitoff);
	if (m->m_bits < 64)
		cg_op_const(g, DIF_OP_AND, r, (1ULL << m->m_bits) - 1);
}

static int member(struct cg *g, struct eng_node *n)
{
	int user = 0, r = cg_addr(g, n, &user);
	struct eng_member *m = (struct eng_member *)(void *)n->n_ident;

	if (m->m_bits != 0)
		cg_bf_load(g, r, m, user);
	else
		cg_load(g, r, n->n_type, user);
	return r;
}

static int call(struct cg *g, struct eng_node *n)
{
	int r;

	eng_sema_not_value(g->pc, n);
	tuple(g, n->n_args);
	r = cg_ralloc(g, n);
	cg_emit(g, DIF_INSTR_CALL((uint32_t)n->n_int, r));
	return r;
}

static int builtin_var(struct cg *g, struct eng_node *n)
{
	int r;

	if (n->n_kind == N_INDEX) {
		r = cg_expr(g, n->n_args);
		cg_emit(g, DIF_INSTR_LDA(DIF_OP_LDGA, (uint32_t)n->n_int, r, r));
		cg_narrow(g, r, n->n_type);
		return r;
	}
	r = cg_ralloc(g, n);
	cg_emit(g, DIF_INSTR_LDV(DIF_OP_LDGS, (uint32_t)n->n_int, r));
	return r;
}

static int unary(struct cg *g, struct eng_node *n)
{
	int r = cg_expr(g, n->n_left);

	switch (n->n_op) {
	case '-':
		cg_emit(g, DIF_INSTR_FMT(DIF_OP_SUB, DIF_REG_R0, r, r));
		break;
	case '~':
		cg_emit(g, DIF_INSTR_NOT(r, r));
		break;
	case '!':
		cg_emit(g, DIF_INSTR_TST(r));
		set_bool(g, DIF_OP_BE, r);
		break;
	default:
		break;
	}
	return r;
}

/* Evaluate n into a register; returns the register. */
int cg_expr(struct cg *g, struct eng_node *n)
{
	int r, user = 0;

	if (n->n_const && n->n_kind != N_ASSIGN)
		return cg_setx(g, n->n_int, n);
	if (n == g->subst) {
		r = cg_ralloc(g, n);
		cg_emit(g, DIF_INSTR_MOV(g->subst_reg, r));
		return r;
	}
	switch (n->n_kind) {
	case N_STR:
		r = cg_ralloc(g, n);
		cg_emit(g, DIF_INSTR_SETS(stridx(g, n->n_name), r));
		return r;
	case N_IDENT:
		if (n->n_ident != NULL && n->n_ident->i_kind == ID_INLINE)
			return cg_expr(g, n->n_ident->i_inline);
		/* FALLTHROUGH */
	case N_VAR:
		if (n->n_scope == SC_BUILTIN)
			return builtin_var(g, n);
		r = cg_ralloc(g, n);
		cg_load_var(g, n, r);
		return r;
	case N_INDEX:
		if (n->n_scope == SC_BUILTIN)
			return builtin_var(g, n);
		return cg_load_var(g, n, -1);
	case N_OP1: return unary(g, n);
	case N_OP2:
		if (n->n_op == T_LAND || n->n_op == T_LOR || n->n_op == T_LXOR)
			return logical(g, n);
		if (n->n_op == T_EQ || n->n_op == T_NE || n->n_op == '<' ||
		    n->n_op == '>' || n->n_op == T_LE || n->n_op == T_GE)
			return compare(g, n);
		return binop(g, n);
	case N_OP3: return ternary(g, n);
	case N_ASSIGN: return cg_assign(g, n);
	case N_PREINC: case N_PREDEC: case N_POSTINC: case N_POSTDEC:
		return cg_incdec(g, n);
	case N_CALL: return call(g, n);
	case N_CAST:
		r = cg_expr(g, n->n_left);
		cg_narrow(g, r, n->n_type);
		return r;
	case N_STRINGOF:
		return cg_expr(g, n->n_left);
	case N_DEREF:
		r = cg_addr(g, n, &user);
		cg_load(g, r, n->n_type, user);
		return r;
	case N_MEMBER: case N_PTRMEMBER:
		return member(g, n);
	case N_ADDR:
		return cg_addr(g, n->n_left, &user);
	case N_XLATE:	/* xlate<T *>(e) as a value is e's, as dtrace has it */
		return cg_expr(g, n->n_left);
	default:
		eng_cc_nerror(g->pc, n, "D_UNKNOWN", "internal error: cannot "
		    "generate code for this expression");
	}
}

/* ---- objects -------------------------------------------------------------- */

static struct eng_difo *finish(struct cg *g, int r, const struct eng_type *t,
    const char *what)
{
	struct eng_difo *d = eng_cc_alloc(g->pc, sizeof(*d));

	cg_emit(g, DIF_INSTR_RET(r));
	for (int i = 0; i < g->nfix; i++) {
		uint32_t in = g->buf[g->fix[i]];
		uint32_t l = DIF_INSTR_LABEL(in);

		g->buf[g->fix[i]] = DIF_INSTR_BRANCH(DIF_INSTR_OP(in), g->lbl[l]);
	}
	d->dd_buf = g->buf;
	d->dd_len = g->len;
	d->dd_inttab = g->itab;
	d->dd_intlen = g->ilen;
	d->dd_strtab = g->stab;
	d->dd_strlen = g->slen;
	d->dd_vartab = g->vtab;
	d->dd_varlen = g->vlen;
	d->dd_rtype = eng_cg_rtype(g->pc, t);
	d->dd_what = what;
	d->dd_signed = t != NULL && eng_type_is_int(t) && t->t_signed;
	return d;
}

static void cg_init(struct cg *g, struct eng_pcb *pc)
{
	memset(g, 0, sizeof(*g));
	g->pc = pc;
}

/* Is n computed by an operator whose result may not fit its type (not a
 * comparison or logical operator, whose result is 0 or 1)? */
static int is_arith_result(const struct eng_node *n)
{
	switch (n->n_kind) {
	case N_OP1:
		return n->n_op != '!';
	case N_OP2:
		return n->n_op != T_EQ && n->n_op != T_NE && n->n_op != '<' &&
		    n->n_op != '>' && n->n_op != T_LE && n->n_op != T_GE &&
		    n->n_op != T_LAND && n->n_op != T_LOR && n->n_op != T_LXOR &&
		    n->n_op != ',';
	case N_OP3:
		return 1;
	default:
		return 0;
	}
}

/* One DIF object returning the value of expr; rtype from its type. */
struct eng_difo *eng_cg_difo(struct eng_pcb *pc, struct eng_node *e,
    const char *what)
{
	struct cg g;
	int r;

	cg_init(&g, pc);
	/* an arithmetic result is recorded as its type says (a char sum
	 * of 200 is -56), even where the record is wider: printf's
	 * arguments travel as int (records of 4 or 8 bytes truncate) */
	if (e->n_const && eng_type_is_int(e->n_type) && e->n_type->t_size < 4) {
		unsigned sh = 64 - e->n_type->t_size * 8;
		uint64_t v = e->n_int << sh;

		r = cg_setx(&g, e->n_type->t_signed ? (uint64_t)((int64_t)v >> sh) :
		    v >> sh, e);
		return finish(&g, r, e->n_type, what);
	}
	r = cg_expr(&g, e);
	if (is_arith_result(e) && e->n_type != NULL && e->n_type->t_size < 4)
		cg_narrow(&g, r, e->n_type);
	return finish(&g, r, e->n_type, what);
}

static void stmt(struct cg *g, struct eng_node *s)
{
	int r, other, end;

	switch (s->n_kind) {
	case N_BLOCK:
		for (struct eng_node *c = s->n_args; c != NULL; c = c->n_next)
			stmt(g, c);
		break;
	case N_EXPR_STMT:
		cg_rfree(g, cg_expr(g, s->n_left));
		break;
	case N_IF:
		/* tst cond; be else; then...; ba end; else: ...; end: */
		r = cg_expr(g, s->n_left);
		cg_emit(g, DIF_INSTR_TST(r));
		cg_rfree(g, r);
		other = cg_newlabel(g);
		end = cg_newlabel(g);
		cg_branch(g, DIF_OP_BE, other);
		stmt(g, s->n_right);
		if (s->n_third != NULL)
			cg_branch(g, DIF_OP_BA, end);
		cg_label(g, other);
		if (s->n_third != NULL)
			stmt(g, s->n_third);
		cg_label(g, end);
		break;
	default:
		eng_cc_nerror(g->pc, s, "D_UNKNOWN", "internal error: cannot "
		    "generate code for this statement");
	}
}

/* One void DIF object running an if statement over expression statements
 * with forward branches. */
struct eng_difo *eng_cg_stmt(struct eng_pcb *pc, struct eng_node *s)
{
	struct cg g;

	cg_init(&g, pc);
	stmt(&g, s);
	return finish(&g, DIF_REG_R0, NULL, "if");
}

/* One DIF object returning a constant (aggregation ids, defaults). */
struct eng_difo *eng_cg_const(struct eng_pcb *pc, uint64_t v,
    const char *what)
{
	struct cg g;
	int r;

	cg_init(&g, pc);
	r = cg_setx(&g, v, NULL);
	return finish(&g, r, eng_type_lookup(pc->pc_cc, "int64_t"), what);
}
