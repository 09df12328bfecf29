/*
 * eng_impl.h - what the engine's files share: the handle.  Not public.
 *
 * The engine has two halves that meet here:
 *   - the compiler (lex.c, parse.c, ... cg.c, dof.c, dis.c, prog.c): owns
 *     struct eng_cc (engine/cc.h) and eng_prog_t;
 *   - the consumer (handle.c, opt.c, consume.c, printf.c, agg*.c ...):
 *     owns the rest of struct eng_hdl.
 * Each half adds fields only to its own structure.
 *
 * Options: eh_opt[] is indexed by DTRACEOPT_* (values the shim also sees,
 * put in OPTDESC by the compiler when not DTRACEOPT_UNSET) and, above
 * DTRACEOPT_MAX, by ENG_OPT_* (consumer/compiler-only options that have no
 * DTRACEOPT_ number).  Boolean options are DTRACEOPT_UNSET when off and 1
 * when on; read them with eng_opt_isset().  Sizes are bytes, rates are
 * nanoseconds between events.
 */
#ifndef ENG_IMPL_H
#define ENG_IMPL_H

#include "engine.h"
#include "ks.h"

struct eng_cc;		/* compiler state, engine/cc.h */
struct eng_consumer;	/* consumer state, engine/consume.h */

/* Options without a DTRACEOPT_ number (indices into eh_opt[]). */
#define ENG_OPT_ERRTAGS		(DTRACEOPT_MAX + 0)	/* [D_*] in messages */
#define ENG_OPT_DROPTAGS	(DTRACEOPT_MAX + 1)	/* [DTRACEDROP_*] */
#define ENG_OPT_DEFAULTARGS	(DTRACEOPT_MAX + 2)	/* unset $N are 0/"" */
#define ENG_OPT_ZDEFS		(DTRACEOPT_MAX + 3)	/* like -Z */
#define ENG_OPT_OFORMAT		(DTRACEOPT_MAX + 4)	/* ENG_OFORMAT_* */
#define ENG_OPT_ARGREF		(DTRACEOPT_MAX + 5)	/* $N may go unused */
#define ENG_OPT_CPP		(DTRACEOPT_MAX + 6)	/* like -C */
#define ENG_OPT_PSPEC		(DTRACEOPT_MAX + 7)	/* dtrace's C_PSPEC */
#define ENG_OPT_CORE		(DTRACEOPT_MAX + 8)	/* accepted only */
#define ENG_OPT_AGGPERCPU	(DTRACEOPT_MAX + 9)	/* accepted only */
#define ENG_OPT_MAXFRAMES	(DTRACEOPT_MAX + 10)	/* cap on frames */
#define ENG_OPT_NORESOLVE	(DTRACEOPT_MAX + 11)	/* addresses as hex */
#define ENG_OPT_MAX		(DTRACEOPT_MAX + 12)

/*
 * Compile-time options dtrace has that are kept outside eh_opt[] (whose
 * size experiments record): indices into eh_xopt[].  evaltime holds
 * ENG_EVALTIME_* (engine.h), late and the link options the index of their
 * word, the others their number (DTRACEOPT_UNSET when not set).
 */
#define ENG_XOPT_EVALTIME	0
#define ENG_XOPT_IREGS		1	/* integer registers the compiler uses */
#define ENG_XOPT_TREGS		2
#define ENG_XOPT_TREE		3	/* parse tree to stderr */
#define ENG_XOPT_DISASM		4	/* DIF listing to stderr, as -S */
#define ENG_XOPT_VERBOSE	5	/* dtrace's DTRACE_C_DIFV: as -S */
#define ENG_XOPT_DEBUG		6
#define ENG_XOPT_STRIP		7
#define ENG_XOPT_LATE		8	/* 0 dynamic, 1 static */
#define ENG_XOPT_LINKMODE	9	/* 0 kernel, 1 dynamic, 2 static */
#define ENG_XOPT_LINKTYPE	10	/* 0 elf, 1 dof */
#define ENG_XOPT_USERUID	11
#define ENG_XOPT_AMIN		12	/* set: 1 */
#define ENG_XOPT_MAX		13

#define ENG_OFORMAT_TEXT	0
#define ENG_OFORMAT_JSON	1
#define ENG_OFORMAT_CHROME	2	/* trace-event JSON (export.c) */
#define ENG_OFORMAT_FOLDED	3	/* collapsed stacks (export.c) */

