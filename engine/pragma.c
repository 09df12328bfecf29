/*
 * pragma.c - control lines ('#' at the start of a line), as dtrace's
 * dt_pragma(): the line is cut into words, quoted strings and integers;
 * "# 12 "f.d" 2" and "#line 12" reset the line number; "#error" (also
 * after "#pragma" and "#pragma D") stops with D_PRAGERR; "#ident" and
 * unknown "#pragma X" are ignored; "#pragma D" then option, depends_on,
 * attributes, binding.  Anything else is D_PRAGCTL_INVAL (after '#') or
 * D_PRAGMA_INVAL (after "#pragma D"); arguments of the wrong shape are
 * D_PRAGMA_MALFORM, each with dtrace's text.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"

enum { W_IDENT, W_INT, W_STR };
#define	NWORDS	32

struct words {
	char buf[1024];
	char *w[NWORDS];
	int kind[NWORDS];
	int n;
};

/* Cut the line [p, end) (after the '#') into words as dtrace's lexer. */
static void cut(struct words *ws, const char *p, const char *end)
{
	char *o = ws->buf, *lim = ws->buf + sizeof(ws->buf) - 1;

	ws->n = 0;
	while (p < end && ws->n < NWORDS && o < lim) {
		const char *s;

		if (strchr(" \t\f\v\r", *p) != NULL) {
			p++;
			continue;
		}
		s = p;
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				p += *p == '\\' && p + 1 < end;
			ws->kind[ws->n] = W_STR;
			s++;
		} else {
			while (p < end && strchr(" \t\f\v\r\"", *p) == NULL)
				p++;
			ws->kind[ws->n] = W_IDENT;
			if (isdigit((unsigned char)*s)) {
				const char *d = s;

				while (d < p && isxdigit((unsigned char)*d))
					d++;
				if (d == p)
					ws->kind[ws->n] = W_INT;
			}
		}
		ws->w[ws->n++] = o;
		while (s < p && o < lim)
			*o++ = *s++;
		*o++ = '\0';
		if (p < end && *p == '"')
			p++;
	}
}

static _Noreturn void perr(struct eng_pcb *pc, int col, const char *tag,
    const char *fmt, const char *a, const char *b)
{
	eng_cc_error(pc, pc->pc_line, col, tag, fmt, a, b);
}

/* The file a line marker names: errors in it say so (pc_curfile). */
static void marker_file(struct eng_pcb *pc, const char *f)
{
	const char *self = pc->pc_srcname ? pc->pc_srcname :
	    pc->pc_lib ? pc->pc_lib : pc->pc_file;

	if (self != NULL && strcmp(f, self) == 0)
		pc->pc_curfile = NULL;
	else
		pc->pc_curfile = eng_cc_strdup(pc, f, strlen(f));
}

static void do_line(struct eng_pcb *pc, struct words *ws, int i, int col)
{
	if (i >= ws->n || ws->kind[i] != W_INT ||
	    (i + 1 < ws->n && ws->kind[i + 1] != W_STR) ||
	    (i + 2 < ws->n && ws->kind[i + 2] != W_INT))
		perr(pc, col, "D_PRAGMA_MALFORM", "malformed #%s <line> [ "
		    "[\"file\"] state ]", "line", "");
	pc->pc_line = atoi(ws->w[i]) - 1;	/* the newline adds 1 */
	if (i + 1 < ws->n)
		marker_file(pc, ws->w[i + 1]);
}

static void do_error(struct eng_pcb *pc, struct words *ws, int i, int col)
{
	char msg[1024] = "";

	for (; i < ws->n; i++)
		if (ws->kind[i] != W_INT &&
		    strlen(msg) + strlen(ws->w[i]) + 2 < sizeof(msg)) {
			strcat(msg, ws->w[i]);
			strcat(msg, " ");
		}
	perr(pc, col, "D_PRAGERR", "#%s: %s", "error", msg);
}

