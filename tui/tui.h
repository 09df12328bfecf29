/*
 * tui.h - the TUI's public interface: model, surface, panes, key decoding,
 * themes, and the engine session that feeds the model.
 *
 * Layering (STYLE.md section 10):
 *   model   (model.c, probes.c, hist.c,  plain C, no curses, no engine;
 *            complete.c, save.c, theme.c)
 *   view    (surface.c, pane*.c,         panes draw the model into a
 *            layout.c)                   tui_surface (a grid of cells);
 *   input   (keys.c)                     key codes -> tui_cmd, handled by
 *                                        the focused pane, which returns
 *                                        TUI_* flags and never draws;
 *   engine  (session.c)                  the only file calling engine.h;
 *   prompt  (prompt.c)                   readline or libedit, hidden here;
 *   term    (term.c)                     the only file calling curses;
 *   main.c                               options and the event loop.
 * Every allocation goes through mem.c (tests can fail the Nth).  Errors
 * come back as -1/NULL with a message in the model or an err buffer;
 * nothing here prints or exits except main.c and term.c's fatal path.
 * Unit tests build a model by hand, feed commands to panes and compare
 * surface rows as text.
 */
#ifndef TUI_H
#define TUI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- roles: what a cell is, mapped to colours by the theme ------------ */

#define TUI_ROLES(X) \
	X(NORMAL,   "normal")   X(STATUS,   "status")   X(TAB,     "tab") \
	X(TAB_SEL,  "tab-selected") X(TITLE, "title")   X(SELECT,  "selection") \
	X(OUTPUT,   "output")   X(CPU,      "cpu")      X(PROMPT,  "prompt") \
	X(ERROR,    "error")    X(WARN,     "warning")  X(BAR,     "bar") \
	X(MARK,     "mark")     X(COUNT,    "count")    X(KEY,     "key") \
	X(DROP,     "drop")     X(SPARK,    "sparkline") X(HEAT_LO, "heat-low") \
	X(HEAT_MID, "heat-mid") X(HEAT_HI,  "heat-high") X(MATCH,  "match") \
	X(HELP,     "help")     X(DIM,      "dim")
#define TUI_ROLE_ENUM(e, s) TUI_R_##e,
enum tui_role { TUI_ROLES(TUI_ROLE_ENUM) TUI_NROLES };

/* ---- memory (mem.c): every TUI allocation, with a failure hook --------- */

void *tui_malloc(size_t n);
void *tui_calloc(size_t n, size_t size);
void *tui_realloc(void *p, size_t n);
char *tui_strdup(const char *s);
char *tui_strndup(const char *s, size_t n);
/* Tests: the allocation n from now fails (0: the next); -1 disarms.
 * Returns the previous setting's count left (-1 once it has fired). */
long tui_mem_fail_after(long n);

/* ---- surface: an in-memory grid of cells ------------------------------ */

typedef struct tui_cell {
	uint32_t tc_ch;		/* Unicode code point, ' ' when blank */
	uint8_t tc_role;	/* enum tui_role */
} tui_cell_t;

typedef struct tui_surface {
	int ts_cols, ts_rows;
	tui_cell_t *ts_cells;	/* ts_rows * ts_cols, row-major */
	/* The clip window that puts/fill honour (a pane's rectangle). */
	int ts_x0, ts_y0, ts_w, ts_h;
} tui_surface_t;

tui_surface_t *tui_surface_new(int cols, int rows);
void tui_surface_free(tui_surface_t *s);
int tui_surface_resize(tui_surface_t *s, int cols, int rows);
void tui_surface_clip(tui_surface_t *s, int x, int y, int w, int h);
void tui_surface_clear(tui_surface_t *s, int role);
/* Write UTF-8 text at (x, y) in clip coordinates; returns columns used. */
int tui_surface_puts(tui_surface_t *s, int x, int y, int role,
    const char *utf8);
int tui_surface_putn(tui_surface_t *s, int x, int y, int role,
    const char *utf8, size_t len);
