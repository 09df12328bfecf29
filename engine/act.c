/*
 * act.c - clauses and statements -> struct eng_stmt and its actions,
 * following the clause protocol at the end of dtrace_abi.h.
 *
 * eng_act_clause() matches the clause's probe descriptions (refusing one
 * that matches nothing unless -Z), takes the argument types of the first
 * matching probe as the context for args[], compiles the predicate and
 * then each statement: action calls (trace, printf, stack ...),
 * aggregations (@a[k] = f(x)) and expression statements, checking
 * arguments the way dtrace does (printf formats against argument types,
 * lquantize/llquantize constants and ranges, one function and one set of
 * parameters per aggregation, speculate/commit ordering, destructive
 * actions only with -w).
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"

struct eng_act *eng_act_new(struct eng_pcb *pc, uint32_t kind)
{
	struct eng_stmt *s = pc->pc_stmt;
	struct eng_act *a;

	if (s->s_nacts == s->s_cap) {
		int ncap = s->s_cap ? s->s_cap * 2 : 8;
		struct eng_act *na = eng_cc_alloc(pc, sizeof(*na) *
		    (size_t)ncap);

		if (s->s_acts != NULL)
			memcpy(na, s->s_acts, sizeof(*na) * (size_t)s->s_nacts);
		s->s_acts = na;
		s->s_cap = ncap;
	}
	a = &s->s_acts[s->s_nacts++];
	memset(a, 0, sizeof(*a));
	a->a_kind = kind;
	return a;
}

static int nargs(const struct eng_node *l)
{
	int n = 0;

	for (; l != NULL; l = l->n_next)
		n++;
	return n;
}

/* A DIFEXPR action recording the value of e (cooked here). */
struct eng_act *eng_act_difexpr(struct eng_pcb *pc, struct eng_node *e,
    const char *what)
{
	struct eng_act *a;

	eng_sema_expr(pc, e);
	if (e->n_type->t_kind == TY_VOID)	/* what: "trace()" ... */
		eng_cc_nerror(pc, e, "D_TRACE_VOID", "%.*s( ) may not be applied "
		    "to a void expression", (int)strcspn(what, "("), what);
	a = eng_act_new(pc, DTRACEACT_DIFEXPR);
	a->a_difo = eng_cg_difo(pc, e, what);
	if (eng_type_is_string(e->n_type))
		a->a_uarg = ENG_UARG_STRING;
	return a;
}

/* ---- data-recording rules (dtrace's dt_stmt_append) --------------------- */

/* What a new action is, for the rules below. */
enum aclass { AC_COMMIT, AC_SPECULATE, AC_AGG, AC_DESTRUCTIVE, AC_EXIT,
	      AC_DATA, AC_FREE };
/* What the clause did before it (pc_speculate, pc_commit, pc_datarec). */
enum prior { PR_SPECULATE, PR_COMMIT, PR_DATAREC };

/*
 * Which actions may not follow what, checked in this order (the first
 * rule broken is reported); exit() is a data-recording action that also
 * has its own rule.
 */
static const struct order {
	enum aclass o_class;
	enum prior o_prior;
	const char *o_tag;
	const char *o_msg;
} orders[] = {
	{ AC_COMMIT, PR_COMMIT, "D_COMM_COMM",
	  "commit( ) may not follow commit( )" },
	{ AC_COMMIT, PR_DATAREC, "D_COMM_DREC",
	  "commit( ) may not follow data-recording action(s)" },
	{ AC_SPECULATE, PR_SPECULATE, "D_SPEC_SPEC",
	  "speculate( ) may not follow speculate( )" },
	{ AC_SPECULATE, PR_COMMIT, "D_SPEC_COMM",
	  "speculate( ) may not follow commit( )" },
	{ AC_SPECULATE, PR_DATAREC, "D_SPEC_DREC",
	  "speculate( ) may not follow data-recording action(s)" },
	{ AC_AGG, PR_SPECULATE, "D_AGG_SPEC",
	  "aggregating actions may not follow speculate( )" },
	{ AC_AGG, PR_COMMIT, "D_AGG_COMM",
	  "aggregating actions may not follow commit( )" },
	{ AC_DESTRUCTIVE, PR_SPECULATE, "D_ACT_SPEC",
	  "destructive actions may not follow speculate( )" },
	{ AC_EXIT, PR_SPECULATE, "D_EXIT_SPEC",
	  "exit( ) may not follow speculate( )" },
	{ AC_EXIT, PR_COMMIT, "D_DREC_COMM",
	  "data-recording actions may not follow commit( )" },
	{ AC_DATA, PR_COMMIT, "D_DREC_COMM",
	  "data-recording actions may not follow commit( )" },
};