static void do_option(struct eng_pcb *pc, struct words *ws, int i, int col)
{
	char opt[256], *val;

	if (i >= ws->n || ws->kind[i] != W_IDENT)
		perr(pc, col, "D_PRAGMA_MALFORM", "malformed #pragma %s "
		    "<option>=<val>", "option", "");
	if (i + 1 < ws->n)
		perr(pc, col, "D_PRAGMA_MALFORM", "superfluous arguments "
		    "specified for #pragma %s", "option", "");
	snprintf(opt, sizeof(opt), "%s", ws->w[i]);
	if ((val = strchr(opt, '=')) != NULL)
		*val++ = '\0';
	if (eng_setopt_pragma(pc->pc_hdl, opt, val) == 0)
		return;
	if (val == NULL)
		eng_cc_error(pc, pc->pc_line, col, "D_PRAGMA_OPTSET", "failed to "
		    "set option '%s': %s", opt, eng_errmsg(pc->pc_hdl));
	eng_cc_error(pc, pc->pc_line, col, "D_PRAGMA_OPTSET", "failed to set "
	    "option '%s' to '%s': %s", opt, val, eng_errmsg(pc->pc_hdl));
}

/* Does any probe have field (0 provider, 1 module) equal to name? */
static int probes_with(struct eng_pcb *pc, int field, const char *name)
{
	dtrace_probedesc_t pd;
	unsigned n = 0;

	memset(&pd, 0, sizeof(pd));
	snprintf(field == 0 ? pd.dtpd_provider : pd.dtpd_mod,
	    field == 0 ? sizeof(pd.dtpd_provider) : sizeof(pd.dtpd_mod), "%s",
	    name);
	return eng_prog_match(pc->pc_hdl, &pd, NULL, &n) == 0 && n > 0;
}

static void do_depends(struct eng_pcb *pc, struct words *ws, int i, int col)
{
	const char *cls, *name;
	int found;

	if (i + 1 >= ws->n || ws->kind[i] != W_IDENT ||
	    ws->kind[i + 1] != W_IDENT)
		perr(pc, col, "D_PRAGMA_MALFORM", "malformed #pragma %s <class> "
		    "<name>", "depends_on", "");
	cls = ws->w[i];
	name = ws->w[i + 1];
	if (strcmp(cls, "provider") == 0)
		found = probes_with(pc, 0, name);
	else if (strcmp(cls, "module") == 0)
		found = probes_with(pc, 1, name);
	else if (strcmp(cls, "library") == 0) {
		eng_libdir_depend(pc, col, name);
		found = 1;
	} else
		perr(pc, col, "D_PRAGMA_INVAL", "invalid class %s specified by "
		    "#pragma %s", cls, "depends_on");
	if (!found)
		perr(pc, col, "D_PRAGMA_DEPEND", "program requires %s %s", cls,
		    name);
}

/* name/name/class stability attributes (dtrace_str2attr). */
static int valid_attr(const char *s)
{
	static const char *const stab[] = { "Internal", "Private", "Obsolete",
	    "External", "Unstable", "Evolving", "Stable", "Standard", NULL };
	static const char *const cls[] = { "Unknown", "CPU", "Platform",
	    "Group", "ISA", "Common", NULL };
	char buf[128], *part[3];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *p = strtok(buf, "/"); p != NULL && n < 3;
	    p = strtok(NULL, "/"))
		part[n++] = p;
	if (n != 3)
		return 0;
	for (int k = 0; k < 3; k++) {
		const char *const *t = k < 2 ? stab : cls;
		int ok = 0;

		for (int j = 0; t[j] != NULL; j++)
			ok |= strcasecmp(part[k], t[j]) == 0;
		if (!ok)
			return 0;
	}
	return 1;
}

/* Does name (a whole word of the line, so "x;" is not x) name something
 * declared before the pragma, built in, or a type?  dtrace refuses an
 * attributes pragma that names nothing. */
static int known_name(struct eng_pcb *pc, const char *name)
{
	static const enum eng_scope scopes[] = { SC_BUILTIN, SC_GLOBAL,
	    SC_THREAD, SC_LOCAL, SC_MACRO };

	for (size_t k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++)
		if (eng_cc_ident(pc, name, scopes[k], 0) != NULL)
			return 1;
	return eng_sema_builtin(name) != NULL || eng_sema_func(name) != NULL ||
	    eng_type_lookup(pc->pc_cc, name) != NULL;
}

