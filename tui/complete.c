/*
 * complete.c - what Tab completes at the prompt, and when a clause is
 * complete.  Plain C over the model: the prompt (prompt.c) asks for the
 * matches of the word under the cursor and hands them to readline or
 * libedit.
 *
 * The word decides the list: after ':' at the start of the line, prompt
 * commands (and option names after ":set "); before the clause's '{',
 * probe descriptions field by field (provider, then module, function,
 * name, with globs in the fields already typed); inside braces, built-in
 * variables, subroutines, actions and aggregating functions, as the
 * engine names them (tui_vocab_t: no list of D words is kept here).
 */
#include <stdlib.h>
#include <string.h>
#include "tui_model.h"

static const char *const commands[] = {
	":list", ":disable", ":remove", ":set", ":clear", ":trunc", ":save",
	":theme", ":stop", ":restart", ":quit", ":help", NULL
};

typedef struct list {
	char **v;
	int n, cap;
} list_t;

static int add(list_t *l, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s;

	for (int i = 0; i < l->n; i++)	/* distinct: lists stay small */
		if (strncmp(l->v[i], a, la) == 0 &&
		    strncmp(l->v[i] + la, b, lb) == 0 &&
		    strcmp(l->v[i] + la + lb, c) == 0)
			return 0;
	if (l->n + 2 > l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		char **nv = tui_realloc(l->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	if ((s = tui_malloc(la + lb + lc + 1)) == NULL)
		return -1;
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c, lc + 1);
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

static void from_table(list_t *l, const char *const *t, const char *pfx,
    const char *suffix)
{
	size_t n = strlen(pfx);

	for (int i = 0; t != NULL && t[i] != NULL && l->n < 500; i++)
		if (strncmp(t[i], pfx, n) == 0)
			add(l, "", t[i], suffix);
}

/* Field k of probe p. */
static const char *field(const tui_probe_t *p, int k)
{
	return k == 0 ? p->tp_prov : k == 1 ? p->tp_mod : k == 2 ? p->tp_func :
	    p->tp_name;
}

/* Probe descriptions: fields typed so far as globs, the last as a prefix. */
static void probe_words(list_t *l, const char *w, const tui_probes_t *pr)
{
	char fld[4][256], last[520];
	const char *s = w, *c;
	int k = 0;

	memset(fld, 0, sizeof(fld));
	while ((c = strchr(s, ':')) != NULL && k < 3) {
		size_t n = (size_t)(c - s) < 255 ? (size_t)(c - s) : 255;

		memcpy(fld[k++], s, n);
		s = c + 1;
	}
	snprintf(last, sizeof(last), "%s*", s);
	for (int i = 0; i < pr->tp_n && l->n < 500; i++) {
		const tui_probe_t *p = &pr->tp_probes[i];
		int ok = 1;

		for (int j = 0; j < k && ok; j++)
			ok = fld[j][0] == '\0' || tui_glob(fld[j], field(p, j));
		if (!ok || !tui_glob(last, field(p, k)))
			continue;
		char head[1024];

		snprintf(head, sizeof(head), "%.*s", (int)(s - w), w);
		add(l, head, field(p, k), k < 3 ? ":" : "");
	}
}

static int in_braces(const char *line, int pos)
{
	int depth = 0;

	for (int i = 0; i < pos && line[i] != '\0'; i++)
		depth += line[i] == '{' ? 1 : line[i] == '}' ? -1 : 0;
	return depth > 0;
}

/*
 * Where the word to complete starts: inside braces and in prompt
 * commands, D's operators and punctuation end words; in a probe
 * description list only blanks, ',', '/' and braces do, so that globs
 * ("syscall::*read*:") and dashes ("tick-1s") stay in the word.
 */
const char *tui_complete_breaks(const char *line, int point)
{
	if (line[0] == ':' || in_braces(line, point))
		return " \t\n\"\\'`@$><=;|&{}()/,*+-!%^~[]";
	return " \t\n,{}/";
}

char **tui_complete(const char *line, int start, int end,
    const tui_probes_t *probes, const tui_vocab_t *vocab)
{
	char w[512];
	list_t l = { NULL, 0, 0 };
	int n = end - start;

	if (n < 0 || n >= (int)sizeof(w))
		return NULL;
	memcpy(w, line + start, n);
	w[n] = '\0';
	if (line[0] == ':') {
		if (start == 0)
			from_table(&l, commands, w, " ");
		else if (strncmp(line, ":set ", 5) == 0)
			from_table(&l, vocab != NULL ? vocab->tv_options :
			    NULL, w, "=");
		else if (w[0] == '@')
			from_table(&l, NULL, w, "");
	} else if (in_braces(line, start)) {
		for (int k = 0; k < 4 && vocab != NULL; k++)
			from_table(&l, vocab->tv_words[k], w, "");
	} else {
		probe_words(&l, w, probes);
	}
	return l.v;
}

/*
 * A clause is complete when it has opened a brace and its braces balance
 * again, so "BEGIN" Enter "{" ... "}" reads as one clause; braces inside
 * strings, character constants and comments do not count.
 */
int tui_clause_complete(const char *t)
{
	int depth = 0, opened = 0;
	char q = 0;

	for (; *t != '\0'; t++) {
		if (q != 0) {
			if (*t == '\\' && t[1] != '\0')
				t++;
			else if (*t == q)
				q = 0;
		} else if (*t == '"' || *t == '\'') {
			q = *t;
		} else if (t[0] == '/' && t[1] == '*') {
			const char *e = strstr(t + 2, "*/");

			if (e == NULL)
				return 0;
			t = e + 1;
		} else if (t[0] == '/' && t[1] == '/') {
			while (t[1] != '\0' && t[1] != '\n')
				t++;
		} else if (*t == '{') {
			depth++;
			opened = 1;
		} else if (*t == '}') {
			depth--;
		}
	}
	return opened && depth <= 0 && q == 0;
}
