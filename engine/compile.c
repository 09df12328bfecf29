/*
 * compile.c - the compiler's entry points (eng_compile_str/_file), the
 * per-handle state (h->eh_cc, made lazily), arenas, diagnostics and the
 * C preprocessor for -C.
 *
 * A compile runs in a struct eng_pcb on the heap.  eng_cc_error() fills
 * the handle's diagnostic (eng_diag) and message (eng_errmsg) and
 * longjmp()s back to compile(), which frees the half-built program; the
 * jump never crosses the public API.  Messages read as dtrace(1M) prints
 * them without "dtrace: ": "failed to compile script F: line N: MSG" for
 * files, "invalid probe specifier SPEC: MSG" for -n text; under the
 * errtags option "[D_TAG] " goes in front of "line N" (or of MSG).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cc.h"

/* ---- arenas ------------------------------------------------------------- */

struct eng_chunk {
	struct eng_chunk *ec_next;
	max_align_t ec_data[];
};

#define CHUNK_MIN	(64 * 1024)

void *eng_arena_alloc(struct eng_arena *a, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (a->ea_chunks == NULL || a->ea_used + n > a->ea_size) {
		size_t sz = n > CHUNK_MIN ? n : CHUNK_MIN;
		struct eng_chunk *c = malloc(sizeof(*c) + sz);

		if (c == NULL) {
			if (a->ea_nomem != NULL)
				a->ea_nomem(a->ea_nomem_arg);
			return NULL;
		}
		c->ec_next = a->ea_chunks;
		a->ea_chunks = c;
		a->ea_used = 0;
		a->ea_size = sz;
	}
	p = (char *)a->ea_chunks->ec_data + a->ea_used;
	a->ea_used += n;
	memset(p, 0, n);
	return p;
}

