/*
 * cc_test.h - helpers for the compiler's unit tests: a handle with only
 * the dtrace provider, a compile that must succeed or must fail with a
 * tag, a bare per-compile state for driving the lexer and parser alone,
 * and lookups into a compiled program's statements and DIF objects.
 * Header-only (static functions).
 */
#ifndef CC_TEST_H
#define CC_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cc.h"

#define CT_FN static __attribute__((unused))

CT_FN eng_hdl_t *ct_open(void)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof(err));

	if (h == NULL)
		fail_msg("eng_open: %s", err);
	return h;
}

/* Compile src as -n text; fail the test with the message if it fails. */
CT_FN eng_prog_t *ct_ok(eng_hdl_t *h, const char *src)
{
	eng_prog_t *p = eng_compile_str(h, src, NULL, 0, NULL);

	if (p == NULL)
		fail_msg("compile of <%s> failed: %s", src, eng_errmsg(h));
	return p;
}

/* Compile src; it must fail with tag; returns the message. */
CT_FN const char *ct_err(eng_hdl_t *h, const char *src, const char *tag)
{
	eng_prog_t *p = eng_compile_str(h, src, NULL, ENG_C_ZDEFS, NULL);
	const eng_diag_t *d;

	if (p != NULL) {
		eng_prog_free(p);
		fail_msg("compile of <%s> succeeded, wanted %s", src, tag);
	}
	d = eng_diag(h);
	if (d == NULL || strcmp(d->ed_tag, tag) != 0)
		fail_msg("compile of <%s>: tag %s (%s), wanted %s", src,
		    d ? d->ed_tag : "none", eng_errmsg(h), tag);
	return d->ed_msg;
}

/* A bare compile state for the lexer/parser: src must outlive it. */
struct ct_pcb {
	struct eng_pcb pc;
	struct eng_arena arena;
};

CT_FN void ct_pcb_init(struct ct_pcb *c, eng_hdl_t *h, const char *src)
{
	memset(c, 0, sizeof(*c));
	c->pc.pc_hdl = h;
	c->pc.pc_cc = eng_cc_get(h);
	c->pc.pc_arena = &c->arena;
	c->pc.pc_strsize = 256;
	c->pc.pc_nargs = -1;
	eng_lex_init(&c->pc, src);
}

CT_FN void ct_pcb_fini(struct ct_pcb *c)
{
	eng_arena_free(&c->arena);
}

/* Statement i (from 0) of a program. */
CT_FN const struct eng_stmt *ct_stmt(const eng_prog_t *p, int i)
{
	const struct eng_stmt *s = p->p_stmts;

	while (s != NULL && i-- > 0)
		s = s->s_next;
	assert_non_null(s);
	return s;
}

/* Does d contain an instruction with opcode op? */
CT_FN int ct_has_op(const struct eng_difo *d, int op)
{
	for (uint32_t i = 0; i < d->dd_len; i++)
		if ((int)DIF_INSTR_OP(d->dd_buf[i]) == op)
			return 1;
	return 0;
}

/* The constant returned by a DIFO of the form setx/mov; ret. */
CT_FN uint64_t ct_const(const struct eng_difo *d)
{
	dif_instr_t in = d->dd_buf[0];

	assert_int_equal(d->dd_len, 2);
	if (DIF_INSTR_OP(in) == DIF_OP_MOV)
		return 0;
	assert_int_equal(DIF_INSTR_OP(in), DIF_OP_SETX);
	return d->dd_inttab[DIF_INSTR_INTEGER(in)];
}

#endif /* CC_TEST_H */
