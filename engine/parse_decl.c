/*
 * parse_decl.c - the D parser's declarations: type names (C's integer
 * words, typedef names, struct/union/enum with their bodies, pointers),
 * variable declarations, typedef, inline, translator and provider
 * definitions.  Expressions, statements and clauses are in parse.c;
 * parse_impl.h says what the two share.
 *
 * One function per grammar rule, the rule in the comment above it.
 * Declarations are entered into the tables as they are parsed, because
 * a typedef changes how a later "(name)" parses: struct/union/enum and
 * typedef names go into the handle's type table, variables, inlines,
 * enumerators and translators into its identifiers.  What outlives the
 * program (types, members, identifiers) is allocated in the handle's
 * arena (eng_cc_palloc); provider definitions go to the program (hdr.c).
 * C constructs that system headers hold under -C (function prototypes
 * and bodies, function pointer members, anonymous members) are accepted
 * and declare nothing D cannot use.
 */
#include <string.h>
#include "parse_impl.h"

/* ---- types in the grammar --------------------------------------------- */

static const char *const type_kws[] = {
	"char", "short", "int", "long", "signed", "unsigned", "void",
	"string", "struct", "union", "enum", "const", "volatile",
	"userland", "float", "double", "restrict", NULL
};

/* Does word w name a type (a keyword, or a typedef no variable hides)? */
int eng_parse_is_type(struct eng_pcb *pc, const char *w)
{
	for (int i = 0; type_kws[i] != NULL; i++)
		if (strcmp(w, type_kws[i]) == 0)
			return 1;
	return eng_type_lookup(pc->pc_cc, w) != NULL &&
	    eng_cc_ident(pc, w, SC_GLOBAL, 0) == NULL;
}

static int is_type_kw(const char *w)
{
	for (int i = 0; type_kws[i] != NULL; i++)
		if (strcmp(w, type_kws[i]) == 0)
			return 1;
	return 0;
}

static int at_type(struct eng_pcb *pc)
{
	return peek(pc)->tk_kind == T_IDENT &&
	    eng_parse_is_type(pc, pc->pc_tok.tk_text);
}

/* Skip a balanced open ... close group (the next token is open). */
static void skip_balanced(struct eng_pcb *pc, int open, int close)
{
	int depth = 0;

	do {
		struct eng_token *t = next(pc);

		if (t->tk_kind == T_EOF)
			syntax(pc, t);
		depth += (t->tk_kind == open) - (t->tk_kind == close);
	} while (depth > 0);
}

/* An array size: an integral constant expression (15 * sizeof (int)). */
static uint64_t const_size(struct eng_pcb *pc)
{
	struct eng_node *e = eng_parse_conditional(pc);

	eng_sema_expr(pc, e);
	if (!e->n_const || (int64_t)e->n_int < 0 || e->n_int > UINT32_MAX)
		eng_cc_nerror(pc, e, "D_DECL_ARRSUB", "array dimension "
		    "must be a positive integral constant expression");
	return e->n_int;
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
	uint32_t bitpos;	/* bits used of the current bit-field unit */
	uint32_t maxa;		/* the largest alignment */
	int is_union;
};

/* member-declarator = { "*" } (name | "(" "*" name ")" "(" ... ")")
 *                     { "[" [size] "]" } [ ":" bits ] */
static struct eng_member *member(struct eng_pcb *pc, struct eng_type *base)
{
	struct eng_member *m = eng_cc_palloc(pc, sizeof(*m));
	struct eng_type *t = base;

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	if (accept(pc, '(')) {	/* (*name)(params): a pointer */
		expect(pc, '*');
		m->m_name = eng_cc_pstrdup(pc, expect_ident(pc));
		expect(pc, ')');
		skip_balanced(pc, '(', ')');
		t = eng_type_ptr(pc, eng_type_lookup(pc->pc_cc, "void"));
	} else {
		m->m_name = eng_cc_pstrdup(pc, expect_ident(pc));
	}
	while (accept(pc, '[')) {
		uint64_t n = is(pc, ']') ? 0 : const_size(pc);

		expect(pc, ']');
		t = eng_type_array(pc, t, (uint32_t)n);
	}
	m->m_type = t;
	if (accept(pc, ':')) {
		struct eng_token *b = expect(pc, T_INT);

		if (b->tk_int == 0 || b->tk_int > t->t_size * 8 ||
		    !eng_type_is_int(t))
			eng_cc_error(pc, b->tk_line, b->tk_col, "D_DECL_BFSIZE",
			    "bit-field size of %s is invalid", m->m_name);
		m->m_bits = (int)b->tk_int;
	}
	return m;
}

