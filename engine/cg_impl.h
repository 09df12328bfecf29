/*
 * cg_impl.h - the DIF code generator's private interface, shared by
 * cg.c (expressions, registers, labels, tables) and cg_store.c
 * (assignment to variables, memory and bit-fields).  Nothing outside
 * engine/cg*.c includes it.
 */
#ifndef CG_IMPL_H
#define CG_IMPL_H

#include "cc.h"

struct cg {
	struct eng_pcb *pc;
	dif_instr_t *buf;
	uint32_t len, cap;
	uint64_t *itab;
	uint32_t ilen, icap;
	char *stab;
	uint32_t slen, scap;
	dtrace_difv_t *vtab;
	uint32_t vlen, vcap;
	int used[DIF_DIR_NREGS];
	uint32_t *lbl;			/* label -> instruction index */
	uint32_t nlbl, lblcap;
	uint32_t *fix;			/* branch instruction indexes */
	int nfix, fixcap;
	const struct eng_node *subst;	/* this variable's value is ... */
	int subst_reg;			/* ... in this register (store_in_var) */
};

void cg_emit(struct cg *g, dif_instr_t in);
int cg_newlabel(struct cg *g);
void cg_label(struct cg *g, int l);
void cg_branch(struct cg *g, int op, int l);
int cg_ralloc(struct cg *g, const struct eng_node *n);
void cg_rfree(struct cg *g, int r);
int cg_is_byref(const struct eng_type *t);
void cg_narrow(struct cg *g, int r, const struct eng_type *to);
int cg_load_var(struct cg *g, struct eng_node *n, int r);
void cg_store_var(struct cg *g, struct eng_node *n, int r);
int cg_setx(struct cg *g, uint64_t v, const struct eng_node *n);
int cg_arith_op(int op, int sgn);
void cg_scale(struct cg *g, int r, const struct eng_type *t);
int cg_load_op(const struct eng_type *t, int user);
void cg_load(struct cg *g, int r, const struct eng_type *t, int user);
int cg_addr(struct cg *g, struct eng_node *n, int *user);
const struct eng_type *cg_bf_unit(struct cg *g, const struct eng_member *m);
void cg_op_const(struct cg *g, int op, int r, uint64_t v);
void cg_bf_load(struct cg *g, int r, const struct eng_member *m, int user);
int cg_expr(struct cg *g, struct eng_node *n);

int cg_assign(struct cg *g, struct eng_node *n);
int cg_incdec(struct cg *g, struct eng_node *n);

#endif
