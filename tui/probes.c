/*
 * probes.c - the probe browser's model: every probe, sorted by provider,
 * module, function and name, a glob filter, and the visible tree rows.
 *
 * tp_match[i] says whether probe i passes the filter; tp_rows is rebuilt
 * from it as a pre-order walk of the tree provider -> module -> function
 * -> probe, descending only into expanded nodes (tp_open, or every node
 * when the filter leaves few probes).  Each row counts the matching
 * probes below it.  Rows refer to probes by index, so they stay valid
 * until the probe list is replaced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tui_model.h"

#define ALLOPEN_MAX 400		/* expand everything below this many matches */

/* dtrace's glob (gmatch): * ? [a-z] [!a-z] and \ escapes. */
int tui_glob(const char *p, const char *s)
{
	for (;; p++, s++) {
		switch (*p) {
		case '\0':
			return *s == '\0';
		case '*':
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 1;
			for (; *s != '\0'; s++)
				if (tui_glob(p, s))
					return 1;
			return 0;
		case '?':
			if (*s == '\0')
				return 0;
			break;
		case '[': {
			int neg = p[1] == '!', ok = 0;
			const char *q = p + 1 + neg;

			if (*s == '\0')
				return 0;
			for (; *q != '\0' && (*q != ']' || q == p + 1 + neg);
			    q++) {
				if (q[1] == '-' && q[2] != ']' && q[2] != '\0') {
					ok |= *s >= q[0] && *s <= q[2];
					q += 2;
				} else {
					ok |= *s == *q;
				}
			}
			if (*q != ']')
				return 0;
			if (ok == neg)
				return 0;
			p = q;
			break;
		}
		case '\\':
			if (p[1] != '\0')
				p++;
			/* FALLTHROUGH */
		default:
			if (*p != *s)
				return 0;
		}
	}
}

int tui_probes_add(tui_probes_t *p, uint32_t id, const char *prov,
    const char *mod, const char *func, const char *name)
{
	size_t l0 = strlen(prov) + 1, l1 = strlen(mod) + 1,
	    l2 = strlen(func) + 1, l3 = strlen(name) + 1;
	tui_probe_t *pr;
	char *buf;

	if (p->tp_n == p->tp_cap) {
		int cap = p->tp_cap ? p->tp_cap * 2 : 256;
		tui_probe_t *np = tui_realloc(p->tp_probes, cap * sizeof(*np));
		unsigned char *nm;

		if (np == NULL)
			return -1;
		p->tp_probes = np;
		nm = tui_realloc(p->tp_match, cap);
		if (nm == NULL)
			return -1;
		p->tp_match = nm;
		p->tp_cap = cap;
	}
	if ((buf = tui_malloc(l0 + l1 + l2 + l3)) == NULL)
		return -1;
	pr = &p->tp_probes[p->tp_n];
	pr->tp_id = id;
	pr->tp_prov = memcpy(buf, prov, l0);
	pr->tp_mod = memcpy(buf + l0, mod, l1);
	pr->tp_func = memcpy(buf + l0 + l1, func, l2);
	pr->tp_name = memcpy(buf + l0 + l1 + l2, name, l3);
	p->tp_match[p->tp_n++] = 1;
	return 0;
}

static int cmp_probe(const void *a, const void *b)
{
	const tui_probe_t *x = a, *y = b;
	int c;

	if ((c = strcmp(x->tp_prov, y->tp_prov)) != 0 ||
	    (c = strcmp(x->tp_mod, y->tp_mod)) != 0 ||
	    (c = strcmp(x->tp_func, y->tp_func)) != 0 ||
	    (c = strcmp(x->tp_name, y->tp_name)) != 0)
		return c;
	return x->tp_id > y->tp_id ? -1 : x->tp_id < y->tp_id;	/* made first */
}

static int same_name(const tui_probe_t *x, const tui_probe_t *y)
{
	return strcmp(x->tp_prov, y->tp_prov) == 0 &&
	    strcmp(x->tp_mod, y->tp_mod) == 0 &&
	    strcmp(x->tp_func, y->tp_func) == 0 &&
	    strcmp(x->tp_name, y->tp_name) == 0;
}

/* Sorted: keep one of each name, the made probe (an id) if there is
 * one (cmp_probe puts it first); listed usdt probes (id 0) come once
 * per note. */