static enum aclass classify(uint32_t kind)
{
	if (kind == DTRACEACT_COMMIT)
		return AC_COMMIT;
	if (kind == DTRACEACT_SPECULATE)
		return AC_SPECULATE;
	if (DTRACEACT_ISAGG(kind))
		return AC_AGG;
	if (DTRACEACT_ISDESTRUCTIVE(kind))
		return AC_DESTRUCTIVE;
	if (kind == DTRACEACT_EXIT)
		return AC_EXIT;
	if (kind == DTRACEACT_DISCARD || kind == DTRACEACT_NONE)
		return AC_FREE;
	return AC_DATA;
}

/* Refuse an action of kind where the rules forbid it; note what it was. */
void eng_act_order(struct eng_pcb *pc, struct eng_node *n, uint32_t kind)
{
	enum aclass c = classify(kind);
	const int prior[] = { [PR_SPECULATE] = pc->pc_speculate,
	    [PR_COMMIT] = pc->pc_commit, [PR_DATAREC] = pc->pc_datarec };

	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++)
		if (orders[i].o_class == c && prior[orders[i].o_prior])
			eng_cc_nerror(pc, n, orders[i].o_tag, "%s",
			    orders[i].o_msg);
	if (c == AC_COMMIT)
		pc->pc_commit = 1;
	else if (c == AC_SPECULATE)
		pc->pc_speculate = 1;
	else if (c == AC_AGG)
		pc->pc_datarec = 1;
	else if ((c == AC_DATA || c == AC_EXIT) && !pc->pc_speculate)
		pc->pc_datarec = 1;	/* speculative data is not */
}

/* Constant, positive argument (stack frames, tracemem size...). */
static uint64_t posconst(struct eng_pcb *pc, struct eng_node *a,
    const char *tag, const char *msg)
{
	eng_sema_expr(pc, a);
	if (!a->n_const || (int64_t)a->n_int <= 0)
		eng_cc_nerror(pc, a, tag, "%s", msg);
	return a->n_int;
}

/* Argument i (from 1) of call, a, must be an integer (its prototype's
 * proto) before its value is checked. */
static void int_arg(struct eng_pcb *pc, struct eng_node *call,
    struct eng_node *a, int i, const char *proto)
{
	eng_sema_expr(pc, a);
	if (!eng_type_is_int(a->n_type))
		eng_cc_xerror(pc, a, "D_PROTO_ARG", "%s( ) argument #%d is "
		    "incompatible with prototype:\n\tprototype: %s\n\t "
		    "argument: %s", call->n_name, i, proto,
		    eng_type_tname(a->n_type));
}

static int64_t opt_or(struct eng_pcb *pc, int opt, int64_t def)
{
	dtrace_optval_t v = pc->pc_hdl->eh_opt[opt];

	return v == DTRACEOPT_UNSET || v <= 0 ? def : v;
}

/* stack(), ustack(), jstack() as actions or aggregation keys. */
void eng_act_stack(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f)
{
	struct eng_act *a = eng_act_new(pc, (uint32_t)f->f_id);
	struct eng_node *n0 = call->n_args;
	uint64_t frames, strsize = 0;

	for (struct eng_node *k = n0; k != NULL; k = k->n_next)
		int_arg(pc, call, k, k == n0 ? 1 : 2, "uint32_t");
	if (f->f_id == DTRACEACT_STACK) {
		frames = n0 != NULL ? posconst(pc, n0, "D_STACK_SIZE", "stack( ) "
		    "argument #1 must be a non-zero positive integral constant "
		    "expression") : (uint64_t)opt_or(pc, DTRACEOPT_STACKFRAMES, 20);
		a->a_arg = frames;
		return;
	}
	if (f->f_id == DTRACEACT_JSTACK) {
		frames = (uint64_t)opt_or(pc, DTRACEOPT_JSTACKFRAMES, 50);
		strsize = (uint64_t)opt_or(pc, DTRACEOPT_JSTACKSTRSIZE, 512);
	} else {
		frames = (uint64_t)opt_or(pc, DTRACEOPT_USTACKFRAMES, 100);
	}
	if (n0 != NULL)
		frames = posconst(pc, n0, "D_USTACK_FRAMES", "ustack( ) argument "
		    "#1 must be a non-zero positive integer constant");
	if (n0 != NULL && n0->n_next != NULL)
		strsize = posconst(pc, n0->n_next, "D_USTACK_STRSIZE", "ustack( ) "
		    "argument #2 must be a positive integer constant");
	a->a_arg = frames | (strsize << 32);
}