struct eng_hdl {
	ks_state_t *eh_ks;		/* the shim state */
	struct eng_cc *eh_cc;		/* compiler's state (lazily made) */
	struct eng_consumer *eh_cons;	/* consumer's state */
	dtrace_optval_t eh_opt[ENG_OPT_MAX];	/* DTRACEOPT_*, ENG_OPT_* */
	dtrace_optval_t eh_xopt[ENG_XOPT_MAX];	/* ENG_XOPT_* */
	char eh_errmsg[1024];		/* eng_errmsg() */
	eng_diag_t eh_diag;		/* last compile diagnostic */
	char eh_diagmsg[512];		/* storage behind eh_diag */
	char eh_diagfile[256];
	char eh_diagtag[48];
	int eh_go;			/* GO done */
	int eh_stopped;			/* STOP done */
	int eh_flags;			/* eng_open() flags */
	struct eng_exp *eh_exp;		/* recording or replay (exp.h) */
	struct eng_optstr *eh_optstr;	/* text-valued options (optstr.c) */
	struct eng_pidstate *eh_pid;	/* pid descriptions seen (pid.c) */
	dtrace_optval_t eh_quietresize;	/* -x quietresize (opt.c) */
};

/* Every consumer call into the shim: ks_ioctl, written down while
 * recording an experiment and answered from it while replaying (exp.h). */
int eng_ks_ioctl(eng_hdl_t *h, int cmd, void *arg);

/* Set eng_errmsg() text; returns -1 for `return eng_error(h, ...)`. */
int eng_error(eng_hdl_t *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The value of option opt (DTRACEOPT_* or ENG_OPT_*); UNSET if unset. */
dtrace_optval_t eng_opt_get(const eng_hdl_t *h, int opt);
/* An ENG_XOPT_* option's value (DTRACEOPT_UNSET if not set). */
dtrace_optval_t eng_xopt_get(const eng_hdl_t *h, int xopt);
/* Non-zero if a boolean option (quiet, errtags, zdefs...) is on. */
int eng_opt_isset(const eng_hdl_t *h, int opt);
/* The eh_opt[] index of option `name`, or -1 if there is no such option. */
int eng_opt_index(const char *name);

/* pid.c: a description naming pid<PID> makes its probes first.  0, or
 * -1 with eng_error (no such process). */
int eng_pid_provide(eng_hdl_t *h, const dtrace_probedesc_t *pd);
/* Follow the processes those descriptions name: when one has mapped or
 * unmapped objects (dlopen), make the new probes, give them the
 * enablings' ECBs (ks_enable_retained) and attach them.  Rate-limited;
 * called from eng_work. */
void eng_pid_follow(eng_hdl_t *h);
void eng_pid_free(eng_hdl_t *h);

/* optstr.c: options with text values (cpp..., libdir, version, ctypes).
 * eng_optstr_set refuses the preprocessor's from a D program. */
int eng_optstr_is(const char *name);
int eng_optstr_set(eng_hdl_t *h, const char *name, const char *value,
    int from_program);
const char *const *eng_opt_cppargs(const eng_hdl_t *h);	/* or NULL */
const char *eng_opt_cpppath(const eng_hdl_t *h);		/* "gcc" */
const char *const *eng_opt_libdirs(const eng_hdl_t *h);	/* or NULL */
const char *eng_opt_version(const eng_hdl_t *h);		/* "1.13" */
/* -x empty and -x nolibs, which the compiler turns into its flags */
#define ENG_OPTSTR_EMPTY	0x1
#define ENG_OPTSTR_NOLIBS	0x2
unsigned eng_opt_strflags(const eng_hdl_t *h);
/* evaltime.c, for proc.c: the point of mode for a process exec'ing exe
 * (0 or -1: not found), and holding a created process there ourselves:
 * seize it before its exec (0 or -1), run it there (1 held, 0 it ended
 * with wait status *status, -1 point not found: let go), let it go. */
struct prov_evalpt;
int eng_evalpoint(const char *exe, int mode, struct prov_evalpt *ev);
int eng_evalseize(int pid);
int eng_evalwait(int pid, const struct prov_evalpt *ev, int *status);
void eng_evalgo(int pid);
void eng_optstr_free(eng_hdl_t *h);
/* #pragma D option: eng_setopt, refusing what a program may not set. */
int eng_setopt_pragma(eng_hdl_t *h, const char *name, const char *value);

#endif /* ENG_IMPL_H */
