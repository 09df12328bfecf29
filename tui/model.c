/*
 * model.c - tui_model: everything the panes show, as plain data.  The
 * session (session.c) fills it from the engine; unit tests fill it by hand.
 *
 * Output is a ring of tm_maxlines lines (tm_head is the oldest); text that
 * has not yet ended in a newline waits in tm_partial.  Aggregations are
 * copied out of each engine snapshot: tui_model_agg_begin/put/end rebuild
 * them, keeping the previous values of each key so panes can show
 * per-interval differences.  Nothing here allocates on a failure path
 * that it does not undo: on out-of-memory a line or entry is just lost.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tui_model.h"
#include "dtrace_abi.h"

tui_model_t *tui_model_new(int maxlines)
{
	tui_model_t *m = tui_calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->tm_maxlines = maxlines > 0 ? maxlines : 10000;
	m->tm_lines = tui_calloc((size_t)m->tm_maxlines, sizeof(tui_line_t));
	if (m->tm_lines == NULL) {
		free(m);
		return NULL;
	}
	m->tm_route = "root";
	m->tm_hint = -1;
	m->tm_nextid = 1;
	return m;
}

static void agg_free(tui_agg_t *a);
static void heat_reset(tui_heat_t *h);

void tui_model_free(tui_model_t *m)
{
	if (m == NULL)
		return;
	for (int i = 0; i < m->tm_nlines; i++)
		free(m->tm_lines[(m->tm_head + i) % m->tm_maxlines].tl_text);
	free(m->tm_lines);
	free(m->tm_partial);
	free(m->tm_cpus);
	free(m->tm_lasterr);
	for (int i = 0; i < m->tm_naggs; i++)
		agg_free(&m->tm_aggs[i]);
	free(m->tm_aggs);
	tui_probes_clear(&m->tm_probes);
	for (int i = 0; i < m->tm_nens; i++)
		free(m->tm_ens[i].te_src);
	free(m->tm_ens);
	heat_reset(&m->tm_heat);
	free(m->tm_msg);
	free(m->tm_clauses);
	free(m);
}

/* ---- output ------------------------------------------------------------ */

static void push_line(tui_model_t *m, const char *text, size_t len, int cpu)
{
	char *t = tui_malloc(len + 1);
	tui_line_t *l;

	if (t == NULL)
		return;
	memcpy(t, text, len);
	t[len] = '\0';
	if (m->tm_nlines == m->tm_maxlines) {
		l = &m->tm_lines[m->tm_head];
		free(l->tl_text);
		m->tm_head = (m->tm_head + 1) % m->tm_maxlines;
		m->tm_nlines--;
	}
	l = &m->tm_lines[(m->tm_head + m->tm_nlines) % m->tm_maxlines];
	l->tl_text = t;
	l->tl_cpu = cpu;
	m->tm_nlines++;
	m->tm_totlines++;
}

void tui_model_output(tui_model_t *m, const char *text, size_t len, int cpu)
{
	while (len > 0) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;

		if (nl == NULL) {
			size_t old = m->tm_partial ? strlen(m->tm_partial) : 0;
			char *p = tui_realloc(m->tm_partial, old + n + 1);

			if (p == NULL)
				return;
			memcpy(p + old, text, n);
			p[old + n] = '\0';
			m->tm_partial = p;
			m->tm_partial_cpu = cpu;
			return;
		}
		if (m->tm_partial != NULL) {
			size_t old = strlen(m->tm_partial);
			char *p = tui_realloc(m->tm_partial, old + n + 1);

			if (p != NULL) {
				memcpy(p + old, text, n);
				push_line(m, p, old + n, cpu);
				free(p);
			} else {
				free(m->tm_partial);	/* the line is lost */
			}
			m->tm_partial = NULL;
		} else {
			push_line(m, text, n, cpu);
		}
		text += n + 1;
		len -= n + 1;
	}
}

const tui_line_t *tui_model_line(const tui_model_t *m, int i)
{
	if (i < 0 || i >= m->tm_nlines)
		return NULL;
	return &m->tm_lines[(m->tm_head + i) % m->tm_maxlines];
}

