/*
 * parse_sou.c - struct, union and enum definitions, and array dimensions,
 * for the declarations of parse_decl.c.
 *
 * Members are laid out two ways.  What the D program itself declares is
 * laid out as dtrace's CTF containers do when members are added without
 * offsets: each member starts at the first byte after the last bit of the
 * one before, rounded up to its alignment; a bit-field's storage is the
 * smallest power-of-two number of bytes holding its bits (aligned to that
 * size); a struct ends where its last member ends (no tail padding).  So
 * struct { int a : 1; int b : 3; } is two bytes, as dtrace says.  What C
 * headers included under -C declare is laid out as the C compiler does
 * (bit-fields share their type's unit, sizes rounded to the alignment),
 * because those structs describe memory a C program wrote.
 *
 * Types and members outlive the program (eng_cc_palloc).  Enumerators
 * become global identifiers (ID_ENUMVAL).
 */
#include <limits.h>
#include <string.h>
#include "parse_impl.h"

/* Skip a balanced open ... close group (the next token is open). */
void eng_parse_skip(struct eng_pcb *pc, int open, int close)
{
	int depth = 0;

	do {
		struct eng_token *t = next(pc);

		if (t->tk_kind == T_EOF)
			syntax(pc, t);
		depth += (t->tk_kind == open) - (t->tk_kind == close);
	} while (depth > 0);
}

/* Is the declaration being parsed the D program's own (not a -C header)? */
static int in_d(const struct eng_pcb *pc)
{
	return pc->pc_curfile == NULL;
}

/*
 * dim = constant-expression: a positive integral constant no larger than
 * UINT_MAX (and an array no larger than 4 GB of elem).
 */
uint64_t eng_parse_dim(struct eng_pcb *pc, const struct eng_type *elem)
{
	struct eng_node *e = eng_parse_conditional(pc);

	eng_sema_expr(pc, e);
	if (!e->n_const || !eng_type_is_int(e->n_type) || e->n_int == 0 ||
	    (e->n_type->t_signed && (int64_t)e->n_int < 0))
		eng_cc_nerror(pc, e, "D_DECL_ARRSUB", "positive integral "
		    "constant expression or tuple signature expected as array "
		    "declaration subscript");
	if (e->n_int > UINT_MAX || (elem != NULL &&
	    e->n_int * (elem->t_size ? elem->t_size : 1) > UINT_MAX))
		eng_cc_nerror(pc, e, "D_DECL_ARRBIG", "array dimension too big");
	return e->n_int;
}

/*
 * dims = { "[" dim "]" }: t[2][3] is an array of two arrays of three,
 * so the dimensions apply from the last one back.
 */
struct eng_type *eng_parse_dims(struct eng_pcb *pc, struct eng_type *t)
{
	uint64_t dims[16];
	int n = 0;

	while (accept(pc, '[')) {
		if (n == 16)
			syntax(pc, peek(pc));
		dims[n++] = is(pc, ']') ? 0 : eng_parse_dim(pc, t);
		expect(pc, ']');
	}
	while (n-- > 0)
		t = eng_type_array(pc, t, (uint32_t)dims[n]);
	return t;
}

/*
 * A member without a name that is itself a struct or union (C11, used by
 * system headers: "union { ... };"): its members become members of st at
 * their offsets, as C makes them accessible.  Returns the new offset.
 */
static uint32_t anonymous(struct eng_pcb *pc, struct eng_type *base,
    struct eng_member ***tail, uint32_t off, int is_union,
    struct eng_type *st)
{
	uint32_t a = base->t_align ? base->t_align : 1;
	uint32_t at = is_union ? 0 : (off + a - 1) / a * a;

	for (struct eng_member *m = base->t_members; m != NULL;
	    m = m->m_next) {
		struct eng_member *c = eng_cc_palloc(pc, sizeof(*c));

		*c = *m;
		c->m_off += at;
		c->m_next = NULL;
		**tail = c;
		*tail = &c->m_next;
	}
	if (is_union) {
		if (base->t_size > st->t_size)
			st->t_size = base->t_size;
		return off;
	}
	return at + base->t_size;
}

