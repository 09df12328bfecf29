/*
 * layout.c - the whole screen: status line, tab bar, the focused pane,
 * the prompt with its message lines, and the help and quit overlays.
 *
 *   row 0          status: state, enabled probes, events/s, drops, errors
 *   row 1          tabs: one per pane, the focused one highlighted
 *   rows 2..       the focused pane (tui_layout_area); from SPLIT_COLS
 *                  columns, Output on the left and the focused (or last
 *                  focused) other pane on the right
 *   ...            earlier lines of a multi-line clause
 *   prompt row     "dtui> " and the line being edited, match hint at right
 *   below it       the message (compile error with caret) or completions
 *
 * Drawing never changes the model; key handling never draws.  The layout
 * owns its panes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tui_view.h"

#define MSG_MAX 4	/* message rows under the prompt, at least: a third
			 * of the screen when the message is longer */
#define SPLIT_COLS 160	/* from this width, two panes side by side */
#define PREV_MAX 3	/* earlier clause lines shown */

tui_layout_t *tui_layout_new(void)
{
	tui_layout_t *l = tui_calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	for (int i = 0; i < TUI_NPANES; i++) {
		if ((l->tl_panes[i] = tui_pane_new(i)) == NULL) {
			tui_layout_free(l);
			return NULL;
		}
	}
	l->tl_focus = -1;
	l->tl_second = TUI_P_AGGS;
	tui_layout_resize(l, 80, 24);
	return l;
}

void tui_layout_free(tui_layout_t *l)
{
	if (l == NULL)
		return;
	for (int i = 0; i < TUI_NPANES; i++)
		tui_pane_free(l->tl_panes[i]);
	free(l);
}

void tui_layout_resize(tui_layout_t *l, int cols, int rows)
{
	l->tl_cols = cols;
	l->tl_rows = rows;
}

/* Lines in s (at least 1 for a non-empty string, 0 for NULL/""). */
static int nlines(const char *s)
{
	int n = 0;

	if (s == NULL || *s == '\0')
		return 0;
	for (n = 1; *s != '\0'; s++)
		if (*s == '\n' && s[1] != '\0')
			n++;
	return n;
}

static int below_rows(const tui_layout_t *l, const tui_model_t *m,
    const tui_prompt_view_t *pv)
{
	int n = nlines(pv && pv->tpv_matches ? pv->tpv_matches : m->tm_msg);
	int max = l->tl_rows / 3 > MSG_MAX ? l->tl_rows / 3 : MSG_MAX;

	return n > max ? max : n;
}

static int prev_rows(const tui_prompt_view_t *pv)
{
	int n = pv ? nlines(pv->tpv_prev) : 0;

	return n > PREV_MAX ? PREV_MAX : n;
}

/* The pane area for the current prompt and message sizes. */
static void area(const tui_layout_t *l, const tui_model_t *m,
    const tui_prompt_view_t *pv, int *y0, int *h)
{
	*y0 = TUI_NAV_ROWS;
	*h = l->tl_rows - TUI_NAV_ROWS - 1 - below_rows(l, m, pv) -
	    prev_rows(pv);
	if (*h < 1)
		*h = 1;
}

void tui_layout_area(const tui_layout_t *l, int *y0, int *h)
{
	*y0 = TUI_NAV_ROWS;
	*h = l->tl_prompt_y - TUI_NAV_ROWS;
	if (*h < 1)
		*h = 1;
}

static const char *state_name(enum tui_state s)
{
	return s == TUI_TRACING ? "tracing" : s == TUI_STOPPED ? "stopped" :
	    "idle";
}

static void draw_status(const tui_layout_t *l, tui_surface_t *s,
    const tui_model_t *m)
{
	char user[64] = "";

	/* pid/usdt probes: their route and what a hit costs the tracer */
	if (m->tm_uroute != NULL)
		snprintf(user, sizeof(user), "  user %s %.1fus/hit",
		    m->tm_uroute, m->tm_unsperhit / 1000.0);
	tui_surface_clip(s, 0, 0, l->tl_cols, 1);
	tui_surface_clear(s, TUI_R_STATUS);
	tui_surface_printf(s, 0, 0, TUI_R_STATUS,
	    " dtui %-7s%s probes %u  ev/s %.0f  drops %llu  errors %llu%s  "
	    "as %s", state_name(m->tm_state), l->tl_paused ? " PAUSED" : "",
	    m->tm_nenabled, m->tm_eventps, (unsigned long long)m->tm_drops,
	    (unsigned long long)m->tm_errors, user,
	    m->tm_route ? m->tm_route : "?");
}

