/*
 * sema_impl.h - what sema.c and sema_op.c share: small helpers on types
 * and constants, and the operator cooking sema.c dispatches to.
 */
#ifndef ENG_SEMA_IMPL_H
#define ENG_SEMA_IMPL_H

#include "cc.h"

static inline struct eng_type *tint(struct eng_pcb *pc)
{
	return eng_type_int(pc->pc_cc, 4, 1);
}

/* An operator's spelling for messages (one static buffer a file). */
static inline const char *opname(int op)
{
	static char b[8];

	return eng_tok_name(op, b, sizeof(b));
}

static inline void set_const(struct eng_node *n, uint64_t v)
{
	n->n_const = 1;
	n->n_int = v;
}

/* Value of an integer constant of type t (sign/zero extended). */
static inline uint64_t norm(const struct eng_type *t, uint64_t v)
{
	unsigned bits = t->t_size * 8;

	if (bits == 0 || bits >= 64)
		return v;
	if (t->t_signed)
		return (uint64_t)(((int64_t)(v << (64 - bits))) >> (64 - bits));
	return v & ((1ULL << bits) - 1);
}

static inline int is_arith(const struct eng_type *t)
{
	return eng_type_is_int(t);
}

/* A pointer to void or to a function: no size to do arithmetic with. */
static inline int is_vfptr(const struct eng_type *t)
{
	return eng_type_is_ptr(t) && (t->t_base == NULL ||
	    t->t_base->t_kind == TY_VOID || t->t_base->t_kind == TY_FUNC);
}

/* sema.c */
void eng_sema_need_scalar(struct eng_pcb *pc, struct eng_node *n, int op);

/* sema_op.c: n's operands, then n */
void eng_sema_op1(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_op2(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_op3(struct eng_pcb *pc, struct eng_node *n);

#endif /* ENG_SEMA_IMPL_H */