static void act_tracemem(struct eng_pcb *pc, struct eng_node *call)
{
	struct eng_node *addr = call->n_args, *size = addr->n_next;
	struct eng_act *a;
	uint64_t sz;

	eng_sema_expr(pc, addr);
	if (!eng_type_is_scalar(addr->n_type))
		eng_cc_nerror(pc, addr, "D_TRACEMEM_ADDR", "tracemem( ) argument "
		    "#1 is incompatible with prototype:\n\tprototype: pointer or "
		    "integer\n\t argument: %s", eng_type_tname(addr->n_type));
	int_arg(pc, call, size, 2, "size_t");
	sz = posconst(pc, size, "D_TRACEMEM_SIZE", "tracemem( ) argument #2 "
	    "must be a non-zero positive integral constant expression");
	a = eng_act_new(pc, DTRACEACT_TRACEMEM);
	a->a_difo = eng_cg_difo(pc, addr, "tracemem()");
	a->a_arg = sz;
	if (size->n_next != NULL) {
		struct eng_node *dyn = size->n_next;

		eng_sema_expr(pc, dyn);
		if (!eng_type_is_int(dyn->n_type))
			eng_cc_nerror(pc, dyn, "D_TRACEMEM_DYNSIZE", "tracemem( ) "
			    "dynamic size (argument #3) must be of integer type");
		a = eng_act_new(pc, DTRACEACT_TRACEMEM_DYNSIZE);
		a->a_difo = eng_cg_difo(pc, dyn, "tracemem()");
		a->a_arg = dyn->n_type->t_signed ? DTRACE_TRACEMEM_SSIZE :
		    DTRACE_TRACEMEM_SIZE;
	}
}

/* clear/trunc/normalize/denormalize/setopt/ftruncate */
static void act_lib(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f)
{
	static const char *const tags[][3] = { { NULL, NULL, NULL },
	    { "D_CLEAR_AGGARG", "D_CLEAR_AGGBAD", NULL },
	    { "D_NORMALIZE_AGGARG", "D_NORMALIZE_AGGBAD", "D_NORMALIZE_SCALAR" },
	    { "D_NORMALIZE_AGGARG", "D_NORMALIZE_AGGBAD", NULL },
	    { "D_TRUNC_AGGARG", "D_TRUNC_AGGBAD", "D_TRUNC_SCALAR" } };
	struct eng_node *a0 = call->n_args;
	struct eng_act *a = eng_act_new(pc, DTRACEACT_LIBACT);

	a->a_arg = (uint64_t)f->f_id;
	if (f->f_id == DT_ACT_FTRUNCATE)
		return;
	if (f->f_id == DT_ACT_SETOPT) {
		for (struct eng_node *x = a0; x != NULL; x = x->n_next)
			if (x->n_kind != N_STR)
				eng_cc_xerror(pc, x, "D_PROTO_ARG", "setopt( ) "
				    "arguments must be string constants");
		eng_sema_expr(pc, a0);
		a->a_difo = eng_cg_difo(pc, a0, "setopt()");
		if (a0->n_next != NULL) {
			a->a_uarg = 1;
			eng_act_difexpr(pc, a0->n_next, "setopt()");
		}
		return;
	}
	struct eng_ident *id = eng_act_aggarg(pc, call, a0, 1,
	    tags[f->f_id][0], tags[f->f_id][1]);

	a->a_difo = eng_cg_const(pc, id->i_id, call->n_name);
	if (a0->n_next != NULL) {
		struct eng_node *v = a0->n_next;

		eng_sema_expr(pc, v);
		if (!eng_type_is_scalar(v->n_type))
			eng_cc_nerror(pc, v, tags[f->f_id][2], "%s( ) argument "
			    "#2 must be of scalar type", call->n_name);
		a->a_uarg = 1;
		eng_act_difexpr(pc, v, call->n_name);
	}
}

/* A DIFO-carrying action with a fixed record size (exit, raise). */
void eng_act_value(struct eng_pcb *pc, struct eng_node *call,
    uint32_t kind, uint32_t size)
{
	struct eng_act *a = eng_act_new(pc, kind);
	struct eng_node *v = call->n_args;

	if (v == NULL)
		return;
	eng_sema_expr(pc, v);
	if (!eng_type_is_scalar(v->n_type))
		eng_cc_xerror(pc, v, "D_PROTO_ARG", "%s( ) argument #1 is "
		    "incompatible with prototype:\n\tprototype: int\n\t "
		    "argument: %s", call->n_name, eng_type_tname(v->n_type));
	a->a_difo = eng_cg_difo(pc, v, call->n_name);
	if (size != 0) {
		a->a_difo->dd_rtype.dtdt_size = size;
		a->a_difo->dd_rtype.dtdt_ckind = CTF_K_INTEGER;
	}
}

/*
 * Actions whose argument count dtrace checks in the action itself, with
 * a tag of their own (dt_action_clear, _normalize, _trunc, _stack...).
 */