/* Where the members laid out so far end. */
struct layout {
	uint32_t off;		/* next free byte (a struct's) */
	uint32_t bitpos;	/* C: bits used of the current bit-field unit */
	uint64_t endbit;	/* D: the bit after the last member */
	uint32_t maxa;		/* the largest alignment */
	int is_union;
	int d;			/* D's own layout (see the top) */
};

/* ": bits" of member m of type t: dtrace's checks, in its order. */
static void bitfield(struct eng_pcb *pc, struct eng_member *m,
    const struct eng_type *t)
{
	struct eng_node *e = eng_parse_conditional(pc);
	const char *name = m->m_name[0] != '\0' ? m->m_name : "(anon)";

	eng_sema_expr(pc, e);
	if (m->m_name[0] == '\0' && e->n_const && e->n_int == 0) {
		m->m_bits = -1;		/* ": 0": no member, no storage */
		return;
	}
	if (!e->n_const || !eng_type_is_int(e->n_type) || e->n_int == 0 ||
	    (e->n_type->t_signed && (int64_t)e->n_int < 0))
		eng_cc_nerror(pc, e, "D_DECL_BFCONST", "positive integral "
		    "constant expression expected as bit-field size");
	if (t->t_kind != TY_INT)
		eng_cc_nerror(pc, e, "D_DECL_BFTYPE", "invalid type for "
		    "bit-field: %s", name);
	if (e->n_int > (uint64_t)t->t_size * 8)
		eng_cc_nerror(pc, e, "D_DECL_BFSIZE", "bit-field too big for "
		    "type: %s", name);
	m->m_bits = (int)e->n_int;
}

/* member-declarator = { "*" } [ name | "(" "*" name ")" "(" ... ")"
 *                     | name "(" ... ")" ] dims [ ":" bits ] */
static struct eng_member *member(struct eng_pcb *pc, struct eng_type *base)
{
	struct eng_member *m = eng_cc_palloc(pc, sizeof(*m));
	struct eng_type *t = base;

	m->m_name = "";
	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	if (accept(pc, '(')) {	/* (*name)(params): a pointer */
		expect(pc, '*');
		m->m_name = eng_cc_pstrdup(pc, expect_ident(pc));
		expect(pc, ')');
		eng_parse_skip(pc, '(', ')');
		t = eng_type_ptr(pc, eng_type_lookup(pc->pc_cc, "void"));
	} else if (is(pc, T_IDENT)) {
		m->m_name = eng_cc_pstrdup(pc, expect_ident(pc));
		if (is(pc, '(') && in_d(pc)) {
			eng_parse_skip(pc, '(', ')');
			eng_cc_error(pc, pc->pc_prev.tk_line, 0,
			    "D_DECL_VOIDOBJ", "cannot have void member: %s",
			    m->m_name);
		}
	} else if (!is(pc, ':')) {
		syntax(pc, peek(pc));
	}
	t = eng_parse_dims(pc, t);
	m->m_type = t;
	if (accept(pc, ':'))
		bitfield(pc, m, t);
	return m;
}

/* dtrace's checks of a member's type (D declarations only). */
static void check_member(struct eng_pcb *pc, const struct eng_type *st,
    const struct eng_member *m, int line)
{
	const struct eng_type *t = m->m_type;

	if (!in_d(pc) || m->m_bits < 0)
		return;
	if (m->m_name[0] != '\0' && eng_type_member((struct eng_type *)st,
	    m->m_name) != NULL)
		eng_cc_error(pc, line, 0, "D_UNKNOWN", "failed to define member "
		    "'%s': Duplicate member or variable name", m->m_name);
	if (t->t_kind == TY_FORWARD || ((t->t_kind == TY_STRUCT ||
	    t->t_kind == TY_UNION) && t->t_size == 0))
		eng_cc_error(pc, line, 0, "D_DECL_INCOMPLETE", "incomplete "
		    "struct/union/enum %s: %s", eng_type_tname(t),
		    m->m_name[0] ? m->m_name : "(anon)");
	if (t->t_size == 0 && !(t->t_kind == TY_ARRAY && t->t_nelems == 0))
		eng_cc_error(pc, line, 0, "D_DECL_VOIDOBJ", "cannot have void "
		    "member: %s", m->m_name[0] ? m->m_name : "(anon)");
}