static void draw_tabs(const tui_layout_t *l, tui_surface_t *s)
{
	int x = 0;

	tui_surface_clip(s, 0, 1, l->tl_cols, 1);
	tui_surface_clear(s, TUI_R_TAB);
	for (int i = 0; i < TUI_NPANES; i++) {
		int sel = i == l->tl_focus || (l->tl_focus < 0 &&
		    i == l->tl_last);

		x += tui_surface_printf(s, x, 0, sel ? TUI_R_TAB_SEL : TUI_R_TAB,
		    sel ? "[%d %s]" : " %d %s ", i + 1,
		    l->tl_panes[i]->tp_ops->name);
	}
	if (l->tl_focus < 0)
		tui_surface_puts(s, x + 1, 0, TUI_R_TAB, "(prompt: Esc leaves)");
}

/* Draw up to max lines of text from row y in the given role. */
static void draw_lines(tui_surface_t *s, int y, int max, const char *t,
    int role)
{
	for (int i = 0; i < max && t != NULL && *t != '\0'; i++) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);

		tui_surface_putn(s, 0, y + i, role, t, n);
		t = nl ? nl + 1 : t + n;
	}
}

/* draw_lines, and when the text has more lines than fit, the last row
 * says how many are not shown. */
static void draw_cut(tui_surface_t *s, int y, int max, const char *t,
    int role)
{
	int n = nlines(t);

	if (n <= max || max < 2) {
		draw_lines(s, y, max, t, role);
		return;
	}
	draw_lines(s, y, max - 1, t, role);
	tui_surface_printf(s, 0, y + max - 1, TUI_R_DIM, "... %d more line%s",
	    n - max + 1, n - max + 1 == 1 ? "" : "s");
}

static void draw_prompt(tui_layout_t *l, tui_surface_t *s,
    const tui_model_t *m, const tui_prompt_view_t *pv)
{
	int np = prev_rows(pv), y = l->tl_prompt_y, x;
	int nb = below_rows(l, m, pv);
	const char *prev = pv->tpv_prev;

	tui_surface_clip(s, 0, y - np, l->tl_cols, np + 1 + nb);
	tui_surface_clear(s, TUI_R_NORMAL);
	/* show the last PREV_MAX lines of the clause so far */
	for (int skip = nlines(prev) - np; skip > 0 && prev != NULL; skip--)
		prev = strchr(prev, '\n') + 1;
	draw_lines(s, 0, np, prev, TUI_R_NORMAL);
	x = tui_surface_puts(s, 0, np, TUI_R_PROMPT, pv->tpv_prompt);
	/* scroll the line horizontally so the cursor stays visible (on a
	 * screen too narrow for the prompt, the cursor's cell is all) */
	int room = l->tl_cols - x - 12 > 0 ? l->tl_cols - x - 12 : 0;
	int off = pv->tpv_point > room ? pv->tpv_point - room : 0;
	tui_surface_puts(s, x, np, TUI_R_NORMAL, pv->tpv_line + off);
	l->tl_cur_x = x + pv->tpv_point - off;
	l->tl_cur_y = y;
	if (m->tm_hint >= 0)
		tui_surface_printf(s, l->tl_cols - 12, np, TUI_R_DIM,
		    "%7d prb", m->tm_hint);
	if (pv->tpv_matches != NULL)
		draw_cut(s, np + 1, nb, pv->tpv_matches, TUI_R_HELP);
	else
		draw_cut(s, np + 1, nb, m->tm_msg,
		    m->tm_msg_err ? TUI_R_ERROR : TUI_R_DIM);
}

