/*
 * parse.c - the D parser: tokens -> AST (struct eng_node).
 *
 * One function per grammar rule, the rule in the comment above it.
 * Binary operators go through one precedence-climbing loop over
 * binops[] (C's levels plus D's ^^ between || and &&); unary, postfix
 * and primary expressions are written by hand.  The parser tells the
 * lexer which mode it wants: at the start of a top-level item it peeks at
 * the next word and reads a probe description unless the word starts a
 * declaration.  Declarations (types, typedefs, variables, inlines) are
 * entered into the tables as they are parsed, because a typedef changes
 * how a later "(name)" parses.  Nesting is bounded (no input can exhaust
 * the stack).
 */
#include <string.h>
#include "cc.h"

#define MAX_DEPTH 200

struct eng_node *eng_node_new(struct eng_pcb *pc, enum eng_nkind k,
    int line, int col)
{
	struct eng_node *n = eng_cc_alloc(pc, sizeof(*n));

	n->n_kind = k;
	n->n_line = line;
	n->n_col = col;
	n->n_reg = -1;
	return n;
}

static struct eng_token *peek(struct eng_pcb *pc)
{
	if (!pc->pc_tokvalid) {
		eng_lex_next(pc, &pc->pc_tok);
		pc->pc_tok.tk_len = (size_t)(pc->pc_pos - pc->pc_tok.tk_pos);
		pc->pc_tokvalid = 1;
	}
	return &pc->pc_tok;
}

static struct eng_token *next(struct eng_pcb *pc)
{
	peek(pc);
	pc->pc_prev = pc->pc_tok;
	pc->pc_tokvalid = 0;
	return &pc->pc_prev;
}

static _Noreturn void syntax(struct eng_pcb *pc, const struct eng_token *t)
{
	if (t->tk_kind == T_EOF)
		eng_cc_error(pc, t->tk_line, t->tk_col, "D_SYNTAX",
		    "syntax error near end of input");
	eng_cc_error(pc, t->tk_line, t->tk_col, "D_SYNTAX",
	    "syntax error near \"%.*s\"", (int)(t->tk_len > 64 ? 64 :
	    t->tk_len), t->tk_pos);
}

static int is(struct eng_pcb *pc, int kind)
{
	return peek(pc)->tk_kind == kind;
}

static int is_kw(struct eng_pcb *pc, const char *kw)
{
	struct eng_token *t = peek(pc);

	return t->tk_kind == T_IDENT && strcmp(t->tk_text, kw) == 0;
}

static int accept(struct eng_pcb *pc, int kind)
{
	if (!is(pc, kind))
		return 0;
	next(pc);
	return 1;
}

static struct eng_token *expect(struct eng_pcb *pc, int kind)
{
	if (!is(pc, kind))
		syntax(pc, peek(pc));
	return next(pc);
}

static const char *expect_ident(struct eng_pcb *pc)
{
	return expect(pc, T_IDENT)->tk_text;
}

static struct eng_node *mknode(struct eng_pcb *pc, enum eng_nkind k,
    const struct eng_token *t)
{
	return eng_node_new(pc, k, t->tk_line, t->tk_col);
}

static void enter(struct eng_pcb *pc)
{
	if (++pc->pc_depth > MAX_DEPTH)
		eng_cc_error(pc, peek(pc)->tk_line, peek(pc)->tk_col,
		    "D_SYNTAX", "expression nested too deeply");
}

static struct eng_node *expr(struct eng_pcb *pc);
static struct eng_node *assign(struct eng_pcb *pc);
static struct eng_node *unary(struct eng_pcb *pc);
static struct eng_type *type_name(struct eng_pcb *pc);

/* ---- types in the grammar --------------------------------------------- */

static const char *const type_kws[] = {
	"char", "short", "int", "long", "signed", "unsigned", "void",
	"string", "struct", "union", "enum", "const", "volatile",
	"userland", "float", "double", "restrict", NULL
};