static void own_proto(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f, int n)
{
	static const struct { const char *name, *tag; } own[] = {
		{ "clear", "D_CLEAR_PROTO" }, { "normalize", "D_NORMALIZE_PROTO" },
		{ "denormalize", "D_NORMALIZE_PROTO" },
		{ "trunc", "D_TRUNC_PROTO" },
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(f->f_name, own[i].name) == 0 && f->f_min == f->f_max)
			eng_cc_xerror(pc, call, own[i].tag, "%s( ) prototype "
			    "mismatch: %d args passed, %d expected", f->f_name,
			    n, f->f_min);
		else if (strcmp(f->f_name, own[i].name) == 0)
			eng_cc_xerror(pc, call, own[i].tag, "%s( ) prototype "
			    "mismatch: %d args passed, %s %d expected", f->f_name,
			    n, n < f->f_min ? "at least" : "no more than",
			    n < f->f_min ? f->f_min : f->f_max);
	if (n > f->f_max && (f->f_id == DTRACEACT_STACK ||
	    f->f_id == DTRACEACT_USTACK || f->f_id == DTRACEACT_JSTACK))
		eng_cc_xerror(pc, call, "D_PROTO_LEN", "%s( ) prototype mismatch: "
		    "%d args passed, at most %d expected", f->f_name, n,
		    f->f_max);
}

void eng_act_check_proto(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f)
{
	int n = nargs(call->n_args);

	if (n >= f->f_min && n <= f->f_max) {
		if (f->f_kind == F_NOTLINUX)
			eng_sema_call(pc, call);	/* its arguments' errors,
							 * then "not available" */
		return;
	}
	own_proto(pc, call, f, n);
	if (f->f_min == f->f_max)
		eng_cc_xerror(pc, call, "D_PROTO_LEN", "%s( ) prototype mismatch: "
		    "%d arg%s passed, %d expected", f->f_name, n, n == 1 ? "" :
		    "s", f->f_min);
	eng_cc_xerror(pc, call, "D_PROTO_LEN", "%s( ) prototype mismatch: %d "
	    "arg%s passed, %s %d expected", f->f_name, n, n == 1 ? "" : "s",
	    n < f->f_min ? "at least" : "no more than", n < f->f_min ?
	    f->f_min : f->f_max);
}

/* An action call as a statement. */
static void action(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f)
{
	struct eng_act *a;
	struct eng_type *t;

	eng_act_check_proto(pc, call, f);
	if (f->f_id != DTRACEACT_PRINTF && f->f_id != DTRACEACT_SYSTEM &&
	    f->f_id != DTRACEACT_FREOPEN && f->f_id != DTRACEACT_PRINTA &&
	    !(f->f_flags & F_LIB) && f->f_id >= 0x100)
		eng_act_order(pc, call, (uint32_t)f->f_id);
	if (strcmp(f->f_name, "print") == 0) {
		eng_act_print(pc, call, f);
		return;
	}
	if (f->f_flags & F_LIB) {
		eng_act_order(pc, call, DTRACEACT_LIBACT);
		act_lib(pc, call, f);
		return;
	}
	switch (f->f_id) {
	case DTRACEACT_DIFEXPR:
		eng_act_order(pc, call, DTRACEACT_DIFEXPR);
		if (eng_sema_is_xlptr(pc, call->n_args))
			eng_cc_nerror(pc, call->n_args, "D_TRACE_DYN", "trace( ) may "
			    "not be applied to a translated pointer");
		if (call->n_args->n_kind == N_AGG)
			eng_cc_nerror(pc, call->n_args, "D_TRACE_AGG", "trace( ) may "
			    "not be applied to an aggregation");
		a = eng_act_difexpr(pc, call->n_args, "trace()");
		t = eng_type_resolve(call->n_args->n_type);
		if (eng_type_is_int(t))
			a->a_arg = a->a_difo->dd_signed ? ENG_REC_SIGNED :
			    ENG_REC_UNSIGNED;
		return;
	case DTRACEACT_PRINTF: case DTRACEACT_SYSTEM: case DTRACEACT_FREOPEN:
		eng_act_printf(pc, call, f);
		return;
	case DTRACEACT_PRINTA:
		eng_act_printa(pc, call);
		return;
	case DTRACEACT_STACK: case DTRACEACT_USTACK: case DTRACEACT_JSTACK:
		eng_act_stack(pc, call, f);
		return;
	case DTRACEACT_TRACEMEM:
		eng_act_order(pc, call, DTRACEACT_TRACEMEM);
		act_tracemem(pc, call);
		return;
	case DTRACEACT_EXIT:
		eng_act_order(pc, call, DTRACEACT_EXIT);
		eng_act_value(pc, call, DTRACEACT_EXIT, 4);
		return;
	case DTRACEACT_RAISE:
		eng_act_value(pc, call, DTRACEACT_RAISE, 4);
		return;
	default:	/* sym, mod, usym..., speculate, commit, chill ... */
		eng_act_value(pc, call, (uint32_t)f->f_id, 0);
	}
}

