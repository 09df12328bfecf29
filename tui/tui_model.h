/*
 * tui_model.h - the TUI's model: what is shown, in plain C (no curses, no
 * engine, no drawing): output lines, per-CPU buffer figures, aggregation
 * snapshots, the heatmap's columns, the probe tree, enablings, histogram
 * arithmetic, completion words, saving.  The model files (model.c,
 * probes.c, hist.c, complete.c, save.c, mem.c, clauses.c) include only
 * this header;
 * tests/layers.sh checks that they never include the view's.
 *
 * Every allocation goes through mem.c (tests can fail the Nth).  Errors
 * come back as -1/NULL with a message in the model or an err buffer.
 */
#ifndef TUI_MODEL_H
#define TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- memory (mem.c): every TUI allocation, with a failure hook --------- */

void *tui_malloc(size_t n);
void *tui_calloc(size_t n, size_t size);
void *tui_realloc(void *p, size_t n);
char *tui_strdup(const char *s);
char *tui_strndup(const char *s, size_t n);
/* Tests: the allocation n from now fails (0: the next); -1 disarms.
 * Returns the previous setting's count left (-1 once it has fired). */
long tui_mem_fail_after(long n);

/* ---- the model --------------------------------------------------------- */

enum tui_state { TUI_IDLE, TUI_TRACING, TUI_STOPPED };

typedef struct tui_line {
	char *tl_text;		/* one line, no newline */
	int tl_cpu;		/* -1: not from a CPU (messages) */
} tui_line_t;

#define TUI_SPARK_N 16		/* drop history kept per CPU */
enum tui_dropk { TUI_DROP_BUF, TUI_DROP_AGG, TUI_DROP_DYN, TUI_DROP_SPEC,
		 TUI_NDROPK };

/*
 * A rate over a sliding window of about TUI_RATE_WINDOW seconds: buffers
 * switch (and providers hand over events) in bursts, so a rate over one
 * 100 ms tick jumps between 0 and many times the truth.  Each tick pushes
 * its length and the total before it; the rate is the growth over the
 * newest ticks that cover the window.
 */
#define TUI_RATE_N 64
#define TUI_RATE_WINDOW 2.0
typedef struct tui_rate {
	double tr_dt[TUI_RATE_N];	/* tick lengths, oldest first */
	uint64_t tr_base[TUI_RATE_N];	/* total before each tick */
	int tr_n;
} tui_rate_t;
/* One tick of dt seconds that took a total from before to now; returns
 * the windowed rate (0 after a total went backwards: a new session). */
double tui_rate_tick(tui_rate_t *r, uint64_t before, uint64_t now,
    double dt);

typedef struct tui_cpu {
	int tcp_cpu;
	int tcp_policy;		/* DTRACEOPT_BUFPOLICY_* */
	uint64_t tcp_size, tcp_used;
	uint64_t tcp_records, tcp_bytes;	/* totals */
	double tcp_recps, tcp_byteps;		/* rates over the last 2 s */
	tui_rate_t tcp_rrate, tcp_brate;
	uint64_t tcp_drops[TUI_NDROPK];		/* totals by kind */
	uint64_t tcp_hist[TUI_SPARK_N];		/* drops per tick, oldest first */
	uint64_t tcp_errors;
	uint64_t tcp_hiwats;	/* early switches (buffer half full) */
} tui_cpu_t;

/* An aggregation entry copied out of an engine snapshot. */
typedef struct tui_aggent {
	char *ta_key;		/* keys formatted and joined by spaces */
	int64_t ta_value;	/* scalar value (or histogram total) */
	int64_t ta_prev;	/* value at the previous snapshot */
	int ta_nbuckets;
	int64_t *ta_buckets;	/* current counts */
	int64_t *ta_pbuckets;	/* counts at the previous snapshot */
	char **ta_labels;	/* dtrace's bucket labels */
	int ta_seen;		/* its place in the current snapshot + 1;
				 * 0: not in it */
} tui_aggent_t;

