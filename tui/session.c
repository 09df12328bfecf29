/*
 * session.c - the engine behind the model: the only TUI file that calls
 * engine.h.  It compiles and enables clauses (again and again while
 * tracing; aggregations already collected stay), consumes buffers into
 * the output lines, snapshots aggregations at aggrate, samples per-CPU
 * buffer state, and runs the prompt's ':' commands.
 *
 * Engine callbacks (buffered output, drops, errors) write straight into
 * the model; the session keeps no copy of what the model holds.
 */
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"
#include "session_impl.h"



double tui_session_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_output(const eng_bufdata_t *bd, void *arg)
{
	tui_session_t *s = arg;

	tui_model_output(s->ts_m, bd->ebd_text, bd->ebd_len, bd->ebd_cpu);
}

static enum tui_dropk drop_kind(dtrace_dropkind_t k)
{
	switch (k) {
	case DTRACEDROP_PRINCIPAL: return TUI_DROP_BUF;
	case DTRACEDROP_AGGREGATION: return TUI_DROP_AGG;
	case DTRACEDROP_DYNAMIC: case DTRACEDROP_DYNRINSE:
	case DTRACEDROP_DYNDIRTY: return TUI_DROP_DYN;
	default: return TUI_DROP_SPEC;
	}
}

static void on_drop(const eng_dropdata_t *dd, void *arg)
{
	tui_session_t *s = arg;

	tui_model_drop(s->ts_m, dd->edd_cpu, drop_kind(dd->edd_kind),
	    dd->edd_drops);
}

static void on_err(const eng_errdata_t *ed, void *arg)
{
	tui_session_t *s = arg;

	tui_model_error(s->ts_m, ed->eed_msg);
}

/* Route the engine's callbacks into the model. */
void tui_session_attach(tui_session_t *s)
{
	eng_handle_buffered(s->ts_h, on_output, s);
	eng_handle_drop(s->ts_h, on_drop, s);
	eng_handle_err(s->ts_h, on_err, s);
	eng_ecbstat_watch(s->ts_h, 1);		/* the enablings pane */
	s->ts_m->tm_route = eng_route(s->ts_h);
}

tui_session_t *tui_session_new(tui_model_t *m, char *err, size_t errlen)
{
	tui_session_t *s = tui_calloc(1, sizeof(*s));

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->ts_m = m;
	s->ts_aggrate = 1.0;
	if ((s->ts_h = eng_open(0, err, errlen)) == NULL) {
		free(s);
		return NULL;
	}
	tui_session_attach(s);
	tui_session_probes(s);
	return s;
}

void tui_session_free(tui_session_t *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->ts_m->tm_nens; i++)
		eng_prog_free(s->ts_m->tm_ens[i].te_prog);
	eng_close(s->ts_h);
	for (int i = 0; i < s->ts_nopts; i++) {
		free(s->ts_opts[i].name);
		free(s->ts_opts[i].val);
	}
	free(s->ts_opts);
	free(s);
}

/* -c/-p: $target, and the providers follow that process. */
void tui_session_target(tui_session_t *s, int pid)
{
	s->ts_target = pid;
	if (eng_target_add(s->ts_h, pid) != 0)
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
	tui_session_probes(s);		/* with the target's pid probes */
}

/* Let a -c process held before its exec run, under the system-call
 * filter this session's enablings need. */
int tui_session_continue(tui_session_t *s, eng_proc_t *p)
{
	return eng_proc_continue(p, s->ts_h);
}

/* Remember an option for the handle a restart opens (a later value of
 * the same option replaces the earlier). */
