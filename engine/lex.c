/*
 * lex.c - the D lexer: source bytes -> tokens.
 *
 * The lexer works on the whole source held in memory (pc_src, NUL-ended)
 * and keeps only a position, line and line start, so the parser can peek
 * at raw text and choose a mode: eng_lex_pdesc() reads a probe
 * description (globs, '-', ':' and '$N' expansion), eng_lex_next() reads
 * an expression token.  Control lines are handed to pragma.c as they
 * are met ("#pragma D option" sets the option at once).  Macro variables
 * ($1, $$1, $pid, $target...) become integer, string or identifier
 * tokens as dtrace makes them: a $N that is neither an integer nor an
 * identifier is a string.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cc.h"

static int col(struct eng_pcb *pc, const char *p)
{
	return (int)(p - pc->pc_linestart) + 1;
}

static _Noreturn void lerr(struct eng_pcb *pc, const char *p,
    const char *tag, const char *msg, const char *arg)
{
	eng_cc_error(pc, pc->pc_line, col(pc, p), tag, msg, arg);
}

void eng_lex_init(struct eng_pcb *pc, const char *src)
{
	pc->pc_src = src;
	pc->pc_pos = src;
	pc->pc_line = 1;
	pc->pc_linestart = src;
	pc->pc_tokvalid = 0;
}

static void newline(struct eng_pcb *pc, const char *after)
{
	pc->pc_line++;
	pc->pc_linestart = after;
}

/* Skip blanks, comments and directives. */
static void skip(struct eng_pcb *pc)
{
	const char *p = pc->pc_pos;

	for (;;) {
		if (*p == '\n') {
			newline(pc, ++p);
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else if (p[0] == '/' && p[1] == '*') {
			/* dtrace's texts (its lexer's comment state) */
			for (p += 2; *p != '\0' && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p == '\n')
					newline(pc, p + 1);
				else if (p[0] == '/' && p[1] == '*')
					lerr(pc, p, "D_SYNTAX", "/* encountered "
					    "inside a comment%s", "");
			if (*p == '\0')
				lerr(pc, p, "D_SYNTAX", "end-of-file encountered "
				    "before matching */%s", "");
			p += 2;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (*p == '#' && (p == pc->pc_linestart ||
		    strspn(pc->pc_linestart, " \t") ==
		    (size_t)(p - pc->pc_linestart))) {
			const char *e = strchr(p, '\n');

			if (e == NULL)	/* as dtrace's input() in a control line */
				lerr(pc, p + strlen(p), "D_SYNTAX", "end-of-file "
				    "encountered before end of control line%s", "");
			pc->pc_pos = p;
			eng_lex_directive(pc, p, e);
			p = e;
		} else {
			break;
		}
	}
	pc->pc_pos = p;
}

/* The next identifier-like word, without consuming it (NULL if none). */
const char *eng_lex_peek_word(struct eng_pcb *pc, size_t *lenp)
{
	const char *p;

	skip(pc);
	p = pc->pc_pos;
	if (!isalpha((unsigned char)*p) && *p != '_') {
		*lenp = 0;
		return p;
	}
	*lenp = 0;
	while (isalnum((unsigned char)p[*lenp]) || p[*lenp] == '_')
		(*lenp)++;
	return p;
}

static void settok(struct eng_pcb *pc, struct eng_token *t, int kind,
    const char *start)
{
	memset(t, 0, sizeof(*t));
	t->tk_kind = kind;
	t->tk_line = pc->pc_line;
	t->tk_col = col(pc, start);
	t->tk_pos = start;
}

/* Value of macro argument n ($n); NULL if undefined and no defaultargs. */
static const char *macro_arg(struct eng_pcb *pc, int n, const char *p)
{
	const eng_cargs_t *a = pc->pc_args;
	int64_t def = 0;

	if (n >= 0 && n < 64)
		pc->pc_argref[n] = 1;
	if (a != NULL && n < a->argc && a->argv[n] != NULL)
		return a->argv[n];
	if (eng_cc_optval(pc->pc_hdl, "defaultargs", &def) == 0 && def > 0)
		return NULL;
	eng_cc_error(pc, pc->pc_line, col(pc, p), "D_MACRO_UNDEF",
	    "macro argument $%d is not defined", n);
}

/* Integer value of a named macro ($pid ...); -1 if not a name we know. */
static int named_macro(struct eng_pcb *pc, const char *name, size_t len,
    int64_t *v)
{
	if (len == 3 && strncmp(name, "pid", 3) == 0)
		*v = getpid();
	else if (len == 4 && strncmp(name, "ppid", 4) == 0)
		*v = getppid();
	else if (len == 3 && strncmp(name, "uid", 3) == 0)
		*v = getuid();
	else if (len == 3 && strncmp(name, "gid", 3) == 0)
		*v = getgid();
	else if (len == 6 && strncmp(name, "target", 6) == 0)
		*v = pc->pc_args != NULL ? pc->pc_args->target_pid : 0;
	else if (len == 4 && strncmp(name, "pgid", 4) == 0)
		*v = getpgid(0);
	else if (len == 3 && strncmp(name, "sid", 3) == 0)
		*v = getsid(0);
	else if (len == 4 && strncmp(name, "sgid", 4) == 0)
		*v = getgid();
	else if (len == 4 && strncmp(name, "euid", 4) == 0)
		*v = geteuid();
	else if (len == 4 && strncmp(name, "egid", 4) == 0)
		*v = getegid();
	else
		return -1;
	return 0;
}

/* Is s an integer as strtoull takes it (overflow included)? */
static int is_int(const char *s)
{
	char *end;

	if (*s == '\0' || isspace((unsigned char)*s))
		return 0;
	(void)strtoull(s, &end, 0);
	return *end == '\0';
}

static int parse_int(const char *s, uint64_t *v)
{
	char *end;

	if (*s == '\0' || (!isdigit((unsigned char)*s) && *s != '-' &&
	    *s != '+'))
		return -1;
	errno = 0;
	*v = (uint64_t)strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

static int is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '`')
			return 0;
	return 1;
}

static const char *unescape(struct eng_pcb *pc, const char *v,
    int unquote);

/* $N, $$N, $name: p points at '$'. */
static const char *macro(struct eng_pcb *pc, struct eng_token *t,
    const char *p)
{
	const char *start = p, *val;
	int str = 0, n;
	int64_t v;
	size_t len;

	p++;
	if (*p == '$') {
		str = 1;
		p++;
	}
	if (isdigit((unsigned char)*p)) {
		for (n = 0; isdigit((unsigned char)*p); p++)
			n = n > 99999 ? n : n * 10 + (*p - '0');
		val = macro_arg(pc, n, start);
		if (str) {
			settok(pc, t, T_STR, start);
			t->tk_text = val != NULL ? unescape(pc, val, 0) : "";
		} else if (val == NULL) {
			settok(pc, t, T_INT, start);
			t->tk_int = 0;
		} else if (!is_int(val) && !is_ident(val)) {
			/* neither: a string, as dtrace makes it */
			settok(pc, t, T_STR, start);
			t->tk_text = unescape(pc, val, 1);
		} else if (isdigit((unsigned char)*val) || *val == '-' ||
		    *val == '+') {
			settok(pc, t, T_INT, start);
			if (parse_int(val, &t->tk_int) != 0)
				eng_cc_error(pc, pc->pc_line, col(pc, start),
				    "D_MACRO_OFLOW", "macro argument %s constant "
				    "%s results in integer overflow",
				    eng_cc_strdup(pc, start, (size_t)(p - start)),
				    val + (*val == '-' || *val == '+'));
		} else {
			settok(pc, t, T_IDENT, start);
			t->tk_text = val;
		}
		return p;
	}
	for (len = 0; isalnum((unsigned char)p[len]) || p[len] == '_'; len++)
		;
	if (named_macro(pc, p, len, &v) != 0)
		lerr(pc, start, "D_MACRO_UNDEF", "macro variable %s is not defined",
		    eng_cc_strdup(pc, start, (size_t)(p + len - start)));
	settok(pc, t, str ? T_STR : T_INT, start);
	t->tk_int = (uint64_t)v;
	if (str) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%lld", (long long)v);
		t->tk_text = eng_cc_strdup(pc, buf, strlen(buf));
	}
	return p + len;
}

