/*
 * libdir.c - the D libraries of -L and -x libdir, loaded as dtrace's
 * dt_load_libs() loads them, once per handle, before the first program:
 *
 * 1. Every "*.d" file of each directory, in the order the directories
 *    were given (a directory's files by name; dtrace takes readdir's
 *    order), is read for its control lines only (dtrace's DTRACE_C_CTL
 *    pass): "#pragma D depends_on library x.d" records that the file
 *    needs the first x.d found along the library path.  A name already
 *    taken by an earlier directory's file is skipped.  Errors in this
 *    pass only end the file's scan.
 * 2. The files are ordered as dtrace orders them: a depth-first walk
 *    from each file to the files that depend on it, each put in front of
 *    the list when its walk ends (so a library comes before its
 *    dependents, and unrelated ones in reverse order of discovery).  A
 *    cycle is "Cyclic dependency detected: a => b".
 * 3. Each file is compiled in that order and its declarations, inlines
 *    and translators stay for the programs that follow.  A file that
 *    fails with D_PRAGMA_DEPEND (a provider, module or library it
 *    depends on is missing or failed) is dropped without a word; any
 *    other error fails the program's compile with the library's
 *    message ("failed to compile script F: "dir/x.d", line N: ...").
 *
 * The built-in library (dlib.c) stands for dtrace's /usr/lib/dtrace:
 * a dependency on one of the files it replaces is satisfied by it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cc.h"

struct lib {
	char *path;
	char *text;
	char **deps;			/* paths this file depends on */
	int ndeps;
	int *users;			/* files that depend on this one */
	int nusers;
	int start, finish, loaded;
};

struct eng_libload {
	struct lib *v;
	int n, cap;
	int cur;			/* the file being read or compiled */
};

/* /usr/lib/dtrace's files whose definitions dlib.c has. */
static const char *const builtin[] = { "errno.d", "procfs.d", "regs.d",
	"sched.d", "signal.d", NULL };

static char *read_text(const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t len = 0, cap = 4096, r;
	char *buf = fp != NULL ? malloc(cap) : NULL;

	while (buf != NULL && (r = fread(buf + len, 1, cap - len - 1, fp)) > 0)
		if ((len += r) + 1 >= cap) {
			char *n = realloc(buf, cap *= 2);

			if (n == NULL) {
				free(buf);
				buf = NULL;
			}
			buf = n;
		}
	if (fp != NULL)
		fclose(fp);
	if (buf == NULL)
		return NULL;
	buf[len] = '\0';
	if (len >= 2 && buf[0] == '#' && buf[1] == '!')	/* keep lines */
		for (size_t i = 0; i < len && buf[i] != '\n'; i++)
			buf[i] = ' ';
	return buf;
}

static struct lib *lookup(struct eng_libload *ll, const char *path)
{
	for (int i = 0; i < ll->n; i++)
		if (strcmp(ll->v[i].path, path) == 0)
			return &ll->v[i];
	return NULL;
}

static int taken(const struct eng_libload *ll, const char *name)
{
	for (int i = 0; i < ll->n; i++) {
		const char *b = strrchr(ll->v[i].path, '/');

		if (strcmp(b != NULL ? b + 1 : ll->v[i].path, name) == 0)
			return 1;
	}
	return 0;
}

static int is_lib(const struct dirent *e)
{
	const char *dot = strrchr(e->d_name, '.');

	return dot != NULL && strcmp(dot, ".d") == 0;
}