/* ---- statements and clauses ------------------------------------------- */

/* Cook an if statement's parts; refuse actions inside it. */
static void cook_if(struct eng_pcb *pc, struct eng_node *s)
{
	const struct eng_func *f;

	if (s == NULL)
		return;
	switch (s->n_kind) {
	case N_BLOCK:
		for (struct eng_node *c = s->n_args; c != NULL; c = c->n_next)
			cook_if(pc, c);
		return;
	case N_IF:
		eng_sema_stmt(pc, s);
		cook_if(pc, s->n_right);
		cook_if(pc, s->n_third);
		return;
	case N_EXPR_STMT:
		if (s->n_left->n_kind == N_CALL &&
		    (f = eng_sema_func(s->n_left->n_name)) != NULL &&
		    f->f_kind != F_SUBR)
			break;
		eng_sema_stmt(pc, s);
		return;
	default:
		break;
	}
	eng_cc_nerror(pc, s, "D_SYNTAX", "data-recording actions and "
	    "aggregations are not supported inside if statements; use a "
	    "predicate");
}

/* Does s (an if body) hold a data-recording action or aggregation? */
static int has_actions(const struct eng_node *s)
{
	const struct eng_func *f;

	for (; s != NULL; s = s->n_next) {
		if (s->n_kind == N_AGG_STMT)
			return 1;
		if (s->n_kind == N_EXPR_STMT && s->n_left->n_kind == N_CALL &&
		    (f = eng_sema_func(s->n_left->n_name)) != NULL &&
		    f->f_kind != F_SUBR)
			return 1;
		if (s->n_kind == N_BLOCK && has_actions(s->n_args))
			return 1;
		if (s->n_kind == N_IF && (has_actions(s->n_right) ||
		    has_actions(s->n_third)))
			return 1;
	}
	return 0;
}

/* if (c) { x = ...; } else { ... }: one void DIFO with forward branches. */
static void if_stmt(struct eng_pcb *pc, struct eng_node *st)
{
	struct eng_act *a;

	cook_if(pc, st);
	a = eng_act_new(pc, DTRACEACT_DIFEXPR);
	a->a_difo = eng_cg_stmt(pc, st);
}

static void statement(struct eng_pcb *pc, struct eng_node *st);
static struct eng_stmt *new_stmt(struct eng_pcb *pc, int line);

/* A list with blocks spliced in: { a; { b; c; } d; } -> a b c d. */
static struct eng_node **flatten_into(struct eng_pcb *pc,
    struct eng_node *l, struct eng_node **tail)
{
	for (; l != NULL; l = l->n_next) {
		struct eng_node *c;

		if (l->n_kind == N_BLOCK) {
			tail = flatten_into(pc, l->n_args, tail);
			continue;
		}
		c = eng_node_new(pc, l->n_kind, l->n_line, l->n_col);
		*c = *l;
		c->n_next = NULL;
		*tail = c;
		tail = &c->n_next;
	}
	return tail;
}

static struct eng_node *flatten(struct eng_pcb *pc, struct eng_node *l,
    struct eng_node *rest)
{
	struct eng_node *head = NULL;

	*flatten_into(pc, l, &head) = rest;
	return head;
}

static struct eng_node *mk(struct eng_pcb *pc, enum eng_nkind k,
    const struct eng_node *at, int op)
{
	struct eng_node *n = eng_node_new(pc, k, at->n_line, at->n_col);

	n->n_op = op;
	return n;
}

/* this->name == v (or != 0 when v < 0), cooked. */
static struct eng_node *flag_test(struct eng_pcb *pc, const char *name,
    const struct eng_node *at, int v)
{
	struct eng_node *t = mk(pc, N_OP2, at, v < 0 ? T_NE : T_EQ);

	t->n_left = mk(pc, N_VAR, at, 0);
	t->n_left->n_scope = SC_LOCAL;
	t->n_left->n_name = name;
	t->n_right = mk(pc, N_INT, at, 0);
	t->n_right->n_int = v < 0 ? 0 : (uint64_t)v;
	eng_sema_expr(pc, t);
	return t;
}

/* this->name = e, as a void action of the current statement. */
static void flag_set(struct eng_pcb *pc, const char *name,
    struct eng_node *e, const struct eng_node *at)
{
	struct eng_node *a = mk(pc, N_ASSIGN, at, '=');
	struct eng_act *act;

	a->n_left = mk(pc, N_VAR, at, 0);
	a->n_left->n_scope = SC_LOCAL;
	a->n_left->n_name = name;
	a->n_right = e;
	eng_sema_expr(pc, a);
	act = eng_act_new(pc, DTRACEACT_DIFEXPR);
	act->a_difo = eng_cg_difo(pc, a, "if");
	memset(&act->a_difo->dd_rtype, 0, sizeof(act->a_difo->dd_rtype));
}