static int hexval(int c)
{
	if (isdigit(c))
		return c - '0';
	return tolower(c) - 'a' + 10;
}

/* escape()'s mark for an escape dtrace keeps as written ("\\?"). */
#define	ESC_KEEP	0x100

/*
 * One escape after '\\'; returns the byte, advances *pp.  As dtrace's
 * stresc2chr, only the C letters, octal and hex digits, '"' and '\\'
 * are converted; any other escaped character keeps its backslash
 * (returned with ESC_KEEP).
 */
static int escape(struct eng_pcb *pc, const char **pp)
{
	const char *p = *pp;
	int c = *p++, v;

	switch (c) {
	case 'n': c = '\n'; break;
	case 't': c = '\t'; break;
	case 'r': c = '\r'; break;
	case 'a': c = '\a'; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'v': c = '\v'; break;
	case 'x':
		for (v = 0; isxdigit((unsigned char)*p); p++)
			v = ((v & 0xfff) << 4) + hexval((unsigned char)*p);
		c = v & 0xff;
		break;
	case '0': case '1': case '2': case '3': case '4': case '5': case '6':
	case '7':
		v = c - '0';
		for (int i = 0; i < 2 && *p >= '0' && *p <= '7'; i++, p++)
			v = v * 8 + (*p - '0');
		c = v & 0xff;
		break;
	case '\0':
		lerr(pc, p - 1, "D_STR_NL",
		    "end-of-file encountered in string literal%s", "");
	case '"': case '\\':
		break;
	default:
		c |= ESC_KEEP;	/* \' \? and unknown: kept */
		break;
	}
	*pp = p;
	return c;
}

