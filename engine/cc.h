/*
 * cc.h - the D compiler's internal header: tokens, types, parse nodes,
 * identifiers, DIF objects under construction, the per-compile state
 * (struct eng_pcb) and the per-handle state (struct eng_cc, h->eh_cc).
 *
 * Passes, one file each:
 *   lex.c    bytes -> tokens (the parser chooses the mode: probe
 *            descriptions or expressions); #pragma and #line handled here
 *   parse.c  tokens -> AST (struct eng_node), one function per rule,
 *            binary operators by precedence climbing over one table;
 *            parse_decl.c: type names and declarations (typedef, inline,
 *            translator, provider); parse_sou.c: struct/union/enum
 *            bodies and layout; parse_impl.h: what they share
 *   type.c   the type table: C integer types, typedefs, struct/union/enum,
 *            pointers and arrays; declarations
 *   ident.c  built-in variables, functions, identifier tables
 *   sema.c   identifiers and types of expressions ("cooking"), constant
 *            folding, lvalue and operand checks; sema_op.c: operators
 *            and pointer arithmetic; sema_xlate.c: member
 *            references through translators
 *   ast.c    probe description fields, node copies, the AST dump
 *   cg.c     expressions -> DIF instructions (8 registers, forward labels);
 *            cg_type.c: the DIF type of a value
 *   act.c    statements -> actions (trace, printf ...), if/else
 *   act_agg.c aggregations: keys, functions, lquantize/llquantize rules
 *   dofw.c   program -> DOF image (the clause protocol of dtrace_abi.h)
 *   dis.c    DIF objects -> readable assembly (-S)
 *   compile.c entry points, diagnostics, cpp, the prelude (curpsinfo,
 *            errno/signal constants) declared once per handle
 *   prog.c   eng_prog_* , probe listing and matching, ENABLE
 *
 * Memory: everything a compile makes lives in its program's arena
 * (struct eng_arena), freed once by eng_prog_free() or at once when the
 * compile fails.  What outlives programs (identifiers of global, thread-
 * local and aggregation variables, declared types, statement and
 * aggregation descriptions the consumer reads) lives in eng_cc's arena,
 * freed by eng_cc_free() from eng_close().  A failed compile unlinks the
 * identifiers it made (eng_ident_rollback), so nothing half-made stays.
 *
 * Errors: eng_cc_error() records the diagnostic and longjmp()s to the
 * compile entry; the jump never leaves the compiler.
 */
#ifndef ENG_CC_H
#define ENG_CC_H

#include <setjmp.h>
#include <stdint.h>
#include <stddef.h>
#include "eng_impl.h"
#include "ccinfo.h"

/* ---- arena -------------------------------------------------------------- */

struct eng_arena {
	struct eng_chunk *ea_chunks;	/* newest first */
	size_t ea_used;			/* bytes used in the newest chunk */
	size_t ea_size;			/* its capacity */
	/* while a compile runs: called when memory runs out (it reports
	 * D_NOMEM and longjmps, so no caller sees NULL) */
	void (*ea_nomem)(void *arg);
	void *ea_nomem_arg;
};
void *eng_arena_alloc(struct eng_arena *a, size_t n);	/* zeroed; NULL */
void eng_arena_free(struct eng_arena *a);

/* ---- tokens ------------------------------------------------------------- */

enum eng_tok {
	T_EOF = 0,
	/* single characters stand for themselves ('+', '{' ...) */
	T_IDENT = 256, T_INT, T_STR, T_PDESC, T_AGG,
	T_ARROW, T_INC, T_DEC, T_SHL, T_SHR, T_LE, T_GE, T_EQ, T_NE,
	T_LAND, T_LOR, T_LXOR,
	T_ADD_EQ, T_SUB_EQ, T_MUL_EQ, T_DIV_EQ, T_MOD_EQ, T_AND_EQ,
	T_XOR_EQ, T_OR_EQ, T_SHL_EQ, T_SHR_EQ, T_DOTS,
	T_MAX
};

struct eng_token {
	int tk_kind;			/* enum eng_tok or a character */
	const char *tk_text;		/* identifier/string/pdesc (arena) */
	uint64_t tk_int;		/* T_INT value */
	int tk_unsigned, tk_long;	/* integer suffix/size class */
	int tk_line, tk_col;
	const char *tk_pos;		/* where it starts in the source */
	size_t tk_len;			/* source length */
};