static void stmts(struct eng_pcb *pc, struct eng_node *l);

/* A new statement for the same descriptions, guarded by pred. */
static void piece(struct eng_pcb *pc, struct eng_stmt *like,
    struct eng_node *pred)
{
	struct eng_stmt *s = new_stmt(pc, pred->n_line);

	s->s_npd = like->s_npd;
	s->s_pd = like->s_pd;
	s->s_piece = 2;
	s->s_predsrc = like->s_predsrc;
	if (pc->pc_prog->p_last != NULL && like->s_piece == 0)
		like->s_piece = 1;
	pc->pc_stmt = s;
	pc->pc_speculate = pc->pc_commit = pc->pc_datarec = 0;
	s->s_pred = eng_cg_difo(pc, pred, "predicate");
}

/*
 * if (c) with actions in its bodies: the clause is split into pieces
 * that fire in order on the same probe (as dtrace does).  The current
 * piece sets a hidden clause-local flag, this->%ifN, to 1 (c true) or 2;
 * a piece guarded by flag == 1 runs the then-body, one guarded by
 * flag == 2 the else-body, and a last one guarded by flag != 0 the
 * statements after the if (if any).  Clause-locals live for the whole probe
 * firing, so the flag and the user's this-> values cross the pieces,
 * and every flag starts at 0 when the probe fires again.
 */
static void if_split(struct eng_pcb *pc, struct eng_node *st,
    struct eng_node *rest)
{
	struct eng_stmt *base = pc->pc_stmt;
	struct eng_node *c = mk(pc, N_OP3, st, 0);
	char name[32];
	const char *flag;

	snprintf(name, sizeof(name), "%%if%u", pc->pc_cc->cc_nextid[2]);
	flag = eng_cc_strdup(pc, name, strlen(name));
	c->n_left = st->n_left;
	c->n_right = mk(pc, N_INT, st, 0);
	c->n_right->n_int = 1;
	c->n_third = mk(pc, N_INT, st, 0);
	c->n_third->n_int = 2;
	flag_set(pc, flag, c, st);
	piece(pc, base, flag_test(pc, flag, st, 1));
	stmts(pc, flatten(pc, st->n_right, NULL));
	if (st->n_third != NULL) {
		piece(pc, base, flag_test(pc, flag, st, 2));
		stmts(pc, flatten(pc, st->n_third, NULL));
	}
	if (rest == NULL)
		return;
	piece(pc, base, flag_test(pc, flag, st, -1));
	stmts(pc, rest);
}

/* Compile a flattened statement list into the current statement. */
static void stmts(struct eng_pcb *pc, struct eng_node *l)
{
	for (; l != NULL; l = l->n_next) {
		if (l->n_kind == N_IF && (has_actions(l->n_right) ||
		    has_actions(l->n_third))) {
			if_split(pc, l, l->n_next);
			return;
		}
		statement(pc, l);
	}
}

/* Does e call a destructive subroutine (copyout, copyoutstr)?  dtrace
 * marks such a DIFO destructive and orders it as a destructive action. */
static int calls_destructive(const struct eng_node *e)
{
	const struct eng_func *f;

	for (; e != NULL; e = e->n_next) {
		if (e->n_kind == N_CALL && (f = eng_sema_func(e->n_name)) != NULL &&
		    (f->f_flags & F_DESTRUCTIVE))
			return 1;
		if (calls_destructive(e->n_left) || calls_destructive(e->n_right) ||
		    calls_destructive(e->n_third) || calls_destructive(e->n_args))
			return 1;
	}
	return 0;
}

