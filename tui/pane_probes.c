/*
 * pane_probes.c - the probe browser: the probe tree (probes.c) with
 * counts, a glob filter typed after '/', the argument types of the
 * selected probe, and Enter to insert a clause template at the prompt.
 *
 * Row 0 shows the filter; rows 1..h-4 the tree (tp_sel is a tree row);
 * the last two rows the selected probe's argument types (info, which
 * main.c asks the session for when TUI_PROBE_SEL is returned).
 */
#include <stdio.h>
#include <string.h>
#include "tui_view.h"

#define INFO_ROWS 2

typedef struct probes {
	tui_pane_t super;
	int selprobe;		/* probe index selected, -1 */
	char info[1024];	/* what the session says about it */
} probes_t;

static int tree_rows(const tui_surface_t *s)
{
	return s->ts_h - 1 - INFO_ROWS;
}

static void draw_row(tui_surface_t *s, int y, const tui_probes_t *pr,
    int r, int sel, int w)
{
	const tui_prow_t *row = &pr->tp_rows[r];
	const tui_probe_t *p = &pr->tp_probes[row->tpr_first];
	const char *txt[4] = { p->tp_prov, p->tp_mod, p->tp_func, p->tp_name };
	int role = sel ? TUI_R_SELECT : TUI_R_NORMAL;
	int x = row->tpr_depth * 2;

	if (sel)
		tui_surface_fill(s, 0, y, w, role, ' ');
	if (row->tpr_depth < 3) {
		int open = r + 1 < pr->tp_nrows &&
		    pr->tp_rows[r + 1].tpr_depth > row->tpr_depth;

		tui_surface_putc(s, x, y, role, open ? '-' : '+');
		x += 2;
		x += tui_surface_puts(s, x, y, role,
		    txt[row->tpr_depth][0] ? txt[row->tpr_depth] : "(none)");
		tui_surface_printf(s, x + 1, y, sel ? role : TUI_R_COUNT,
		    "(%d)", row->tpr_count);
	} else {
		tui_surface_printf(s, x + 2, y, role, "%s", p->tp_name);
		if (p->tp_id != 0)
			tui_surface_printf(s, w - 8, y, sel ? role : TUI_R_DIM,
			    "%7u", p->tp_id);
		else			/* a usdt probe not made yet */
			tui_surface_printf(s, w - 8, y, sel ? role : TUI_R_DIM,
			    "%7s", "-");
	}
}

static void probes_draw(tui_pane_t *p, tui_surface_t *s,
    const tui_model_t *m)
{
	const tui_probes_t *pr = &m->tm_probes;
	int h = tree_rows(s);

	int fw = s->ts_w - 24 - 9 - 1, fl = (int)strlen(pr->tp_filter);

	if (fw < 1)
		fw = 1;
	/* a filter longer than its room shows its end, where one types */
	tui_surface_printf(s, 0, 0, p->tp_searching ? TUI_R_PROMPT :
	    TUI_R_TITLE, "filter: %s%s", pr->tp_filter + (fl > fw ? fl - fw :
	    0), p->tp_searching ? "_" : "");
	tui_surface_fill(s, s->ts_w - 24, 0, 24, TUI_R_DIM, ' ');
	tui_surface_printf(s, s->ts_w - 24, 0, TUI_R_DIM, "%10d of %d",
	    pr->tp_nmatch, pr->tp_n);
	if (p->tp_sel >= pr->tp_nrows)
		p->tp_sel = pr->tp_nrows > 0 ? pr->tp_nrows - 1 : 0;
	if (p->tp_top > p->tp_sel)
		p->tp_top = p->tp_sel;
	if (p->tp_sel >= p->tp_top + h)
		p->tp_top = p->tp_sel - h + 1;
	for (int y = 0; y < h && p->tp_top + y < pr->tp_nrows; y++)
		draw_row(s, y + 1, pr, p->tp_top + y,
		    p->tp_top + y == p->tp_sel, s->ts_w);
	if (pr->tp_n == 0)
		tui_surface_puts(s, 0, 1, TUI_R_DIM, "(no probes)");
	tui_surface_fill(s, 0, s->ts_h - INFO_ROWS, s->ts_w, TUI_R_DIM, 0x2500);
	tui_surface_puts(s, 0, s->ts_h - 1, TUI_R_NORMAL,
	    ((const probes_t *)p)->info);
}