typedef struct tui_agg {
	char *tag_name;		/* "" for @ */
	int tag_func;		/* DTRACEAGG_* */
	int tag_nents, tag_cap;
	tui_aggent_t *tag_ents;
	int tag_seen;		/* marked by the current snapshot */
	int tag_nput;		/* entries put in the current snapshot */
	int *tag_hash;		/* key hash -> entry index + 1, open addressing */
	int tag_hashcap;	/* power of two, > 2 * tag_nents */
} tui_agg_t;

typedef struct tui_probe {
	uint32_t tp_id;
	char *tp_prov, *tp_mod, *tp_func, *tp_name;	/* one allocation */
} tui_probe_t;

/* A row of the probe browser: a tree node or a probe. */
typedef struct tui_prow {
	int tpr_depth;		/* 0 provider, 1 module, 2 function, 3 probe */
	int tpr_first;		/* index of its first probe in tp_probes */
	int tpr_count;		/* matching probes below (1 for a probe) */
} tui_prow_t;

typedef struct tui_probes {
	tui_probe_t *tp_probes;	/* sorted prov, mod, func, name */
	int tp_n, tp_cap;
	unsigned char *tp_match;	/* per probe: passes the filter */
	int tp_nmatch;
	char tp_filter[256];
	tui_prow_t *tp_rows;	/* visible rows after filter/expansion */
	int tp_nrows, tp_rowcap;
	char **tp_open;		/* expanded node paths "p", "p:m", "p:m:f" */
	int tp_nopen;
	int tp_allopen;		/* filter small enough: everything expanded */
} tui_probes_t;

/* One enabling made from the prompt or the command line. */
typedef struct tui_enabling {
	int te_id;		/* 1-based number shown by :list */
	char *te_src;
	unsigned te_nprobes;
	int te_enabled;
	int te_file;		/* 1: te_src is a script path (-s), 2: a
				 * -n probe description, 0: prompt text */
	void *te_prog;		/* eng_prog_t, owned by the session */
} tui_enabling_t;

/* A row of the enablings pane: one enabled clause, its ECBs' counters
 * summed (the shim counts them per ECB, one per probe it is enabled on). */
/* Where a clause runs (the engine's ENG_RUN_* values, and mixed when
 * its ECBs' probes differ). */
enum { TUI_RUN_UNKNOWN = -1, TUI_RUN_SHIM, TUI_RUN_KFILTER, TUI_RUN_KAGG,
	TUI_RUN_MIXED };
typedef struct tui_clause {
	uint64_t tcl_id;	/* the clause's statement id */
	int tcl_enabling;	/* te_id of its enabling, 0 if unknown */
	char tcl_probe[160];	/* its first probe, prov:mod:func:name */
	int tcl_nprobes;	/* ECBs: probes it is enabled on */
	char tcl_pred[128];	/* its predicate, "/i < 7/", or "" */
	int tcl_runs;		/* TUI_RUN_*: where its ECBs run it */
	uint64_t tcl_fires, tcl_predfalse, tcl_drops, tcl_errors;
	uint64_t tcl_samples, tcl_sampns;	/* runs timed, their ns */
	double tcl_fireps;	/* runs per second, over the last 2 s */
	tui_rate_t tcl_rate;
	uint64_t tcl_lastfires;	/* at the previous tick */
	int tcl_seen;		/* put since tui_clauses_begin */
} tui_clause_t;

#define TUI_HEAT_COLS 512	/* refresh columns kept by the heatmap */

typedef struct tui_heat {
	char *th_agg;		/* chosen aggregation name, NULL none */
	char *th_key;		/* chosen key text */
	int th_nbuckets;
	int th_ncols;		/* columns filled, <= TUI_HEAT_COLS */
	int64_t *th_cols;	/* TUI_HEAT_COLS * th_nbuckets, ring */
	double th_times[TUI_HEAT_COLS];	/* each column's tm_now, same ring */
	int th_head;		/* index of the next column */
	char **th_labels;
} tui_heat_t;

