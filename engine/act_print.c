/*
 * act_print.c - print(x), illumos's type-directed trace: the value laid
 * out by its type as dtrace's dt_print.c lays it out, "int 0x1" for an
 * integer, `string "foo"` for a string, and for a struct
 *
 *	struct s {
 *	    int a = 0x1
 *	    char *p = 0xffff0000
 *	}
 *
 * The compiler knows the type, so the layout becomes a printf format and
 * its arguments here (one per scalar member), and the consumer prints it
 * as any printf.  Integers and pointers print in hex ("%#x", so 0 is
 * "0"), chars quoted, floats "%+.7e", enums by the name of their zero
 * value as dtrace does; arrays of chars as strings, other arrays as
 * "[ a, b ]".
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cc.h"

struct layout {
	char *fmt;
	size_t len, cap;
	struct eng_node *args, **tail;
	const struct eng_node *orig;	/* the argument as written */
	int line, col;
};

static void put(struct eng_pcb *pc, struct layout *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void put(struct eng_pcb *pc, struct layout *l, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	if (l->len + n + 1 > l->cap) {
		size_t cap = (l->len + n + 1) * 2;
		char *nf = eng_cc_alloc(pc, cap);

		if (l->len > 0)		/* the first append has no fmt yet */
			memcpy(nf, l->fmt, l->len);
		l->fmt = nf;
		l->cap = cap;
	}
	memcpy(l->fmt + l->len, buf, n + 1);
	l->len += n;
}

/* Type names have no '%'; other text is escaped where it comes in. */
static void conv(struct eng_pcb *pc, struct layout *l, const char *c,
    struct eng_node *arg)
{
	put(pc, l, "%s", c);
	arg->n_next = NULL;
	*l->tail = arg;
	l->tail = &arg->n_next;
}

static struct eng_node *node(struct eng_pcb *pc, struct layout *l,
    enum eng_nkind k)
{
	return eng_node_new(pc, k, l->line, l->col);
}

static struct eng_node *cast(struct eng_pcb *pc, struct layout *l,
    struct eng_type *t, struct eng_node *v)
{
	struct eng_node *c = node(pc, l, N_CAST);

	c->n_ctype = t;
	c->n_left = v;
	return c;
}

static int is_char(const struct eng_type *t)
{
	return t->t_kind == TY_INT && t->t_size == 1 && t->t_signed;
}

static void value(struct eng_pcb *pc, struct layout *l, struct eng_node *v,
    struct eng_type *t, int depth);

/* v's members, one line each, at depth + 1. */
static void members(struct eng_pcb *pc, struct layout *l,
    const struct eng_node *v, struct eng_type *t, int depth)
{
	put(pc, l, "{\n");
	for (struct eng_member *m = t->t_members; m != NULL; m = m->m_next) {
		const char *tn = eng_type_tname(m->m_type);
		struct eng_node *mv = node(pc, l, N_MEMBER);

		mv->n_left = eng_node_copy(pc, v);
		mv->n_left->n_next = NULL;
		mv->n_name = m->m_name;
		put(pc, l, "%*s%s%s%s", (depth + 1) * 4, "", tn,
		    tn[strlen(tn) - 1] == '*' ? "" : " ", m->m_name);
		if (m->m_bits > 0)	/* a bit-field says its width */
			put(pc, l, " :%d", m->m_bits);
		put(pc, l, " = ");
		value(pc, l, mv, m->m_type, depth + 1);
		put(pc, l, "\n");
	}
	put(pc, l, "%*s}", depth * 4, "");
}

static void value(struct eng_pcb *pc, struct layout *l, struct eng_node *v,
    struct eng_type *t, int depth)
{
	struct eng_cc *cc = pc->pc_cc;

	switch (t->t_kind) {
	case TY_STRUCT: case TY_UNION:
		members(pc, l, v, t, depth);
		return;
	case TY_STRING:
		conv(pc, l, depth == 0 ? "\"%s\"" : "[ \"%s\" ]", v);
		return;
	case TY_ARRAY:
		if (t->t_base != NULL && is_char(t->t_base)) {
			conv(pc, l, depth == 0 ? "\"%s\"" : "[ \"%s\" ]", v);
			return;
		}
		put(pc, l, "[ ");
		for (uint32_t i = 0; i < t->t_nelems && i < 64; i++) {
			struct eng_node *e = node(pc, l, N_INDEX), *ix;

			e->n_left = eng_node_copy(pc, v);
			e->n_left->n_next = NULL;
			ix = node(pc, l, N_INT);
			ix->n_int = i;
			e->n_args = ix;
			put(pc, l, "%s", i > 0 ? ", " : "");
			value(pc, l, e, t->t_base, depth + 1);
		}
		put(pc, l, " ]");
		return;
	case TY_ENUM: {
		const char *zero = NULL;

		for (struct eng_enumval *e = t->t_enums; e != NULL;
		    e = e->ev_next)
			if (e->ev_value == 0 && zero == NULL)
				zero = e->ev_name;
		put(pc, l, "%s", zero != NULL ? zero : "0");
		return;
	}
	case TY_FLOAT:
		conv(pc, l, "%+.7e", v);
		return;
	case TY_INT:
		if (is_char(t)) {
			conv(pc, l, "'%c'", v);
			return;
		}
		conv(pc, l, "%#x", cast(pc, l, eng_type_int(cc,
		    (int)t->t_size, 0), v));
		return;
	case TY_PTR: case TY_FUNC:
		conv(pc, l, "%#x", cast(pc, l, eng_type_lookup(cc,
		    "uintptr_t"), v));
		return;
	default:
		put(pc, l, "<%s>", eng_type_tname(t));
		return;
	}
}

void eng_act_print(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f)
{
	struct eng_node *arg = call->n_args, *orig, *fmt, *pf;
	struct layout l;
	struct eng_type *t;
	const char *tn;

	orig = eng_node_copy(pc, arg);	/* before cooking changes it */
	orig->n_next = NULL;
	if (eng_sema_is_xlptr(pc, arg))
		eng_cc_nerror(pc, arg, "D_PRINT_DYN", "print( ) may not be "
		    "applied to a translated pointer");
	if (arg->n_kind == N_AGG)
		eng_cc_nerror(pc, arg, "D_PRINT_AGG", "print( ) may not be "
		    "applied to an aggregation -- did you mean printa()?");
	eng_sema_expr(pc, arg);
	t = arg->n_type;
	if (t == NULL || t->t_kind == TY_VOID)
		eng_cc_nerror(pc, arg, "D_PRINT_VOID", "print( ) may not be "
		    "applied to a void expression");
	memset(&l, 0, sizeof(l));
	l.tail = &l.args;
	l.orig = orig;
	l.line = call->n_line;
	l.col = call->n_col;
	tn = eng_type_tname(t);
	put(pc, &l, "%s ", tn);
	value(pc, &l, orig, t, 0);
	if (t->t_kind != TY_STRUCT && t->t_kind != TY_UNION)
		put(pc, &l, "\n");
	fmt = eng_node_new(pc, N_STR, call->n_line, call->n_col);
	fmt->n_name = l.fmt;
	fmt->n_next = l.args;
	pf = eng_node_new(pc, N_CALL, call->n_line, call->n_col);
	pf->n_name = "print";
	pf->n_args = fmt;
	eng_act_printf(pc, pf, f);
}
