/*
 * sema_pre.c - the prescan: before any clause is compiled, types for
 * thread-local and clause-local variables (self->x, this->x) whose
 * assignment gives them a plain type.
 *
 * D gives a variable the type of the first value assigned to it, but a
 * clause earlier in the program may read it first.  The prescan walks
 * every clause's statements (into blocks and both arms of if/else) and,
 * for "self->x = value" where value's type is known without cooking (a
 * string, cast, stringof, subroutine result, typed variable or built-in),
 * creates the variable with that type.  It only creates identifiers that
 * do not exist yet, never changes one, and reports no errors.
 */
#include <string.h>
#include "cc.h"

/* The type of e if it is plain without cooking (literal, call, cast...). */
static struct eng_type *pretype(struct eng_pcb *pc, const struct eng_node *e)
{
	const struct eng_func *f;
	const struct eng_builtin *b;
	struct eng_ident *id;

	switch (e->n_kind) {
	case N_STR:
		return eng_type_string(pc->pc_cc);
	case N_CAST:
		return e->n_ctype;
	case N_STRINGOF:
		return eng_type_string(pc->pc_cc);
	case N_CALL:
		f = eng_sema_func(e->n_name);
		return f != NULL && f->f_kind == F_SUBR && f->f_ret != NULL ?
		    eng_type_parse_name(pc, f->f_ret) : NULL;
	case N_IDENT:
		if ((b = eng_sema_builtin(e->n_name)) != NULL && !b->array)
			return eng_type_lookup(pc->pc_cc, b->type);
		id = eng_cc_ident(pc, e->n_name, SC_GLOBAL, 0);
		return id != NULL && id->i_kind == ID_VAR ? id->i_type : NULL;
	case N_VAR:
		id = eng_cc_ident(pc, e->n_name, e->n_scope, 0);
		return id != NULL && id->i_kind == ID_VAR ? id->i_type : NULL;
	default:
		return NULL;
	}
}

static void prescan(struct eng_pcb *pc, const struct eng_node *s)
{
	for (; s != NULL; s = s->n_next) {
		const struct eng_node *e = s->n_left, *l;
		struct eng_type *t;

		if (s->n_kind == N_BLOCK) {
			prescan(pc, s->n_args);
			continue;
		}
		if (s->n_kind == N_IF) {
			prescan(pc, s->n_right);
			prescan(pc, s->n_third);
			continue;
		}
		if (s->n_kind != N_EXPR_STMT || e->n_kind != N_ASSIGN ||
		    e->n_op != '=' || (l = e->n_left)->n_kind != N_VAR ||
		    eng_cc_ident(pc, l->n_name, l->n_scope, 0) != NULL)
			continue;
		if ((t = pretype(pc, e->n_right)) != NULL &&
		    t->t_kind != TY_VOID)
			eng_cc_ident(pc, l->n_name, l->n_scope, 1)->i_type = t;
	}
}

/*
 * Before any clause is compiled, give thread-local and clause-local
 * variables assigned a plainly typed value (self->path = copyinstr(arg0))
 * their type, so a clause earlier in the program that reads them sees it.
 */
void eng_sema_prescan(struct eng_pcb *pc, const struct eng_node *prog)
{
	for (; prog != NULL; prog = prog->n_next)
		if (prog->n_kind == N_CLAUSE)
			prescan(pc, prog->n_args);
}