/* A macro argument's text as a string: escapes converted as in a
 * literal; with unquote, enclosing double quotes dropped (dtrace). */
static const char *unescape(struct eng_pcb *pc, const char *v, int unquote)
{
	size_t len = strlen(v), n = 0;
	char *buf = eng_cc_alloc(pc, len * 2 + 1);
	const char *p = v, *end = v + len;

	if (unquote && len > 1 && v[0] == '"' && v[len - 1] == '"') {
		p++;
		end--;
	}
	while (p < end) {
		int c = *p;

		if (c == '\\' && p + 1 < end) {
			p++;
			c = escape(pc, &p);
		} else {
			p++;
		}
		if (c & ESC_KEEP)
			buf[n++] = '\\';
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return buf;
}

static const char *string(struct eng_pcb *pc, struct eng_token *t,
    const char *p)
{
	const char *start = p++;
	size_t cap = 64, n = 0;
	char *buf = eng_cc_alloc(pc, cap);

	while (*p != '"') {
		int c;

		if (*p == '\0' || *p == '\n')
			lerr(pc, start, "D_STR_NL",
			    "newline encountered in string literal%s", "");
		c = *p == '\\' ? (p++, escape(pc, &p)) : *p++;
		if (n + 3 > cap) {
			char *nb = eng_cc_alloc(pc, cap * 2);

			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
		if (c & ESC_KEEP)
			buf[n++] = '\\';
		buf[n++] = (char)c;
	}
	settok(pc, t, T_STR, start);
	t->tk_text = buf;
	return p + 1;
}

static const char *charlit(struct eng_pcb *pc, struct eng_token *t,
    const char *p)
{
	const char *start = p++;
	uint64_t v = 0;
	int n = 0;

	while (*p != '\'') {
		if (*p == '\0' || *p == '\n')
			lerr(pc, start, "D_CHR_NL",
			    "newline encountered in character constant%s", "");
		int c = *p == '\\' ? (p++, escape(pc, &p)) : *p++;

		if (c & ESC_KEEP) {
			v = (v << 8) | '\\';
			n++;
		}
		v = (v << 8) | (uint8_t)c;
		n++;
	}
	if (n == 0)
		lerr(pc, start, "D_CHR_NULL", "empty character constant%s", "");
	if (n > 8)
		lerr(pc, start, "D_CHR_OFLOW",
		    "character constant is too long%s", "");
	settok(pc, t, T_INT, start);
	t->tk_int = n == 1 ? (uint64_t)(int64_t)(int8_t)v : v;
	return p + 1;
}

/*
 * An integer constant as dtrace's lexer takes it: digits of its base
 * (dtrace's pattern takes 8 and 9 after a leading 0 and then refuses
 * them as octal digits), then u, l, ll suffixes.  What follows is the
 * next token, so "10ms" is 10 then the identifier ms: a syntax error.
 */
static const char *number(struct eng_pcb *pc, struct eng_token *t,
    const char *p)
{
	const char *start = p, *digits, *end;
	int base = 10, oflow = 0;
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') &&
	    isdigit((unsigned char)p[2])) {
		base = 2;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	digits = p;
	while (base == 16 ? isxdigit((unsigned char)*p) :
	    isdigit((unsigned char)*p))
		p++;
	settok(pc, t, T_INT, start);
	t->tk_unsigned = base != 10 ? -1 : 0;	/* -1: may become unsigned */
	for (end = p; *end != '\0' && strchr("uUlL", *end) != NULL; end++) {
		if (*end == 'u' || *end == 'U')
			t->tk_unsigned = 1;
		else
			t->tk_long++;	/* 2: LL */
	}
	for (const char *d = digits; d < p; d++) {
		int x = isdigit((unsigned char)*d) ? *d - '0' :
		    hexval((unsigned char)*d);

		if (x >= base)
			eng_cc_error(pc, pc->pc_line, col(pc, start),
			    "D_INT_DIGIT", "constant %s contains invalid digit "
			    "%c", eng_cc_strdup(pc, start, (size_t)(end - start)),
			    *d);
		if (v > (UINT64_MAX - (uint64_t)x) / (uint64_t)base)
			oflow = 1;
		v = v * (uint64_t)base + (uint64_t)x;
	}
	if (oflow)
		lerr(pc, start, "D_INT_OFLOW", "constant %s results in integer "
		    "overflow", eng_cc_strdup(pc, start, (size_t)(end - start)));
	t->tk_int = v;
	if (*end == '.' && base != 16)
		lerr(pc, start, "D_SYNTAX", "floating-point constants are "
		    "not permitted%s", "");
	if (isalpha((unsigned char)*end) || *end == '_') {
		const char *w = end;

		while (isalnum((unsigned char)*w) || *w == '_')
			w++;
		lerr(pc, end, "D_SYNTAX", "syntax error near \"%s\"",
		    eng_cc_strdup(pc, end, (size_t)(w - end)));
	}
	return end;
}

static const struct { const char *s; int tok; } puncts[] = {
	{ "<<=", T_SHL_EQ }, { ">>=", T_SHR_EQ }, { "...", T_DOTS },
	{ "->", T_ARROW }, { "++", T_INC }, { "--", T_DEC },
	{ "<<", T_SHL }, { ">>", T_SHR }, { "<=", T_LE }, { ">=", T_GE },
	{ "==", T_EQ }, { "!=", T_NE }, { "&&", T_LAND }, { "||", T_LOR },
	{ "^^", T_LXOR }, { "+=", T_ADD_EQ }, { "-=", T_SUB_EQ },
	{ "*=", T_MUL_EQ }, { "/=", T_DIV_EQ }, { "%=", T_MOD_EQ },
	{ "&=", T_AND_EQ }, { "^=", T_XOR_EQ }, { "|=", T_OR_EQ },
	{ NULL, 0 }
};

/* Read the next expression-mode token into t. */
void eng_lex_next(struct eng_pcb *pc, struct eng_token *t)
{
	const char *p;

	skip(pc);
	p = pc->pc_pos;
	if (*p == '\0') {
		settok(pc, t, T_EOF, p);
		return;
	}
	if (isalpha((unsigned char)*p) || *p == '_' || *p == '`') {
		const char *s = p;

		while (isalnum((unsigned char)*p) || *p == '_' || *p == '`')
			p++;
		settok(pc, t, T_IDENT, s);
		t->tk_text = eng_cc_strdup(pc, s, (size_t)(p - s));
	} else if (isdigit((unsigned char)*p)) {
		p = number(pc, t, p);
	} else if (*p == '"') {
		p = string(pc, t, p);
	} else if (*p == '\'') {
		p = charlit(pc, t, p);
	} else if (*p == '$') {
		p = macro(pc, t, p);
	} else if (*p == '@') {
		const char *s = ++p;

		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		settok(pc, t, T_AGG, s - 1);
		t->tk_text = eng_cc_strdup(pc, s, (size_t)(p - s));
	} else {
		int i;

		for (i = 0; puncts[i].s != NULL; i++)
			if (strncmp(p, puncts[i].s, strlen(puncts[i].s)) == 0)
				break;
		if (puncts[i].s != NULL) {
			settok(pc, t, puncts[i].tok, p);
			p += strlen(puncts[i].s);
		} else if (strchr("+-*/%&|^~!<>=?:;,.()[]{}", *p) != NULL) {
			settok(pc, t, (unsigned char)*p, p);
			p++;
		} else {
			char c[8];

			snprintf(c, sizeof(c), isprint((unsigned char)*p) ?
			    "%c" : "\\%03o", (unsigned char)*p);
			lerr(pc, p, "D_SYNTAX", "syntax error near \"%s\"",
			    eng_cc_strdup(pc, c, strlen(c)));
		}
	}
	pc->pc_pos = p;
}

static int pdesc_char(int c)
{
	return c != '\0' && !isspace(c) && c != ',' && c != '{' &&
	    c != '/' && c != ';' && c != '}';
}

/* Read a probe description ("syscall::read*:entry", "BEGIN", "pid$1:::") */
void eng_lex_pdesc(struct eng_pcb *pc, struct eng_token *t)
{
	const char *p, *start;
	char buf[DTRACE_FULLNAMELEN + 64];
	size_t n = 0;

	skip(pc);
	start = p = pc->pc_pos;
	settok(pc, t, T_PDESC, start);
	while (pdesc_char((unsigned char)*p)) {
		if (*p == '$') {
			struct eng_token mt;
			char num[32];
			const char *s;

			p = macro(pc, &mt, p);
			if (mt.tk_kind == T_INT) {
				snprintf(num, sizeof(num), "%llu",
				    (unsigned long long)mt.tk_int);
				s = num;
			} else {
				s = mt.tk_text;
			}
			for (; *s != '\0' && n < sizeof(buf) - 1; s++)
				buf[n++] = *s;
			continue;
		}
		if (n < sizeof(buf) - 1)
			buf[n++] = *p;
		p++;
	}
	if (n >= sizeof(buf) - 1 || n == 0) {
		eng_cc_error(pc, pc->pc_line, col(pc, start), n == 0 ?
		    "D_SYNTAX" : "D_PDESC_INVAL", n == 0 ?
		    "syntax error near \"%s\"" : "invalid probe description "
		    "\"%s\": too long", n == 0 ? eng_cc_strdup(pc, p,
		    *p ? 1 : 0) : "...");
	}
	t->tk_text = eng_cc_strdup(pc, buf, n);
	pc->pc_pos = p;
}

/* Printable name of a token kind, for messages. */
const char *eng_tok_name(int kind, char *buf, size_t len)
{
	int i;

	for (i = 0; puncts[i].s != NULL; i++)
		if (puncts[i].tok == kind)
			return puncts[i].s;
	if (kind == T_EOF)
		return "end of input";
	if (kind < 256) {
		snprintf(buf, len, "%c", kind);
		return buf;
	}
	return "token";
}
