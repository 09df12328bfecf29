/*
 * parse_impl.h - what the parser's two files share.
 *
 *   parse.c       expressions, statements, clauses and the program
 *   parse_decl.c  type names, declarations (storage classes, specifiers,
 *                 declarators, prototypes), typedef, inline, translator
 *                 and provider definitions
 *   parse_sou.c   struct/union/enum bodies and their layout, array
 *                 dimensions
 *
 * The token helpers below are static inline so both files call them by
 * their short names.  Invariants: pc->pc_tok is the lookahead while
 * pc->pc_tokvalid is set, pc->pc_prev is the last token consumed, and a
 * syntax error never returns (eng_cc_error() jumps to the compile entry).
 * The prototypes after them are the grammar rules one file calls in the
 * other.
 */
#ifndef ENG_PARSE_IMPL_H
#define ENG_PARSE_IMPL_H

#include <string.h>
#include "cc.h"

static inline struct eng_token *peek(struct eng_pcb *pc)
{
	if (!pc->pc_tokvalid) {
		eng_lex_next(pc, &pc->pc_tok);
		pc->pc_tok.tk_len = (size_t)(pc->pc_pos - pc->pc_tok.tk_pos);
		pc->pc_tokvalid = 1;
	}
	return &pc->pc_tok;
}

static inline struct eng_token *next(struct eng_pcb *pc)
{
	peek(pc);
	pc->pc_prev = pc->pc_tok;
	pc->pc_tokvalid = 0;
	return &pc->pc_prev;
}

static inline _Noreturn void syntax(struct eng_pcb *pc,
    const struct eng_token *t)
{
	if (t->tk_kind == T_EOF)
		eng_cc_error(pc, t->tk_line, t->tk_col, "D_SYNTAX",
		    "syntax error near end of input");
	eng_cc_error(pc, t->tk_line, t->tk_col, "D_SYNTAX",
	    "syntax error near \"%.*s\"", (int)(t->tk_len > 64 ? 64 :
	    t->tk_len), t->tk_pos);
}

static inline int is(struct eng_pcb *pc, int kind)
{
	return peek(pc)->tk_kind == kind;
}

static inline int is_kw(struct eng_pcb *pc, const char *kw)
{
	struct eng_token *t = peek(pc);

	return t->tk_kind == T_IDENT && strcmp(t->tk_text, kw) == 0;
}

static inline int accept(struct eng_pcb *pc, int kind)
{
	if (!is(pc, kind))
		return 0;
	next(pc);
	return 1;
}

/*
 * In a predicate, a '/' followed by '{', ';', '/' or the end closes it
 * (dtrace's lexer looks ahead the same way); any other '/' divides.
 */
static inline int pred_end(struct eng_pcb *pc, const struct eng_token *t)
{
	const char *p = t->tk_pos + 1;

	if (!pc->pc_inpred || t->tk_kind != '/')
		return 0;
	while (*p != '\0' && strchr(" \t\n\r\f\v", *p) != NULL)
		p++;
	return *p == '\0' || *p == '{' || *p == ';' || *p == '/';
}

static inline struct eng_token *expect(struct eng_pcb *pc, int kind)
{
	struct eng_token *t = peek(pc);

	/* dtrace's lexer ends a predicate at a '/' before '{', ';' or the
	 * end, and says which bracket is still open */
	if (t->tk_kind != kind && pred_end(pc, t) &&
	    (kind == ')' || kind == ']'))
		eng_cc_error(pc, t->tk_line, t->tk_col, "D_SYNTAX", "closing "
		    "%c expected in predicate before /", kind);
	if (t->tk_kind != kind)
		syntax(pc, t);
	return next(pc);
}

static inline const char *expect_ident(struct eng_pcb *pc)
{
	return expect(pc, T_IDENT)->tk_text;
}

static inline struct eng_node *mknode(struct eng_pcb *pc, enum eng_nkind k,
    const struct eng_token *t)
{
	return eng_node_new(pc, k, t->tk_line, t->tk_col);
}

/* parse.c: expressions (array sizes, enumerators, initialisers, members) */
struct eng_node *eng_parse_expr(struct eng_pcb *pc);
struct eng_node *eng_parse_assign(struct eng_pcb *pc);
struct eng_node *eng_parse_conditional(struct eng_pcb *pc);

/* parse_decl.c: types (casts, sizeof, offsetof, xlate) and declarations */
struct eng_type *eng_parse_type_name(struct eng_pcb *pc);
int eng_parse_is_type(struct eng_pcb *pc, const char *w);
int eng_parse_at_decl(struct eng_pcb *pc);
void eng_parse_decl(struct eng_pcb *pc);

/* parse_sou.c: struct/union/enum, array dimensions */
struct eng_type *eng_parse_tagged(struct eng_pcb *pc, const char *kw);
uint64_t eng_parse_dim(struct eng_pcb *pc, const struct eng_type *elem);
struct eng_type *eng_parse_dims(struct eng_pcb *pc, struct eng_type *t);
void eng_parse_skip(struct eng_pcb *pc, int open, int close);

#endif /* ENG_PARSE_IMPL_H */