void eng_arena_free(struct eng_arena *a)
{
	struct eng_chunk *c, *nc;

	for (c = a->ea_chunks; c != NULL; c = nc) {
		nc = c->ec_next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}

void *eng_cc_alloc(struct eng_pcb *pc, size_t n)
{
	void *p = eng_arena_alloc(pc->pc_arena, n);

	if (p == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	return p;
}

/* Allocate in the handle's arena: for what outlives the program. */
void *eng_cc_palloc(struct eng_pcb *pc, size_t n)
{
	void *p = eng_arena_alloc(&pc->pc_cc->cc_arena, n);

	if (p == NULL)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	return p;
}

char *eng_cc_pstrdup(struct eng_pcb *pc, const char *s)
{
	size_t n = strlen(s);
	char *d = eng_cc_palloc(pc, n + 1);

	memcpy(d, s, n);
	return d;
}

char *eng_cc_strdup(struct eng_pcb *pc, const char *s, size_t len)
{
	char *d = eng_cc_alloc(pc, len + 1);

	memcpy(d, s, len);
	return d;
}

/* ---- per-handle state --------------------------------------------------- */

struct eng_cc *eng_cc_get(eng_hdl_t *h)
{
	struct eng_cc *cc = h->eh_cc;

	if (cc != NULL)
		return cc;
	cc = calloc(1, sizeof(*cc));
	if (cc == NULL)
		return NULL;
	if (eng_type_init(cc) != 0) {
		eng_arena_free(&cc->cc_arena);
		free(cc);
		return NULL;
	}
	h->eh_cc = cc;
	return cc;
}

/* Free the compiler's per-handle state (called from eng_close). */
void eng_cc_free(eng_hdl_t *h)
{
	struct eng_cc *cc = h->eh_cc;

	if (cc == NULL)
		return;
	if (cc->cc_errprog != NULL)
		eng_prog_free(cc->cc_errprog);
	free(cc->cc_stmts);
	free(cc->cc_aggv);
	eng_arena_free(&cc->cc_arena);
	free(cc);
	h->eh_cc = NULL;
}

/* An option's value through the consumer's accessor; -1 if unknown. */
int eng_cc_optval(eng_hdl_t *h, const char *name, int64_t *v)
{
	int64_t x = 0;

	if (eng_getopt(h, name, &x) != 0)
		return -1;
	*v = x;
	return 0;
}

/* ---- diagnostics --------------------------------------------------------- */

static void set_diag(struct eng_pcb *pc, int line, int col, const char *tag,
    const char *fmt, va_list ap)
{
	eng_hdl_t *h = pc->pc_hdl;
	char where[160] = "", tagbuf[64] = "";
	int64_t errtags = 0;
	size_t n;

	vsnprintf(h->eh_diagmsg, sizeof(h->eh_diagmsg), fmt, ap);
	n = strlen(h->eh_diagmsg);
	while (n > 0 && h->eh_diagmsg[n - 1] == '\n')
		h->eh_diagmsg[--n] = '\0';
	/* no tag: a libdtrace error outside the D_* set (EDT_NOTUPREG) */
	snprintf(h->eh_diagtag, sizeof(h->eh_diagtag), "%s", tag ? tag : "");
	snprintf(h->eh_diagfile, sizeof(h->eh_diagfile), "%s",
	    pc->pc_file != NULL ? pc->pc_file : "");
	h->eh_diag.ed_tag = h->eh_diagtag;
	if (pc->pc_lib != NULL)
		snprintf(h->eh_diagfile, sizeof(h->eh_diagfile), "%s",
		    pc->pc_lib);
	h->eh_diag.ed_file = pc->pc_file != NULL || pc->pc_lib != NULL ?
	    h->eh_diagfile : NULL;
	h->eh_diag.ed_line = line;
	h->eh_diag.ed_column = col;
	h->eh_diag.ed_msg = h->eh_diagmsg;
	if (tag != NULL && eng_cc_optval(h, "errtags", &errtags) == 0 &&
	    errtags > 0)
		snprintf(tagbuf, sizeof(tagbuf), "[%s] ", tag);
	if (pc->pc_lib != NULL)		/* dtrace names the library */
		snprintf(where, sizeof(where), "\"%.120s\", line %d: ",
		    pc->pc_curfile != NULL ? pc->pc_curfile : pc->pc_lib, line);
	else if (pc->pc_file != NULL && line > 0 && pc->pc_curfile != NULL)
		snprintf(where, sizeof(where), "\"%.120s\", line %d: ",
		    pc->pc_curfile, line);
	else if (pc->pc_file != NULL && line > 0)
		snprintf(where, sizeof(where), "line %d: ", line);
	if (pc->pc_file != NULL)
		snprintf(h->eh_errmsg, sizeof(h->eh_errmsg),
		    "failed to compile script %s: %s%s%s", pc->pc_file, tagbuf,
		    where, h->eh_diagmsg);
	else
		snprintf(h->eh_errmsg, sizeof(h->eh_errmsg),
		    "invalid probe specifier %s: %s%s%s", pc->pc_spec != NULL ?
		    pc->pc_spec : "", tagbuf, pc->pc_lib != NULL ? where : "",
		    h->eh_diagmsg);
}

/* Record a compile error at line/col and leave the compile. */
void eng_cc_error(struct eng_pcb *pc, int line, int col, const char *tag,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_diag(pc, line, col, tag, fmt, ap);
	va_end(ap);
	longjmp(pc->pc_jmp, 1);
}

void eng_cc_nerror(struct eng_pcb *pc, const struct eng_node *n,
    const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_diag(pc, n != NULL ? n->n_line : 0, n != NULL ? n->n_col : 0, tag,
	    fmt, ap);
	va_end(ap);
	longjmp(pc->pc_jmp, 1);
}

/*
 * While dtrace compiles a clause its lexer's line is set to the clause's
 * probe description (dt_compile_one_clause), but dt_node_cook sets it to
 * each node's own line while it cooks that node, and printf's and
 * printa's checks set it to the call's: an xyerror about a node names the
 * node's line (Oracle's suite: funcs/err.D_OP_VFPTR.badop.d names the
 * line of its "-=", not of BEGIN).  Only a check with no node names the
 * probe description's line.
 */
void eng_cc_xerror(struct eng_pcb *pc, const struct eng_node *n,
    const char *tag, const char *fmt, ...)
{
	int line = n != NULL ? n->n_line : 0;
	va_list ap;

	if (n == NULL && (pc->pc_file != NULL || pc->pc_lib != NULL) &&
	    pc->pc_descline > 0)
		line = pc->pc_descline;
	va_start(ap, fmt);
	set_diag(pc, line, n != NULL ? n->n_col : 0, tag, fmt, ap);
	va_end(ap);
	longjmp(pc->pc_jmp, 1);
}

const eng_diag_t *eng_diag(const eng_hdl_t *h)
{
	return h->eh_diag.ed_msg != NULL ? &h->eh_diag : NULL;
}

/* ---- the C preprocessor (-C) ------------------------------------------ */

/* Run "gcc -E -x c" over src; returns malloc'd output or NULL. */
static char *run_cpp(struct eng_pcb *pc, const char *src)
{
	char in[] = "/tmp/dtui-cppXXXXXX";
	const char *argv[128], *const *hv, *cpp = eng_opt_cpppath(pc->pc_hdl);
	const char *name;
	int fd = mkstemp(in), pfd[2], argc = 0, st;
	size_t len = 0, cap = 4096;
	char *out = NULL;
	pid_t pid;

	if (fd < 0)
		return NULL;
	/* a marker first: gcc's messages and line markers name the script */
	name = pc->pc_lib != NULL ? pc->pc_lib : pc->pc_file;
	pc->pc_srcname = name != NULL && strpbrk(name, "\"\\\n") == NULL ?
	    name : "<command line>";
	if (dprintf(fd, "# 1 \"%s\"\n", pc->pc_srcname) < 0 ||
	    write(fd, src, strlen(src)) != (ssize_t)strlen(src) ||
	    pipe(pfd) != 0) {
		close(fd);
		unlink(in);
		return NULL;
	}
	close(fd);
	argv[argc++] = cpp;
	argv[argc++] = "-E";
	argv[argc++] = "-x";
	argv[argc++] = "c";
	argv[argc++] = "-D__linux__";
	/* GNU C in system headers that D has no use for */
	argv[argc++] = "-D__attribute__(x)=";
	argv[argc++] = "-D__asm__(x)=";
	argv[argc++] = "-D__extension__=";
	argv[argc++] = "-D__restrict=";
	argv[argc++] = "-D__inline=";
	argv[argc++] = "-D__builtin_va_list=char *";
	/* -D, -U, -I, -H and -x cppargs..., in command-line order */
	hv = eng_opt_cppargs(pc->pc_hdl);
	for (int i = 0; hv != NULL && hv[i] != NULL && argc < 120; i++)
		argv[argc++] = hv[i];
	for (int i = 0; pc->pc_args != NULL && pc->pc_args->cpp_args != NULL &&
	    pc->pc_args->cpp_args[i] != NULL && argc < 120; i++)
		argv[argc++] = pc->pc_args->cpp_args[i];
	argv[argc++] = in;
	argv[argc] = NULL;
	if ((pid = fork()) == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp(cpp, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	out = pid > 0 ? malloc(cap) : NULL;
	for (ssize_t r = 1; out != NULL && r > 0;) {
		if (len + 1024 > cap) {
			char *n = realloc(out, cap *= 2);

			if (n == NULL) {
				free(out);
				out = NULL;
				break;
			}
			out = n;
		}
		r = read(pfd[0], out + len, cap - len - 1);
		if (r > 0)
			len += (size_t)r;
	}
	close(pfd[0]);
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	unlink(in);
	if (out != NULL && (pid <= 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)) {
		free(out);
		return NULL;
	}
	if (out != NULL)
		out[len] = '\0';
	return out;
}

/* ---- the compile ------------------------------------------------------- */

/* dtrace checks the last macro argument only: it must be referenced,
 * unless -xargref or -xdefaultargs says otherwise. */
static void check_args(struct eng_pcb *pc)
{
	const eng_cargs_t *a = pc->pc_args;
	int64_t def = 0, argref = 0;
	int last;

	if (a == NULL || (pc->pc_cflags & ENG_C_ARGREF) ||
	    (eng_cc_optval(pc->pc_hdl, "defaultargs", &def) == 0 && def > 0) ||
	    (eng_cc_optval(pc->pc_hdl, "argref", &argref) == 0 && argref > 0))
		return;
	last = a->argc - 1;
	if (last >= 1 && last < 64 && !pc->pc_argref[last])
		eng_cc_error(pc, 0, 0, "D_MACRO_UNUSED", "extraneous "
		    "argument '%s' ($%d is not referenced)", a->argv[last],
		    last);
}

static void compile_body(struct eng_pcb *pc, const char *src)
{
	struct eng_node *prog, *n;

	eng_lex_init(pc, src);
	prog = eng_parse_program(pc);
	/* -x tree: the parse tree of the user's programs (not the D
	 * library's), as dtrace's dt_node_printr after its parse pass */
	if (eng_xopt_get(pc->pc_hdl, ENG_XOPT_TREE) > 0 && pc->pc_lib == NULL &&
	    !pc->pc_cc->cc_inprelude && !(pc->pc_cflags & ENG_C_ERRCLAUSE))
		eng_node_dump(prog, stderr, 0);
	for (n = prog; n != NULL; n = n->n_next)
		if (n->n_kind == N_CLAUSE) {
			pc->pc_descline = n->n_pdescs != NULL ?
			    n->n_pdescs->n_line : n->n_line;
			eng_act_clause(pc, n);
		}
	pc->pc_descline = 0;
	check_args(pc);
	if (!(pc->pc_cflags & ENG_C_LIST) && eng_dof_write(pc, pc->pc_prog) != 0)
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
}

static void nomem(void *arg)
{
	eng_cc_error(arg, 0, 0, "D_NOMEM", "out of memory");
}

/* While compile_body runs, an arena out of memory reports D_NOMEM and
 * longjmps to compile(), as eng_cc_alloc does: no caller sees NULL. */
static void arenas_nomem(struct eng_pcb *pc, int on)
{
	struct eng_arena *a[2] = { pc->pc_arena, &pc->pc_cc->cc_arena };

	for (int i = 0; i < 2; i++) {
		a[i]->ea_nomem = on ? nomem : NULL;
		a[i]->ea_nomem_arg = on ? pc : NULL;
	}
}

static eng_prog_t *compile(eng_hdl_t *h, const char *src,
    const char *filename, unsigned cflags, const eng_cargs_t *args,
    int isfile, const struct eng_pcb *outer);

/* Compile the prelude once per handle (its declarations persist). */
static void load_prelude(eng_hdl_t *h)
{
	struct eng_cc *cc = h->eh_cc;
	char *topo;

	if (cc->cc_prelude)
		return;
	cc->cc_prelude = 1;
	cc->cc_inprelude = 1;
	eng_prog_free(compile(h, eng_dlib_text, NULL, ENG_C_ZDEFS |
	    ENG_C_NOLIBS, NULL, 0, NULL));
	if ((topo = eng_dlib_topology()) != NULL)
		eng_prog_free(compile(h, topo, NULL, ENG_C_ZDEFS | ENG_C_NOLIBS,
		    NULL, 0, NULL));
	free(topo);
	cc->cc_inprelude = 0;
}

static eng_prog_t *compile(eng_hdl_t *h, const char *src,
    const char *filename, unsigned cflags, const eng_cargs_t *args,
    int isfile, const struct eng_pcb *outer)
{
	struct eng_pcb *pc = calloc(1, sizeof(*pc));
	struct eng_prog *p = calloc(1, sizeof(*p));
	char *volatile cppout = NULL;

	memset(&h->eh_diag, 0, sizeof(h->eh_diag));
	h->eh_errmsg[0] = '\0';
	if (pc == NULL || p == NULL || eng_cc_get(h) == NULL) {
		free(pc);
		free(p);
		eng_error(h, "failed to allocate memory");
		return NULL;
	}
	load_prelude(h);
	h->eh_cc->cc_gen++;
	pc->pc_hdl = h;
	pc->pc_cc = h->eh_cc;
	pc->pc_prog = p;
	pc->pc_arena = &p->p_arena;
	pc->pc_cflags = cflags;
	pc->pc_args = args;
	pc->pc_file = isfile ? (filename != NULL ? filename : "<stdin>") : NULL;
	pc->pc_spec = src;
	if (outer != NULL) {		/* a library: messages name outer */
		pc->pc_lib = filename;
		pc->pc_file = outer->pc_file;
		pc->pc_spec = outer->pc_spec;
	}
	p->p_hdl = h;
	p->p_list = (cflags & ENG_C_LIST) != 0;
	if (setjmp(pc->pc_jmp) != 0) {
		arenas_nomem(pc, 0);
		eng_ident_rollback(pc);
		free(cppout);
		eng_prog_free(pc->pc_prog);
		free(pc);
		return NULL;
	}
	if (!(cflags & ENG_C_NOLIBS) && eng_libdir_load(pc) != 0)
		longjmp(pc->pc_jmp, 1);		/* the library's error */
	if (cflags & ENG_C_CPP) {
		cppout = run_cpp(pc, src);
		if (cppout == NULL)
			eng_cc_error(pc, 0, 0, "D_CPP", "failed to run the C "
			    "preprocessor (%s -E)", eng_opt_cpppath(h));
	}
	arenas_nomem(pc, 1);
	compile_body(pc, cppout != NULL ? cppout : src);
	arenas_nomem(pc, 0);
	free(cppout);
	p = pc->pc_prog;
	p->p_src = strdup(src);		/* NULL is fine: only logged */
	free(pc);
	return p;
}

/* -x zdefs and -x cpp are -Z and -C */
static unsigned opt_cflags(const eng_hdl_t *h, unsigned cflags)
{
	if (eng_opt_isset(h, ENG_OPT_ZDEFS))
		cflags |= ENG_C_ZDEFS;
	if (eng_opt_isset(h, ENG_OPT_CPP))
		cflags |= ENG_C_CPP;
	if (eng_opt_strflags(h) & ENG_OPTSTR_EMPTY)
		cflags |= ENG_C_EMPTY;
	if (eng_opt_strflags(h) & ENG_OPTSTR_NOLIBS)
		cflags |= ENG_C_NOLIBS;
	return cflags;
}

/*
 * A D library of -L (libdir.c): compiled as a file of its own, but its
 * errors are the program's that loads it ("failed to compile script
 * F: "lib.d", line N: ..."), as dtrace reports them.
 */
eng_prog_t *eng_cc_compile_lib(const struct eng_pcb *outer, const char *src,
    const char *path)
{
	eng_hdl_t *h = outer->pc_hdl;

	return compile(h, src, path, opt_cflags(h, ENG_C_EMPTY | ENG_C_NOLIBS),
	    NULL, 1, outer);
}

eng_prog_t *eng_compile_str(eng_hdl_t *h, const char *src,
    const char *filename, unsigned cflags, const eng_cargs_t *args)
{
	if (h == NULL || src == NULL)
		return NULL;
	return compile(h, src, filename, opt_cflags(h, cflags), args,
	    filename != NULL, NULL);
}

eng_prog_t *eng_compile_file(eng_hdl_t *h, FILE *fp, const char *filename,
    unsigned cflags, const eng_cargs_t *args)
{
	size_t len = 0, cap = 8192, r;
	char *buf = malloc(cap);
	eng_prog_t *p;

	if (h == NULL || fp == NULL || buf == NULL) {
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
		len += r;
		if (len + 1 >= cap) {
			char *n = realloc(buf, cap *= 2);

			if (n == NULL) {
				free(buf);
				eng_error(h, "failed to allocate memory");
				return NULL;
			}
			buf = n;
		}
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL) {
		free(buf);
		eng_error(h, "failed to compile script %s: file is not text",
		    filename != NULL ? filename : "<stdin>");
		return NULL;
	}
	if (len >= 2 && buf[0] == '#' && buf[1] == '!')
		for (size_t i = 0; i < len && buf[i] != '\n'; i++)
			buf[i] = ' ';	/* keep line numbers */
	p = compile(h, buf, filename != NULL ? filename : "<stdin>",
	    opt_cflags(h, cflags), args, 1, NULL);
	free(buf);
	return p;
}