static int word_is_type(struct eng_pcb *pc, const char *w)
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
	return peek(pc)->tk_kind == T_IDENT && word_is_type(pc, pc->pc_tok.tk_text);
}

static struct eng_node *conditional(struct eng_pcb *pc);
static void skip_balanced(struct eng_pcb *pc, int open, int close);

/* An array size: an integral constant expression (15 * sizeof (int)). */
static uint64_t const_size(struct eng_pcb *pc)
{
	struct eng_node *e = conditional(pc);

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

/* struct-declaration = type declarator [":" bits] ";" */
static void members(struct eng_pcb *pc, struct eng_type *st)
{
	struct eng_member **tail = &st->t_members;
	uint32_t off = 0, maxa = 1, bitpos = 0;
	int is_union = st->t_kind == TY_UNION;

	expect(pc, '{');
	while (!accept(pc, '}')) {
		struct eng_type *base = type_name(pc);

		if ((base->t_kind == TY_STRUCT || base->t_kind == TY_UNION) &&
		    accept(pc, ';')) {
			off = anonymous(pc, base, &tail, off, is_union, st);
			bitpos = 0;
			if (base->t_align > maxa)
				maxa = base->t_align;
			continue;
		}
		do {
			struct eng_member *m = eng_cc_palloc(pc, sizeof(*m));
			struct eng_type *t = base;

			while (accept(pc, '*'))
				t = eng_type_ptr(pc, t);
			if (accept(pc, '(')) {	/* (*name)(params): a pointer */
				expect(pc, '*');
				m->m_name = eng_cc_pstrdup(pc, expect_ident(pc));
				expect(pc, ')');
				skip_balanced(pc, '(', ')');
				t = eng_type_ptr(pc, eng_type_lookup(pc->pc_cc,
				    "void"));
			} else {
				m->m_name = eng_cc_pstrdup(pc,
				    expect_ident(pc));
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
					eng_cc_error(pc, b->tk_line, b->tk_col,
					    "D_DECL_BFSIZE", "bit-field size "
					    "of %s is invalid", m->m_name);
				m->m_bits = (int)b->tk_int;
			}
			uint32_t a = t->t_align ? t->t_align : 1;
			if (m->m_bits != 0 && !is_union) {
				uint32_t unit = off - off % a;

				if (bitpos + (uint32_t)m->m_bits > t->t_size * 8 ||
				    bitpos == 0) {
					unit = (off + a - 1) / a * a;
					bitpos = 0;
				}
				m->m_off = unit;
				m->m_bitoff = (int)bitpos;
				bitpos += (uint32_t)m->m_bits;
				off = unit + (bitpos + 7) / 8;
				if (off < unit + t->t_size && bitpos < t->t_size * 8)
					off = unit + (bitpos + 7) / 8;
			} else {
				bitpos = 0;
				off = is_union ? 0 : (off + a - 1) / a * a;
				m->m_off = off;
				if (!is_union)
					off += t->t_size;
				else if (t->t_size > st->t_size)
					st->t_size = t->t_size;
			}
			if (a > maxa)
				maxa = a;
			*tail = m;
			tail = &m->m_next;
		} while (accept(pc, ','));
		expect(pc, ';');
	}
	if (!is_union)
		st->t_size = off;
	st->t_align = maxa;
	st->t_size = (st->t_size + maxa - 1) / maxa * maxa;
	st->t_kind = is_union ? TY_UNION : TY_STRUCT;
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
			struct eng_node *e = assign(pc);

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
static struct eng_type *type_name(struct eng_pcb *pc)
{
	struct eng_type *t = specifiers(pc);

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	return t;
}

/* ---- expressions -------------------------------------------------------- */

static const struct binop { int tok; int prec; } binops[] = {
	{ T_LOR, 1 }, { T_LXOR, 2 }, { T_LAND, 3 }, { '|', 4 }, { '^', 5 },
	{ '&', 6 }, { T_EQ, 7 }, { T_NE, 7 }, { '<', 8 }, { '>', 8 },
	{ T_LE, 8 }, { T_GE, 8 }, { T_SHL, 9 }, { T_SHR, 9 }, { '+', 10 },
	{ '-', 10 }, { '*', 11 }, { '/', 11 }, { '%', 11 }, { 0, 0 }
};

static int binprec(int tok)
{
	for (int i = 0; binops[i].tok != 0; i++)
		if (binops[i].tok == tok)
			return binops[i].prec;
	return 0;
}

/* argument-list = [ assign { "," assign } ] ")" */
static struct eng_node *arglist(struct eng_pcb *pc, int close)
{
	struct eng_node *head = NULL, **tail = &head;
	int inpred = pc->pc_inpred;

	if (accept(pc, close))
		return NULL;
	pc->pc_inpred = 0;
	do {
		*tail = assign(pc);
		tail = &(*tail)->n_next;
	} while (accept(pc, ','));
	expect(pc, close);
	pc->pc_inpred = inpred;
	return head;
}

/* primary = int | string | ident | "@"name | "self->"x | "this->"x
 *         | "(" expr ")" | "offsetof(" type "," member ")"
 *         | "xlate" "<" type ">" "(" expr ")" */
static struct eng_node *primary(struct eng_pcb *pc)
{
	struct eng_token *t = next(pc);
	struct eng_node *n;

	switch (t->tk_kind) {
	case T_INT:
		n = mknode(pc, N_INT, t);
		n->n_int = t->tk_int;
		n->n_op = t->tk_unsigned;
		n->n_scope = t->tk_long;
		return n;
	case T_STR:
		n = mknode(pc, N_STR, t);
		n->n_name = t->tk_text;
		while (is(pc, T_STR)) {	/* adjacent literals concatenate */
			const char *b = next(pc)->tk_text;
			size_t la = strlen(n->n_name), lb = strlen(b);
			char *s = eng_cc_alloc(pc, la + lb + 1);

			memcpy(s, n->n_name, la);
			memcpy(s + la, b, lb);
			n->n_name = s;
		}
		return n;
	case T_AGG:
		n = mknode(pc, N_AGG, t);
		n->n_name = t->tk_text;
		if (accept(pc, '['))
			n->n_args = arglist(pc, ']');
		return n;
	case '(': {
		int inpred = pc->pc_inpred;

		pc->pc_inpred = 0;
		n = expr(pc);
		expect(pc, ')');
		pc->pc_inpred = inpred;
		return n;
	}
	case T_IDENT:
		break;
	default:
		syntax(pc, t);
	}
	if (!strcmp(t->tk_text, "self") || !strcmp(t->tk_text, "this")) {
		int sc = t->tk_text[0] == 's' ? SC_THREAD : SC_LOCAL;

		n = mknode(pc, N_VAR, t);
		expect(pc, T_ARROW);
		n->n_name = expect_ident(pc);
		n->n_scope = sc;
		return n;
	}
	if (!strcmp(t->tk_text, "offsetof")) {
		n = mknode(pc, N_OFFSETOF, t);
		expect(pc, '(');
		n->n_ctype = type_name(pc);
		expect(pc, ',');
		n->n_name = expect_ident(pc);
		expect(pc, ')');
		return n;
	}
	if (!strcmp(t->tk_text, "xlate")) {
		n = mknode(pc, N_XLATE, t);
		expect(pc, '<');
		n->n_ctype = type_name(pc);
		expect(pc, '>');
		expect(pc, '(');
		n->n_left = expr(pc);
		expect(pc, ')');
		return n;
	}
	n = mknode(pc, N_IDENT, t);
	n->n_name = t->tk_text;
	return n;
}

/* postfix = primary { "[" args "]" | "(" args ")" | "." id | "->" id
 *           | "++" | "--" } */
static struct eng_node *postfix(struct eng_pcb *pc)
{
	struct eng_node *n = primary(pc), *p;

	for (;;) {
		struct eng_token *t = peek(pc);

		if (t->tk_kind == '[') {
			next(pc);
			p = mknode(pc, N_INDEX, t);
			p->n_left = n;
			p->n_args = arglist(pc, ']');
			if (p->n_args == NULL)
				syntax(pc, &pc->pc_prev);
		} else if (t->tk_kind == '(' && n->n_kind == N_IDENT) {
			next(pc);
			p = mknode(pc, N_CALL, &pc->pc_prev);
			p->n_line = n->n_line;
			p->n_col = n->n_col;
			p->n_name = n->n_name;
			p->n_args = arglist(pc, ')');
		} else if (t->tk_kind == '.' || t->tk_kind == T_ARROW) {
			next(pc);
			p = mknode(pc, t->tk_kind == '.' ? N_MEMBER : N_PTRMEMBER,
			    &pc->pc_prev);
			p->n_left = n;
			p->n_name = expect_ident(pc);
		} else if (t->tk_kind == T_INC || t->tk_kind == T_DEC) {
			next(pc);
			p = mknode(pc, pc->pc_prev.tk_kind == T_INC ? N_POSTINC :
			    N_POSTDEC, &pc->pc_prev);
			p->n_left = n;
		} else {
			return n;
		}
		n = p;
	}
}

/* Is "(" followed by a type name (a cast or sizeof(type))? */
static int paren_type(struct eng_pcb *pc)
{
	size_t len;
	const char *w;
	char buf[128];

	if (!is(pc, '('))
		return 0;
	/* the lookahead is "(", the lexer sits just after it */
	w = eng_lex_peek_word(pc, &len);
	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, w, len);
	buf[len] = '\0';
	return word_is_type(pc, buf);
}

/* unary = ("!"|"~"|"-"|"+"|"*"|"&"|"++"|"--") unary | "(" type ")" unary
 *       | "sizeof" (unary | "(" type ")") | "stringof" unary | postfix */
static struct eng_node *unary(struct eng_pcb *pc)
{
	struct eng_token *t = peek(pc);
	struct eng_node *n;

	enter(pc);
	switch (t->tk_kind) {
	case '!': case '~': case '-': case '+': case '*': case '&':
	case T_INC: case T_DEC:
		next(pc);
		n = mknode(pc, N_OP1, &pc->pc_prev);
		n->n_op = pc->pc_prev.tk_kind;
		if (n->n_op == '*')
			n->n_kind = N_DEREF;
		else if (n->n_op == '&')
			n->n_kind = N_ADDR;
		else if (n->n_op == T_INC)
			n->n_kind = N_PREINC;
		else if (n->n_op == T_DEC)
			n->n_kind = N_PREDEC;
		n->n_left = unary(pc);
		break;
	case '(':
		if (paren_type(pc)) {
			next(pc);
			n = mknode(pc, N_CAST, &pc->pc_prev);
			n->n_ctype = type_name(pc);
			expect(pc, ')');
			n->n_left = unary(pc);
			break;
		}
		n = postfix(pc);
		break;
	case T_IDENT:
		if (!strcmp(t->tk_text, "sizeof")) {
			next(pc);
			n = mknode(pc, N_SIZEOF, &pc->pc_prev);
			if (paren_type(pc)) {
				next(pc);
				n->n_ctype = type_name(pc);
				expect(pc, ')');
			} else {
				n->n_left = unary(pc);
			}
			break;
		}
		if (!strcmp(t->tk_text, "stringof")) {
			next(pc);
			n = mknode(pc, N_STRINGOF, &pc->pc_prev);
			n->n_left = unary(pc);
			break;
		}
		n = postfix(pc);
		break;
	default:
		n = postfix(pc);
	}
	pc->pc_depth--;
	return n;
}

/* binary = unary { binop binary-of-higher-precedence } */
static struct eng_node *binary(struct eng_pcb *pc, int minprec)
{
	struct eng_node *l = unary(pc);

	enter(pc);
	for (;;) {
		int prec = binprec(peek(pc)->tk_kind);
		struct eng_node *n;

		if (prec == 0 || prec < minprec ||
		    (pc->pc_inpred && peek(pc)->tk_kind == '/'))
			break;
		next(pc);
		n = mknode(pc, N_OP2, &pc->pc_prev);
		n->n_op = pc->pc_prev.tk_kind;
		n->n_left = l;
		n->n_right = binary(pc, prec + 1);
		l = n;
	}
	pc->pc_depth--;
	return l;
}

/* conditional = binary [ "?" expr ":" conditional ] */
static struct eng_node *conditional(struct eng_pcb *pc)
{
	struct eng_node *c = binary(pc, 1), *n;

	if (!accept(pc, '?'))
		return c;
	n = mknode(pc, N_OP3, &pc->pc_prev);
	n->n_left = c;
	enter(pc);
	n->n_right = expr(pc);
	expect(pc, ':');
	n->n_third = conditional(pc);
	pc->pc_depth--;
	return n;
}

static int is_assign_op(int k)
{
	return k == '=' || (k >= T_ADD_EQ && k <= T_SHR_EQ);
}

/* assign = conditional [ assign-op assign ] */
static struct eng_node *assign(struct eng_pcb *pc)
{
	struct eng_node *l = conditional(pc), *n;

	if (!is_assign_op(peek(pc)->tk_kind))
		return l;
	next(pc);
	n = mknode(pc, N_ASSIGN, &pc->pc_prev);
	n->n_op = pc->pc_prev.tk_kind;
	n->n_left = l;
	enter(pc);
	n->n_right = assign(pc);
	pc->pc_depth--;
	return n;
}

/* expr = assign { "," assign } */
static struct eng_node *expr(struct eng_pcb *pc)
{
	struct eng_node *l = assign(pc);

	while (accept(pc, ',')) {
		struct eng_node *n = mknode(pc, N_OP2, &pc->pc_prev);

		n->n_op = ',';
		n->n_left = l;
		n->n_right = assign(pc);
		l = n;
	}
	return l;
}

/* ---- statements ------------------------------------------------------- */

static struct eng_node *statements(struct eng_pcb *pc);

/* statement = ";" | "{" statements "}" | "if" "(" expr ")" statement
 *             ["else" statement] | expr (";" | before "}") */
static struct eng_node *statement(struct eng_pcb *pc)
{
	struct eng_token *t = peek(pc);
	struct eng_node *n;

	if (t->tk_kind == '{') {
		next(pc);
		n = mknode(pc, N_BLOCK, &pc->pc_prev);
		enter(pc);
		n->n_args = statements(pc);
		pc->pc_depth--;
		expect(pc, '}');
		return n;
	}
	if (is_kw(pc, "if")) {
		next(pc);
		n = mknode(pc, N_IF, &pc->pc_prev);
		expect(pc, '(');
		n->n_left = expr(pc);
		expect(pc, ')');
		enter(pc);
		n->n_right = statement(pc);
		if (is_kw(pc, "else")) {
			next(pc);
			n->n_third = statement(pc);
		}
		pc->pc_depth--;
		return n;
	}
	n = mknode(pc, N_EXPR_STMT, t);
	n->n_left = expr(pc);
	if (n->n_left->n_kind == N_ASSIGN && n->n_left->n_left->n_kind == N_AGG)
		n->n_kind = N_AGG_STMT;
	if (!is(pc, '}'))
		expect(pc, ';');
	return n;
}

/* statements = { statement } (up to "}") */
static struct eng_node *statements(struct eng_pcb *pc)
{
	struct eng_node *head = NULL, **tail = &head;

	while (!is(pc, '}')) {
		if (accept(pc, ';'))
			continue;
		if (is(pc, T_EOF))
			syntax(pc, peek(pc));
		*tail = statement(pc);
		tail = &(*tail)->n_next;
	}
	return head;
}

/* ---- top level ------------------------------------------------------- */

/* clause = pdesc {"," pdesc} ["/" expr "/"] ["{" statements "}"] */
static struct eng_node *clause(struct eng_pcb *pc)
{
	struct eng_node *c, **tail;
	struct eng_token t;

	eng_lex_pdesc(pc, &t);
	c = mknode(pc, N_CLAUSE, &t);
	tail = &c->n_pdescs;
	for (;;) {
		struct eng_node *d = mknode(pc, N_PDESC, &t);

		d->n_name = t.tk_text;
		*tail = d;
		tail = &d->n_next;
		if (!accept(pc, ','))
			break;
		eng_lex_pdesc(pc, &t);
	}
	if (accept(pc, '/')) {
		pc->pc_inpred = 1;
		c->n_pred = expr(pc);
		pc->pc_inpred = 0;
		expect(pc, '/');
	}
	if (accept(pc, '{')) {
		c->n_args = statements(pc);
		expect(pc, '}');
		c->n_op = 1;	/* has a body */
	} else if (!(pc->pc_cflags & ENG_C_PROBESPEC) || c->n_pred != NULL) {
		syntax(pc, peek(pc));
	}
	return c;
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

/*
 * declarator = { "*" } name [ "[" (type {"," type} | int) "]" ]
 * A C function prototype or definition, as system headers under -C hold,
 * declares nothing D can use: it is skipped.
 */
static void declaration(struct eng_pcb *pc, int scope)
{
	struct eng_type *base = type_name(pc);
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
					keys[nkeys++] = type_name(pc);
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
	struct eng_type *t = type_name(pc), *td;
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
	struct eng_type *t = type_name(pc);
	struct eng_ident *id;
	const char *name;
	struct eng_node *e;

	while (accept(pc, '*'))
		t = eng_type_ptr(pc, t);
	name = expect_ident(pc);
	expect(pc, '=');
	e = expr(pc);
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

	x->n_ctype = type_name(pc);
	expect(pc, '<');
	x->n_type = type_name(pc);
	x->n_name = expect_ident(pc);
	expect(pc, '>');
	expect(pc, '{');
	while (!accept(pc, '}')) {
		struct eng_node *m = mknode(pc, N_ASSIGN, peek(pc));

		m->n_name = expect_ident(pc);
		expect(pc, '=');
		m->n_right = expr(pc);
		expect(pc, ';');
		*tail = m;
		tail = &m->n_next;
	}
	accept(pc, ';');
	snprintf(key, sizeof(key), "xlate %s <%s>", eng_type_name(x->n_ctype,
	    b1, sizeof(b1)), eng_type_name(x->n_type, b2, sizeof(b2)));
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
static int top_decl(struct eng_pcb *pc)
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
	return word_is_type(pc, buf);
}

/* program = { clause | declaration | inline | typedef | translator } */
struct eng_node *eng_parse_program(struct eng_pcb *pc)
{
	struct eng_node *head = NULL, **tail = &head;

	for (;;) {
		size_t len;

		pc->pc_tokvalid = 0;
		eng_lex_peek_word(pc, &len);
		if (*pc->pc_pos == '\0')
			break;
		if (*pc->pc_pos == ';') {
			pc->pc_pos++;
			continue;
		}
		if (!top_decl(pc)) {
			*tail = clause(pc);
			tail = &(*tail)->n_next;
			if (pc->pc_tokvalid && peek(pc)->tk_kind != T_EOF)
				syntax(pc, peek(pc));
			continue;
		}
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
	return head;
}
