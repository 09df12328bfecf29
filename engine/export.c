/*
 * export.c - output for other viewers: -x oformat=chrome (Chrome
 * trace-event JSON, opened by Perfetto, chrome://tracing and speedscope)
 * and -x oformat=folded (collapsed stacks, the flame-graph input), live
 * and when replaying an experiment.
 *
 * chrome: one JSON array of events, written as the session goes:
 *   - every probe firing, on a track per CPU (pid 1, tid = CPU, named by
 *     "M" metadata events): an "entry" probe opens a slice named by its
 *     function ("B"), a "return" probe closes it ("E"), any other is an
 *     instant ("i"); args hold the probe and the text dtrace would print;
 *   - after every work tick, a counter ("C") per aggregation (its first
 *     keys as series; histograms count their values) and one of the drop
 *     totals by kind.
 *   Times are the shim's record timestamps in microseconds; counters take
 *   the latest of the records and of the buffer snapshots, so a replay
 *   writes the same events.  The array is closed by the final
 *   aggregation print (eng_agg_print).
 * folded: nothing while tracing; at the end, for every aggregation with a
 *   stack()/ustack() key, one line per entry: its keys as frames, stacks
 *   from the root down, joined by ';', a space and the value (histograms:
 *   how many values they hold), as flamegraph.pl reads.  With more than
 *   one such aggregation each line starts with the aggregation's name.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "consume.h"

#define EXP_MAXSERIES	16	/* counter series per aggregation */

struct eng_export {
	int ex_started;			/* "[" written */
	uint64_t ex_ts;			/* latest timestamp seen (ns) */
	unsigned char *ex_named;	/* CPUs whose track is named */
	int ex_nnamed;
};

static struct eng_export *state(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;

	if (c->ec_export == NULL)
		c->ec_export = calloc(1, sizeof (*c->ec_export));
	return c->ec_export;
}

void eng_export_free(struct eng_export *x)
{
	if (x == NULL)
		return;
	free(x->ex_named);
	free(x);
}

void eng_export_time(eng_hdl_t *h, uint64_t ts)
{
	struct eng_export *x = state(h);

	if (x != NULL && ts > x->ex_ts)
		x->ex_ts = ts;
}

/* Start an event: the array's "[" or the "," between events. */
static void sep(struct eng_export *x, FILE *fp)
{
	fputs(x->ex_started ? ",\n" : "[\n", fp);
	x->ex_started = 1;
}

static void name_cpu(struct eng_export *x, FILE *fp, int cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return;
	if (cpu >= x->ex_nnamed) {
		unsigned char *n = realloc(x->ex_named, (size_t)cpu + 1);

		if (n == NULL)
			return;
		memset(n + x->ex_nnamed, 0, (size_t)(cpu + 1 - x->ex_nnamed));
		x->ex_named = n;
		x->ex_nnamed = cpu + 1;
	}
	if (x->ex_named[cpu])
		return;
	x->ex_named[cpu] = 1;
	sep(x, fp);
	fprintf(fp, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
	    "\"tid\":%d,\"args\":{\"name\":\"CPU %d\"}}", cpu, cpu);
}