static void keep_opt(tui_session_t *s, const char *name, const char *val)
{
	struct opt *o = NULL;
	char *n = tui_strdup(name), *v = val ? tui_strdup(val) : NULL;

	for (int i = 0; i < s->ts_nopts && o == NULL; i++)
		if (strcmp(s->ts_opts[i].name, name) == 0)
			o = &s->ts_opts[i];
	if (o == NULL && n != NULL && (val == NULL || v != NULL)) {
		o = tui_realloc(s->ts_opts, (s->ts_nopts + 1) * sizeof(*o));
		if (o != NULL) {
			s->ts_opts = o;
			o = &o[s->ts_nopts++];
			o->name = o->val = NULL;
		}
	}
	if (o == NULL || n == NULL || (val != NULL && v == NULL)) {
		free(n);
		free(v);
		return;
	}
	free(o->name);
	free(o->val);
	o->name = n;
	o->val = v;
}

/*
 * Set an option.  Once tracing has stopped the handle takes no more
 * options: the value is kept for the next tracing session, which the
 * next clause (or :restart) starts.  While tracing, options that only
 * apply before tracing starts (bufsize, aggsize ...) are refused with
 * the way to apply them.
 */
int tui_session_setopt(tui_session_t *s, const char *name, const char *val)
{
	if (s->ts_m->tm_state == TUI_STOPPED) {
		keep_opt(s, name, val);
		return 0;
	}
	if (eng_setopt(s->ts_h, name, val) != 0) {
		tui_model_message(s->ts_m, 1, "failed to set %s%s%s: %s%s",
		    name, val ? "=" : "", val ? val : "", eng_errmsg(s->ts_h),
		    s->ts_m->tm_state == TUI_TRACING ? "\n(Ctrl-C stops "
		    "tracing; :set it then, and :restart)" : "");
		return -1;
	}
	keep_opt(s, name, val);
	return 0;
}