static void statement(struct eng_pcb *pc, struct eng_node *st)
{
	const struct eng_func *f;
	const struct eng_ident *id;
	struct eng_act *a;

	switch (st->n_kind) {
	case N_BLOCK:
		for (struct eng_node *s = st->n_args; s != NULL; s = s->n_next)
			statement(pc, s);
		return;
	case N_AGG_STMT:
		eng_act_aggregation(pc, st);
		return;
	case N_IF:
		if_stmt(pc, st);
		return;
	case N_EXPR_STMT:
		break;
	default:
		return;
	}
	if (st->n_left->n_kind == N_CALL &&
	    (f = eng_sema_func(st->n_left->n_name)) != NULL &&
	    (f->f_kind == F_ACT || f->f_kind == F_NOTLINUX)) {
		action(pc, st->n_left, f);
		return;
	}
	/* a bare @name that no clause has defined is cooked as an
	 * identifier first, as dtrace's dt_cook_ident: unresolved */
	if (st->n_left->n_kind == N_AGG && st->n_left->n_args == NULL &&
	    ((id = eng_cc_agg(pc, st->n_left->n_name, 0)) == NULL ||
	    id->i_aggfunc == 0))
		eng_cc_xerror(pc, st->n_left, "D_IDENT_UNDEF", "failed to "
		    "resolve @%s: Unknown variable name", st->n_left->n_name);
	if (st->n_left->n_kind == N_AGG)
		eng_cc_nerror(pc, st->n_left, "D_AGG_NULL", "expression has null "
		    "effect: @%s", st->n_left->n_name);
	if (st->n_left->n_kind == N_XLATE && eng_type_is_ptr(st->n_left->n_ctype)) {
		eng_sema_xlate(pc, st->n_left);	/* its translator's errors */
		eng_cc_nerror(pc, st->n_left, "D_CG_DYN", "expression cannot "
		    "evaluate to result of dynamic type");
	}
	if (pc->pc_speculate && calls_destructive(st->n_left))
		eng_cc_nerror(pc, st->n_left, "D_ACT_SPEC", "destructive actions "
		    "may not follow speculate( )");
	eng_sema_stmt(pc, st);
	a = eng_act_new(pc, DTRACEACT_DIFEXPR);
	a->a_difo = eng_cg_difo(pc, st->n_left, "expression");
	memset(&a->a_difo->dd_rtype, 0, sizeof(a->a_difo->dd_rtype));
	a->a_difo->dd_rtype.dtdt_ckind = CTF_K_INTEGER;
}

/*
 * A description that is an integer names a probe by its id (dtrace's
 * DT_TOK_INT probe specifier, as -i and -n give it); 1 if text was one.
 */
static int by_id(struct eng_pcb *pc, const char *text,
    dtrace_probedesc_t *pd, int line)
{
	static const char *const kinds[] = { "name", "provider", "module",
	    "function", "name" };
	eng_probeinfo_t pi;
	unsigned long long id;
	char *end;
	int kind = eng_pdesc_kind(pc);

	if (!isdigit((unsigned char)text[0]))
		return 0;
	errno = 0;
	id = strtoull(text, &end, 0);
	if (*end != '\0')	/* no description starts with a digit */
		eng_cc_error(pc, line, 0, "D_SYNTAX", "syntax error near "
		    "\"%s\"", end);
	if (errno != 0 || id > UINT32_MAX)
		eng_cc_error(pc, line, 0, "D_PDESC_INVAL", "identifier %s "
		    "exceeds maximum probe id", text);
	if (kind != ENG_SPEC_NAME)
		eng_cc_error(pc, line, 0, "D_PDESC_INVAL", "probe identifier "
		    "%llu not permitted when specifying %s", id, kinds[kind]);
	if (id == 0 || eng_probe_info(pc->pc_hdl, (dtrace_id_t)id, &pi) != 0)
		eng_cc_error(pc, line, 0, "D_PDESC_INVAL", "invalid probe "
		    "identifier %llu: Unknown probe identifier", id);
	*pd = pi.epi_desc;
	pd->dtpd_id = DTRACE_IDNONE;
	return 1;
}

/* Match the clause's descriptions; the first match gives args[] types. */
static void descriptions(struct eng_pcb *pc, struct eng_node *clause)
{
	struct eng_stmt *s = pc->pc_stmt;
	int i = 0, ctx = 0;

	s->s_npd = 0;
	for (struct eng_node *d = clause->n_pdescs; d != NULL; d = d->n_next)
		s->s_npd++;
	s->s_pd = eng_cc_alloc(pc, sizeof(*s->s_pd) * (size_t)s->s_npd);
	pc->pc_nargs = -1;
	memset(pc->pc_argnative, 0, sizeof(pc->pc_argnative));
	for (struct eng_node *d = clause->n_pdescs; d != NULL; d = d->n_next) {
		dtrace_probedesc_t *pd = &s->s_pd[i++], first;
		unsigned cnt = 0;

		if (!by_id(pc, d->n_name, pd, d->n_line))
			eng_parse_pdesc(pc, d->n_name, pd, d->n_line);
		if (eng_prog_match(pc->pc_hdl, pd, &first, &cnt) != 0)
			eng_cc_error(pc, d->n_line, d->n_col, "D_PDESC_INVAL",
			    "%s", eng_errmsg(pc->pc_hdl));
		if (cnt == 0 && !(pc->pc_cflags & ENG_C_ZDEFS))
			eng_cc_error(pc, d->n_line, d->n_col, "D_PDESC_ZERO",
			    "probe description %s:%s:%s:%s does not match any "
			    "probes", pd->dtpd_provider, pd->dtpd_mod,
			    pd->dtpd_func, pd->dtpd_name);
		pc->pc_prog->p_nprobes += cnt;
		if (cnt > 0 && !ctx) {
			eng_probeinfo_t pi;

			ctx = 1;
			pc->pc_pdesc = first;
			if (pc->pc_hdl->eh_ks != NULL &&
			    eng_probe_info(pc->pc_hdl, first.dtpd_id, &pi) == 0) {
				pc->pc_nargs = pi.epi_nargs;
				memcpy(pc->pc_argtypes, pi.epi_argtypes,
				    sizeof(pc->pc_argtypes));
				memcpy(pc->pc_argnative, pi.epi_argnative,
				    sizeof(pc->pc_argnative));
				memcpy(pc->pc_argmap, pi.epi_argmap,
				    sizeof(pc->pc_argmap));
			}
		}
	}
}