static void ts(FILE *fp, uint64_t ns)
{
	fprintf(fp, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

void eng_export_firing(eng_hdl_t *h, FILE *fp, int cpu,
    const dtrace_probedesc_t *pd, uint64_t when, const char *text)
{
	struct eng_export *x = state(h);
	const char *ph = strcmp(pd->dtpd_name, "entry") == 0 ? "B" :
	    strcmp(pd->dtpd_name, "return") == 0 ? "E" : "i";
	char probe[DTRACE_PROVNAMELEN + DTRACE_MODNAMELEN +
	    DTRACE_FUNCNAMELEN + DTRACE_NAMELEN + 4];

	if (x == NULL || eng_opt_get(h, ENG_OPT_OFORMAT) != ENG_OFORMAT_CHROME)
		return;
	eng_export_time(h, when);
	name_cpu(x, fp, cpu);
	snprintf(probe, sizeof (probe), "%s:%s:%s:%s", pd->dtpd_provider,
	    pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name);
	sep(x, fp);
	fputs("{\"name\":", fp);
	eng_json_str(fp, *ph == 'i' ? probe : pd->dtpd_func, sizeof (probe));
	fprintf(fp, ",\"cat\":\"probe\",\"ph\":\"%s\",%s\"ts\":", ph,
	    *ph == 'i' ? "\"s\":\"t\"," : "");
	ts(fp, when);
	fprintf(fp, ",\"pid\":1,\"tid\":%d,\"args\":{\"probe\":", cpu);
	eng_json_str(fp, probe, sizeof (probe));
	fputs(",\"text\":", fp);
	eng_json_str(fp, text, (size_t)-1);
	fputs("}}", fp);
}

/* ---- counters ------------------------------------------------------------- */

struct walk {
	eng_hdl_t *h;
	FILE *fp;
	struct eng_export *x;
	dtrace_aggvarid_t varid;	/* the counter event open, 0 if none */
	int nseries;
};

static int64_t entry_value(const eng_aggent_t *e)
{
	int64_t n = 0;

	if (e->eae_nbuckets == 0)
		return e->eae_value;
	for (int i = 0; i < e->eae_nbuckets; i++)
		n += e->eae_buckets[i];
	return n;
}

/* An entry's keys as one string: "k1,k2" (stacks by their first frame). */
static void key_text(const eng_aggent_t *e, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < e->eae_nkeys && n + 1 < len; i++) {
		const eng_aggkey_t *k = &e->eae_keys[i];
		const char *s = k->eak_str != NULL ? k->eak_str : "";

		if (i > 0)
			buf[n++] = ',';
		if (k->eak_kind == 0)
			n += (size_t)snprintf(buf + n, len - n, "%lld",
			    (long long)k->eak_int);
		else
			n += (size_t)snprintf(buf + n, len - n, "%.*s",
			    (int)strcspn(s + strspn(s, " \n"), "\n"),
			    s + strspn(s, " \n"));
		if (n >= len)
			n = len - 1;
	}
	if (n == 0 && e->eae_nkeys == 0)
		snprintf(buf, len, "value");
}

static int counter(const eng_aggent_t *e, void *arg)
{
	struct walk *w = arg;
	char key[256];

	if (e->eae_varid != w->varid) {
		if (w->varid != 0)
			fputs("}}", w->fp);
		sep(w->x, w->fp);
		fputs("{\"name\":", w->fp);
		snprintf(key, sizeof (key), "@%s", e->eae_name);
		eng_json_str(w->fp, key, sizeof (key));
		fputs(",\"ph\":\"C\",\"ts\":", w->fp);
		ts(w->fp, w->x->ex_ts);
		fputs(",\"pid\":1,\"args\":{", w->fp);
		w->varid = e->eae_varid;
		w->nseries = 0;
	}
	if (w->nseries >= EXP_MAXSERIES)
		return 0;
	key_text(e, key, sizeof (key));
	if (w->nseries++ > 0)
		fputc(',', w->fp);
	eng_json_str(w->fp, key, sizeof (key));
	fprintf(w->fp, ":%lld", (long long)entry_value(e));
	return 0;
}

static void drops(eng_hdl_t *h, struct eng_export *x, FILE *fp)
{
	struct eng_consumer *c = h->eh_cons;
	const dtrace_status_t *s = &c->ec_status;
	uint64_t prin = 0, agg = 0;

	for (int i = 0; i < c->ec_ncpus; i++) {
		prin += c->ec_drops[i];
		agg += c->ec_aggdrops[i];
	}
	sep(x, fp);
	fputs("{\"name\":\"drops\",\"ph\":\"C\",\"ts\":", fp);
	ts(fp, x->ex_ts);
	fprintf(fp, ",\"pid\":1,\"args\":{\"principal\":%" PRIu64 ","
	    "\"aggregation\":%" PRIu64 ",\"dynamic\":%" PRIu64 ","
	    "\"speculative\":%" PRIu64 ",\"errors\":%" PRIu64 "}}", prin, agg,
	    s->dtst_dyndrops + s->dtst_dyndrops_rinsing +
	    s->dtst_dyndrops_dirty, s->dtst_specdrops + s->dtst_specdrops_busy +
	    s->dtst_specdrops_unavail, s->dtst_errors);
}

/* After a work tick: aggregations and drops as counters (chrome). */
void eng_export_tick(eng_hdl_t *h, FILE *fp)
{
	struct eng_export *x = state(h);
	struct walk w = { h, fp, x, 0, 0 };

	if (x == NULL || fp == NULL ||
	    eng_opt_get(h, ENG_OPT_OFORMAT) != ENG_OFORMAT_CHROME)
		return;
	eng_agg_walk(h, counter, &w);
	if (w.varid != 0)
		fputs("}}", fp);
	drops(h, x, fp);
}

/* ---- the end ------------------------------------------------------------- */

struct fold {
	FILE *fp;
	int nstackaggs;			/* aggregations with a stack key */
	dtrace_aggvarid_t last;		/* counting them */
	int pass;			/* 0 count, 1 print */
};

static int is_stack(const eng_aggkey_t *k)
{
	return k->eak_kind == 2 && k->eak_str != NULL &&
	    strchr(k->eak_str, '\n') != NULL;
}

/* A stack's frames, root first, each followed by ';'. */
static void frames(FILE *fp, const char *s)
{
	const char *lines[1024];
	int n = 0;

	for (const char *p = s; *p != '\0' && n < 1024; ) {
		p += strspn(p, " \t\n");
		if (*p == '\0')
			break;
		lines[n++] = p;
		p += strcspn(p, "\n");
	}
	while (n-- > 0)
		fprintf(fp, "%.*s;", (int)strcspn(lines[n], "\n"), lines[n]);
}

static int fold_entry(const eng_aggent_t *e, void *arg)
{
	struct fold *f = arg;
	int stacked = 0;
	char *line = NULL;
	size_t len = 0;
	FILE *mf;

	for (int i = 0; i < e->eae_nkeys; i++)
		stacked |= is_stack(&e->eae_keys[i]);
	if (!stacked)
		return 0;
	if (f->pass == 0) {
		if (e->eae_varid != f->last)
			f->nstackaggs++;
		f->last = e->eae_varid;
		return 0;
	}
	if ((mf = open_memstream(&line, &len)) == NULL)
		return -1;
	if (f->nstackaggs > 1)
		fprintf(mf, "@%s;", e->eae_name);
	for (int i = 0; i < e->eae_nkeys; i++) {
		const eng_aggkey_t *k = &e->eae_keys[i];

		if (is_stack(k))
			frames(mf, k->eak_str);
		else if (k->eak_kind == 0)
			fprintf(mf, "%lld;", (long long)k->eak_int);
		else
			fprintf(mf, "%s;", k->eak_str != NULL ?
			    k->eak_str + strspn(k->eak_str, " ") : "");
	}
	fclose(mf);
	if (len > 0 && line[len - 1] == ';')
		line[--len] = '\0';
	fprintf(f->fp, "%s %lld\n", line, (long long)entry_value(e));
	free(line);
	return 0;
}

/*
 * The final aggregation print in an export format: chrome's last
 * counters and the array's end, or folded's lines.  1 if it printed
 * (the text layout is not wanted), 0 if the format is text or json.
 */
int eng_export_final(eng_hdl_t *h, FILE *fp)
{
	int fmt = (int)eng_opt_get(h, ENG_OPT_OFORMAT);
	struct eng_export *x = state(h);

	if (fmt == ENG_OFORMAT_CHROME && x != NULL) {
		eng_export_tick(h, fp);
		fputs("\n]\n", fp);
		x->ex_started = 0;
		return 1;
	}
	if (fmt != ENG_OFORMAT_FOLDED)
		return 0;
	eng_agg_folded(h, fp);
	return 1;
}

int eng_agg_folded(eng_hdl_t *h, FILE *fp)
{
	struct fold f = { fp, 0, 0, 0 };

	if (eng_agg_walk(h, fold_entry, &f) != 0)
		return -1;
	f.pass = 1;
	if (eng_agg_walk(h, fold_entry, &f) != 0)
		return -1;
	return f.nstackaggs;
}