/* ---- types -------------------------------------------------------------- */

enum eng_tkind { TY_VOID, TY_INT, TY_PTR, TY_ARRAY, TY_STRING, TY_STRUCT,
		 TY_UNION, TY_ENUM, TY_FUNC, TY_FORWARD,
		 TY_FLOAT };		/* declarable (C headers), no values */

struct eng_member {
	const char *m_name;
	struct eng_type *m_type;
	uint32_t m_off;			/* byte offset */
	int m_bits, m_bitoff;		/* bit-field width/offset, 0 if none */
	struct eng_member *m_next;
};

struct eng_enumval {
	const char *ev_name;
	int64_t ev_value;
	struct eng_enumval *ev_next;
};

struct eng_type {
	enum eng_tkind t_kind;
	const char *t_name;		/* "int", "struct foo", typedef name */
	uint32_t t_size;
	uint32_t t_align;
	int t_signed;			/* TY_INT */
	struct eng_type *t_base;	/* pointer/array element; typedef'd */
	uint32_t t_nelems;		/* TY_ARRAY */
	struct eng_member *t_members;	/* struct/union */
	struct eng_enumval *t_enums;	/* enum */
	int t_userland;			/* pointer into user memory */
	struct eng_type *t_ptrto;	/* cached pointer to this type */
	int t_decl;			/* a typedef a D program (1) or a -C
					 * header (2) declared; 0: D's own */
	unsigned t_gen;			/* the compile that declared it */
	struct eng_type *t_next;	/* in the table */
};

/* ---- parse nodes -------------------------------------------------------- */

enum eng_nkind {
	N_INT, N_STR, N_IDENT, N_VAR, N_AGG, N_OP1, N_OP2, N_OP3,
	N_ASSIGN, N_POSTINC, N_POSTDEC, N_PREINC, N_PREDEC, N_CALL,
	N_INDEX, N_MEMBER, N_PTRMEMBER, N_CAST, N_SIZEOF, N_OFFSETOF,
	N_STRINGOF, N_XLATE, N_ADDR, N_DEREF,
	/* statements */
	N_EXPR_STMT, N_AGG_STMT, N_IF, N_BLOCK,
	/* top level */
	N_CLAUSE, N_DECL, N_INLINE, N_XLATOR, N_PROVIDER, N_PDESC
};

/* Variable scopes (N_VAR). */
enum eng_scope { SC_BUILTIN, SC_GLOBAL, SC_THREAD, SC_LOCAL, SC_MACRO };

struct eng_ident;

struct eng_node {
	enum eng_nkind n_kind;
	int n_op;			/* operator token for OP1/OP2/ASSIGN */
	int n_line, n_col;
	struct eng_node *n_left, *n_right, *n_third;
	struct eng_node *n_args;	/* call args, index tuple, statements */
	struct eng_node *n_next;	/* sibling in a list */
	const char *n_name;		/* identifier, member, string value */
	uint64_t n_int;			/* N_INT value */
	struct eng_type *n_type;	/* after cooking */
	struct eng_type *n_ctype;	/* N_CAST/N_SIZEOF/N_XLATE type */
	struct eng_ident *n_ident;	/* resolved identifier */
	int n_scope;			/* enum eng_scope for N_VAR/N_IDENT */
	int n_const;			/* cooked to an integer constant */
	int n_lvalue;
	int n_reg;			/* cg: register holding the value */
	/* clause: descriptions (N_PDESC list), predicate, statements */
	struct eng_node *n_pdescs, *n_pred;
	const char *n_predsrc;		/* the predicate as written */
	const char *n_pd[4];		/* N_PDESC fields */
};

/* ---- identifiers -------------------------------------------------------- */

enum eng_idkind { ID_VAR, ID_ARRAY, ID_AGG, ID_INLINE, ID_BUILTIN,
		  ID_ACTFUNC, ID_SUBR, ID_AGGFUNC, ID_ENUMVAL, ID_XLATOR };