void tui_model_message(tui_model_t *m, int is_err, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(m->tm_msg);
	m->tm_msg = tui_strdup(buf);
	m->tm_msg_err = is_err;
}

/* ---- per-CPU buffers ----------------------------------------------------- */

int tui_model_setcpus(tui_model_t *m, int n)
{
	tui_cpu_t *c = tui_calloc(n > 0 ? (size_t)n : 1, sizeof(*c));

	if (c == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		c[i].tcp_cpu = i;
	free(m->tm_cpus);
	m->tm_cpus = c;
	m->tm_ncpus = n;
	return 0;
}

double tui_rate_tick(tui_rate_t *r, uint64_t before, uint64_t now,
    double dt)
{
	double span = 0;
	int i;

	if (now < before || dt <= 0) {
		r->tr_n = 0;
		return 0;
	}
	if (r->tr_n == TUI_RATE_N) {
		memmove(r->tr_dt, r->tr_dt + 1, (TUI_RATE_N - 1) * sizeof(double));
		memmove(r->tr_base, r->tr_base + 1,
		    (TUI_RATE_N - 1) * sizeof(uint64_t));
		r->tr_n--;
	}
	r->tr_dt[r->tr_n] = dt;
	r->tr_base[r->tr_n++] = before;
	for (i = r->tr_n - 1; i >= 0; i--) {
		span += r->tr_dt[i];
		if (span >= TUI_RATE_WINDOW)
			break;
	}
	if (i < 0)
		i = 0;
	if (i > 0) {		/* forget what the window no longer needs */
		memmove(r->tr_dt, r->tr_dt + i, (r->tr_n - i) * sizeof(double));
		memmove(r->tr_base, r->tr_base + i,
		    (r->tr_n - i) * sizeof(uint64_t));
		r->tr_n -= i;
	}
	return now >= r->tr_base[0] ? (double)(now - r->tr_base[0]) / span : 0;
}

void tui_model_cpu_tick(tui_model_t *m, int cpu, const tui_cpu_t *now,
    double dt)
{
	tui_cpu_t *c;
	uint64_t before = 0, after = 0;

	if (cpu < 0 || cpu >= m->tm_ncpus)
		return;
	c = &m->tm_cpus[cpu];
	for (int k = 0; k < TUI_NDROPK; k++) {
		before += c->tcp_drops[k];
		if (now->tcp_drops[k] > c->tcp_drops[k])
			c->tcp_drops[k] = now->tcp_drops[k];
		after += c->tcp_drops[k];
	}
	if (dt > 0) {
		c->tcp_recps = tui_rate_tick(&c->tcp_rrate, c->tcp_records,
		    now->tcp_records, dt);
		c->tcp_byteps = tui_rate_tick(&c->tcp_brate, c->tcp_bytes,
		    now->tcp_bytes, dt);
	}
	c->tcp_policy = now->tcp_policy;
	c->tcp_size = now->tcp_size;
	c->tcp_used = now->tcp_used;
	c->tcp_records = now->tcp_records;
	c->tcp_bytes = now->tcp_bytes;
	if (now->tcp_errors > c->tcp_errors)
		c->tcp_errors = now->tcp_errors;
	if (now->tcp_hiwats > c->tcp_hiwats)
		c->tcp_hiwats = now->tcp_hiwats;
	memmove(c->tcp_hist, c->tcp_hist + 1,
	    (TUI_SPARK_N - 1) * sizeof(c->tcp_hist[0]));
	c->tcp_hist[TUI_SPARK_N - 1] = after - before;
}

/* A drop reported by the engine's drop handler; cpu -1 for global drops
 * (counted against CPU 0's row so they are still seen). */
void tui_model_drop(tui_model_t *m, int cpu, enum tui_dropk k, uint64_t n)
{
	m->tm_drops += n;
	if (m->tm_ncpus == 0)
		return;
	if (cpu < 0 || cpu >= m->tm_ncpus)
		cpu = 0;
	m->tm_cpus[cpu].tcp_drops[k] += n;
	m->tm_cpus[cpu].tcp_hist[TUI_SPARK_N - 1] += n;
}

void tui_model_error(tui_model_t *m, const char *msg)
{
	size_t n = strlen(msg);

	m->tm_errors++;
	free(m->tm_lasterr);
	m->tm_lasterr = tui_strdup(msg);
	if (m->tm_lasterr != NULL && n > 0 && m->tm_lasterr[n - 1] == '\n')
		m->tm_lasterr[n - 1] = '\0';
}

/* ---- aggregations ------------------------------------------------------ */

int tui_is_hist(int func)
{
	return func == DTRACEAGG_QUANTIZE || func == DTRACEAGG_LQUANTIZE ||
	    func == DTRACEAGG_LLQUANTIZE;
}

static void ent_free(tui_aggent_t *e)
{
	free(e->ta_key);
	free(e->ta_buckets);
	free(e->ta_pbuckets);
	if (e->ta_labels != NULL)
		for (int i = 0; i < e->ta_nbuckets; i++)
			free(e->ta_labels[i]);
	free(e->ta_labels);
	memset(e, 0, sizeof(*e));
}

static void agg_free(tui_agg_t *a)
{
	for (int i = 0; i < a->tag_nents; i++)
		ent_free(&a->tag_ents[i]);
	free(a->tag_ents);
	free(a->tag_name);
	free(a->tag_hash);
}

void tui_model_agg_begin(tui_model_t *m)
{
	for (int i = 0; i < m->tm_naggs; i++)
		m->tm_aggs[i].tag_seen = 0;
	m->tm_aggsnaps++;
}

tui_agg_t *tui_model_agg_find(tui_model_t *m, const char *name)
{
	if (name[0] == '@')
		name++;
	for (int i = 0; i < m->tm_naggs; i++)
		if (strcmp(m->tm_aggs[i].tag_name, name) == 0)
			return &m->tm_aggs[i];
	return NULL;
}

/* The aggregation called name, created if new.  Its entries stay (as
 * previous values) until tui_model_agg_end drops those not seen again. */
tui_agg_t *tui_model_agg_get(tui_model_t *m, const char *name, int func)
{
	tui_agg_t *a = tui_model_agg_find(m, name), *na;

	if (a == NULL) {
		na = tui_realloc(m->tm_aggs, (m->tm_naggs + 1) * sizeof(*na));
		if (na == NULL)
			return NULL;
		m->tm_aggs = na;
		a = &na[m->tm_naggs];
		memset(a, 0, sizeof(*a));
		a->tag_name = tui_strdup(name[0] == '@' ? name + 1 : name);
		if (a->tag_name == NULL)
			return NULL;
		m->tm_naggs++;
	}
	if (!a->tag_seen) {
		for (int i = 0; i < a->tag_nents; i++)
			a->tag_ents[i].ta_seen = 0;
		a->tag_seen = 1;
		a->tag_nput = 0;
	}
	a->tag_func = func;
	return a;
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Rebuild the key index with room for at least n entries. */
static int rehash(tui_agg_t *a, int n)
{
	int cap = 64;
	int *t;

	while (cap < 2 * n + 2)
		cap *= 2;
	t = tui_calloc(cap, sizeof(*t));
	if (t == NULL)
		return -1;
	free(a->tag_hash);
	a->tag_hash = t;
	a->tag_hashcap = cap;
	for (int i = 0; i < a->tag_nents; i++) {
		unsigned h = hash(a->tag_ents[i].ta_key) & (cap - 1);

		while (t[h] != 0)
			h = (h + 1) & (cap - 1);
		t[h] = i + 1;
	}
	return 0;
}

/* The slot for key: holding its entry, or the empty slot to fill. */
static int *slot(tui_agg_t *a, const char *key)
{
	unsigned h = hash(key) & (a->tag_hashcap - 1);

	while (a->tag_hash[h] != 0 &&
	    strcmp(a->tag_ents[a->tag_hash[h] - 1].ta_key, key) != 0)
		h = (h + 1) & (a->tag_hashcap - 1);
	return &a->tag_hash[h];
}

static int set_buckets(tui_aggent_t *e, int n, const int64_t *b,
    char *const *labels)
{
	if (e->ta_nbuckets != n) {
		int64_t *nb = tui_calloc(n, sizeof(*nb)), *pb = tui_calloc(n, sizeof(*pb));
		char **nl = tui_calloc(n, sizeof(*nl));

		if (nb == NULL || pb == NULL || nl == NULL) {
			free(nb);
			free(pb);
			free(nl);
			return -1;
		}
		if (e->ta_labels != NULL)
			for (int i = 0; i < e->ta_nbuckets; i++)
				free(e->ta_labels[i]);
		free(e->ta_labels);
		free(e->ta_buckets);
		free(e->ta_pbuckets);
		e->ta_buckets = nb;
		e->ta_pbuckets = pb;
		e->ta_labels = nl;
		e->ta_nbuckets = n;
	} else {
		memcpy(e->ta_pbuckets, e->ta_buckets, n * sizeof(*b));
	}
	memcpy(e->ta_buckets, b, n * sizeof(*b));
	for (int i = 0; labels != NULL && i < n; i++) {
		if (e->ta_labels[i] == NULL ||
		    strcmp(e->ta_labels[i], labels[i]) != 0) {
			free(e->ta_labels[i]);
			e->ta_labels[i] = tui_strdup(labels[i]);
		}
	}
	return 0;
}

static tui_aggent_t *new_ent(tui_agg_t *a, const char *key)
{
	tui_aggent_t *e;

	if (a->tag_nents == a->tag_cap) {
		int cap = a->tag_cap ? a->tag_cap * 2 : 16;
		tui_aggent_t *ne = tui_realloc(a->tag_ents, cap * sizeof(*ne));

		if (ne == NULL)
			return NULL;
		a->tag_ents = ne;
		a->tag_cap = cap;
	}
	e = &a->tag_ents[a->tag_nents];
	memset(e, 0, sizeof(*e));
	e->ta_key = tui_strdup(key);
	if (e->ta_key == NULL)
		return NULL;
	a->tag_nents++;
	return e;
}

/*
 * Record one entry of the current snapshot.  A key seen before keeps its
 * old value in ta_prev (and old buckets in ta_pbuckets); a new key starts
 * from zero.  Keys are found through a hash index, so a 10,000-row table
 * costs one lookup per row.
 */
int tui_model_agg_put(tui_agg_t *a, const char *key, int64_t value,
    int nbuckets, const int64_t *buckets, char *const *labels)
{
	tui_aggent_t *e;
	int *sl;

	if (a->tag_hashcap < 2 * a->tag_nents + 2 &&
	    rehash(a, a->tag_nents + 1) != 0)
		return -1;
	sl = slot(a, key);
	if (*sl != 0) {
		e = &a->tag_ents[*sl - 1];
		e->ta_prev = e->ta_value;
	} else {
		if ((e = new_ent(a, key)) == NULL)
			return -1;
		*sl = a->tag_nents;
	}
	e->ta_value = value;
	e->ta_seen = ++a->tag_nput;
	if (nbuckets > 0 && set_buckets(e, nbuckets, buckets, labels) != 0)
		return -1;
	return 0;
}

static int by_seen(const void *x, const void *y)
{
	const tui_aggent_t *a = x, *b = y;

	return (a->ta_seen > b->ta_seen) - (a->ta_seen < b->ta_seen);
}

/*
 * Ends a snapshot: entries not seen again are dropped, and the others
 * take the order of the snapshot (the engine walks in printa order), so
 * "printa order" in the pane is the order of the latest snapshot, not
 * the order keys first appeared in.
 */
void tui_model_agg_end(tui_model_t *m)
{
	for (int i = 0; i < m->tm_naggs; i++) {
		tui_agg_t *a = &m->tm_aggs[i];
		int k = 0, sorted = 1;

		for (int j = 0; j < a->tag_nents; j++) {
			if (!a->tag_ents[j].ta_seen) {
				ent_free(&a->tag_ents[j]);
				continue;
			}
			if (k > 0 && a->tag_ents[j].ta_seen <
			    a->tag_ents[k - 1].ta_seen)
				sorted = 0;
			a->tag_ents[k++] = a->tag_ents[j];
		}
		if (!sorted)
			qsort(a->tag_ents, k, sizeof(*a->tag_ents), by_seen);
		if (k != a->tag_nents || !sorted) {
			a->tag_nents = k;
			if (rehash(a, k) != 0) {
				free(a->tag_hash);	/* rebuilt by next put */
				a->tag_hash = NULL;
				a->tag_hashcap = 0;
			}
		}
	}
}

void tui_model_agg_clear(tui_model_t *m, const char *name)
{
	for (int i = 0; i < m->tm_naggs; i++) {
		tui_agg_t *a = &m->tm_aggs[i];

		if (name != NULL && name[0] != '\0' &&
		    strcmp(a->tag_name, name[0] == '@' ? name + 1 : name) != 0)
			continue;
		for (int j = 0; j < a->tag_nents; j++) {
			tui_aggent_t *e = &a->tag_ents[j];

			e->ta_value = e->ta_prev = 0;
			for (int b = 0; b < e->ta_nbuckets; b++)
				e->ta_buckets[b] = e->ta_pbuckets[b] = 0;
		}
	}
}

void tui_model_restart(tui_model_t *m)
{
	for (int i = 0; i < m->tm_naggs; i++)
		agg_free(&m->tm_aggs[i]);
	free(m->tm_aggs);
	m->tm_aggs = NULL;
	m->tm_naggs = 0;
	heat_reset(&m->tm_heat);
	free(m->tm_lasterr);
	m->tm_lasterr = NULL;
	m->tm_errors = m->tm_drops = 0;
	m->tm_eventps = 0;
	m->tm_nenabled = 0;
	tui_clauses_clear(m);
	tui_model_setcpus(m, 0);
	m->tm_state = TUI_IDLE;
}

/* ---- enablings --------------------------------------------------------- */

tui_enabling_t *tui_model_enabling_add(tui_model_t *m, const char *src,
    unsigned nprobes, void *prog)
{
	tui_enabling_t *ne = tui_realloc(m->tm_ens, (m->tm_nens + 1) * sizeof(*ne));
	tui_enabling_t *e;

	if (ne == NULL)
		return NULL;
	m->tm_ens = ne;
	e = &ne[m->tm_nens];
	e->te_src = tui_strdup(src);
	if (e->te_src == NULL)
		return NULL;
	e->te_id = m->tm_nextid++;
	e->te_nprobes = nprobes;
	e->te_enabled = 1;
	e->te_file = 0;
	e->te_prog = prog;
	m->tm_nens++;
	m->tm_nenabled += nprobes;
	return e;
}

tui_enabling_t *tui_model_enabling(tui_model_t *m, int id)
{
	for (int i = 0; i < m->tm_nens; i++)
		if (m->tm_ens[i].te_id == id)
			return &m->tm_ens[i];
	return NULL;
}

void tui_model_enabling_remove(tui_model_t *m, int id)
{
	tui_enabling_t *e = tui_model_enabling(m, id);
	int i;

	if (e == NULL)
		return;
	if (e->te_enabled)
		m->tm_nenabled -= e->te_nprobes;
	free(e->te_src);
	i = (int)(e - m->tm_ens);
	memmove(e, e + 1, (m->tm_nens - i - 1) * sizeof(*e));
	m->tm_nens--;
}

/* ---- heatmap ------------------------------------------------------------ */

static void heat_reset(tui_heat_t *h)
{
	free(h->th_agg);
	free(h->th_key);
	free(h->th_cols);
	if (h->th_labels != NULL)
		for (int i = 0; i < h->th_nbuckets; i++)
			free(h->th_labels[i]);
	free(h->th_labels);
	memset(h, 0, sizeof(*h));
}

/* Choose what the heatmap follows; agg NULL picks the first histogram. */
int tui_heat_choose(tui_model_t *m, const char *agg, const char *key)
{
	tui_heat_t *h = &m->tm_heat;

	heat_reset(h);
	for (int i = 0; i < m->tm_naggs; i++) {
		tui_agg_t *a = &m->tm_aggs[i];

		if (!tui_is_hist(a->tag_func) || a->tag_nents == 0)
			continue;
		if (agg != NULL && strcmp(a->tag_name,
		    agg[0] == '@' ? agg + 1 : agg) != 0)
			continue;
		h->th_agg = tui_strdup(a->tag_name);
		h->th_key = tui_strdup(key != NULL ? key : a->tag_ents[0].ta_key);
		if (h->th_agg != NULL && h->th_key != NULL)
			return 0;
		heat_reset(h);
		return -1;
	}
	return -1;
}

static const tui_aggent_t *heat_ent(tui_model_t *m)
{
	tui_heat_t *h = &m->tm_heat;
	tui_agg_t *a;

	if (h->th_agg == NULL || (a = tui_model_agg_find(m, h->th_agg)) == NULL)
		return NULL;
	for (int i = 0; i < a->tag_nents; i++)
		if (strcmp(a->tag_ents[i].ta_key, h->th_key) == 0)
			return &a->tag_ents[i];
	return NULL;
}

static int heat_size(tui_heat_t *h, const tui_aggent_t *e)
{
	int64_t *c;
	char **l;

	if (h->th_nbuckets == e->ta_nbuckets)
		return 0;
	c = tui_calloc((size_t)TUI_HEAT_COLS * e->ta_nbuckets, sizeof(*c));
	l = tui_calloc(e->ta_nbuckets, sizeof(*l));
	if (c == NULL || l == NULL) {
		free(c);
		free(l);
		return -1;
	}
	for (int i = 0; i < e->ta_nbuckets; i++)
		l[i] = tui_strdup(e->ta_labels && e->ta_labels[i] ?
		    e->ta_labels[i] : "");
	if (h->th_labels != NULL)
		for (int i = 0; i < h->th_nbuckets; i++)
			free(h->th_labels[i]);
	free(h->th_labels);
	free(h->th_cols);
	h->th_cols = c;
	h->th_labels = l;
	h->th_nbuckets = e->ta_nbuckets;
	h->th_ncols = h->th_head = 0;
	return 0;
}

/* Push one column: the chosen entry's counts since the last snapshot. */
void tui_heat_push(tui_model_t *m)
{
	tui_heat_t *h = &m->tm_heat;
	const tui_aggent_t *e = heat_ent(m);
	int64_t *col;

	if (e == NULL || e->ta_nbuckets == 0 || heat_size(h, e) != 0)
		return;
	col = &h->th_cols[(size_t)h->th_head * h->th_nbuckets];
	for (int b = 0; b < h->th_nbuckets; b++) {
		int64_t d = e->ta_buckets[b] - e->ta_pbuckets[b];

		col[b] = d > 0 ? d : 0;
	}
	h->th_times[h->th_head] = m->tm_now;
	h->th_head = (h->th_head + 1) % TUI_HEAT_COLS;
	if (h->th_ncols < TUI_HEAT_COLS)
		h->th_ncols++;
}

/* The count in bucket b, col_back columns before the newest (0). */
int64_t tui_heat_at(const tui_heat_t *h, int col_back, int b)
{
	int c;

	if (col_back < 0 || col_back >= h->th_ncols || b < 0 ||
	    b >= h->th_nbuckets)
		return 0;
	c = (h->th_head - 1 - col_back + 2 * TUI_HEAT_COLS) % TUI_HEAT_COLS;
	return h->th_cols[(size_t)c * h->th_nbuckets + b];
}

double tui_heat_time(const tui_heat_t *h, int col_back)
{
	if (col_back < 0 || col_back >= h->th_ncols)
		return -1;
	return h->th_times[(h->th_head - 1 - col_back + 2 * TUI_HEAT_COLS) %
	    TUI_HEAT_COLS];
}

void tui_model_rewind(tui_model_t *m)
{
	tui_heat_t *h = &m->tm_heat;
	char *agg = h->th_agg, *key = h->th_key;

	for (int i = 0; i < m->tm_nlines; i++)
		free(m->tm_lines[(m->tm_head + i) % m->tm_maxlines].tl_text);
	m->tm_nlines = m->tm_head = 0;
	m->tm_totlines = 0;
	free(m->tm_partial);
	m->tm_partial = NULL;
	h->th_agg = h->th_key = NULL;	/* kept across the restart */
	tui_model_restart(m);
	h->th_agg = agg;
	h->th_key = key;
	m->tm_aggsnaps = 0;
	m->tm_now = 0;
}
