/*
 * ident.c - the compiler's identifier tables: the built-in variables of
 * spec ch. 9 with their DIF ids and types, the functions D knows
 * (actions, subroutines of spec ch. 10 with argument kinds and result
 * types, aggregating functions, and those not available on Linux), and
 * the per-handle hash tables of variables and aggregations, whose ids are
 * handed out here (DIF_VAR_OTHER_UBASE up per scope; aggregations from 1).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"

/* ---- built-in variables (spec ch. 9) ----------------------------------- */

static const struct eng_builtin builtins[] = {
	{ "args", DIF_VAR_ARGS, "int64_t", 1 },
	{ "regs", DIF_VAR_REGS, "uint64_t", 1 },
	{ "uregs", DIF_VAR_UREGS, "uint64_t", 1 },
	{ "curthread", DIF_VAR_CURTHREAD, "uintptr_t", 0 },
	{ "timestamp", DIF_VAR_TIMESTAMP, "uint64_t", 0 },
	{ "vtimestamp", DIF_VAR_VTIMESTAMP, "uint64_t", 0 },
	{ "ipl", DIF_VAR_IPL, "uint_t", 0 },
	{ "epid", DIF_VAR_EPID, "uint_t", 0 },
	{ "id", DIF_VAR_ID, "uint_t", 0 },
	{ "arg0", DIF_VAR_ARG0, "int64_t", 0 },
	{ "arg1", DIF_VAR_ARG1, "int64_t", 0 },
	{ "arg2", DIF_VAR_ARG2, "int64_t", 0 },
	{ "arg3", DIF_VAR_ARG3, "int64_t", 0 },
	{ "arg4", DIF_VAR_ARG4, "int64_t", 0 },
	{ "arg5", DIF_VAR_ARG5, "int64_t", 0 },
	{ "arg6", DIF_VAR_ARG6, "int64_t", 0 },
	{ "arg7", DIF_VAR_ARG7, "int64_t", 0 },
	{ "arg8", DIF_VAR_ARG8, "int64_t", 0 },
	{ "arg9", DIF_VAR_ARG9, "int64_t", 0 },
	{ "stackdepth", DIF_VAR_STACKDEPTH, "uint32_t", 0 },
	{ "caller", DIF_VAR_CALLER, "uintptr_t", 0 },
	{ "probeprov", DIF_VAR_PROBEPROV, "string", 0 },
	{ "probemod", DIF_VAR_PROBEMOD, "string", 0 },
	{ "probefunc", DIF_VAR_PROBEFUNC, "string", 0 },
	{ "probename", DIF_VAR_PROBENAME, "string", 0 },
	{ "pid", DIF_VAR_PID, "pid_t", 0 },
	{ "tid", DIF_VAR_TID, "id_t", 0 },
	{ "execname", DIF_VAR_EXECNAME, "string", 0 },
	{ "zonename", DIF_VAR_ZONENAME, "string", 0 },
	{ "walltimestamp", DIF_VAR_WALLTIMESTAMP, "int64_t", 0 },
	{ "ustackdepth", DIF_VAR_USTACKDEPTH, "uint32_t", 0 },
	{ "ucaller", DIF_VAR_UCALLER, "uint64_t", 0 },
	{ "ppid", DIF_VAR_PPID, "pid_t", 0 },
	{ "uid", DIF_VAR_UID, "uid_t", 0 },
	{ "gid", DIF_VAR_GID, "gid_t", 0 },
	{ "errno", DIF_VAR_ERRNO, "int", 0 },
	{ "cpu", DIF_VAR_CPU, "processorid_t", 0 },
	/* behind curpsinfo (compile.c's prelude); not documented names */
	{ "__psargs", DIF_VAR_PSARGS, "string", 0 },
	{ "__argc", DIF_VAR_ARGC, "int", 0 },
	{ NULL, 0, NULL, 0 }
};

/* The name of the built-in variable with DIF id, or NULL. */
const char *eng_ident_builtin_name(unsigned id)
{
	for (int i = 0; builtins[i].name != NULL; i++)
		if (builtins[i].id == id)
			return builtins[i].name;
	return NULL;
}