/*
 * Give m of struct or union st its offset after what lo laid out: a
 * bit-field shares the unit of its type's size with the bit-fields
 * before it while they fit; a union's members all start at 0.
 */
static void place(struct layout *lo, struct eng_member *m,
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
	struct layout lo = { .off = 0, .bitpos = 0, .maxa = 1,
	    .is_union = st->t_kind == TY_UNION };

	expect(pc, '{');
	while (!accept(pc, '}')) {
		struct eng_type *base = eng_parse_type_name(pc);

		if ((base->t_kind == TY_STRUCT || base->t_kind == TY_UNION) &&
		    accept(pc, ';')) {
			lo.off = anonymous(pc, base, &tail, lo.off, lo.is_union,
			    st);
			lo.bitpos = 0;
			if (base->t_align > lo.maxa)
				lo.maxa = base->t_align;
			continue;
		}
		do {
			struct eng_member *m = member(pc, base);

			place(&lo, m, st);
			*tail = m;
			tail = &m->m_next;
		} while (accept(pc, ','));
		expect(pc, ';');
	}
	if (!lo.is_union)
		st->t_size = lo.off;
	st->t_align = lo.maxa;
	st->t_size = (st->t_size + lo.maxa - 1) / lo.maxa * lo.maxa;
	st->t_kind = lo.is_union ? TY_UNION : TY_STRUCT;
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

		if (is(pc, '}'))
			break;
		ev = eng_cc_palloc(pc, sizeof(*ev));
		ev->ev_name = eng_cc_pstrdup(pc, expect_ident(pc));
		if (accept(pc, '=')) {
			struct eng_node *e = eng_parse_assign(pc);

			eng_sema_expr(pc, e);
			if (!e->n_const)
				eng_cc_nerror(pc, e, "D_DECL_ENCONST", "enumerator "
				    "'%s' must be assigned an integral constant "
				    "expression", ev->ev_name);
			v = (int64_t)e->n_int;
		}
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
static struct eng_type *tagged(struct eng_pcb *pc, const char *kw)
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

/* type-specifiers = { qualifier | int-word | typedef-name | tagged } */
static struct eng_type *specifiers(struct eng_pcb *pc)
{
	int nlong = 0, sgn = -1, size = 0, any = 0, userland = 0;
	struct eng_type *t = NULL;
	struct eng_cc *cc = pc->pc_cc;

	while (at_type(pc)) {
		const char *w = peek(pc)->tk_text;

		if (t != NULL && !strcmp(w, "const") + !strcmp(w, "volatile") +
		    !strcmp(w, "restrict") == 0 && (size || t))
			break;
		/* long int intptr_t: a type name after a type is the name
		 * being declared (C headers redefine D's typedefs) */
		if ((size || nlong || sgn >= 0) && !is_type_kw(w))
			break;
		next(pc);
		any = 1;
		if (!strcmp(w, "const") || !strcmp(w, "volatile") ||
		    !strcmp(w, "restrict"))
			continue;
		if (!strcmp(w, "userland")) {
			userland = 1;
		} else if (!strcmp(w, "signed") || !strcmp(w, "unsigned")) {
			sgn = w[0] == 's';
		} else if (!strcmp(w, "long")) {
			nlong++;
		} else if (!strcmp(w, "short")) {
			size = 2;
		} else if (!strcmp(w, "char")) {
			size = 1;
		} else if (!strcmp(w, "int")) {
			if (size == 0)
				size = 4;
		} else if (!strcmp(w, "float") || !strcmp(w, "double")) {
			t = eng_type_lookup(cc, w[0] == 'f' ? "float" :
			    nlong ? "long double" : "double");
			nlong = 0;
		} else if (!strcmp(w, "struct") || !strcmp(w, "union") ||
		    !strcmp(w, "enum")) {
			t = tagged(pc, w);
		} else {
			t = eng_type_lookup(cc, w);
		}
		if (t != NULL && (size || nlong || sgn >= 0))
			break;
	}
	if (!any)
		syntax(pc, peek(pc));
	if (t == NULL) {
		if (nlong)
			size = 8;
		if (size == 0)
			size = 4;
		t = eng_type_int(cc, size, sgn != 0);
	}
	if (userland && eng_type_is_ptr(t)) {
		struct eng_type *u = eng_type_new(cc, TY_PTR, NULL);

		if (u == NULL)
			eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
		*u = *t;
		u->t_ptrto = NULL;
		u->t_userland = 1;
		t = u;
	}
	return t;
}

/* type-name = specifiers { "*" } [ "[" int "]" ] */
struct eng_type *eng_parse_type_name(struct eng_pcb *pc)
{
	struct eng_type *t = specifiers(pc);

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	return t;
}

/*
 * declarator = { "*" } name [ "[" (type {"," type} | int) "]" ]
 * A C function prototype or definition, as system headers under -C hold,
 * declares nothing D can use: it is skipped.
 */
static void declaration(struct eng_pcb *pc, int scope)
{
	struct eng_type *base = eng_parse_type_name(pc);
	int line = pc->pc_prev.tk_line;

	if (accept(pc, ';'))
		return;		/* struct/union/enum definition only */
	do {
		struct eng_type *t = base;
		struct eng_type *keys[8];
		int nkeys = -1;
		const char *name;

		while (accept(pc, '*'))
			t = eng_type_ptr(pc, t);
		name = expect_ident(pc);
		if (is(pc, '(')) {	/* a C function (-C headers): ignored */
			skip_balanced(pc, '(', ')');
			if (is(pc, '{')) {
				skip_balanced(pc, '{', '}');
				return;
			}
			continue;
		}
		if (accept(pc, '[')) {
			nkeys = 0;
			if (is(pc, T_INT)) {
				t = eng_type_array(pc, t,
				    (uint32_t)const_size(pc));
				nkeys = -1;
			} else {
				do {
					if (nkeys == 8)
						syntax(pc, peek(pc));
					keys[nkeys++] = eng_parse_type_name(pc);
				} while (accept(pc, ','));
			}
			expect(pc, ']');
		}
		const struct eng_type *e = t;
		while (e->t_kind == TY_ARRAY)
			e = e->t_base;
		if (e->t_kind == TY_FLOAT)
			eng_cc_error(pc, line, 0, "D_TYPE_FLOAT", "variable %s "
			    "may not be of floating-point type %s", name,
			    e->t_name);
		struct eng_ident *id = eng_cc_ident(pc, name, scope, 1);
		if (id->i_type != NULL && !eng_type_compat(id->i_type, t))
			eng_cc_error(pc, line, 0, "D_DECL_IDRED", "identifier "
			    "redeclared: %s", name);
		id->i_type = t;
		id->i_line = line;
		if (nkeys >= 0) {
			id->i_kind = ID_ARRAY;
			id->i_nkeys = nkeys;
			id->i_keys = eng_cc_palloc(pc, sizeof(*keys) *
			    (size_t)(nkeys + 1));
			memcpy(id->i_keys, keys, sizeof(*keys) * (size_t)nkeys);
		}
	} while (accept(pc, ','));
	expect(pc, ';');
}

/* typedef = "typedef" type-name { "*" } name ";" */
static void typedef_decl(struct eng_pcb *pc)
{
	struct eng_type *t = eng_parse_type_name(pc), *td;
	const char *name;
	int fn = accept(pc, '(');	/* (*name)(params): C headers */

	if (fn)
		expect(pc, '*');
	name = expect_ident(pc);
	if (fn)
		expect(pc, ')');
	if (is(pc, '(')) {		/* name(params): a function type */
		skip_balanced(pc, '(', ')');
		fn = 1;
	}
	if (fn)
		t = eng_type_ptr(pc, eng_type_lookup(pc->pc_cc, "void"));
	while (accept(pc, '[')) {
		t = eng_type_array(pc, t, (uint32_t)const_size(pc));
		expect(pc, ']');
	}
	expect(pc, ';');
	td = eng_type_new(pc->pc_cc, t->t_kind, name);
	*td = *t;
	td->t_name = eng_cc_pstrdup(pc, name);
	td->t_next = NULL;
	td->t_ptrto = NULL;
	eng_type_add(pc->pc_cc, td);
}

/* inline = "inline" type-name name "=" expr ";" */
static void inline_decl(struct eng_pcb *pc)
{
	struct eng_type *t = eng_parse_type_name(pc);
	struct eng_ident *id;
	const char *name;
	struct eng_node *e;

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	name = expect_ident(pc);
	expect(pc, '=');
	e = eng_parse_expr(pc);
	expect(pc, ';');
	if (e->n_kind == N_XLATE)
		eng_sema_xlate(pc, e);	/* used as xlate<>()->member */
	else
		eng_sema_expr(pc, e);
	id = eng_cc_ident(pc, name, SC_GLOBAL, 1);
	if (id->i_kind != ID_VAR || id->i_type != NULL) {
		if (id->i_kind != ID_INLINE)
			eng_cc_nerror(pc, e, "D_DECL_IDRED",
			    "identifier redeclared: %s", name);
	}
	if (id->i_kind == ID_VAR)
		eng_ident_not_var(pc, id);
	id->i_kind = ID_INLINE;
	id->i_type = t;
	id->i_inline = eng_node_copy(pc, e);
}

/* translator = "translator" type "<" type name ">" "{" {m "=" expr ";"} "}" */
static void translator(struct eng_pcb *pc)
{
	struct eng_node *x = mknode(pc, N_XLATOR, &pc->pc_prev);
	struct eng_node **tail = &x->n_args;
	struct eng_ident *id;
	char key[256], b1[128], b2[128];

	x->n_ctype = eng_parse_type_name(pc);
	expect(pc, '<');
	x->n_type = eng_parse_type_name(pc);
	x->n_name = expect_ident(pc);
	expect(pc, '>');
	expect(pc, '{');
	while (!accept(pc, '}')) {
		struct eng_node *m = mknode(pc, N_ASSIGN, peek(pc));

		m->n_name = expect_ident(pc);
		expect(pc, '=');
		m->n_right = eng_parse_expr(pc);
		expect(pc, ';');
		*tail = m;
		tail = &m->n_next;
	}
	accept(pc, ';');
	snprintf(key, sizeof(key), "xlate %s <%s>", eng_type_name(x->n_ctype,
	    b1, sizeof(b1)), eng_type_name(x->n_type, b2, sizeof(b2)));
	/* twice in one program (a later program may define it again: dtui
	 * compiles scripts anew on one handle) */
	if ((id = eng_cc_ident(pc, key, SC_GLOBAL, 0)) != NULL &&
	    id->i_kind == ID_XLATOR && eng_ident_is_new(pc, id))
		eng_cc_nerror(pc, x, "D_XLATE_REDECL", "translator from %s to %s "
		    "has already been declared", b2, b1);
	eng_sema_xlator_check(pc, x);
	id = eng_cc_ident(pc, eng_cc_strdup(pc, key, strlen(key)),
	    SC_GLOBAL, 1);
	if (id->i_kind == ID_VAR)
		eng_ident_not_var(pc, id);
	id->i_kind = ID_XLATOR;
	id->i_inline = eng_node_copy(pc, x);
}

/* One probe argument's type: its tokens joined by spaces ("char *"). */
static const char *probe_arg(struct eng_pcb *pc)
{
	char buf[256];
	size_t n = 0;
	int depth = 0, prev = 0;

	for (;;) {
		struct eng_token *t = peek(pc);
		int k = t->tk_kind;

		if (k == T_EOF || k == ';' || (depth == 0 && (k == ',' ||
		    k == ')')))
			break;
		if (n + t->tk_len + 2 >= sizeof(buf))
			eng_cc_error(pc, t->tk_line, t->tk_col, "D_PROV_PRARGLEN",
			    "probe argument type is too long");
		depth += (k == '(' || k == '[') - (k == ')' || k == ']');
		if (n > 0 && !(prev == '*' && k == '*') && prev != '(' &&
		    prev != '[' && k != ')' && k != ']')
			buf[n++] = ' ';
		memcpy(buf + n, t->tk_pos, t->tk_len);
		n += t->tk_len;
		prev = k;
		next(pc);
	}
	if (n == 0)
		syntax(pc, peek(pc));
	return eng_cc_strdup(pc, buf, n);
}

/* probe = "probe" name "(" [ type { "," type } ] ")" [ ":" "(" ... ")" ] ";" */
static void probe_decl(struct eng_pcb *pc, struct eng_provdef *pv)
{
	const char *args[ENG_PROV_MAXARGS];
	struct eng_token *t = expect(pc, T_IDENT);
	const char *name;
	int nargs = 0, line, col;

	if (strcmp(t->tk_text, "probe") != 0)
		syntax(pc, t);
	t = expect(pc, T_IDENT);
	name = eng_cc_strdup(pc, t->tk_text, strlen(t->tk_text));
	line = t->tk_line;
	col = t->tk_col;
	expect(pc, '(');
	while (!accept(pc, ')')) {
		if (nargs == ENG_PROV_MAXARGS)
			eng_cc_error(pc, line, col, "D_PROV_PRARGLEN",
			    "probe %s:%s has more than %d arguments",
			    pv->pv_name, name, ENG_PROV_MAXARGS);
		if (nargs > 0)
			expect(pc, ',');
		args[nargs++] = probe_arg(pc);
	}
	if (nargs == 1 && strcmp(args[0], "void") == 0)
		nargs = 0;
	if (accept(pc, ':')) {		/* translated argument types */
		expect(pc, '(');
		for (int depth = 1; depth > 0; next(pc)) {
			if (peek(pc)->tk_kind == T_EOF)
				syntax(pc, peek(pc));
			depth += is(pc, '(') - is(pc, ')');
		}
	}
	expect(pc, ';');
	eng_prov_probe(pc, pv, name, args, nargs, line);
}

/* provider = "provider" name "{" { probe } "}" */
static void provider(struct eng_pcb *pc)
{
	struct eng_token *t = expect(pc, T_IDENT);
	struct eng_provdef *pv = eng_prov_def(pc, eng_cc_strdup(pc,
	    t->tk_text, strlen(t->tk_text)), t->tk_line);

	expect(pc, '{');
	while (!accept(pc, '}'))
		probe_decl(pc, pv);
	accept(pc, ';');
}

/* Does the next top-level item start with a declaration keyword? */
int eng_parse_at_decl(struct eng_pcb *pc)
{
	size_t len;
	const char *w = eng_lex_peek_word(pc, &len);
	char buf[128];
	static const char *const kws[] = { "inline", "typedef", "translator",
	    "provider", "self", "this", "extern", "static", "register",
	    NULL };

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, w, len);
	buf[len] = '\0';
	if (w[len] == ':')
		return 0;	/* a probe description */
	for (int i = 0; kws[i] != NULL; i++)
		if (!strcmp(buf, kws[i]))
			return 1;
	return eng_parse_is_type(pc, buf);
}

/* A top-level declaration; eng_parse_at_decl() said one starts here. */
void eng_parse_decl(struct eng_pcb *pc)
{
	struct eng_token *t = next(pc);
	const char *w = t->tk_text;

	if (!strcmp(w, "inline")) {
		inline_decl(pc);
	} else if (!strcmp(w, "typedef")) {
		typedef_decl(pc);
	} else if (!strcmp(w, "translator")) {
		translator(pc);
	} else if (!strcmp(w, "provider")) {
		provider(pc);
	} else if (!strcmp(w, "self") || !strcmp(w, "this")) {
		declaration(pc, w[0] == 's' ? SC_THREAD : SC_LOCAL);
	} else if (!strcmp(w, "extern") || !strcmp(w, "static") ||
	    !strcmp(w, "register")) {
		declaration(pc, SC_GLOBAL);
	} else {
		pc->pc_tokvalid = 1;
		pc->pc_tok = *t;
		declaration(pc, SC_GLOBAL);
	}
	if (pc->pc_tokvalid)
		syntax(pc, peek(pc));
}