typedef struct tui_model {
	enum tui_state tm_state;
	const char *tm_route;	/* privilege route shown in the status line */
	const char *tm_uroute;	/* pid/usdt probes' route, NULL: none */
	uint64_t tm_uhits;	/* their hits, and the tracer's ns per hit */
	double tm_unsperhit;
	/* output */
	tui_line_t *tm_lines;	/* ring of tm_maxlines */
	int tm_maxlines, tm_nlines, tm_head;	/* head = oldest */
	uint64_t tm_totlines;
	char *tm_partial;	/* text not yet ended by a newline */
	int tm_partial_cpu;
	/* buffers */
	tui_cpu_t *tm_cpus;
	int tm_ncpus;
	uint64_t tm_errors, tm_drops;
	char *tm_lasterr;
	/* aggregations */
	tui_agg_t *tm_aggs;
	int tm_naggs;
	uint64_t tm_aggsnaps;
	/* probes, enablings */
	tui_probes_t tm_probes;
	tui_enabling_t *tm_ens;
	int tm_nens, tm_nextid;
	unsigned tm_nenabled;	/* enabled probes */
	double tm_eventps;	/* events per second, over the last 2 s */
	/* the enablings pane: clauses in statement order */
	tui_clause_t *tm_clauses;
	int tm_nclauses, tm_clausecap;
	/* the heatmap */
	tui_heat_t tm_heat;
	double tm_now;		/* when the data shown was taken: seconds
				 * since tracing began (a replay: the time
				 * cursor); heatmap columns keep it */
	/* the prompt's lines: message under the prompt, probe match hint */
	char *tm_msg;
	int tm_msg_err;
	int tm_hint;		/* probes the typed clause matches, -1 none */
	int tm_showaggs;	/* a clause that only aggregates was enabled:
				 * show the aggregations pane (main.c) */
} tui_model_t;