static int add(struct eng_libload *ll, const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	struct lib *l;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;		/* dtrace skips what it cannot open */
	if (ll->n == ll->cap) {
		int cap = ll->cap ? ll->cap * 2 : 16;
		struct lib *v = realloc(ll->v, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return -1;
		ll->v = v;
		ll->cap = cap;
	}
	l = &ll->v[ll->n];
	memset(l, 0, sizeof(*l));
	if ((l->path = strdup(path)) == NULL)
		return -1;
	if ((l->text = read_text(path)) == NULL) {
		free(l->path);
		return 0;
	}
	ll->n++;
	return 0;
}

static int scan_dirs(struct eng_libload *ll, const char *const *dirs)
{
	for (int d = 0; dirs != NULL && dirs[d] != NULL; d++) {
		struct dirent **names;
		int n = scandir(dirs[d], &names, is_lib, alphasort), r = 0;

		for (int i = 0; i < n; i++) {
			if (r == 0 && !taken(ll, names[i]->d_name))
				r = add(ll, dirs[d], names[i]->d_name);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		if (r != 0)
			return -1;
	}
	return 0;
}

/* Pass 1 over one file: its control lines, in a pcb of its own. */
static void read_controls(struct eng_pcb *outer, struct lib *l)
{
	struct eng_pcb *pc = calloc(1, sizeof(*pc));
	struct eng_arena arena;
	const char *p;

	if (pc == NULL)
		return;
	memset(&arena, 0, sizeof(arena));
	pc->pc_hdl = outer->pc_hdl;
	pc->pc_cc = outer->pc_cc;
	pc->pc_arena = &arena;
	pc->pc_cflags = ENG_C_CTL | ENG_C_NOLIBS;
	pc->pc_file = outer->pc_file;
	pc->pc_spec = outer->pc_spec;
	pc->pc_lib = l->path;
	if (setjmp(pc->pc_jmp) == 0) {
		eng_lex_init(pc, l->text);
		for (p = l->text; *p != '\0'; pc->pc_line++) {
			const char *s = p + strspn(p, " \t\f\v"), *e;

			pc->pc_linestart = p;
			e = strchr(p, '\n');
			if (*s == '#' && s[1] != '!' && e != NULL)
				eng_lex_directive(pc, s, e);
			if (e == NULL)
				break;	/* dtrace: end-of-file in a control line */
			p = e + 1;
		}
	}
	eng_arena_free(&arena);
	free(pc);
}

static int add_user(struct lib *dep, int user)
{
	int *v = realloc(dep->users, (size_t)(dep->nusers + 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	dep->users = v;
	v[dep->nusers++] = user;
	return 0;
}

/* dt_topo_sort: walk to the users first; put each in front when done. */
static void walk(struct eng_libload *ll, int i, int *count, int *sorted,
    int *pos)
{
	struct lib *l = &ll->v[i];

	l->start = ++*count;
	for (int u = 0; u < l->nusers; u++)
		if (ll->v[l->users[u]].start == 0)
			walk(ll, l->users[u], count, sorted, pos);
	l->finish = ++*count;
	sorted[--*pos] = i;
}

/* The compile order into sorted[]; 0, or -1 with the error in pc. */
static int order(struct eng_pcb *pc, struct eng_libload *ll, int *sorted)
{
	int count = 0, pos = ll->n;

	for (int i = 0; i < ll->n; i++)
		for (int d = 0; d < ll->v[i].ndeps; d++) {
			struct lib *dep = lookup(ll, ll->v[i].deps[d]);

			if (dep == NULL)
				eng_cc_error(pc, 0, 0, NULL, "Invalid library "
				    "dependency in %s: %s", ll->v[i].path,
				    ll->v[i].deps[d]);
			if (add_user(dep, i) != 0)
				eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
		}
	for (int i = 0; i < ll->n; i++)
		if (ll->v[i].start == 0)
			walk(ll, i, &count, sorted, &pos);
	for (int i = 0; i < ll->n; i++)
		for (int u = 0; u < ll->v[i].nusers; u++)
			if (ll->v[ll->v[i].users[u]].finish > ll->v[i].finish)
				eng_cc_error(pc, 0, 0, NULL, "Cyclic dependency "
				    "detected: %s => %s", ll->v[i].path,
				    ll->v[ll->v[i].users[u]].path);
	return 0;
}

static void free_load(struct eng_libload *ll)
{
	for (int i = 0; i < ll->n; i++) {
		for (int d = 0; d < ll->v[i].ndeps; d++)
			free(ll->v[i].deps[d]);
		free(ll->v[i].deps);
		free(ll->v[i].users);
		free(ll->v[i].path);
		free(ll->v[i].text);
	}
	free(ll->v);
	free(ll);
}

/* Pass 2: compile in order; 0, or -1 with the failing library's error. */
static int compile_all(struct eng_pcb *pc, struct eng_libload *ll,
    const int *sorted)
{
	for (int k = 0; k < ll->n; k++) {
		struct lib *l = &ll->v[sorted[k]];
		eng_prog_t *p;

		ll->cur = sorted[k];
		p = eng_cc_compile_lib(pc, l->text, l->path);
		if (p != NULL) {
			l->loaded = 1;
			eng_prog_free(p);
			continue;
		}
		if (strcmp(pc->pc_hdl->eh_diagtag, "D_PRAGMA_DEPEND") != 0)
			return -1;
	}
	return 0;
}

/*
 * Load the libraries before pc's program, the first time a program is
 * compiled on the handle (later ones find them loaded, or failed).
 */
int eng_libdir_load(struct eng_pcb *pc)
{
	eng_hdl_t *h = pc->pc_hdl;
	const char *const *dirs = eng_opt_libdirs(h);
	struct eng_libload *volatile ll = NULL;
	struct eng_pcb *lp = NULL;
	int *volatile sorted = NULL;
	volatile int r = -1;

	if (pc->pc_cc->cc_libs || dirs == NULL || dirs[0] == NULL)
		return 0;
	pc->pc_cc->cc_libs = 1;
	ll = calloc(1, sizeof(*ll));
	lp = calloc(1, sizeof(*lp));
	if (ll == NULL || lp == NULL || scan_dirs(ll, dirs) != 0) {
		free(lp);
		if (ll != NULL)
			free_load(ll);
		eng_cc_error(pc, 0, 0, "D_NOMEM", "out of memory");
	}
	*lp = *pc;			/* its errors are pc's, without a jump */
	pc->pc_cc->cc_libload = ll;
	if (setjmp(lp->pc_jmp) == 0) {
		for (int i = 0; i < ll->n; i++) {
			ll->cur = i;
			read_controls(pc, &ll->v[i]);
		}
		if ((sorted = calloc((size_t)ll->n + 1, sizeof(int))) == NULL)
			eng_cc_error(lp, 0, 0, "D_NOMEM", "out of memory");
		order(lp, ll, sorted);
		r = compile_all(pc, ll, sorted);
	}
	pc->pc_cc->cc_libload = NULL;
	free(sorted);
	free_load(ll);
	free(lp);
	if (r == 0) {			/* pass 1's errors were only skips */
		memset(&h->eh_diag, 0, sizeof(h->eh_diag));
		h->eh_errmsg[0] = '\0';
	}
	return r;
}

static void add_dep(struct eng_pcb *pc, struct lib *l, const char *path)
{
	char **v = realloc(l->deps, (size_t)(l->ndeps + 1) * sizeof(*v));
	char *s = strdup(path);

	if (v != NULL)
		l->deps = v;
	if (v == NULL || s == NULL) {
		free(s);
		eng_cc_error(pc, pc->pc_line, 0, "D_NOMEM", "out of memory");
	}
	v[l->ndeps++] = s;
}

/* "#pragma D depends_on library name" (dt_pragma_depends). */
void eng_libdir_depend(struct eng_pcb *pc, int col, const char *name)
{
	struct eng_libload *ll = pc->pc_cc->cc_libload;
	const char *const *dirs = eng_opt_libdirs(pc->pc_hdl);
	char path[4096] = "";
	struct stat st;
	struct lib *l;
	int found = 0;

	if (pc->pc_lib == NULL || ll == NULL)
		eng_cc_error(pc, pc->pc_line, col, "D_PRAGMA_DEPEND", "main "
		    "program may not explicitly depend on a library");
	for (int i = 0; builtin[i] != NULL; i++)
		if (strcmp(name, builtin[i]) == 0)
			return;
	for (int d = 0; !found && dirs != NULL && dirs[d] != NULL; d++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[d], name);
		found = stat(path, &st) == 0;
	}
	if (!found)
		eng_cc_error(pc, pc->pc_line, col, "D_PRAGMA_DEPEND", "failed "
		    "to find dependency in libpath: %s", name);
	if (pc->pc_cflags & ENG_C_CTL) {
		add_dep(pc, &ll->v[ll->cur], path);
		return;
	}
	if ((l = lookup(ll, path)) == NULL || !l->loaded)
		eng_cc_error(pc, pc->pc_line, col, "D_PRAGMA_DEPEND", "program "
		    "requires library \"%s\" which failed to load", path);
}
