/*
 * eng_impl.h - what the engine's files share: the handle.  Not public.
 *
 * The engine has two halves that meet here:
 *   - the compiler (lex.c, parse.c, ... cg.c, dof.c, dis.c, prog.c): owns
 *     struct eng_cc (engine/cc.h) and eng_prog_t;
 *   - the consumer (handle.c, opt.c, consume.c, printf.c, agg*.c ...):
 *     owns the rest of struct eng_hdl.
 * Each half adds fields only to its own structure.
 */
#ifndef ENG_IMPL_H
#define ENG_IMPL_H

#include "engine.h"
#include "ks.h"

struct eng_cc;		/* compiler state, engine/cc.h */
struct eng_consumer;	/* consumer state, engine/consume.h */

struct eng_hdl {
	ks_state_t *eh_ks;		/* the shim state */
	struct eng_cc *eh_cc;		/* compiler's state (lazily made) */
	struct eng_consumer *eh_cons;	/* consumer's state */
	dtrace_optval_t eh_opt[DTRACEOPT_MAX];	/* DTRACEOPT_* values */
	char eh_errmsg[1024];		/* eng_errmsg() */
	eng_diag_t eh_diag;		/* last compile diagnostic */
	char eh_diagmsg[512];		/* storage behind eh_diag */
	char eh_diagfile[256];
	char eh_diagtag[48];
	int eh_go;			/* GO done */
	int eh_stopped;			/* STOP done */
};

/* Set eng_errmsg() text; returns -1 for `return eng_error(h, ...)`. */
int eng_error(eng_hdl_t *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* ENG_IMPL_H */