int tui_surface_printf(tui_surface_t *s, int x, int y, int role,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void tui_surface_putc(tui_surface_t *s, int x, int y, int role, uint32_t ch);
void tui_surface_fill(tui_surface_t *s, int x, int y, int w, int role,
    uint32_t ch);
/* Row y (absolute) as UTF-8 without trailing blanks, into buf. */
char *tui_surface_row(const tui_surface_t *s, int y, char *buf, size_t len);
int tui_surface_role_at(const tui_surface_t *s, int x, int y);

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

#define TUI_HEAT_COLS 512	/* refresh columns kept by the heatmap */

typedef struct tui_heat {
	char *th_agg;		/* chosen aggregation name, NULL none */
	char *th_key;		/* chosen key text */
	int th_nbuckets;
	int th_ncols;		/* columns filled, <= TUI_HEAT_COLS */
	int64_t *th_cols;	/* TUI_HEAT_COLS * th_nbuckets, ring */
	int th_head;		/* index of the next column */
	char **th_labels;
} tui_heat_t;

typedef struct tui_model {
	enum tui_state tm_state;
	const char *tm_route;	/* privilege route shown in the status line */
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
	/* the heatmap */
	tui_heat_t tm_heat;
	/* the prompt's lines: message under the prompt, probe match hint */
	char *tm_msg;
	int tm_msg_err;
	int tm_hint;		/* probes the typed clause matches, -1 none */
	char tm_selinfo[1024];	/* argument types of the selected probe */
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

/* Heatmap: choose an aggregation (and key), then push one column per
 * refresh from the current snapshot's per-interval counts. */
int tui_heat_choose(tui_model_t *m, const char *agg, const char *key);
void tui_heat_push(tui_model_t *m);
int64_t tui_heat_at(const tui_heat_t *h, int col_back, int bucket);

/* ---- histograms (hist.c) ---------------------------------------------- */

/* The bucket range dtrace prints: one zero bucket either side of the
 * non-zero ones.  Returns 0 with *lo > *hi when all are zero. */
void tui_hist_trim(const int64_t *b, int n, int *lo, int *hi);
/* Index of the bucket holding percentile pct (0-100); -1 if empty. */
int tui_hist_pctl(const int64_t *b, int n, double pct);
/* Bar length in cells for count out of total, given width cells. */
int tui_hist_bar(int64_t count, int64_t total, int width);
/* Draw entry e of a histogram into the surface clip at row y, at most
 * h rows; returns rows used.  delta: per-interval counts. */
int tui_hist_draw(tui_surface_t *s, int y, int h, const tui_aggent_t *e,
    int delta);

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

/* ---- commands and keys (keys.c) -------------------------------------- */

/* Key codes: Unicode for text, these above it for special keys. */
enum tui_key {
	TUI_KEY_NONE = 0, TUI_KEY_TAB = 9, TUI_KEY_ENTER = 13, TUI_KEY_ESC = 27,
	TUI_KEY_BS = 127,
	TUI_KEY_UP = 0x110000, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT,
	TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_DEL,
	TUI_KEY_BTAB, TUI_KEY_F1, TUI_KEY_F2, TUI_KEY_F3, TUI_KEY_F4,
	TUI_KEY_F5, TUI_KEY_F6, TUI_KEY_F7, TUI_KEY_F8, TUI_KEY_F9,
	TUI_KEY_F10, TUI_KEY_RESIZE, TUI_KEY_MOUSE
};
#define TUI_CTRL(c) ((c) & 0x1f)

enum tui_cmdk {
	TUI_C_NONE, TUI_C_UP, TUI_C_DOWN, TUI_C_PGUP, TUI_C_PGDN, TUI_C_HOME,
	TUI_C_END, TUI_C_LEFT, TUI_C_RIGHT, TUI_C_ENTER, TUI_C_NEXT_PANE,
	TUI_C_PREV_PANE, TUI_C_HELP, TUI_C_QUIT, TUI_C_PAUSE, TUI_C_STOP,
	TUI_C_SEARCH, TUI_C_SEARCH_NEXT, TUI_C_PROMPT, TUI_C_FOLLOW,
	TUI_C_SORT, TUI_C_CUMUL, TUI_C_ZOOM, TUI_C_CLEAR, TUI_C_TRUNC,
	TUI_C_HEAT, TUI_C_CLICK, TUI_C_CHAR, TUI_C_BACKSPACE, TUI_C_ESC,
	TUI_C_RESIZE
};

typedef struct tui_cmd {
	enum tui_cmdk tc_kind;
	uint32_t tc_key;	/* the key that made it */
	int tc_x, tc_y;		/* TUI_C_CLICK: pane coordinates */
} tui_cmd_t;

/* Decode a key for a pane that is not the prompt. */
tui_cmd_t tui_keys_decode(uint32_t key);
/* Name of a key for the help overlay. */
const char *tui_keys_help(int i, const char **what);

/* ---- panes (pane.c, pane_*.c) ------------------------------------------ */

#define TUI_HANDLED	0x01
#define TUI_REDRAW	0x02
#define TUI_FOCUS_NEXT	0x04
#define TUI_QUIT	0x08
#define TUI_TO_PROMPT	0x10	/* focus the prompt */
#define TUI_INSERT	0x20	/* insert pane->tp_insert at the prompt */
#define TUI_PROBE_SEL	0x40	/* browser selection changed */
#define TUI_ACTION	0x80	/* pane asks for tp_action (clear, trunc) */
#define TUI_STOP	0x100	/* stop tracing */

/*
 * A pane kind (pane_*.c), as htop's panel classes: its struct embeds
 * tui_pane_t as its first member and adds only its own state; its ops
 * say how big it is and leave NULL the hooks it does not need.
 */
struct tui_pane;
struct tui_pane_ops {
	const char *name;
	size_t size;		/* the kind's struct (tui_pane_t first) */
	void (*init)(struct tui_pane *);	/* its defaults; NULL: none */
	void (*draw)(struct tui_pane *, tui_surface_t *, const tui_model_t *);
	unsigned (*handle)(struct tui_pane *, const tui_cmd_t *, tui_model_t *);
	/* after tui_pane_resize set tp_cols, tp_rows; NULL: nothing more */
	void (*resize)(struct tui_pane *, int cols, int rows);
	/* before the pane is freed; NULL: it owns nothing else */
	void (*destroy)(struct tui_pane *);
};

/* What every pane has: its size, scroll position and selection, and what
 * it hands the layout and main loop with its TUI_* answer. */
typedef struct tui_pane {
	const struct tui_pane_ops *tp_ops;
	int tp_cols, tp_rows;
	int tp_top, tp_sel;	/* first row shown, selected row */
	int tp_searching;	/* typing text: the layout hands it printable
				 * keys as TUI_C_CHAR */
	char tp_insert[512];	/* text for TUI_INSERT */
	char tp_action[128];	/* text for TUI_ACTION (a prompt command) */
} tui_pane_t;

enum tui_panek { TUI_P_OUTPUT, TUI_P_AGGS, TUI_P_BUFS, TUI_P_PROBES,
		 TUI_P_HEAT, TUI_NPANES };

tui_pane_t *tui_pane_new(enum tui_panek kind);
void tui_pane_free(tui_pane_t *p);
/* The pane's size changed (then its kind's resize hook, if any). */
void tui_pane_resize(tui_pane_t *p, int cols, int rows);
/* Output pane: stop following new lines while paused, then follow again
 * as before; does it follow now? */
void tui_pane_output_pause(tui_pane_t *p, int paused);
int tui_pane_output_follows(const tui_pane_t *p);
/* Aggregations pane: select aggregation i and scroll it into view. */
void tui_pane_aggs_select(tui_pane_t *p, int i);
/* Probe browser: the probe index selected (TUI_PROBE_SEL), -1 if none. */
int tui_pane_probes_selected(const tui_pane_t *p);
extern const struct tui_pane_ops tui_pane_output_ops, tui_pane_aggs_ops,
    tui_pane_bufs_ops, tui_pane_probes_ops, tui_pane_heat_ops;
/* Shared helper: clamp tp_sel/tp_top for n rows in a pane of h rows. */
void tui_pane_scroll(tui_pane_t *p, const tui_cmd_t *c, int n, int h);
/* A sparkline glyph for v out of max. */
uint32_t tui_pane_spark(uint64_t v, uint64_t max);

/* ---- layout: the whole screen (layout.c) ----------------------------- */

typedef struct tui_prompt_view {
	const char *tpv_prompt;	/* "dtui> " or "    > " */
	const char *tpv_prev;	/* earlier lines of a multi-line clause */
	const char *tpv_line;	/* the line being edited */
	int tpv_point;		/* cursor byte offset in tpv_line */
	const char *tpv_matches;	/* completion list, or NULL */
} tui_prompt_view_t;

#define TUI_NAV_ROWS 2		/* status line and tab bar above the panes */

typedef struct tui_layout {
	tui_pane_t *tl_panes[TUI_NPANES];
	int tl_focus;		/* pane index, or -1 for the prompt */
	int tl_help;		/* help overlay shown */
	int tl_confirm;		/* "quit while tracing?" shown */
	int tl_paused;		/* display paused (space) */
	int tl_cols, tl_rows;
	int tl_cur_x, tl_cur_y;	/* cursor position after drawing */
	int tl_last;		/* pane focused before the prompt */
	int tl_second;		/* wide screens: the pane beside Output */
	int tl_prompt_y;	/* row of the prompt line */
} tui_layout_t;

tui_layout_t *tui_layout_new(void);
void tui_layout_free(tui_layout_t *l);
void tui_layout_resize(tui_layout_t *l, int cols, int rows);
void tui_layout_draw(tui_layout_t *l, tui_surface_t *s, const tui_model_t *m,
    const tui_prompt_view_t *pv);
/* Where the pane area is: rows [y0, y0 + h). */
void tui_layout_area(const tui_layout_t *l, int *y0, int *h);
/* Dispatch a non-prompt key; returns TUI_* flags. */
unsigned tui_layout_key(tui_layout_t *l, uint32_t key, int mx, int my,
    tui_model_t *m);

/* ---- themes (theme.c) ---------------------------------------------------- */

typedef struct tui_style {
	int ts_fg256, ts_bg256;		/* -1 default */
	int ts_fg8, ts_bg8;		/* -1 default */
	unsigned ts_attr;		/* TUI_A_* */
} tui_style_t;
#define TUI_A_BOLD	0x1
#define TUI_A_REVERSE	0x2
#define TUI_A_UNDERLINE	0x4
#define TUI_A_DIM	0x8

typedef struct tui_theme {
	char tt_name[64];
	tui_style_t tt_roles[TUI_NROLES];
} tui_theme_t;

const char *tui_role_name(int role);
void tui_theme_default(tui_theme_t *t);
/* Monochrome fallbacks: attributes only (NO_COLOR, no colour terminal). */
void tui_theme_mono(tui_theme_t *t);
/* Parse theme text; on error returns -1 with "file:line: rule" in err. */
int tui_theme_parse(tui_theme_t *t, const char *text, const char *file,
    char *err, size_t errlen);
/* Load NAME from the theme path (NAME may be a path). */
int tui_theme_load(tui_theme_t *t, const char *name, char *err,
    size_t errlen);

/* ---- prompt (prompt.c): readline or libedit ---------------------------- */

typedef void tui_prompt_line_f(const char *line, void *arg);
typedef char **tui_prompt_complete_f(const char *text, int start, int end,
    void *arg);
int tui_prompt_init(const char *histfile, tui_prompt_line_f *cb,
    tui_prompt_complete_f *comp, void *arg);
void tui_prompt_fini(void);
/* Feed one key (tui_key); returns 1 if the key was taken. */
int tui_prompt_key(uint32_t key);
void tui_prompt_view(tui_prompt_view_t *pv);
void tui_prompt_insert(const char *text);
void tui_prompt_clear_line(void);
void tui_prompt_set_prompt(const char *prompt);
const char *tui_prompt_text(void);
void tui_prompt_clear_matches(void);
void tui_prompt_remember(const char *text);

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

/* ---- session (session.c): the engine behind the model ------------------ */

typedef struct tui_session tui_session_t;
tui_session_t *tui_session_new(tui_model_t *m, char *err, size_t errlen);
void tui_session_free(tui_session_t *s);
int tui_session_setopt(tui_session_t *s, const char *name, const char *val);
/* Compile and enable D text; starts tracing when idle.  Errors go to the
 * model's message line with file:line:col and a caret. */
int tui_session_enable(tui_session_t *s, const char *src, int probespec,
    int spec_kind);
int tui_session_enable_file(tui_session_t *s, const char *path);
/* Periodic work: consume buffers, snapshot aggregations, per-CPU state.
 * Returns milliseconds until the next deadline. */
int tui_session_tick(tui_session_t *s);
/* eng_wakefd of the session while tracing, else -1. */
int tui_session_wakefd(tui_session_t *s);
int tui_session_stop(tui_session_t *s);
/* Run a prompt command (":list", ":set bufsize=8m"...). Returns TUI_QUIT
 * when the command asks to quit. */
unsigned tui_session_command(tui_session_t *s, const char *line);
void tui_session_probes(tui_session_t *s);
void tui_session_probe_info(tui_session_t *s, int probe);
int tui_session_count(tui_session_t *s, const char *text);
const tui_vocab_t *tui_session_vocab(void);
const char *tui_session_theme_req(tui_session_t *s);

void tui_session_target(tui_session_t *s, int pid);
struct eng_proc;
int tui_session_continue(tui_session_t *s, struct eng_proc *p);
void tui_session_pause(tui_session_t *s, int paused);

/* ---- the terminal (term.c): the only file that calls curses ----------- */

/* Take the terminal: stderr goes to a temporary file until close, and
 * fatal signals restore the terminal before re-raising. */
int tui_term_open(const tui_theme_t *t, int *cols, int *rows);
void tui_term_close(void);
void tui_term_theme(const tui_theme_t *t);
int tui_term_has_colour(void);
void tui_term_draw(const tui_surface_t *s, int cur_x, int cur_y,
    int show_cursor);
/* Wait up to ms for a key; TUI_KEY_NONE on timeout.  Mouse clicks come
 * back as TUI_KEY_MOUSE with *mx, *my; resize as TUI_KEY_RESIZE.  If
 * wakefd >= 0 and becomes readable, the wait ends early (TUI_KEY_NONE):
 * the engine wants its buffers consumed now (eng_wakefd). */
uint32_t tui_term_key(int ms, int wakefd, int *mx, int *my);
void tui_term_size(int *cols, int *rows);
/* Set by SIGTERM/SIGHUP: the loop should quit cleanly. */
int tui_term_quit_requested(void);

/* Saving (save.c): output lines and aggregations as text. */
int tui_save_output(const tui_model_t *m, const char *path, char *err,
    size_t errlen);
int tui_save_aggs(const tui_model_t *m, const char *path, char *err,
    size_t errlen);

#endif /* TUI_H */