static struct eng_stmt *new_stmt(struct eng_pcb *pc, int line)
{
	struct eng_stmt *s = eng_cc_alloc(pc, sizeof(*s));
	struct eng_prog *p = pc->pc_prog;

	s->s_id = (pc->pc_cflags & ENG_C_ERRCLAUSE) ? DT_ECB_ERROR :
	    ++pc->pc_cc->cc_nextstmt;
	s->s_line = line;
	if (p->p_last != NULL)
		p->p_last->s_next = s;
	else
		p->p_stmts = s;
	p->p_last = s;
	p->p_nstmts++;
	return s;
}

/* The predicate of a clause, for its first statement. */
static void predicate(struct eng_pcb *pc, struct eng_node *clause,
    struct eng_stmt *first)
{
	eng_sema_clause(pc, clause);
	first->s_pred = eng_cg_difo(pc, clause->n_pred, "predicate");
}

/* Forget the statements and actions an attempt at a clause made. */
static void clause_reset(struct eng_pcb *pc, struct eng_stmt *first)
{
	struct eng_prog *p = pc->pc_prog;

	for (struct eng_stmt *s = first->s_next; s != NULL; s = s->s_next)
		p->p_nstmts--;
	first->s_next = NULL;
	first->s_nacts = 0;
	first->s_piece = 0;
	p->p_last = first;
	pc->pc_cc->cc_nextstmt = first->s_id;
	pc->pc_stmt = first;
	pc->pc_speculate = pc->pc_commit = pc->pc_datarec = 0;
}

static int is_undef_tag(const char *tag)
{
	return strcmp(tag, "D_IDENT_UNDEF") == 0 ||
	    strcmp(tag, "D_VAR_UNDEF") == 0;
}

/*
 * dtrace checks a clause's actions before its predicate, so that the
 * predicate may use what the actions assign (/x != 0/ { x = 1; }).  An
 * action naming something still undefined (a variable the predicate
 * assigns) is not final: the predicate is compiled, then the actions
 * again, from a copy taken before the first attempt changed the tree.
 */
static void actions_then_predicate(struct eng_pcb *pc,
    struct eng_node *clause)
{
	struct eng_stmt *first = pc->pc_stmt;
	struct eng_node *again = eng_node_dup(pc, clause->n_args);
	jmp_buf outer;

	memcpy(outer, pc->pc_jmp, sizeof(outer));
	if (setjmp(pc->pc_jmp) == 0) {
		stmts(pc, flatten(pc, clause->n_args, NULL));
		memcpy(pc->pc_jmp, outer, sizeof(outer));
		predicate(pc, clause, first);
		return;
	}
	memcpy(pc->pc_jmp, outer, sizeof(outer));
	if (!is_undef_tag(pc->pc_hdl->eh_diagtag))
		longjmp(pc->pc_jmp, 1);
	clause_reset(pc, first);
	predicate(pc, clause, first);
	pc->pc_stmt = first;
	stmts(pc, flatten(pc, again, NULL));
}

/* Compile one clause into a statement of the program. */
void eng_act_clause(struct eng_pcb *pc, struct eng_node *clause)
{
	int64_t v;

	pc->pc_stmt = new_stmt(pc, clause->n_line);
	pc->pc_stmt->s_predsrc = clause->n_predsrc;
	pc->pc_speculate = pc->pc_commit = pc->pc_datarec = 0;
	v = pc->pc_hdl->eh_opt[DTRACEOPT_STRSIZE];
	pc->pc_strsize = v == DTRACEOPT_UNSET || v <= 0 ? 256 : (int)v;
	v = pc->pc_hdl->eh_opt[DTRACEOPT_DESTRUCTIVE];
	pc->pc_destructive = v != DTRACEOPT_UNSET && v > 0;
	descriptions(pc, clause);
	if (pc->pc_cflags & ENG_C_LIST)
		return;
	if (clause->n_pred == NULL)
		stmts(pc, flatten(pc, clause->n_args, NULL));
	else
		actions_then_predicate(pc, clause);
}