struct eng_ident {
	const char *i_name;
	enum eng_idkind i_kind;
	int i_scope;			/* SC_* for variables */
	uint32_t i_id;			/* DIF variable id / agg var id */
	struct eng_type *i_type;	/* value type (NULL: not yet known) */
	struct eng_type **i_keys;	/* ID_ARRAY/ID_AGG key types */
	int i_nkeys;			/* -1: not yet known */
	int i_line;			/* where first defined */
	unsigned i_gen;			/* the compile that made it (cc_gen) */
	int i_flags;			/* IDF_*: how this compile used it */
	/* aggregations: function, encoding, first use */
	int i_aggfunc;			/* DTRACEAGG_*, 0 if none yet */
	uint64_t i_aggarg;		/* lquantize/llquantize encoding */
	int i_aggnargs;			/* number of function arguments */
	struct eng_node *i_inline;	/* ID_INLINE: the expression */
	int64_t i_value;		/* ID_ENUMVAL */
	struct eng_cc_agginfo *i_info;	/* ID_AGG: for the consumer */
	struct eng_ident *i_next;	/* hash chain */
};

#define ENG_CC_NHASH	256

/* How a variable has been used (dtrace's DT_IDFLG_REF/MOD/DECL): one made
 * by the current compile and never read, assigned or declared may not be
 * read ("has not yet been declared or assigned"). */
#define IDF_REF		0x1
#define IDF_MOD		0x2
#define IDF_DECL	0x4

/* ---- DIF objects -------------------------------------------------------- */

struct eng_difo {
	dif_instr_t *dd_buf;
	uint32_t dd_len;
	uint64_t *dd_inttab;
	uint32_t dd_intlen;
	char *dd_strtab;
	uint32_t dd_strlen;
	dtrace_difv_t *dd_vartab;
	uint32_t dd_varlen;
	dtrace_diftype_t dd_rtype;
	const char *dd_what;		/* "predicate", "trace()" ... for -S */
	int dd_signed;			/* integer result is signed */
};

/* One action of a statement (maps 1:1 to dof_actdesc_t). */
struct eng_act {
	uint32_t a_kind;		/* DTRACEACT_* / DTRACEAGG_* */
	struct eng_difo *a_difo;	/* NULL if none */
	const char *a_str;		/* string argument (format), or NULL */
	uint64_t a_arg;
	uint64_t a_uarg;
	uint32_t a_ntuple;
};

/* A clause: its descriptions, predicate and actions. */
struct eng_stmt {
	uint64_t s_id;			/* statement id (dofe_uarg), from 1 */
	int s_npd;
	dtrace_probedesc_t *s_pd;	/* s_npd descriptions */
	struct eng_difo *s_pred;
	const char *s_predsrc;		/* its clause's predicate as written,
					 * "/.../" (NULL if none) */
	struct eng_act *s_acts;
	int s_nacts, s_cap;
	int s_line;
	int s_piece;			/* 0; 1 first, 2 later piece of a split */
	struct eng_stmt *s_next;
};

/* ---- the program -------------------------------------------------------- */

/*
 * A "provider NAME { probe NAME(types); ... };" definition, kept for -h
 * (hdr.c).  Names and argument type strings are as written in D
 * ("query__start", "char *"); everything lives in the program's arena.
 */
struct eng_provprobe {
	const char *pp_name;
	int pp_nargs;
	const char **pp_args;		/* pp_nargs type strings */
	struct eng_provprobe *pp_next;	/* in definition order */
};

struct eng_provdef {
	const char *pv_name;
	int pv_line;
	struct eng_provprobe *pv_probes;
	struct eng_provdef *pv_next;	/* in definition order */
};

struct eng_prog {
	eng_hdl_t *p_hdl;
	struct eng_arena p_arena;	/* everything below */
	struct eng_stmt *p_stmts, *p_last;
	int p_nstmts;
	unsigned p_nprobes;		/* matched at compile time */
	void *p_dof;			/* malloc'd DOF image */
	size_t p_dofsize;
	int p_enabled;
	uint32_t p_enabling;		/* the shim's id, for DISABLE */
	int p_list;			/* ENG_C_LIST: descriptions only */
	char *p_src;			/* the source compiled (experiments) */
	struct eng_provdef *p_provs;	/* provider definitions, in order */
};

/* ---- per-handle compiler state ---------------------------------------- */

