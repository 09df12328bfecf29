/*
 * pane_output.c - the output pane: trace output with the CPU each record
 * came from, scrollback, search and follow.
 *
 * tp_top is the first line shown (index into the model's ring, oldest 0);
 * with follow set it tracks the newest line.  Search ('/') types into
 * search; Enter or 'n' moves to the previous line containing it, and
 * matches are drawn in the match role.
 */
#include <string.h>
#include "tui_view.h"

typedef struct output {
	tui_pane_t super;
	int follow;		/* keep the newest line in view */
	int resume;		/* follow again when the pause ends */
	char search[128];	/* search text (typed while tp_searching) */
} output_t;

static void draw_line(tui_surface_t *s, int y, const tui_line_t *l,
    const char *search)
{
	const char *t = l->tl_text, *hit;
	int x = 0;

	if (t[0] == '\0')	/* dtrace's blank separator lines stay blank */
		return;
	if (l->tl_cpu >= 0)
		tui_surface_printf(s, 0, y, TUI_R_CPU, "%3d ", l->tl_cpu);
	else
		tui_surface_puts(s, 0, y, TUI_R_DIM, "  - ");
	x = 4;
	while (search[0] != '\0' && (hit = strstr(t, search)) != NULL) {
		x += tui_surface_putn(s, x, y, TUI_R_OUTPUT, t, hit - t);
		x += tui_surface_putn(s, x, y, TUI_R_MATCH, hit, strlen(search));
		t = hit + strlen(search);
	}
	tui_surface_puts(s, x, y, TUI_R_OUTPUT, t);
}

static void output_draw(tui_pane_t *p, tui_surface_t *s,
    const tui_model_t *m)
{
	output_t *o = (output_t *)p;
	int h = s->ts_h, n = m->tm_nlines;

	if (o->follow || p->tp_top > n - 1)
		p->tp_top = n > h ? n - h : 0;
	for (int y = 0; y < h; y++) {
		const tui_line_t *l = tui_model_line(m, p->tp_top + y);

		if (l == NULL)
			break;
		draw_line(s, y, l, o->search);
	}
	if (p->tp_searching) {		/* the search line, not a mix */
		tui_surface_fill(s, 0, h - 1, s->ts_w, TUI_R_PROMPT, ' ');
		tui_surface_printf(s, 0, h - 1, TUI_R_PROMPT, "/%s",
		    o->search);
	} else if (!o->follow && p->tp_top + h < n && h > 1) {
		/* scrolled back: say that more is below and how to follow */
		tui_surface_fill(s, 0, h - 1, s->ts_w, TUI_R_DIM, ' ');
		tui_surface_printf(s, 0, h - 1, TUI_R_DIM, "-- %d more "
		    "line%s below: End or f follows --", n - p->tp_top - h + 1,
		    n - p->tp_top - h + 1 == 1 ? "" : "s");
	}
	else if (n == 0)
		tui_surface_puts(s, 0, 0, TUI_R_DIM,
		    "(no output yet: type a clause at the prompt, ? for help)");
}

/* Scroll back from the line before the top to one containing the search. */
static void find_prev(tui_pane_t *p, const tui_model_t *m)
{
	output_t *o = (output_t *)p;

	for (int i = p->tp_top - 1; i >= 0; i--) {
		const tui_line_t *l = tui_model_line(m, i);

		if (l != NULL && strstr(l->tl_text, o->search) != NULL) {
			p->tp_top = i;
			o->follow = 0;
			return;
		}
	}
}

static unsigned search_key(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	output_t *o = (output_t *)p;
	size_t n = strlen(o->search);

	switch (c->tc_kind) {
	case TUI_C_ESC:
		o->search[0] = '\0';
		p->tp_searching = 0;
		break;
	case TUI_C_ENTER:
		p->tp_searching = 0;
		if (o->search[0] != '\0')
			find_prev(p, m);
		break;
	case TUI_C_BACKSPACE:
		if (n > 0)
			o->search[n - 1] = '\0';
		break;
	default:
		if (c->tc_key >= ' ' && c->tc_key < 0x7f &&
		    n + 1 < sizeof(o->search)) {
			o->search[n] = (char)c->tc_key;
			o->search[n + 1] = '\0';
		}
	}
	return TUI_HANDLED | TUI_REDRAW;
}

static unsigned output_handle(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	output_t *o = (output_t *)p;
	int h = p->tp_rows, n = m->tm_nlines, max = n > h ? n - h : 0;

	if (p->tp_searching)
		return search_key(p, c, m);
	switch (c->tc_kind) {
	case TUI_C_UP: p->tp_top--; break;
	case TUI_C_DOWN: p->tp_top++; break;
	case TUI_C_PGUP: p->tp_top -= h; break;
	case TUI_C_PGDN: p->tp_top += h; break;
	case TUI_C_HOME: p->tp_top = 0; break;
	case TUI_C_END: p->tp_top = max; break;
	case TUI_C_FOLLOW: o->follow = !o->follow; return TUI_REDRAW;
	case TUI_C_SEARCH:
		p->tp_searching = 1;
		o->search[0] = '\0';
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_SEARCH_NEXT:
		find_prev(p, m);
		return TUI_HANDLED | TUI_REDRAW;
	default:
		return 0;
	}
	if (p->tp_top > max)
		p->tp_top = max;
	if (p->tp_top < 0)
		p->tp_top = 0;
	o->follow = p->tp_top == max;
	return TUI_HANDLED | TUI_REDRAW;
}

static void output_init(tui_pane_t *p)
{
	((output_t *)p)->follow = 1;
}

void tui_pane_output_pause(tui_pane_t *p, int paused)
{
	output_t *o = (output_t *)p;

	if (paused) {
		o->resume = o->follow;
		o->follow = 0;
	} else {
		o->follow = o->resume;
	}
}

int tui_pane_output_follows(const tui_pane_t *p)
{
	return ((const output_t *)p)->follow;
}

const struct tui_pane_ops tui_pane_output_ops = {
	.name = "Output",
	.size = sizeof(output_t),
	.init = output_init,
	.draw = output_draw,
	.handle = output_handle,
};