/* The clause template for row r: "desc\n{\n}" goes at the prompt. */
static unsigned insert(tui_pane_t *p, tui_model_t *m)
{
	char desc[400];

	if (m->tm_probes.tp_nrows == 0)
		return TUI_HANDLED;
	tui_probes_desc(&m->tm_probes, p->tp_sel, desc, sizeof(desc));
	snprintf(p->tp_insert, sizeof(p->tp_insert), "%s { }", desc);
	return TUI_HANDLED | TUI_INSERT | TUI_TO_PROMPT | TUI_REDRAW;
}

static unsigned filter_key(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	tui_probes_t *pr = &m->tm_probes;
	char f[sizeof(pr->tp_filter)];
	size_t n;

	snprintf(f, sizeof(f), "%s", pr->tp_filter);
	n = strlen(f);
	switch (c->tc_kind) {
	case TUI_C_ESC:		/* abandons the filter */
		p->tp_searching = 0;
		f[0] = '\0';
		break;
	case TUI_C_ENTER:
	case TUI_C_DOWN:
		p->tp_searching = 0;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_BACKSPACE:
		if (n == 0)
			return TUI_HANDLED;
		f[n - 1] = '\0';
		break;
	default:
		if (c->tc_key == TUI_CTRL('u')) {
			f[0] = '\0';
			break;
		}
		if (c->tc_key < ' ' || c->tc_key >= 0x7f || n + 1 >= sizeof(f))
			return TUI_HANDLED;
		f[n] = (char)c->tc_key;
		f[n + 1] = '\0';
	}
	tui_probes_filter(pr, f);
	p->tp_sel = p->tp_top = 0;
	return TUI_HANDLED | TUI_REDRAW | TUI_PROBE_SEL;
}

static unsigned probes_handle(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	probes_t *pb = (probes_t *)p;
	tui_probes_t *pr = &m->tm_probes;
	const tui_prow_t *row;

	if (p->tp_searching)
		return filter_key(p, c, m);
	row = p->tp_sel < pr->tp_nrows ? &pr->tp_rows[p->tp_sel] : NULL;
	switch (c->tc_kind) {
	case TUI_C_SEARCH:	/* a new filter, as / in less */
		p->tp_searching = 1;
		tui_probes_filter(pr, "");
		p->tp_sel = p->tp_top = 0;
		return TUI_HANDLED | TUI_REDRAW | TUI_PROBE_SEL;
	case TUI_C_ENTER:
		return insert(p, m);
	case TUI_C_RIGHT:
	case TUI_C_LEFT:
		if (row != NULL && row->tpr_depth < 3) {
			int open = p->tp_sel + 1 < pr->tp_nrows &&
			    pr->tp_rows[p->tp_sel + 1].tpr_depth >
			    row->tpr_depth;

			if (open != (c->tc_kind == TUI_C_RIGHT))
				tui_probes_toggle(pr, p->tp_sel);
		}
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_CLICK:
		p->tp_sel = p->tp_top + c->tc_y - 1;
		/* FALLTHROUGH */
	case TUI_C_UP: case TUI_C_DOWN: case TUI_C_PGUP: case TUI_C_PGDN:
	case TUI_C_HOME: case TUI_C_END:
		tui_pane_scroll(p, c, pr->tp_nrows, p->tp_rows - 1 - INFO_ROWS);
		if (p->tp_sel < pr->tp_nrows)
			pb->selprobe = pr->tp_rows[p->tp_sel].tpr_first;
		return TUI_HANDLED | TUI_REDRAW | TUI_PROBE_SEL;
	default:
		return 0;
	}
}

static void probes_init(tui_pane_t *p)
{
	((probes_t *)p)->selprobe = -1;
}

int tui_pane_probes_selected(const tui_pane_t *p)
{
	return ((const probes_t *)p)->selprobe;
}

void tui_pane_probes_info(tui_pane_t *p, const char *text)
{
	probes_t *pb = (probes_t *)p;

	snprintf(pb->info, sizeof(pb->info), "%s", text);
}

const struct tui_pane_ops tui_pane_probes_ops = {
	.name = "Probes",
	.size = sizeof(probes_t),
	.init = probes_init,
	.draw = probes_draw,
	.handle = probes_handle,
};