static void do_attributes(struct eng_pcb *pc, struct words *ws, int i,
    int col)
{
	if (i + 1 >= ws->n || ws->kind[i] != W_IDENT ||
	    ws->kind[i + 1] != W_IDENT)
		perr(pc, col, "D_PRAGMA_MALFORM", "malformed #pragma %s "
		    "<attributes> <ident>", "attributes", "");
	if (!valid_attr(ws->w[i]))
		perr(pc, col, "D_PRAGMA_INVAL", "invalid attributes specified by "
		    "#pragma %s", "attributes", "");
	if (i + 2 < ws->n && strcmp(ws->w[i + 1], "provider") == 0)
		return;		/* ... provider <name> <what> */
	if (!known_name(pc, ws->w[i + 1]))
		perr(pc, col, "D_PRAGMA_UNUSED", "unused #pragma %s",
		    "attributes", "");
}

/* "major.minor" or "major.minor.micro" (dt_version_str2num). */
static int valid_version(const char *s)
{
	int parts = 0;

	for (;;) {
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
		parts++;
		if (*s == '\0')
			return parts >= 2;
		if (*s++ != '.' || parts == 3)
			return 0;
	}
}

static void do_binding(struct eng_pcb *pc, struct words *ws, int i, int col)
{
	if (i + 1 >= ws->n || ws->kind[i] != W_STR ||
	    ws->kind[i + 1] != W_IDENT)
		perr(pc, col, "D_PRAGMA_MALFORM", "malformed #pragma %s "
		    "\"version\" <ident>", "binding", "");
	if (!valid_version(ws->w[i]))
		perr(pc, col, "D_PRAGMA_INVAL", "invalid version string "
		    "specified by #pragma %s", "binding", "");
}

static const struct pragma {
	const char *name;
	void (*fn)(struct eng_pcb *, struct words *, int, int);
	int level;		/* 0: after '#', 2: only after "#pragma D" */
} pragmas[] = {
	{ "attributes", do_attributes, 2 }, { "binding", do_binding, 2 },
	{ "depends_on", do_depends, 2 }, { "error", do_error, 0 },
	{ "ident", NULL, 0 }, { "line", do_line, 0 },
	{ "option", do_option, 2 },
};

/* One control line: p at '#', end at its newline (or the end). */
void eng_lex_directive(struct eng_pcb *pc, const char *p, const char *end)
{
	struct words ws;
	int level = 0, col = (int)(p - pc->pc_linestart) + 1;

	cut(&ws, p + 1, end);
	for (int i = 0; i < ws.n; i++) {
		if (ws.kind[i] == W_INT) {
			do_line(pc, &ws, i, col);
			return;
		}
		if (ws.kind[i] != W_IDENT)
			perr(pc, col, "D_PRAGCTL_INVAL", "invalid control "
			    "directive%s", "", "");
		if (level == 0 && strcmp(ws.w[i], "pragma") == 0) {
			level = 1;
			continue;
		}
		if (level == 1 && strcmp(ws.w[i], "D") == 0) {
			level = 2;
			continue;
		}
		for (size_t k = 0; k < sizeof(pragmas) / sizeof(pragmas[0]); k++)
			if (pragmas[k].level <= level &&
			    strcmp(pragmas[k].name, ws.w[i]) == 0) {
				if (pragmas[k].fn != NULL)
					pragmas[k].fn(pc, &ws, i + 1, col);
				return;
			}
		if (level == 0)
			perr(pc, col, "D_PRAGCTL_INVAL", "invalid control "
			    "directive: #%s", ws.w[i], "");
		if (level == 2)
			perr(pc, col, "D_PRAGMA_INVAL", "invalid D pragma: %s",
			    ws.w[i], "");
		return;		/* unknown #pragma X: ignored, as in C */
	}
}