static void dedupe(tui_probes_t *p)
{
	int k = 0;

	for (int i = 0; i < p->tp_n; i++) {
		if (k > 0 && same_name(&p->tp_probes[k - 1], &p->tp_probes[i])) {
			free(p->tp_probes[i].tp_prov);	/* the names' block */
			continue;
		}
		p->tp_probes[k++] = p->tp_probes[i];
	}
	p->tp_n = k;
}

void tui_probes_sort(tui_probes_t *p)
{
	if (p->tp_n > 1)
		qsort(p->tp_probes, p->tp_n, sizeof(tui_probe_t), cmp_probe);
	dedupe(p);
	tui_probes_filter(p, p->tp_filter);
}

void tui_probes_clear(tui_probes_t *p)
{
	for (int i = 0; i < p->tp_n; i++)
		free(p->tp_probes[i].tp_prov);
	free(p->tp_probes);
	free(p->tp_match);
	free(p->tp_rows);
	for (int i = 0; i < p->tp_nopen; i++)
		free(p->tp_open[i]);
	free(p->tp_open);
	memset(p, 0, sizeof(*p));
}

/* Split "a:b:c:d" into four right-aligned fields (empty = any). */
static void split(const char *f, char fld[4][128])
{
	const char *parts[4];
	size_t lens[4];
	int n = 0;

	for (const char *s = f;; ) {
		const char *c = strchr(s, ':');
		size_t len = c ? (size_t)(c - s) : strlen(s);

		if (n == 4)
			break;
		parts[n] = s;
		lens[n++] = len < 127 ? len : 127;
		if (c == NULL)
			break;
		s = c + 1;
	}
	memset(fld, 0, 4 * 128);
	for (int i = 0; i < n; i++)
		memcpy(fld[4 - n + i], parts[i], lens[i]);
}

static int field_ok(const char *pat, const char *s)
{
	return pat[0] == '\0' || tui_glob(pat, s);
}

static int match_probe(const tui_probe_t *pr, int anyf, char fld[4][128])
{
	if (anyf)
		return tui_glob(fld[0], pr->tp_prov) ||
		    tui_glob(fld[0], pr->tp_mod) ||
		    tui_glob(fld[0], pr->tp_func) ||
		    tui_glob(fld[0], pr->tp_name);
	return field_ok(fld[0], pr->tp_prov) && field_ok(fld[1], pr->tp_mod) &&
	    field_ok(fld[2], pr->tp_func) && field_ok(fld[3], pr->tp_name);
}

/* Filter the probes and rebuild the rows; returns how many match. */
int tui_probes_filter(tui_probes_t *p, const char *filter)
{
	char fld[4][128];
	int anyf = strchr(filter, ':') == NULL && filter[0] != '\0';

	if (filter != p->tp_filter)
		snprintf(p->tp_filter, sizeof(p->tp_filter), "%s", filter);
	if (anyf) {
		memset(fld, 0, sizeof(fld));
		snprintf(fld[0], sizeof(fld[0]), "*%s*", filter);
	} else {
		split(filter, fld);
	}
	p->tp_nmatch = 0;
	for (int i = 0; i < p->tp_n; i++) {
		p->tp_match[i] = (unsigned char)(filter[0] == '\0' ||
		    match_probe(&p->tp_probes[i], anyf, fld));
		p->tp_nmatch += p->tp_match[i];
	}
	p->tp_allopen = filter[0] != '\0' && p->tp_nmatch <= ALLOPEN_MAX;
	tui_probes_rebuild(p);
	return p->tp_nmatch;
}

/* The path naming the node of probe i at depth d ("p", "p\037m", ...). */
static void path(const tui_probe_t *pr, int d, char *buf, size_t len)
{
	switch (d) {
	case 0:
		snprintf(buf, len, "%s", pr->tp_prov);
		break;
	case 1:
		snprintf(buf, len, "%s\037%s", pr->tp_prov, pr->tp_mod);
		break;
	default:
		snprintf(buf, len, "%s\037%s\037%s", pr->tp_prov, pr->tp_mod,
		    pr->tp_func);
	}
}

static int is_open(const tui_probes_t *p, int i, int d)
{
	char buf[512];

	if (p->tp_allopen)
		return 1;
	path(&p->tp_probes[i], d, buf, sizeof(buf));
	for (int k = 0; k < p->tp_nopen; k++)
		if (strcmp(p->tp_open[k], buf) == 0)
			return 1;
	return 0;
}