tui_model_t *tui_model_new(int maxlines);
void tui_model_free(tui_model_t *m);
/* Append output text; splits on newlines, keeps a partial last line. */
void tui_model_output(tui_model_t *m, const char *text, size_t len, int cpu);
const tui_line_t *tui_model_line(const tui_model_t *m, int i);
void tui_model_message(tui_model_t *m, int is_err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tui_model_setcpus(tui_model_t *m, int n);
/* One tick of per-CPU counters: rates over dt seconds, drop history. */
void tui_model_cpu_tick(tui_model_t *m, int cpu, const tui_cpu_t *now,
    double dt);
void tui_model_drop(tui_model_t *m, int cpu, enum tui_dropk k, uint64_t n);
void tui_model_error(tui_model_t *m, const char *msg);

/* Aggregation snapshots: begin, add entries, end (drops vanished ones). */
void tui_model_agg_begin(tui_model_t *m);
tui_agg_t *tui_model_agg_get(tui_model_t *m, const char *name, int func);
int tui_model_agg_put(tui_agg_t *a, const char *key, int64_t value,
    int nbuckets, const int64_t *buckets, char *const *labels);
void tui_model_agg_end(tui_model_t *m);
tui_agg_t *tui_model_agg_find(tui_model_t *m, const char *name);
void tui_model_agg_clear(tui_model_t *m, const char *name);
int tui_is_hist(int func);

/* A new tracing session after a stop: aggregations, heatmap, drops,
 * errors and rates are forgotten; output lines and enablings stay. */
void tui_model_restart(tui_model_t *m);

tui_enabling_t *tui_model_enabling_add(tui_model_t *m, const char *src,
    unsigned nprobes, void *prog);
tui_enabling_t *tui_model_enabling(tui_model_t *m, int id);
void tui_model_enabling_remove(tui_model_t *m, int id);

/* Enablings pane (clauses.c): begin a tick, put each ECB's counters
 * (summed into its clause's row), end the tick dt seconds after the last
 * (rates; rows with no ECB put are dropped).  An ECB's pred is its
 * clause's predicate as written ("/i < 7/", NULL if none or unknown),
 * runs where its probe runs the clause (TUI_RUN_*, the engine's
 * ENG_RUN_* values).  Put: 0, or -1 out of memory. */
typedef struct tui_ecb {
	uint64_t te_clause;	/* the clause's statement id */
	int te_enabling;	/* te_id of its enabling, 0 if unknown */
	const char *te_probe;	/* prov:mod:func:name */
	const char *te_pred;
	int te_runs;
	uint64_t te_counts[4];	/* runs, false predicates, drops, errors */
	uint64_t te_samples;	/* runs timed, and their ns (0: none) */
	uint64_t te_sampns;
} tui_ecb_t;
void tui_clauses_begin(tui_model_t *m);
int tui_clauses_put(tui_model_t *m, const tui_ecb_t *e);
void tui_clauses_end(tui_model_t *m, double dt);
void tui_clauses_clear(tui_model_t *m);

/* Heatmap: choose an aggregation (and key), then push one column per
 * refresh from the current snapshot's per-interval counts. */
int tui_heat_choose(tui_model_t *m, const char *agg, const char *key);
void tui_heat_push(tui_model_t *m);
int64_t tui_heat_at(const tui_heat_t *h, int col_back, int bucket);
/* The tm_now of the column col_back before the newest; -1 if none. */
double tui_heat_time(const tui_heat_t *h, int col_back);

/* A replay goes back to its start (to rebuild the state at an earlier
 * time): output, aggregations, buffers, errors, clauses and heatmap
 * columns are forgotten; the heatmap's choice of aggregation and key and
 * the enablings stay. */
void tui_model_rewind(tui_model_t *m);

/* ---- histograms (hist.c): the numbers ----------------------------------------- */

/* The bucket range dtrace prints: one zero bucket either side of the
 * non-zero ones.  Returns 0 with *lo > *hi when all are zero. */
void tui_hist_trim(const int64_t *b, int n, int *lo, int *hi);
/* Index of the bucket holding percentile pct (0-100); -1 if empty. */
int tui_hist_pctl(const int64_t *b, int n, double pct);
/* Bar length in cells for count out of total, given width cells. */
int tui_hist_bar(int64_t count, int64_t total, int width);

/* ---- probes (probes.c) --------------------------------------------------- */

int tui_probes_add(tui_probes_t *p, uint32_t id, const char *prov,
    const char *mod, const char *func, const char *name);
void tui_probes_sort(tui_probes_t *p);
void tui_probes_clear(tui_probes_t *p);
/* Apply a filter: "word" matches any field as *word*; "a:b:c:d" uses
 * dtrace's probe description rules (fields right-aligned, empty = any). */
int tui_probes_filter(tui_probes_t *p, const char *filter);
void tui_probes_toggle(tui_probes_t *p, int row);
void tui_probes_rebuild(tui_probes_t *p);
/* The description of row r ("syscall::read:", "syscall:::"...). */
void tui_probes_desc(const tui_probes_t *p, int r, char *buf, size_t len);
/* Probes matched by the descriptions of a clause's text; -1 if none. */
int tui_probes_count(const tui_probes_t *p, const char *text);
/* dtrace's glob: * ? [set] [!set] \c; returns 1 on match. */
int tui_glob(const char *pat, const char *s);

/* The characters that end the word to complete at point. */
const char *tui_complete_breaks(const char *line, int point);
/* What completion offers besides probes: the engine's option names and
 * its D words by kind (variables, subroutines, actions, aggregating
 * functions), each NULL-terminated; NULL lists offer nothing. */
typedef struct tui_vocab {
	const char *const *tv_options;
	const char *const *tv_words[4];
} tui_vocab_t;
/* Completion words (complete.c): matches for text at [start, end) of
 * line, NULL-terminated and malloc'd, or NULL. */
char **tui_complete(const char *line, int start, int end,
    const tui_probes_t *probes, const tui_vocab_t *vocab);
/* Brace balance: 1 if the clause text is complete. */
int tui_clause_complete(const char *text);

/* Saving (save.c): output lines and aggregations as text. */
int tui_save_output(const tui_model_t *m, const char *path, char *err,
    size_t errlen);
int tui_save_aggs(const tui_model_t *m, const char *path, char *err,
    size_t errlen);

#endif /* TUI_MODEL_H */