struct eng_cc {
	struct eng_arena cc_arena;
	struct eng_ident *cc_hash[ENG_CC_NHASH];	/* variables, inlines */
	struct eng_ident *cc_aggs[ENG_CC_NHASH];	/* @names */
	struct eng_type *cc_types;	/* named types */
	uint32_t cc_nextid[3];		/* next DIF var id per scope */
	uint32_t cc_nextagg;		/* next agg var id - 1 */
	uint64_t cc_nextstmt;		/* next statement id - 1 */
	unsigned cc_gen;		/* compiles begun on this handle */
	eng_cc_stmtinfo_t **cc_stmts;	/* by id - 1 */
	size_t cc_nstmts, cc_capstmts;
	struct eng_ident **cc_aggv;	/* by agg var id - 1 */
	size_t cc_naggv, cc_capaggv;
	int cc_error_enabled;		/* ERROR clause enabled */
	int cc_prelude;			/* curpsinfo & co. declared */
	int cc_inprelude;		/* compiling them now */
	int cc_libs;			/* -L libraries loaded (or tried) */
	struct eng_libload *cc_libload;	/* while they load (libdir.c) */
	struct eng_prog *cc_errprog;
};

/* Internal compile flag: the engine's own ERROR clause (dofe_uarg). */
#define ENG_C_ERRCLAUSE	0x1000
/* Internal compile flags for D libraries (libdir.c): an empty program is
 * no error; no -L libraries are loaded first; only control lines are read
 * (dtrace's DTRACE_C_CTL pass that finds the libraries' dependencies). */
#define ENG_C_EMPTY	0x2000
#define ENG_C_NOLIBS	0x4000
#define ENG_C_CTL	0x8000

/* ---- per-compile state ------------------------------------------------ */

struct eng_pcb {
	eng_hdl_t *pc_hdl;
	struct eng_cc *pc_cc;
	struct eng_prog *pc_prog;
	struct eng_arena *pc_arena;	/* the program's */
	jmp_buf pc_jmp;
	unsigned pc_cflags;
	const eng_cargs_t *pc_args;
	int pc_argref[64];		/* $N referenced */
	const char *pc_file;		/* NULL for -n */
	const char *pc_src;		/* whole source text (NUL-terminated) */
	const char *pc_pos;		/* lexer position */
	int pc_line;
	const char *pc_srcname;		/* -C: the script's name in markers */
	const char *pc_curfile;		/* -C: an included file, or NULL */
	const char *pc_lib;		/* a -L library being compiled */
	const char *pc_linestart;
	int pc_tokvalid;		/* pc_tok holds the lookahead */
	struct eng_token pc_tok;
	struct eng_token pc_prev;	/* last consumed token */
	int pc_depth;			/* nesting, bounded */
	int pc_inpred;			/* '/' ends the predicate here */
	/* clause context */
	struct eng_stmt *pc_stmt;
	dtrace_probedesc_t pc_pdesc;	/* first description of the clause */
	int pc_descline;		/* line of its first description */
	int pc_nargs;			/* args[] of the probe, -1 unknown */
	char pc_argtypes[DTRACE_MAXARGS][DTRACE_ARGTYPELEN];
	char pc_argnative[DTRACE_MAXARGS][DTRACE_ARGTYPELEN];	/* "": not
						 * translated (sema_xlate.c) */
	int pc_argmap[DTRACE_MAXARGS];	/* args[i] is argN pc_argmap[i] */
	struct eng_ident *pc_locals;	/* this-> variables of the clause */
	int pc_speculate, pc_commit, pc_datarec;
	int pc_strsize;
	int pc_destructive;
	struct eng_node *pc_xlsrc;	/* current xlate<> input, or NULL */
	const char *pc_spec;		/* -n text for messages */
	struct eng_newid *pc_newids;	/* identifiers made by this compile */
};

/* Journal of identifiers a compile made, undone if it fails. */
struct eng_newid {
	struct eng_ident *ni_id;
	int ni_agg;
	struct eng_newid *ni_next;
};
void eng_ident_rollback(struct eng_pcb *pc);
void eng_ident_not_var(struct eng_pcb *pc, struct eng_ident *id);

/* ---- functions shared by the compiler's files --------------------------- */