/* Line n (1-based) of a script file into buf, without its newline. */
static const char *file_line(const char *path, int n, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	int i = 0;

	buf[0] = '\0';
	if (fp == NULL)
		return buf;
	while (fgets(buf, (int)len, fp) != NULL && ++i < n)
		;
	fclose(fp);
	if (i != n)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Compile errors as file:line:col, the source line and a caret.  src is
 * the text compiled, or NULL when it came from the file the diagnostic
 * names. */
static void show_diag(tui_session_t *s, const char *src)
{
	const eng_diag_t *d = eng_diag(s->ts_h);
	const char *l = src;
	char caret[256], fline[1024];
	int n;

	if (d == NULL || d->ed_line <= 0) {
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
		return;
	}
	if (src == NULL)
		l = d->ed_file ? file_line(d->ed_file, d->ed_line, fline,
		    sizeof(fline)) : "";
	for (int i = 1; src != NULL && i < d->ed_line && l != NULL; i++)
		if ((l = strchr(l, '\n')) != NULL)
			l++;
	if (l == NULL)
		l = "";
	n = d->ed_column > 0 ? d->ed_column - 1 : 0;
	if (n > (int)sizeof(caret) - 2)
		n = (int)sizeof(caret) - 2;
	memset(caret, ' ', n);
	caret[n] = '^';
	caret[n + 1] = '\0';
	tui_model_message(s->ts_m, 1, "%s:%d:%d: %s: %s\n%.*s\n%s",
	    d->ed_file ? d->ed_file : "<prompt>", d->ed_line, d->ed_column,
	    d->ed_tag ? d->ed_tag : "D_ERROR", d->ed_msg ? d->ed_msg : "",
	    (int)strcspn(l, "\n"), l, caret);
}

static int start(tui_session_t *s)
{
	tui_model_t *m = s->ts_m;
	int64_t v;

	if (m->tm_state == TUI_TRACING)
		return 0;
	if (eng_go(s->ts_h) != 0) {
		tui_model_message(m, 1, "%s", eng_errmsg(s->ts_h));
		return -1;
	}
	m->tm_state = TUI_TRACING;
	tui_model_setcpus(m, eng_ncpus(s->ts_h));
	if (eng_getopt(s->ts_h, "aggrate", &v) == 0 && v > 0)
		s->ts_aggrate = v / 1e9;
	if (s->ts_aggrate < 0.1)
		s->ts_aggrate = 0.1;
	s->ts_last = s->ts_lastagg = s->ts_lastclauses = tui_session_now();
	s->ts_tgo = s->ts_last;
	s->ts_lastrec = 0;
	s->ts_evrate.tr_n = 0;
	return 0;
}

/* Compile src (a script path when file is set); NULL with the
 * diagnostic shown under the prompt. */
eng_prog_t *tui_session_compile(tui_session_t *s, const char *src, int file,
    int probespec, int spec_kind)
{
	eng_cargs_t args = { 0 };
	char *argv[1] = { (char *)(file ? src : "dtui") };
	eng_prog_t *prog;
	FILE *fp;

	args.argc = 1;
	args.argv = argv;
	args.spec_kind = spec_kind;
	args.target_pid = s->ts_target;
	if (!file) {
		prog = eng_compile_str(s->ts_h, src, NULL,
		    probespec ? ENG_C_PROBESPEC : 0, &args);
	} else if ((fp = fopen(src, "r")) == NULL) {
		tui_model_message(s->ts_m, 1, "%s: %s", src, strerror(errno));
		return NULL;
	} else {
		prog = eng_compile_file(s->ts_h, fp, src, 0, &args);
		fclose(fp);
	}
	if (prog == NULL)
		show_diag(s, file ? NULL : src);
	return prog;
}

/*
 * A new tracing session after a stop: a new engine handle with the
 * options set so far, and every enabling still on compiled and enabled
 * again under its old number.  The old handle goes only once the new one
 * is open, so a failure leaves the session as it was.
 */
static int restart(tui_session_t *s)
{
	tui_model_t *m = s->ts_m;
	char err[512];
	eng_hdl_t *h = eng_open(0, err, sizeof(err));
	int n = 0;

	if (h == NULL) {
		tui_model_message(m, 1, "cannot restart tracing: %s", err);
		return -1;
	}
	for (int i = 0; i < m->tm_nens; i++) {
		eng_prog_free(m->tm_ens[i].te_prog);
		m->tm_ens[i].te_prog = NULL;
	}
	eng_close(s->ts_h);
	s->ts_h = h;
	tui_session_attach(s);
	if (s->ts_target > 0 && kill(s->ts_target, 0) == 0)
		eng_target_add(h, s->ts_target);
	for (int i = 0; i < s->ts_nopts; i++)
		if (eng_setopt(h, s->ts_opts[i].name, s->ts_opts[i].val) != 0)
			tui_model_message(m, 1, "%s", eng_errmsg(h));
	tui_model_restart(m);
	for (int i = 0; i < m->tm_nens; i++) {
		tui_enabling_t *e = &m->tm_ens[i];
		unsigned np = 0;

		if (!e->te_enabled)
			continue;
		e->te_prog = tui_session_compile(s, e->te_src, e->te_file == 1,
		    e->te_file == 2, ENG_SPEC_NAME);
		if (e->te_prog == NULL ||
		    eng_prog_exec(h, e->te_prog, &np) != 0) {
			e->te_enabled = 0;
			continue;
		}
		e->te_nprobes = np;
		m->tm_nenabled += np;
		n++;
	}
	tui_model_message(m, 0, "tracing restarted with %d enabling%s", n,
	    n == 1 ? "" : "s");
	return n > 0 ? start(s) : 0;
}

static int enable(tui_session_t *s, eng_prog_t *prog, const char *src,
    int file)
{
	tui_enabling_t *e;
	unsigned n = 0;

	if (prog == NULL)
		return -1;
	s->ts_m->tm_showaggs = eng_prog_aggonly(prog);
	if (eng_prog_exec(s->ts_h, prog, &n) != 0) {
		s->ts_m->tm_showaggs = 0;
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
		eng_prog_free(prog);
		return -1;
	}
	if ((e = tui_model_enabling_add(s->ts_m, src, n, prog)) == NULL) {
		tui_model_message(s->ts_m, 1, "out of memory");
		return -1;
	}
	e->te_file = file;
	tui_model_message(s->ts_m, 0, "enabling %d: %u probe%s",
	    s->ts_m->tm_nextid - 1, n, n == 1 ? "" : "s");
	return start(s);
}

/* Enable a clause; after a stop, tracing starts again first (with the
 * enablings kept), so a stop is never the end of the session. */
int tui_session_enable(tui_session_t *s, const char *src, int probespec,
    int spec_kind)
{
	if (s->ts_replay) {
		tui_model_message(s->ts_m, 1, "replaying an experiment: no "
		    "clauses can be enabled");
		return -1;
	}
	if (s->ts_m->tm_state == TUI_STOPPED && restart(s) != 0)
		return -1;
	return enable(s, tui_session_compile(s, src, 0, probespec, spec_kind), src,
	    probespec ? 2 : 0);
}

int tui_session_enable_file(tui_session_t *s, const char *path)
{
	if (s->ts_m->tm_state == TUI_STOPPED && restart(s) != 0)
		return -1;
	return enable(s, tui_session_compile(s, path, 1, 0, 0), path, 1);
}

/* ---- periodic work ------------------------------------------------------ */

struct walk {
	tui_session_t *s;
	tui_agg_t *agg;		/* the aggregation of the last entry */
};

/* Newlines and tabs become spaces; leading blanks go and runs of more
 * than two spaces shrink to two (the separator between keys). */
static void squeeze(char *s)
{
	char *w = s;
	int run = 0;

	for (const char *r = s; *r != '\0'; r++) {
		char c = *r == '\n' || *r == '\t' ? ' ' : *r;

		run = c == ' ' ? run + 1 : 0;
		if (c == ' ' && (w == s || run > 2))
			continue;
		*w++ = c;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* The keys of an entry on one line: stack frames (multi-line text) are
 * joined by spaces. */
static void key_text(const eng_aggent_t *e, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < e->eae_nkeys && n + 1 < len; i++) {
		const eng_aggkey_t *k = &e->eae_keys[i];

		if (k->eak_kind == 0)
			snprintf(buf + n, len - n, "%s%lld", i ? "  " : "",
			    (long long)k->eak_int);
		else
			snprintf(buf + n, len - n, "%s%s", i ? "  " : "",
			    k->eak_str ? k->eak_str : "");
		n = strlen(buf);
	}
	squeeze(buf);
}

static int walk_ent(const eng_aggent_t *e, void *arg)
{
	static char labels[1024][32];
	static char *lp[1024];
	struct walk *w = arg;
	char key[1024];
	int nb = e->eae_nbuckets < 1024 ? e->eae_nbuckets : 1024;
	int64_t val = e->eae_value;

	if (w->agg == NULL || strcmp(w->agg->tag_name, e->eae_name) != 0)
		w->agg = tui_model_agg_get(w->s->ts_m, e->eae_name,
		    e->eae_func);
	if (w->agg == NULL)
		return 0;
	key_text(e, key, sizeof(key));
	for (int i = 0; i < nb; i++) {
		eng_agg_bucket_label(e, i, labels[i], sizeof(labels[i]));
		lp[i] = labels[i];
	}
	if (nb > 0) {
		val = 0;
		for (int i = 0; i < nb; i++)
			val += e->eae_buckets[i];
	} else if (e->eae_normal > 1) {
		val /= e->eae_normal;
	}
	tui_model_agg_put(w->agg, key, val, nb, e->eae_buckets, lp);
	return 0;
}

void tui_session_snapshot(tui_session_t *s)
{
	struct walk w = { s, NULL };

	if (eng_agg_snap(s->ts_h) != 0)
		return;
	tui_model_agg_begin(s->ts_m);
	eng_agg_walk(s->ts_h, walk_ent, &w);
	tui_model_agg_end(s->ts_m);
	tui_heat_push(s->ts_m);
}

static void sample_cpus(tui_session_t *s, double dt)
{
	tui_model_t *m = s->ts_m;
	uint64_t rec = 0;

	for (int i = 0; i < m->tm_ncpus; i++) {
		eng_cpustat_t cs;
		tui_cpu_t c;

		if (eng_cpustat(s->ts_h, i, &cs) != 0)
			continue;
		memset(&c, 0, sizeof(c));
		c.tcp_cpu = i;
		c.tcp_policy = cs.ecs_policy;
		c.tcp_size = cs.ecs_size;
		c.tcp_used = cs.ecs_used;
		c.tcp_records = cs.ecs_records;
		c.tcp_bytes = cs.ecs_bytes;
		c.tcp_drops[TUI_DROP_BUF] = cs.ecs_drops;
		c.tcp_drops[TUI_DROP_AGG] = cs.ecs_aggdrops;
		c.tcp_errors = cs.ecs_errors;
		c.tcp_hiwats = cs.ecs_hiwats;
		tui_model_cpu_tick(m, i, &c, dt);
		rec += cs.ecs_fires;	/* events, not only records */
	}
	if (dt > 0)
		m->tm_eventps = tui_rate_tick(&s->ts_evrate, s->ts_lastrec, rec,
		    dt);
	s->ts_lastrec = rec;
	m->tm_uroute = eng_user_route(s->ts_h, &m->tm_uhits,
	    &m->tm_unsperhit);
}

/* Stop tracing: fire END, consume what is left, take a last snapshot. */
int tui_session_stop(tui_session_t *s)
{
	if (s->ts_m->tm_state != TUI_TRACING)
		return 0;
	if (s->ts_replay) {
		s->ts_m->tm_state = TUI_STOPPED;
		s->ts_playing = 0;
		return 0;
	}
	eng_stop(s->ts_h);
	eng_work(s->ts_h, NULL);
	tui_session_clauses(s, tui_session_now() - s->ts_lastclauses);
	tui_session_snapshot(s);
	s->ts_m->tm_state = TUI_STOPPED;
	s->ts_m->tm_eventps = 0;	/* no more events: not the last rate */
	tui_model_message(s->ts_m, 0, "tracing stopped");
	return 0;
}

int tui_session_wakefd(tui_session_t *s)
{
	return s->ts_m->tm_state == TUI_TRACING ? eng_wakefd(s->ts_h) : -1;
}

int tui_session_tick(tui_session_t *s)
{
	double t = tui_session_now();
	enum eng_status st;

	if (s->ts_m->tm_state != TUI_TRACING)
		return 1000;
	if (s->ts_replay) {
		tui_replay_tick(s, t);
		return TICK_MS;
	}
	st = eng_status(s->ts_h);
	/* buffer state before eng_work empties the buffers, so "fill"
	 * shows how full they got */
	sample_cpus(s, t - s->ts_last);
	s->ts_last = t;
	if (eng_work(s->ts_h, NULL) != 0)
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
	tui_session_clauses(s, t - s->ts_lastclauses);
	s->ts_lastclauses = t;
	if (!s->ts_paused && t - s->ts_lastagg >= s->ts_aggrate) {
		s->ts_m->tm_now = t - s->ts_tgo;
		tui_session_snapshot(s);
		s->ts_lastagg = t;
	}
	if (st == ENG_STATUS_EXITED || st == ENG_STATUS_STOPPED ||
	    st == ENG_STATUS_FILLED)
		tui_session_stop(s);
	return TICK_MS;
}

/* While the display is paused the model's aggregations stay as they are;
 * the engine keeps collecting. */
void tui_session_pause(tui_session_t *s, int paused)
{
	int was = s->ts_paused;

	s->ts_paused = paused;
	/* main.c says it after every key: only Space (a change) moves a
	 * replay's cursor, not a key that leaves it :paused */
	if (s->ts_replay && s->ts_m->tm_state == TUI_TRACING &&
	    paused != was) {
		s->ts_playing = !paused;	/* the time cursor too */
		s->ts_t0 = tui_session_now() - s->ts_rt;
	}
}

/* ---- probes ---------------------------------------------------------------- */

static int add_probe(const dtrace_probedesc_t *pd, void *arg)
{
	tui_probes_t *p = arg;

	tui_probes_add(p, pd->dtpd_id, pd->dtpd_provider, pd->dtpd_mod,
	    pd->dtpd_func, pd->dtpd_name);
	return 0;
}

void tui_session_probes(tui_session_t *s)
{
	tui_probes_t *p = &s->ts_m->tm_probes;
	char filter[sizeof(p->tp_filter)];

	memcpy(filter, p->tp_filter, sizeof(filter));
	tui_probes_clear(p);
	if (s->ts_target > 0) {		/* the target's pid probes exist */
		char pat[64];		/* once a description names them */

		snprintf(pat, sizeof(pat), "pid%d:::", s->ts_target);
		(void)eng_probe_iter(s->ts_h, pat, NULL, NULL);
	}
	eng_probe_iter(s->ts_h, NULL, add_probe, p);
	(void)eng_usdt_list(s->ts_h, add_probe, p);	/* every process's */
	memcpy(p->tp_filter, filter, sizeof(filter));
	tui_probes_sort(p);
}

void tui_session_probe_info(tui_session_t *s, int probe, char *buf,
    size_t len)
{
	tui_model_t *m = s->ts_m;
	eng_probeinfo_t pi;
	size_t n = 0;

	buf[0] = '\0';
	if (probe >= 0 && probe < m->tm_probes.tp_n &&
	    m->tm_probes.tp_probes[probe].tp_id == 0) {
		snprintf(buf, len, "a running process's usdt probe: made "
		    "when an enabling names it");
		return;
	}
	if (probe < 0 || probe >= m->tm_probes.tp_n ||
	    eng_probe_info(s->ts_h, m->tm_probes.tp_probes[probe].tp_id,
	    &pi) != 0)
		return;
	n = snprintf(buf, len, "id %u  args:",
	    m->tm_probes.tp_probes[probe].tp_id);
	for (int i = 0; i < pi.epi_nargs && n < len; i++)
		n += snprintf(buf + n, len - n, " %d:%s", i,
		    pi.epi_argtypes[i]);
	if (pi.epi_nargs == 0 && n < len)
		snprintf(buf + n, len - n, " none");
}

int tui_session_count(tui_session_t *s, const char *text)
{
	return eng_count_matches(s->ts_h, text);
}

static tui_vocab_t vocab;
static pthread_once_t vocab_once = PTHREAD_ONCE_INIT;

static void vocab_fill(void)
{
	vocab.tv_words[0] = eng_d_words(ENG_WORD_VARIABLE);
	vocab.tv_words[1] = eng_d_words(ENG_WORD_SUBROUTINE);
	vocab.tv_words[2] = eng_d_words(ENG_WORD_ACTION);
	vocab.tv_words[3] = eng_d_words(ENG_WORD_AGGREGATING);
	vocab.tv_options = eng_option_names();
}

/* The engine's words, asked once (they never change). */
const tui_vocab_t *tui_session_vocab(void)
{
	pthread_once(&vocab_once, vocab_fill);
	return &vocab;
}

/* A ":theme NAME" request, consumed by main.c (which owns the terminal). */
const char *tui_session_theme_req(tui_session_t *s)
{
	return s->ts_theme;
}

/* ---- prompt commands ------------------------------------------------------ */

static void cmd_list(tui_session_t *s)
{
	tui_model_t *m = s->ts_m;
	char buf[2048];
	size_t n = 0;

	if (m->tm_nens == 0) {
		tui_model_message(m, 0, "no enablings");
		return;
	}
	buf[0] = '\0';
	for (int i = 0; i < m->tm_nens && n < sizeof(buf); i++) {
		const tui_enabling_t *e = &m->tm_ens[i];

		n += snprintf(buf + n, sizeof(buf) - n, "%s%d %s %u probes: %.*s",
		    i ? "\n" : "", e->te_id, e->te_enabled ? "on " : "off",
		    e->te_nprobes, (int)strcspn(e->te_src, "\n"), e->te_src);
	}
	tui_model_message(m, 0, "%s", buf);
}

static tui_enabling_t *enabling_arg(tui_session_t *s, const char *arg)
{
	tui_enabling_t *e = tui_model_enabling(s->ts_m, atoi(arg));

	if (e == NULL)
		tui_model_message(s->ts_m, 1, "no enabling %s (see :list)", arg);
	return e;
}

static void cmd_disable(tui_session_t *s, const char *arg, int remove)
{
	tui_enabling_t *e = enabling_arg(s, arg);
	int id;

	if (e == NULL)
		return;
	id = e->te_id;
	if (e->te_enabled && s->ts_m->tm_state != TUI_TRACING) {
		e->te_enabled = 0;	/* nothing fires: no restart takes it */
		s->ts_m->tm_nenabled -= e->te_nprobes;
	} else if (e->te_enabled) {
		if (eng_prog_disable(s->ts_h, e->te_prog) != 0) {
			tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
			return;
		}
		e->te_enabled = 0;
		s->ts_m->tm_nenabled -= e->te_nprobes;
	}
	if (remove) {
		eng_prog_free(e->te_prog);
		tui_model_enabling_remove(s->ts_m, id);
	}
	tui_model_message(s->ts_m, 0, "enabling %d %s", id,
	    remove ? "removed" : "disabled");
}

static void cmd_set(tui_session_t *s, char *arg)
{
	char *eq = strchr(arg, '=');

	if (eq != NULL)
		*eq++ = '\0';
	if (tui_session_setopt(s, arg, eq) == 0)
		tui_model_message(s->ts_m, 0, "%s set%s", arg,
		    s->ts_m->tm_state == TUI_STOPPED ? " for the next tracing "
		    "session (a clause or :restart starts it)" : "");
}

static void cmd_agg(tui_session_t *s, const char *what, char *arg)
{
	char *name = strtok(arg, " \t"), *n = strtok(NULL, " \t");
	const char *nm = name == NULL ? NULL : name[0] == '@' ? name + 1 : name;
	int rc;

	if (what[0] == 'c')
		rc = eng_agg_clear(s->ts_h, nm);
	else
		rc = eng_agg_trunc(s->ts_h, nm, n ? strtoll(n, NULL, 0) : 0);
	if (rc != 0) {
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
		return;
	}
	if (what[0] == 'c')
		tui_model_agg_clear(s->ts_m, nm);
	tui_session_snapshot(s);
	tui_model_message(s->ts_m, 0, "%s %s%s", what[0] == 'c' ? "cleared" :
	    "truncated", nm ? "@" : "all", nm ? nm : "");
}

/* :save folded FILE: the stack-keyed aggregations as collapsed stacks
 * (flame-graph input), from the engine's last snapshot. */
static int save_folded(tui_session_t *s, const char *file, char *err,
    size_t errlen)
{
	FILE *fp = fopen(file, "w");
	int n, bad;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	n = eng_agg_folded(s->ts_h, fp);
	bad = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0 || bad) {
		snprintf(err, errlen, "%s: write failed: %s", file,
		    strerror(errno ? errno : EIO));
		return -1;
	}
	if (n <= 0) {
		snprintf(err, errlen, "no aggregation keyed by stack() or "
		    "ustack() to save");
		return -1;
	}
	return 0;
}

/* :record [NAME] starts recording an experiment, :record stop ends it. */
static void cmd_record(tui_session_t *s, char *arg)
{
	const char *name = eng_record_name(s->ts_h);
	char dir[1024];

	if (strcmp(arg, "stop") == 0) {
		snprintf(dir, sizeof(dir), "%s", name ? name : "");
		if (eng_record_stop(s->ts_h) != 0)
			tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
		else
			tui_model_message(s->ts_m, 0, "recorded %s", dir);
		return;
	}
	if (eng_record_start(s->ts_h, *arg ? arg : NULL) != 0) {
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
		return;
	}
	name = eng_record_name(s->ts_h);
	tui_model_message(s->ts_m, 0, "recording to %s%s", name ? name : "?",
	    name ? "" : " (at the first clause)");
}

static void cmd_save(tui_session_t *s, char *arg)
{
	char *what = strtok(arg, " \t"), *file = strtok(NULL, " \t");
	char err[512];
	int rc;

	if (what == NULL || file == NULL || (strcmp(what, "output") != 0 &&
	    strcmp(what, "aggs") != 0 && strcmp(what, "folded") != 0)) {
		tui_model_message(s->ts_m, 1,
		    "usage: :save output|aggs|folded FILE");
		return;
	}
	rc = what[0] == 'o' ? tui_save_output(s->ts_m, file, err, sizeof(err)) :
	    what[0] == 'f' ? save_folded(s, file, err, sizeof(err)) :
	    tui_save_aggs(s->ts_m, file, err, sizeof(err));
	if (rc != 0)
		tui_model_message(s->ts_m, 1, "%s", err);
	else
		tui_model_message(s->ts_m, 0, "saved %s to %s", what, file);
}

static void cmd_restart(tui_session_t *s)
{
	if (s->ts_m->tm_state != TUI_STOPPED)
		tui_model_message(s->ts_m, 1, "tracing has not stopped "
		    "(Ctrl-C or :stop stops it)");
	else
		restart(s);
}

/* Run ":cmd args"; returns TUI_QUIT for :quit, else TUI_REDRAW. */
unsigned tui_session_command(tui_session_t *s, const char *line)
{
	char buf[1024], *cmd, *arg;

	snprintf(buf, sizeof(buf), "%s", line + (line[0] == ':'));
	cmd = strtok(buf, " \t");
	arg = strtok(NULL, "");
	if (arg == NULL)
		arg = buf + strlen(buf);
	while (*arg == ' ' || *arg == '\t')
		arg++;
	s->ts_theme[0] = '\0';
	if (cmd == NULL)
		return TUI_REDRAW;
	if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "q") == 0)
		return TUI_QUIT;
	if (s->ts_replay && tui_replay_command(s, cmd, arg))
		return TUI_REDRAW;
	if (!s->ts_replay && (strcmp(cmd, "pause") == 0 || strcmp(cmd,
	    "play") == 0 || strcmp(cmd, "step") == 0 || strcmp(cmd,
	    "jump") == 0)) {
		tui_model_message(s->ts_m, 1, ":%s moves a replay's time cursor "
		    "(dtui -r EXPERIMENT)", cmd);
		return TUI_REDRAW;
	}
	if (strcmp(cmd, "list") == 0)
		cmd_list(s);
	else if (strcmp(cmd, "disable") == 0)
		cmd_disable(s, arg, 0);
	else if (strcmp(cmd, "remove") == 0)
		cmd_disable(s, arg, 1);
	else if (strcmp(cmd, "enable") == 0)
		tui_session_cmd_enable(s, arg);
	else if (strcmp(cmd, "set") == 0)
		cmd_set(s, arg);
	else if (strcmp(cmd, "clear") == 0 || strcmp(cmd, "trunc") == 0)
		cmd_agg(s, cmd, arg);
	else if (strcmp(cmd, "save") == 0)
		cmd_save(s, arg);
	else if (strcmp(cmd, "record") == 0)
		cmd_record(s, arg);
	else if (strcmp(cmd, "stop") == 0)
		tui_session_stop(s);
	else if (strcmp(cmd, "restart") == 0)
		cmd_restart(s);
	else if (strcmp(cmd, "theme") == 0)
		snprintf(s->ts_theme, sizeof(s->ts_theme), "%s", arg);
	else
		tui_model_message(s->ts_m, 1, "unknown command :%s "
		    "(:list :disable :enable :remove :set :clear :trunc :save :record "
		    ":theme :stop :restart :quit)", cmd);
	return TUI_REDRAW;
}
