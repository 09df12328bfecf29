/*
 * parse.c - the D parser: tokens -> AST (struct eng_node); this file has
 * expressions, statements, clauses and the program, parse_decl.c the
 * declarations (parse_impl.h says what the two share).
 *
 * One function per grammar rule, the rule in the comment above it.
 * Binary operators go through one precedence-climbing loop over
 * binops[] (C's levels plus D's ^^ between || and &&); unary, postfix
 * and primary expressions are written by hand.  The parser tells the
 * lexer which mode it wants: at the start of a top-level item it peeks at
 * the next word and reads a probe description unless the word starts a
 * declaration (eng_parse_at_decl()).  Nesting is bounded (no input can
 * exhaust the stack).
 */
#include <string.h>
#include "parse_impl.h"

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

static void enter(struct eng_pcb *pc)
{
	if (++pc->pc_depth > MAX_DEPTH)
		eng_cc_error(pc, peek(pc)->tk_line, peek(pc)->tk_col,
		    "D_SYNTAX", "expression nested too deeply");
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

	if (accept(pc, close))
		return NULL;
	do {
		*tail = eng_parse_assign(pc);
		tail = &(*tail)->n_next;
	} while (accept(pc, ','));
	expect(pc, close);
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
	case '(':
		n = eng_parse_expr(pc);
		expect(pc, ')');
		return n;
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
		n->n_ctype = eng_parse_type_name(pc);
		expect(pc, ',');
		n->n_name = expect_ident(pc);
		expect(pc, ')');
		return n;
	}
	if (!strcmp(t->tk_text, "xlate")) {
		n = mknode(pc, N_XLATE, t);
		expect(pc, '<');
		n->n_ctype = eng_parse_type_name(pc);
		expect(pc, '>');
		expect(pc, '(');
		n->n_left = eng_parse_expr(pc);
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
		} else if (t->tk_kind == '(') {	/* (f)(x), a[0](x) ... */
			eng_cc_error(pc, t->tk_line, t->tk_col, "D_FUNC_IDENT",
			    "function designator is not of function type");
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
	return eng_parse_is_type(pc, buf);
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
			n->n_ctype = eng_parse_type_name(pc);
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
				n->n_ctype = eng_parse_type_name(pc);
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

		if (prec == 0 || prec < minprec || pred_end(pc, peek(pc)))
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
struct eng_node *eng_parse_conditional(struct eng_pcb *pc)
{
	struct eng_node *c = binary(pc, 1), *n;

	if (!accept(pc, '?'))
		return c;
	n = mknode(pc, N_OP3, &pc->pc_prev);
	n->n_left = c;
	enter(pc);
	n->n_right = eng_parse_expr(pc);
	expect(pc, ':');
	n->n_third = eng_parse_conditional(pc);
	pc->pc_depth--;
	return n;
}

static int is_assign_op(int k)
{
	return k == '=' || (k >= T_ADD_EQ && k <= T_SHR_EQ);
}

/* assign = conditional [ assign-op assign ] */
struct eng_node *eng_parse_assign(struct eng_pcb *pc)
{
	struct eng_node *l = eng_parse_conditional(pc), *n;

	if (!is_assign_op(peek(pc)->tk_kind))
		return l;
	next(pc);
	n = mknode(pc, N_ASSIGN, &pc->pc_prev);
	n->n_op = pc->pc_prev.tk_kind;
	n->n_left = l;
	enter(pc);
	n->n_right = eng_parse_assign(pc);
	pc->pc_depth--;
	return n;
}

/* expr = assign { "," assign } */
struct eng_node *eng_parse_expr(struct eng_pcb *pc)
{
	struct eng_node *l = eng_parse_assign(pc);

	while (accept(pc, ',')) {
		struct eng_node *n = mknode(pc, N_OP2, &pc->pc_prev);

		n->n_op = ',';
		n->n_left = l;
		n->n_right = eng_parse_assign(pc);
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
		n->n_left = eng_parse_expr(pc);
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
	n->n_left = eng_parse_expr(pc);
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

/* A predicate's text between from (past its '/') and to (past the
 * closing '/') as "/expr/", its blanks squeezed to single spaces: what
 * the enablings pane shows beside the clause's probes. */
static const char *pred_text(struct eng_pcb *pc, const char *from,
    const char *to)
{
	char *out = eng_cc_alloc(pc, (size_t)(to - from) + 2), *o = out;

	*o++ = '/';
	for (const char *p = from; p < to - 1; p++) {
		int blank = *p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r';

		if (!blank)
			*o++ = *p;
		else if (o > out + 1 && o[-1] != ' ')	/* none leading */
			*o++ = ' ';
	}
	if (o[-1] == ' ')
		o--;
	*o++ = '/';
	*o = '\0';
	return out;
}

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
		const char *from = pc->pc_pos;	/* just past the '/' */

		pc->pc_inpred = 1;
		c->n_pred = eng_parse_expr(pc);
		pc->pc_inpred = 0;
		expect(pc, '/');
		c->n_predsrc = pred_text(pc, from, pc->pc_pos);
	}
	if (accept(pc, '{')) {
		c->n_args = statements(pc);
		expect(pc, '}');
		c->n_op = 1;	/* has a body */
	} else if ((pc->pc_file != NULL || pc->pc_lib != NULL) &&
	    c->n_pred == NULL) {
		/* dtrace -n BEGIN may, a script may not (dt_grammar.y) */
		eng_cc_error(pc, c->n_line, 0, "D_SYNTAX", "expected predicate "
		    "and/or actions following probe description");
	} else if (!(pc->pc_cflags & ENG_C_PROBESPEC) || c->n_pred != NULL) {
		syntax(pc, peek(pc));
	}
	return c;
}

/* program = { clause | declaration | inline | typedef | translator } */
struct eng_node *eng_parse_program(struct eng_pcb *pc)
{
	struct eng_node *head = NULL, **tail = &head;
	int items = 0;

	for (;; items++) {
		size_t len;

		pc->pc_tokvalid = 0;
		eng_lex_peek_word(pc, &len);
		if (*pc->pc_pos == '\0' && items == 0 &&
		    !(pc->pc_cflags & ENG_C_EMPTY))
			eng_cc_error(pc, pc->pc_line, 0, "D_EMPTY", "empty D "
			    "program translation unit");
		if (*pc->pc_pos == '\0')
			break;
		if (*pc->pc_pos == ';') {
			pc->pc_pos++;
			continue;
		}
		if (!eng_parse_at_decl(pc)) {
			*tail = clause(pc);
			tail = &(*tail)->n_next;
			if (pc->pc_tokvalid && peek(pc)->tk_kind != T_EOF)
				syntax(pc, peek(pc));
			continue;
		}
		eng_parse_decl(pc);
	}
	return head;
}
