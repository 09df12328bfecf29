/*
 * tui_view.h - the TUI's view: roles, the surface (an in-memory grid of
 * cells) that panes draw the model into, key decoding into commands,
 * pane kinds, the layout of the whole screen, themes.  Panes handle
 * commands and return TUI_* flags; nothing here calls curses (the
 * terminal is tui_term.h), and the engine only for its fixed names
 * (pane_aggs.c: eng_d_actname).
 */
#ifndef TUI_VIEW_H
#define TUI_VIEW_H

#include "tui_model.h"

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

/* ---- histograms drawn (hist_draw.c) ----------------------------------- */

/* Draw entry e of a histogram into the surface clip at row y, at most
 * h rows; returns rows used.  delta: per-interval counts. */
int tui_hist_draw(tui_surface_t *s, int y, int h, const tui_aggent_t *e,
    int delta);

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
		 TUI_P_HEAT, TUI_P_ENABS, TUI_NPANES };

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
/* Probe browser: the probe index selected (TUI_PROBE_SEL), -1 if none;
 * the line it shows about it (the session's tui_session_probe_info). */
int tui_pane_probes_selected(const tui_pane_t *p);
void tui_pane_probes_info(tui_pane_t *p, const char *text);
extern const struct tui_pane_ops tui_pane_output_ops, tui_pane_aggs_ops,
    tui_pane_bufs_ops, tui_pane_probes_ops, tui_pane_heat_ops,
    tui_pane_enabs_ops;
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

#endif /* TUI_VIEW_H */