/* compile.c */
_Noreturn void eng_cc_error(struct eng_pcb *pc, int line, int col,
    const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
_Noreturn void eng_cc_nerror(struct eng_pcb *pc, const struct eng_node *n,
    const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* dtrace's xyerror, for the checks its cooking pass makes (types,
 * prototypes, formats): in a script's clause it names the line of the
 * clause's first probe description, elsewhere n's line. */
_Noreturn void eng_cc_xerror(struct eng_pcb *pc, const struct eng_node *n,
    const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void *eng_cc_alloc(struct eng_pcb *pc, size_t n);
char *eng_cc_strdup(struct eng_pcb *pc, const char *s, size_t len);
void *eng_cc_palloc(struct eng_pcb *pc, size_t n);	/* handle's arena */
char *eng_cc_pstrdup(struct eng_pcb *pc, const char *s);
struct eng_cc *eng_cc_get(eng_hdl_t *h);
void eng_cc_free(eng_hdl_t *h);
int eng_cc_optval(eng_hdl_t *h, const char *name, int64_t *v);
eng_prog_t *eng_cc_compile_lib(const struct eng_pcb *outer, const char *src,
    const char *path);

/* libdir.c: the D libraries of -L / -x libdir */
int eng_libdir_load(struct eng_pcb *pc);	/* -1: pc's diag is set */
void eng_libdir_depend(struct eng_pcb *pc, int col, const char *name);

/* lex.c */
void eng_lex_init(struct eng_pcb *pc, const char *src);
void eng_lex_next(struct eng_pcb *pc, struct eng_token *t);
void eng_lex_pdesc(struct eng_pcb *pc, struct eng_token *t);
const char *eng_lex_peek_word(struct eng_pcb *pc, size_t *lenp);
/* pragma.c: one control line, p at its '#', end at its newline */
void eng_lex_directive(struct eng_pcb *pc, const char *p, const char *end);
const char *eng_tok_name(int kind, char *buf, size_t len);

/* dlib.c: the D library compiled before every first program */
extern const char eng_dlib_text[];
char *eng_dlib_topology(void);		/* malloc'd D text, or NULL */

/* parse.c */
struct eng_node *eng_parse_program(struct eng_pcb *pc);
struct eng_node *eng_node_new(struct eng_pcb *pc, enum eng_nkind k,
    int line, int col);
void eng_parse_pdesc(struct eng_pcb *pc, const char *text,
    dtrace_probedesc_t *pd, int line);
/* ENG_SPEC_* of the descriptions being compiled (NAME for scripts). */
int eng_pdesc_kind(const struct eng_pcb *pc);
void eng_node_dump(const struct eng_node *n, FILE *fp, int depth);
struct eng_node *eng_node_copy(struct eng_pcb *pc, const struct eng_node *n);
struct eng_node *eng_node_dup(struct eng_pcb *pc, const struct eng_node *n);

/* type.c */
int eng_type_init(struct eng_cc *cc);	/* -1: out of memory */
struct eng_type *eng_type_lookup(struct eng_cc *cc, const char *name);
struct eng_type *eng_type_int(struct eng_cc *cc, int size, int sgn);
struct eng_type *eng_type_named(const char *name);
struct eng_type *eng_type_string(struct eng_cc *cc);
struct eng_type *eng_type_void(struct eng_cc *cc);
struct eng_type *eng_type_ptr(struct eng_pcb *pc, struct eng_type *base);
struct eng_type *eng_type_array(struct eng_pcb *pc, struct eng_type *base,
    uint32_t n);
struct eng_type *eng_type_resolve(struct eng_type *t);	/* through typedef */
void eng_type_add(struct eng_cc *cc, struct eng_type *t);
struct eng_type *eng_type_new(struct eng_cc *cc, enum eng_tkind k,
    const char *name);
const char *eng_type_name(const struct eng_type *t, char *buf, size_t len);
const char *eng_type_tname(const struct eng_type *t);	/* for messages */
struct eng_type *eng_type_parse_name(struct eng_pcb *pc, const char *s);
int eng_type_is_int(const struct eng_type *t);
int eng_type_is_scalar(const struct eng_type *t);
int eng_type_is_string(const struct eng_type *t);
int eng_type_is_ptr(const struct eng_type *t);
int eng_type_compat(const struct eng_type *a, const struct eng_type *b);
struct eng_member *eng_type_member(struct eng_type *t, const char *name);

/* sema.c */
void eng_sema_expr(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_stmt(struct eng_pcb *pc, struct eng_node *n);
struct eng_ident *eng_cc_ident(struct eng_pcb *pc, const char *name,
    int scope, int create);
struct eng_ident *eng_cc_agg(struct eng_pcb *pc, const char *name,
    int create);
void eng_sema_clause(struct eng_pcb *pc, struct eng_node *clause);

/* sema_xlate.c: xlate<T>(x) member references, xlate inlines */
void eng_sema_xlate(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_xlmember(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_xlate_inline(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_xlate_args(struct eng_pcb *pc, struct eng_node *n);

/* Functions: actions, subroutines, aggregating functions (sema.c). */
enum eng_fkind { F_ACT, F_SUBR, F_AGG, F_NOTLINUX };
#define F_DESTRUCTIVE	0x1	/* needs -w */
#define F_KEYOK		0x2	/* may be an aggregation key (stack...) */
#define F_LIB		0x4	/* consumer action: f_id is a DT_ACT_* */
struct eng_func {
	const char *f_name;
	enum eng_fkind f_kind;
	int f_id;			/* DTRACEACT_*, DIF_SUBR_*, DTRACEAGG_* */
	int f_min, f_max;		/* argument counts */
	const char *f_args;		/* per argument: s string, i integer,
					   p scalar, a anything, @ aggregation,
					   S string constant, c a copy's
					   source: scalar or string */
	const char *f_ret;		/* result type name, NULL for void */
	unsigned f_flags;
};
/* sema_call.c */
void eng_sema_call(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_keys(struct eng_pcb *pc, struct eng_node *n,
    struct eng_ident *id, struct eng_node *keys, const char *what);
void eng_sema_not_value(struct eng_pcb *pc, const struct eng_node *n);
void eng_sema_xlator_check(struct eng_pcb *pc, struct eng_node *x);
int eng_sema_is_xlptr(struct eng_pcb *pc, const struct eng_node *n);
void eng_sema_xlate_assign(struct eng_pcb *pc, struct eng_node *n);
void eng_sema_inline_index(struct eng_pcb *pc, struct eng_node *n,
    struct eng_ident *id);
const struct eng_func *eng_sema_func(const char *name);

/* Built-in variables (ident.c). */
struct eng_builtin {
	const char *name;
	uint16_t id;			/* DIF_VAR_* */
	const char *type;		/* type name */
	int array;			/* args[], uregs[] ... */
};
const struct eng_builtin *eng_sema_builtin(const char *name);
const char *eng_ident_builtin_name(unsigned id);

/* cg.c */
struct eng_difo *eng_cg_difo(struct eng_pcb *pc, struct eng_node *expr,
    const char *what);
struct eng_difo *eng_cg_stmt(struct eng_pcb *pc, struct eng_node *s);
struct eng_difo *eng_cg_const(struct eng_pcb *pc, uint64_t v,
    const char *what);
dtrace_diftype_t eng_cg_rtype(struct eng_pcb *pc, const struct eng_type *t);

/* act.c, act_agg.c */
void eng_act_clause(struct eng_pcb *pc, struct eng_node *clause);
struct eng_act *eng_act_new(struct eng_pcb *pc, uint32_t kind);
void eng_act_order(struct eng_pcb *pc, struct eng_node *n, uint32_t kind);
void eng_act_check_proto(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f);
void eng_act_stack(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f);
void eng_act_value(struct eng_pcb *pc, struct eng_node *call,
    uint32_t kind, uint32_t size);
void eng_act_aggregation(struct eng_pcb *pc, struct eng_node *st);
struct eng_act *eng_act_difexpr(struct eng_pcb *pc, struct eng_node *e,
    const char *what);
/* act_printf.c: printf-like actions and printa */
void eng_act_printf(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f);
void eng_act_printa(struct eng_pcb *pc, struct eng_node *call);
/* act_print.c: print(x), laid out by x's type as a printf */
void eng_act_print(struct eng_pcb *pc, struct eng_node *call,
    const struct eng_func *f);
struct eng_ident *eng_act_aggarg(struct eng_pcb *pc, struct eng_node *call,
    struct eng_node *a, int i, const char *argtag, const char *badtag);

/* dofw.c */
int eng_dof_write(struct eng_pcb *pc, struct eng_prog *p);

/* dis.c */
void eng_dis_difo(const struct eng_difo *d, FILE *fp);

/* hdr.c: provider definitions (parse.c stores them, -h writes them) */
#define ENG_PROV_MAXARGS	32
struct eng_provdef *eng_prov_def(struct eng_pcb *pc, const char *name,
    int line);
void eng_prov_probe(struct eng_pcb *pc, struct eng_provdef *pv,
    const char *name, const char **args, int nargs, int line);

/* prog.c */
int eng_prog_match(eng_hdl_t *h, const dtrace_probedesc_t *pd,
    dtrace_probedesc_t *first, unsigned *count);

#endif /* ENG_CC_H */