static void draw_help(const tui_layout_t *l, tui_surface_t *s)
{
	static const char *const cmds[] = {
		":list  :disable N  :remove N  :set opt=val  :theme NAME",
		":clear [@a]  :trunc @a [n]  :save output|aggs FILE",
		":stop  :restart (after a stop)  :help  :quit",
	};
	const char *keys, *what;
	int w = l->tl_cols < 64 ? l->tl_cols : 64, h = l->tl_rows - 2, y = 0;

	tui_surface_clip(s, (l->tl_cols - w) / 2, 1, w, h);
	tui_surface_clear(s, TUI_R_HELP);
	tui_surface_puts(s, 1, y++, TUI_R_TITLE, "dtui keys (any key closes)");
	for (int i = 0; (keys = tui_keys_help(i, &what)) != NULL && y < h - 3;
	    i++)
		tui_surface_printf(s, 1, y++, TUI_R_HELP, "%-13s %s", keys, what);
	tui_surface_puts(s, 1, y++, TUI_R_TITLE, "at the prompt (Tab completes)");
	for (int i = 0; i < 3 && y < h; i++)
		tui_surface_puts(s, 1, y++, TUI_R_HELP, cmds[i]);
}

/* The panes shown and their columns: one, or on wide screens Output on
 * the left and the focused (or last focused) other pane on the right. */
static int shown(const tui_layout_t *l, int idx[2], int x[2], int w[2])
{
	int cur = l->tl_focus >= 0 ? l->tl_focus : l->tl_last;

	if (l->tl_cols < SPLIT_COLS) {
		idx[0] = cur;
		x[0] = 0;
		w[0] = l->tl_cols;
		return 1;
	}
	idx[0] = TUI_P_OUTPUT;
	idx[1] = cur != TUI_P_OUTPUT ? cur : l->tl_second;
	x[0] = 0;
	w[0] = l->tl_cols / 2;
	x[1] = w[0] + 1;		/* a separator column between */
	w[1] = l->tl_cols - x[1];
	return 2;
}

static void draw_panes(tui_layout_t *l, tui_surface_t *s,
    const tui_model_t *m, int y0, int h)
{
	int idx[2], x[2], w[2], n = shown(l, idx, x, w);

	tui_surface_clip(s, 0, y0, l->tl_cols, h);
	tui_surface_clear(s, TUI_R_NORMAL);
	for (int i = 0; i < n; i++) {
		tui_pane_t *p = l->tl_panes[idx[i]];

		tui_surface_clip(s, x[i], y0, w[i], h);
		tui_pane_resize(p, w[i], h);
		p->tp_ops->draw(p, s, m);
	}
	if (n == 2) {
		tui_surface_clip(s, x[1] - 1, y0, 1, h);
		for (int y = 0; y < h; y++)
			tui_surface_putc(s, 0, y, TUI_R_DIM, 0x2502);
	}
}

void tui_layout_draw(tui_layout_t *l, tui_surface_t *s, const tui_model_t *m,
    const tui_prompt_view_t *pv)
{
	tui_prompt_view_t none = { "dtui> ", NULL, "", 0, NULL };
	int y0, h;

	if (pv == NULL)
		pv = &none;
	area(l, m, pv, &y0, &h);
	l->tl_prompt_y = y0 + h + prev_rows(pv);
	tui_surface_clip(s, 0, 0, s->ts_cols, s->ts_rows);
	draw_status(l, s, m);
	draw_tabs(l, s);
	draw_panes(l, s, m, y0, h);
	draw_prompt(l, s, m, pv);
	if (l->tl_help)
		draw_help(l, s);
	if (l->tl_confirm) {
		tui_surface_clip(s, 0, l->tl_prompt_y, l->tl_cols, 1);
		tui_surface_clear(s, TUI_R_WARN);
		tui_surface_puts(s, 0, 0, TUI_R_WARN,
		    "Tracing is running. Quit dtui? (y/n)");
	}
	tui_surface_clip(s, 0, 0, s->ts_cols, s->ts_rows);
}

static unsigned focus(tui_layout_t *l, int i)
{
	if (l->tl_focus >= 0)
		l->tl_last = l->tl_focus;
	l->tl_focus = i;
	if (i >= 0)
		l->tl_last = i;
	if (i >= 0 && i != TUI_P_OUTPUT)
		l->tl_second = i;
	return TUI_HANDLED | TUI_REDRAW;
}