/* The built-in variable called name, or NULL. */
const struct eng_builtin *eng_sema_builtin(const char *name)
{
	for (int i = 0; builtins[i].name != NULL; i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

/* ---- functions ---------------------------------------------------------- */

#define S(n, id, mn, mx, a, r) { #n, F_SUBR, DIF_SUBR_##id, mn, mx, a, r, 0 }
/* nargs is the illumos prototype's, so a wrong count is D_PROTO_LEN there too */
#define NL(n, nargs) { #n, F_NOTLINUX, 0, nargs, nargs, "", NULL, 0 }
static const struct eng_func funcs[] = {
	/* actions: a statement of their own */
	{ "trace", F_ACT, DTRACEACT_DIFEXPR, 1, 1, "a", NULL, 0 },
	{ "printf", F_ACT, DTRACEACT_PRINTF, 1, 99, "S", NULL, 0 },
	{ "printa", F_ACT, DTRACEACT_PRINTA, 1, 99, "a", NULL, 0 },
	{ "print", F_ACT, DTRACEACT_PRINTF, 1, 1, "a", NULL, 0 },	/* act_print.c */
	{ "stack", F_ACT, DTRACEACT_STACK, 0, 1, "i", NULL, F_KEYOK },
	{ "ustack", F_ACT, DTRACEACT_USTACK, 0, 2, "ii", NULL, F_KEYOK },
	{ "jstack", F_ACT, DTRACEACT_JSTACK, 0, 2, "ii", NULL, F_KEYOK },
	{ "tracemem", F_ACT, DTRACEACT_TRACEMEM, 2, 3, "pii", NULL, 0 },
	{ "sym", F_ACT, DTRACEACT_SYM, 1, 1, "p", NULL, F_KEYOK },
	{ "func", F_ACT, DTRACEACT_SYM, 1, 1, "p", NULL, F_KEYOK },
	{ "mod", F_ACT, DTRACEACT_MOD, 1, 1, "p", NULL, F_KEYOK },
	{ "usym", F_ACT, DTRACEACT_USYM, 1, 1, "p", NULL, F_KEYOK },
	{ "ufunc", F_ACT, DTRACEACT_USYM, 1, 1, "p", NULL, F_KEYOK },
	{ "umod", F_ACT, DTRACEACT_UMOD, 1, 1, "p", NULL, F_KEYOK },
	{ "uaddr", F_ACT, DTRACEACT_UADDR, 1, 1, "p", NULL, F_KEYOK },
	{ "exit", F_ACT, DTRACEACT_EXIT, 1, 1, "i", NULL, 0 },
	{ "speculate", F_ACT, DTRACEACT_SPECULATE, 1, 1, "i", NULL, 0 },
	{ "commit", F_ACT, DTRACEACT_COMMIT, 1, 1, "i", NULL, 0 },
	{ "discard", F_ACT, DTRACEACT_DISCARD, 1, 1, "i", NULL, 0 },
	{ "clear", F_ACT, DT_ACT_CLEAR, 1, 1, "@", NULL, F_LIB },
	{ "trunc", F_ACT, DT_ACT_TRUNC, 1, 2, "@i", NULL, F_LIB },
	{ "normalize", F_ACT, DT_ACT_NORMALIZE, 2, 2, "@i", NULL, F_LIB },
	{ "denormalize", F_ACT, DT_ACT_DENORMALIZE, 1, 1, "@", NULL, F_LIB },
	{ "setopt", F_ACT, DT_ACT_SETOPT, 1, 2, "SS", NULL, F_LIB },
	{ "ftruncate", F_ACT, DT_ACT_FTRUNCATE, 0, 0, "", NULL, F_LIB },
	{ "system", F_ACT, DTRACEACT_SYSTEM, 1, 99, "S", NULL, F_DESTRUCTIVE },
	{ "freopen", F_ACT, DTRACEACT_FREOPEN, 1, 99, "S", NULL,
	    F_DESTRUCTIVE },
	{ "raise", F_ACT, DTRACEACT_RAISE, 1, 1, "i", NULL, F_DESTRUCTIVE },
	{ "stop", F_ACT, DTRACEACT_STOP, 0, 0, "", NULL, F_DESTRUCTIVE },
	{ "chill", F_ACT, DTRACEACT_CHILL, 1, 1, "i", NULL, F_DESTRUCTIVE },
	{ "breakpoint", F_ACT, DTRACEACT_BREAKPOINT, 0, 0, "", NULL,
	    F_DESTRUCTIVE },
	{ "panic", F_ACT, DTRACEACT_PANIC, 0, 0, "", NULL, F_DESTRUCTIVE },
	/* aggregating functions */
	{ "count", F_AGG, DTRACEAGG_COUNT, 0, 0, "", NULL, 0 },
	{ "sum", F_AGG, DTRACEAGG_SUM, 1, 1, "p", NULL, 0 },
	{ "avg", F_AGG, DTRACEAGG_AVG, 1, 1, "p", NULL, 0 },
	{ "min", F_AGG, DTRACEAGG_MIN, 1, 1, "p", NULL, 0 },
	{ "max", F_AGG, DTRACEAGG_MAX, 1, 1, "p", NULL, 0 },
	{ "stddev", F_AGG, DTRACEAGG_STDDEV, 1, 1, "p", NULL, 0 },
	{ "quantize", F_AGG, DTRACEAGG_QUANTIZE, 1, 2, "pp", NULL, 0 },
	{ "lquantize", F_AGG, DTRACEAGG_LQUANTIZE, 3, 5, "ppppp", NULL, 0 },
	{ "llquantize", F_AGG, DTRACEAGG_LLQUANTIZE, 5, 6, "pppppp", NULL, 0 },
	/* subroutines (spec ch. 10) */
	S(rand, rand, 0, 0, "", "int"),
	S(random, random, 0, 0, "", "uint64_t"),
	S(copyin, copyin, 2, 2, "pi", "void *"),
	S(copyinstr, copyinstr, 1, 2, "pi", "string"),
	S(copyinto, copyinto, 3, 3, "pip", NULL),
	S(speculation, speculation, 0, 0, "", "int"),
	S(progenyof, progenyof, 1, 1, "i", "int"),
	S(strlen, strlen, 1, 1, "s", "size_t"),
	{ "copyout", F_SUBR, DIF_SUBR_copyout, 3, 3, "cpi", NULL,
	    F_DESTRUCTIVE },
	{ "copyoutstr", F_SUBR, DIF_SUBR_copyoutstr, 3, 3, "spi", NULL,
	    F_DESTRUCTIVE },
	S(alloca, alloca, 1, 1, "i", "void *"),
	S(bcopy, bcopy, 3, 3, "cpi", NULL),
	S(getmajor, getmajor, 1, 1, "i", "major_t"),
	S(getminor, getminor, 1, 1, "i", "minor_t"),
	S(strjoin, strjoin, 2, 2, "ss", "string"),
	S(lltostr, lltostr, 1, 2, "ii", "string"),
	S(basename, basename, 1, 1, "s", "string"),
	S(dirname, dirname, 1, 1, "s", "string"),
	S(cleanpath, cleanpath, 1, 1, "s", "string"),
	S(strchr, strchr, 2, 2, "si", "string"),
	S(strrchr, strrchr, 2, 2, "si", "string"),
	S(strstr, strstr, 2, 2, "ss", "string"),
	S(strtok, strtok, 2, 2, "ss", "string"),
	S(substr, substr, 2, 3, "sii", "string"),
	S(index, index, 2, 3, "ssi", "int"),
	S(rindex, rindex, 2, 3, "ssi", "int"),
	S(htons, htons, 1, 1, "i", "uint16_t"),
	S(htonl, htonl, 1, 1, "i", "uint32_t"),
	S(htonll, htonll, 1, 1, "i", "uint64_t"),
	S(ntohs, ntohs, 1, 1, "i", "uint16_t"),
	S(ntohl, ntohl, 1, 1, "i", "uint32_t"),
	S(ntohll, ntohll, 1, 1, "i", "uint64_t"),
	S(inet_ntop, inet_ntop, 2, 2, "ip", "string"),
	S(inet_ntoa, inet_ntoa, 1, 1, "p", "string"),
	S(inet_ntoa6, inet_ntoa6, 1, 1, "p", "string"),
	S(toupper, toupper, 1, 1, "s", "string"),
	S(tolower, tolower, 1, 1, "s", "string"),
	S(memref, memref, 2, 2, "pi", "uintptr_t *"),
	S(memstr, memstr, 3, 3, "pii", "string"),
	S(json, json, 2, 2, "ss", "string"),
	S(strtoll, strtoll, 1, 2, "si", "int64_t"),
	S(uuidstr, uuidstr, 1, 1, "p", "string"),
	S(link_ntop, link_ntop, 2, 2, "ip", "string"),	/* Oracle's */
	NL(mutex_owned, 1), NL(mutex_owner, 1), NL(mutex_type_adaptive, 1),
	NL(mutex_type_spin, 1), NL(rw_read_held, 1), NL(rw_write_held, 1),
	NL(rw_iswriter, 1), NL(msgsize, 1), NL(msgdsize, 1),
	NL(ddi_pathname, 2), NL(getf, 1), NL(sx_shared_held, 1),
	NL(sx_exclusive_held, 1), NL(sx_isexclusive, 1),
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0 }
};

const struct eng_func *eng_sema_func(const char *name)
{
	for (int i = 0; funcs[i].f_name != NULL; i++)
		if (strcmp(funcs[i].f_name, name) == 0)
			return &funcs[i];
	return NULL;
}

/* ---- the vocabulary, for everyone else (engine.h) ---------------------- */

/* Variables the parser and the prelude give beyond the built-ins. */
static const char *const more_vars[] = { "self", "this", "curpsinfo",
	"curlwpsinfo", NULL };
#define NBUILTINS	(sizeof(builtins) / sizeof(builtins[0]))
#define NFUNCS		(sizeof(funcs) / sizeof(funcs[0]))
static const char *vocab[4][NBUILTINS + NFUNCS + 8];
static pthread_once_t vocab_once = PTHREAD_ONCE_INIT;

static void vocab_fill(void)
{
	int n[4] = { 0, 0, 0, 0 };

	for (int i = 0; builtins[i].name != NULL; i++)
		if (strncmp(builtins[i].name, "__", 2) != 0)
			vocab[ENG_WORD_VARIABLE][n[0]++] = builtins[i].name;
	for (int i = 0; more_vars[i] != NULL; i++)
		vocab[ENG_WORD_VARIABLE][n[0]++] = more_vars[i];
	for (int i = 0; funcs[i].f_name != NULL; i++) {
		int k = funcs[i].f_kind == F_ACT ? ENG_WORD_ACTION :
		    funcs[i].f_kind == F_AGG ? ENG_WORD_AGGREGATING :
		    funcs[i].f_kind == F_SUBR ? ENG_WORD_SUBROUTINE : -1;

		if (k >= 0)
			vocab[k][n[k]++] = funcs[i].f_name;
	}
}

const char *const *eng_d_words(enum eng_word kind)
{
	if ((unsigned)kind > ENG_WORD_AGGREGATING)
		return NULL;
	pthread_once(&vocab_once, vocab_fill);
	return vocab[kind];
}

const char *eng_d_actname(uint32_t kind)
{
	for (int i = 0; funcs[i].f_name != NULL; i++)
		if ((funcs[i].f_kind == F_ACT || funcs[i].f_kind == F_AGG) &&
		    !(funcs[i].f_flags & F_LIB) &&
		    (uint32_t)funcs[i].f_id == kind)
			return funcs[i].f_name;
	return NULL;
}

/* ---- identifiers ------------------------------------------------------ */

static unsigned hash(const char *s)
{
	unsigned h = 5381;

	while (*s != '\0')
		h = h * 33 + (unsigned char)*s++;
	return h % ENG_CC_NHASH;
}

static char *ccstrdup(struct eng_pcb *pc, const char *s)
{
	size_t n = strlen(s);
	char *d = eng_arena_alloc(&pc->pc_cc->cc_arena, n + 1);

	if (d == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	memcpy(d, s, n);
	return d;
}

static void journal(struct eng_pcb *pc, struct eng_ident *id, int agg)
{
	struct eng_newid *n;

	if (pc->pc_arena == NULL)
		return;
	n = eng_cc_alloc(pc, sizeof(*n));
	n->ni_id = id;
	n->ni_agg = agg;
	n->ni_next = pc->pc_newids;
	pc->pc_newids = n;
}

static void unlink_id(struct eng_ident **chain, struct eng_ident *id)
{
	for (; *chain != NULL; chain = &(*chain)->i_next)
		if (*chain == id) {
			*chain = id->i_next;
			return;
		}
}

/*
 * A failed compile leaves no identifiers behind: variables, inlines,
 * translators and aggregations it made are unlinked (an aggregation's id
 * stays taken, so ids already known to the consumer keep their names).
 * Aggregations that existed get no function or keys from it either, as
 * those are only set for new ones or when first used.
 */
void eng_ident_rollback(struct eng_pcb *pc)
{
	struct eng_cc *cc = pc->pc_cc;

	for (struct eng_newid *n = pc->pc_newids; n != NULL; n = n->ni_next) {
		struct eng_ident *id = n->ni_id;

		if (n->ni_agg) {
			unlink_id(&cc->cc_aggs[hash(id->i_name)], id);
			id->i_aggfunc = 0;
			id->i_nkeys = -1;
		} else {
			unlink_id(&cc->cc_hash[hash(id->i_name)], id);
		}
	}
	pc->pc_newids = NULL;
}

/* id names an inline, enumerator or translator, not a variable: give its
 * DIF variable id back if it was the last one handed out. */
void eng_ident_not_var(struct eng_pcb *pc, struct eng_ident *id)
{
	uint32_t *next = &pc->pc_cc->cc_nextid[0];

	if (id->i_scope == SC_GLOBAL && id->i_id == DIF_VAR_OTHER_UBASE +
	    *next - 1) {
		(*next)--;
		id->i_id = 0;
	}
}

/* Look up (and with create, make) a variable or inline of a scope. */
struct eng_ident *eng_cc_ident(struct eng_pcb *pc, const char *name,
    int scope, int create)
{
	struct eng_cc *cc = pc->pc_cc;
	unsigned hv = hash(name);
	struct eng_ident *id;
	int sc = scope == SC_THREAD ? 1 : scope == SC_LOCAL ? 2 : 0;

	for (id = cc->cc_hash[hv]; id != NULL; id = id->i_next)
		if (id->i_scope == scope && strcmp(id->i_name, name) == 0)
			return id;
	if (!create)
		return NULL;
	id = eng_arena_alloc(&cc->cc_arena, sizeof(*id));
	if (id == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	id->i_name = ccstrdup(pc, name);
	id->i_kind = ID_VAR;
	id->i_scope = scope;
	id->i_nkeys = -1;
	id->i_gen = cc->cc_gen;
	id->i_id = DIF_VAR_OTHER_UBASE + cc->cc_nextid[sc]++;
	if (id->i_id > DIF_VAR_OTHER_MAX)
		eng_cc_error(pc, 0, 0, "D_ID_OFLOW", "too many variables");
	id->i_next = cc->cc_hash[hv];
	cc->cc_hash[hv] = id;
	journal(pc, id, 0);
	return id;
}

/* Look up (and with create, make) the aggregation @name. */
struct eng_ident *eng_cc_agg(struct eng_pcb *pc, const char *name,
    int create)
{
	struct eng_cc *cc = pc->pc_cc;
	unsigned hv = hash(name);
	struct eng_ident *id;

	for (id = cc->cc_aggs[hv]; id != NULL; id = id->i_next)
		if (strcmp(id->i_name, name) == 0)
			return id;
	if (!create)
		return NULL;
	if (cc->cc_naggv == cc->cc_capaggv) {
		size_t ncap = cc->cc_capaggv ? cc->cc_capaggv * 2 : 16;
		struct eng_ident **nv = realloc(cc->cc_aggv,
		    ncap * sizeof(*nv));

		if (nv == NULL)
			eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
		cc->cc_aggv = nv;
		cc->cc_capaggv = ncap;
	}
	id = eng_arena_alloc(&cc->cc_arena, sizeof(*id));
	if (id == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	id->i_name = ccstrdup(pc, name);
	id->i_kind = ID_AGG;
	id->i_nkeys = -1;
	id->i_id = (uint32_t)++cc->cc_nextagg;
	cc->cc_aggv[cc->cc_naggv++] = id;
	id->i_next = cc->cc_aggs[hv];
	cc->cc_aggs[hv] = id;
	journal(pc, id, 1);
	return id;
}