/* First depth at which probes a and b differ (3: only the name). */
static int differ(const tui_probe_t *a, const tui_probe_t *b)
{
	if (strcmp(a->tp_prov, b->tp_prov) != 0)
		return 0;
	if (strcmp(a->tp_mod, b->tp_mod) != 0)
		return 1;
	if (strcmp(a->tp_func, b->tp_func) != 0)
		return 2;
	return 3;
}

static int add_row(tui_probes_t *p, int depth, int first)
{
	if (p->tp_nrows == p->tp_rowcap) {
		int cap = p->tp_rowcap ? p->tp_rowcap * 2 : 256;
		tui_prow_t *nr = tui_realloc(p->tp_rows, cap * sizeof(*nr));

		if (nr == NULL)
			return -1;
		p->tp_rows = nr;
		p->tp_rowcap = cap;
	}
	p->tp_rows[p->tp_nrows].tpr_depth = depth;
	p->tp_rows[p->tp_nrows].tpr_first = first;
	p->tp_rows[p->tp_nrows].tpr_count = 0;
	return p->tp_nrows++;
}

void tui_probes_rebuild(tui_probes_t *p)
{
	int cur[4] = { -1, -1, -1, -1 };	/* row open at each depth */
	int shown[4] = { 0, 0, 0, 0 };		/* depth d's children shown */
	int prev = -1;

	p->tp_nrows = 0;
	for (int i = 0; i < p->tp_n; i++) {
		int d;

		if (!p->tp_match[i])
			continue;
		d = prev < 0 ? 0 : differ(&p->tp_probes[prev],
		    &p->tp_probes[i]);
		for (int k = d; k < 4; k++) {
			if (k == 0 || shown[k - 1]) {
				cur[k] = add_row(p, k, i);
				shown[k] = k < 3 && cur[k] >= 0 &&
				    is_open(p, i, k);
			} else {
				cur[k] = -1;
				shown[k] = 0;
			}
		}
		for (int k = 0; k < 4; k++)
			if (cur[k] >= 0)
				p->tp_rows[cur[k]].tpr_count++;
		prev = i;
	}
}

/* Expand or collapse the node at row r. */
void tui_probes_toggle(tui_probes_t *p, int r)
{
	char buf[512];
	const tui_prow_t *row;

	if (r < 0 || r >= p->tp_nrows || p->tp_rows[r].tpr_depth == 3)
		return;
	row = &p->tp_rows[r];
	path(&p->tp_probes[row->tpr_first], row->tpr_depth, buf, sizeof(buf));
	for (int k = 0; k < p->tp_nopen; k++) {
		if (strcmp(p->tp_open[k], buf) == 0) {
			free(p->tp_open[k]);
			p->tp_open[k] = p->tp_open[--p->tp_nopen];
			tui_probes_rebuild(p);
			return;
		}
	}
	char **no = tui_realloc(p->tp_open, (p->tp_nopen + 1) * sizeof(*no));

	if (no == NULL)
		return;
	p->tp_open = no;
	if ((no[p->tp_nopen] = tui_strdup(buf)) != NULL)
		p->tp_nopen++;
	tui_probes_rebuild(p);
}

void tui_probes_desc(const tui_probes_t *p, int r, char *buf, size_t len)
{
	const tui_probe_t *pr;
	int d;

	if (r < 0 || r >= p->tp_nrows) {
		snprintf(buf, len, ":::");
		return;
	}
	d = p->tp_rows[r].tpr_depth;
	pr = &p->tp_probes[p->tp_rows[r].tpr_first];
	snprintf(buf, len, "%s:%s:%s:%s", pr->tp_prov, d >= 1 ? pr->tp_mod : "",
	    d >= 2 ? pr->tp_func : "", d >= 3 ? pr->tp_name : "");
}

/*
 * How many probes the descriptions of a clause match (the prompt's hint
 * when the engine cannot say): the text before '{' or '/', split at
 * commas and blanks, each a description with dtrace's field rules; a
 * probe matching several descriptions counts once.
 */
int tui_probes_count(const tui_probes_t *p, const char *text)
{
	char descs[8][4][128], buf[1024], *save = NULL;
	size_t n = strcspn(text, "{/");
	int nd = 0, count = 0;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	for (char *d = strtok_r(buf, ", \t\n", &save); d != NULL && nd < 8;
	    d = strtok_r(NULL, ", \t\n", &save))
		split(d, descs[nd++]);
	if (nd == 0)
		return -1;
	for (int i = 0; i < p->tp_n; i++)
		for (int k = 0; k < nd; k++)
			if (match_probe(&p->tp_probes[i], 0, descs[k])) {
				count++;
				break;
			}
	return count;
}