/* The smallest power of two at least n. */
static uint32_t clp2(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* D's layout of member m (see the top of the file). */
static void place_d(struct layout *lo, struct eng_member *m,
    struct eng_type *st)
{
	uint32_t size = m->m_bits ? clp2(((uint32_t)m->m_bits + 7) / 8) :
	    m->m_type->t_size;
	uint32_t a = m->m_bits ? size : m->m_type->t_align ?
	    m->m_type->t_align : 1;
	uint64_t off;

	m->m_bitoff = 0;
	if (lo->is_union) {
		m->m_off = 0;
		if (size > st->t_size)
			st->t_size = size;
	} else {
		off = (lo->endbit + 7) / 8;
		off = (off + a - 1) / a * a;
		m->m_off = (uint32_t)off;
		lo->endbit = off * 8 + (m->m_bits ? (uint64_t)m->m_bits :
		    (uint64_t)size * 8);
		lo->off = (uint32_t)off + size;
	}
	if (a > lo->maxa)
		lo->maxa = a;
}

/*
 * The C compiler's layout of member m: a bit-field shares the unit of
 * its type's size with the bit-fields before it while they fit; a
 * union's members all start at 0.
 */
static void place_c(struct layout *lo, struct eng_member *m,
    struct eng_type *st)
{
	struct eng_type *t = m->m_type;
	uint32_t a = t->t_align ? t->t_align : 1;

	if (m->m_bits != 0 && !lo->is_union) {
		uint32_t unit = lo->off - lo->off % a;

		if (lo->bitpos + (uint32_t)m->m_bits > t->t_size * 8 ||
		    lo->bitpos == 0) {
			unit = (lo->off + a - 1) / a * a;
			lo->bitpos = 0;
		}
		m->m_off = unit;
		m->m_bitoff = (int)lo->bitpos;
		lo->bitpos += (uint32_t)m->m_bits;
		lo->off = unit + (lo->bitpos + 7) / 8;
	} else {
		lo->bitpos = 0;
		lo->off = lo->is_union ? 0 : (lo->off + a - 1) / a * a;
		m->m_off = lo->off;
		if (!lo->is_union)
			lo->off += t->t_size;
		else if (t->t_size > st->t_size)
			st->t_size = t->t_size;
	}
	if (a > lo->maxa)
		lo->maxa = a;
}

/* struct-body = "{" { type member-declarator {"," member-declarator} ";"
 *                   | struct-or-union ";" } "}" */
static void members(struct eng_pcb *pc, struct eng_type *st)
{
	struct eng_member **tail = &st->t_members;
	struct layout lo = { .maxa = 1, .is_union = st->t_kind == TY_UNION,
	    .d = in_d(pc) };

	expect(pc, '{');
	while (!accept(pc, '}')) {
		struct eng_type *base = eng_parse_type_name(pc);

		if ((base->t_kind == TY_STRUCT || base->t_kind == TY_UNION) &&
		    accept(pc, ';')) {
			lo.off = anonymous(pc, base, &tail, lo.off, lo.is_union,
			    st);
			lo.endbit = (uint64_t)lo.off * 8;
			lo.bitpos = 0;
			if (base->t_align > lo.maxa)
				lo.maxa = base->t_align;
			continue;
		}
		do {
			int line = peek(pc)->tk_line;
			struct eng_member *m = member(pc, base);

			check_member(pc, st, m, line);
			if (m->m_bits < 0)
				continue;
			if (lo.d)
				place_d(&lo, m, st);
			else
				place_c(&lo, m, st);
			*tail = m;
			tail = &m->m_next;
		} while (accept(pc, ','));
		expect(pc, ';');
	}
	if (!lo.is_union)
		st->t_size = lo.off;
	st->t_align = lo.maxa;
	if (!lo.d)
		st->t_size = (st->t_size + lo.maxa - 1) / lo.maxa * lo.maxa;
	st->t_kind = lo.is_union ? TY_UNION : TY_STRUCT;
}

/* An enumerator's name may not name anything else in D (dtrace checks
 * this for D enumerators, not for those of C headers). */
static void check_enumerator(struct eng_pcb *pc, const struct eng_type *et,
    const char *name, int line)
{
	struct eng_ident *id;

	for (const struct eng_enumval *ev = et->t_enums; ev != NULL;
	    ev = ev->ev_next)
		if (strcmp(ev->ev_name, name) == 0)
			eng_cc_error(pc, line, 0, "D_UNKNOWN", "failed to define "
			    "enumerator '%s': Duplicate member or variable name",
			    name);
	if (!in_d(pc))
		return;
	id = eng_cc_ident(pc, name, SC_GLOBAL, 0);
	if ((id != NULL && (id->i_kind != ID_VAR || id->i_type != NULL)) ||
	    eng_sema_builtin(name) != NULL || eng_sema_func(name) != NULL)
		eng_cc_error(pc, line, 0, "D_DECL_IDRED", "identifier "
		    "redeclared: %s", name);
}

/* enum-body = "{" name ["=" const] {"," name ["=" const]} "}" */
static void enumerators(struct eng_pcb *pc, struct eng_type *et)
{
	int64_t v = 0;
	struct eng_enumval **tail = &et->t_enums;

	expect(pc, '{');
	do {
		struct eng_enumval *ev;
		struct eng_ident *id;
		int line;

		if (is(pc, '}') && tail != &et->t_enums)
			break;		/* a trailing comma; "{ }" is an error */
		ev = eng_cc_palloc(pc, sizeof(*ev));
		line = peek(pc)->tk_line;
		if (peek(pc)->tk_kind == T_IDENT &&
		    eng_parse_is_type(pc, pc->pc_tok.tk_text))
			syntax(pc, peek(pc));	/* enum e { int } */
		ev->ev_name = eng_cc_pstrdup(pc, expect_ident(pc));
		if (accept(pc, '=')) {
			struct eng_node *e = eng_parse_assign(pc);

			eng_sema_expr(pc, e);
			if (!e->n_const)
				eng_cc_nerror(pc, e, "D_DECL_ENCONST", "enumerator "
				    "'%s' must be assigned to an integral constant "
				    "expression", ev->ev_name);
			v = (int64_t)e->n_int;
			if (!e->n_type->t_signed && e->n_int > INT_MAX)
				v = INT64_MAX;
			if (v > INT_MAX || v < INT_MIN)
				eng_cc_nerror(pc, e, "D_DECL_ENOFLOW", "enumerator "
				    "'%s' value overflows INT_MAX (%d)", ev->ev_name,
				    INT_MAX);
		}
		check_enumerator(pc, et, ev->ev_name, line);
		ev->ev_value = v++;
		*tail = ev;
		tail = &ev->ev_next;
		id = eng_cc_ident(pc, ev->ev_name, SC_GLOBAL, 1);
		if (id->i_kind == ID_VAR)
			eng_ident_not_var(pc, id);
		id->i_kind = ID_ENUMVAL;
		id->i_value = ev->ev_value;
		id->i_type = eng_type_int(pc->pc_cc, 4, 1);
	} while (accept(pc, ','));
	expect(pc, '}');
	et->t_kind = TY_ENUM;
	et->t_size = et->t_align = 4;
	et->t_signed = 1;
}

/* struct-or-union-or-enum = ("struct"|"union"|"enum") [name] [body] */
struct eng_type *eng_parse_tagged(struct eng_pcb *pc, const char *kw)
{
	char full[160];
	struct eng_type *t = NULL;
	const char *name = NULL;

	if (is(pc, T_IDENT)) {
		name = next(pc)->tk_text;
		snprintf(full, sizeof(full), "%s %s", kw, name);
		t = eng_type_lookup(pc->pc_cc, full);
	}
	if (t == NULL) {
		enum eng_tkind k = kw[0] == 's' ? TY_STRUCT : kw[0] == 'u' ?
		    TY_UNION : TY_ENUM;

		if (name == NULL)
			snprintf(full, sizeof(full), "%s <anon>", kw);
		t = eng_type_new(pc->pc_cc, TY_FORWARD, full);
		t->t_signed = k;	/* remembered until defined */
		if (name != NULL)
			eng_type_add(pc->pc_cc, t);
	}
	if (is(pc, '{')) {
		if (t->t_kind != TY_FORWARD)
			eng_cc_error(pc, peek(pc)->tk_line, peek(pc)->tk_col,
			    "D_DECL_TYPERED", "type redeclared: %s", t->t_name);
		if (kw[0] == 'e') {
			enumerators(pc, t);
		} else {
			t->t_kind = kw[0] == 's' ? TY_STRUCT : TY_UNION;
			t->t_signed = 0;
			members(pc, t);
		}
	}
	return t;
}