static unsigned click(tui_layout_t *l, int mx, int my, tui_model_t *m)
{
	int y0, h;

	tui_layout_area(l, &y0, &h);
	if (my == 1) {
		int x = 0;

		for (int i = 0; i < TUI_NPANES; i++) {
			x += (int)strlen(l->tl_panes[i]->tp_ops->name) + 4;
			if (mx < x)
				return focus(l, i);
		}
		return TUI_HANDLED;
	}
	if (my >= y0 && my < y0 + h) {
		int idx[2], x[2], w[2], k = shown(l, idx, x, w) - 1;
		tui_cmd_t c = { TUI_C_CLICK, TUI_KEY_MOUSE, 0, my - y0 };
		tui_pane_t *p;

		while (k > 0 && mx < x[k])
			k--;
		c.tc_x = mx - x[k];
		p = l->tl_panes[idx[k]];
		focus(l, idx[k]);
		return p->tp_ops->handle(p, &c, m) | TUI_REDRAW;
	}
	if (my >= l->tl_prompt_y)
		return focus(l, -1);
	return TUI_HANDLED;
}

/* Space: freeze the display.  The output pane stops following (and
 * follows again as before when resumed); the session stops taking
 * aggregation snapshots (main.c), while data keeps being collected. */
static void pause(tui_layout_t *l)
{
	l->tl_paused = !l->tl_paused;
	tui_pane_output_pause(l->tl_panes[TUI_P_OUTPUT], l->tl_paused);
}

static unsigned global(tui_layout_t *l, const tui_cmd_t *c, tui_model_t *m)
{
	switch (c->tc_kind) {
	case TUI_C_HELP:
		l->tl_help = 1;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_NEXT_PANE:
		return focus(l, l->tl_focus < 0 ? l->tl_last :
		    (l->tl_focus + 1) % TUI_NPANES);
	case TUI_C_PREV_PANE:
		return focus(l, l->tl_focus <= 0 ? TUI_NPANES - 1 :
		    l->tl_focus - 1);
	case TUI_C_PROMPT:
		return focus(l, -1);
	case TUI_C_ESC:
		return l->tl_focus < 0 ? focus(l, l->tl_last) : TUI_HANDLED;
	case TUI_C_PAUSE:
		pause(l);
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_STOP:
		return TUI_HANDLED | TUI_STOP | TUI_REDRAW;
	case TUI_C_QUIT:
		if (m->tm_state != TUI_TRACING)
			return TUI_QUIT;
		l->tl_confirm = 1;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_RESIZE:
		return TUI_HANDLED | TUI_REDRAW;
	default:
		if (c->tc_key >= '1' && c->tc_key < '1' + TUI_NPANES)
			return focus(l, (int)(c->tc_key - '1'));
		return 0;
	}
}

/*
 * A key for the panes (the prompt takes its keys first, in main.c).  The
 * overlays take any key; a pane typing a search gets printable keys as
 * text; otherwise the focused pane sees the command before the global
 * bindings, so panes may override them.
 */
unsigned tui_layout_key(tui_layout_t *l, uint32_t key, int mx, int my,
    tui_model_t *m)
{
	tui_cmd_t c = tui_keys_decode(key);
	tui_pane_t *p = l->tl_panes[l->tl_focus >= 0 ? l->tl_focus : l->tl_last];
	unsigned r;

	if (l->tl_confirm) {
		l->tl_confirm = 0;
		return key == 'y' || key == 'Y' ? TUI_QUIT : TUI_REDRAW;
	}
	if (l->tl_help) {
		l->tl_help = c.tc_kind == TUI_C_RESIZE;
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (c.tc_kind == TUI_C_CLICK)
		return click(l, mx, my, m);
	if (l->tl_focus >= 0 && p->tp_searching && key >= ' ' &&
	    key < TUI_KEY_UP)
		c.tc_kind = TUI_C_CHAR;
	if (l->tl_focus >= 0 && (r = p->tp_ops->handle(p, &c, m)) != 0)
		return r;
	return global(l, &c, m);
}
