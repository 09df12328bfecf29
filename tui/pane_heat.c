/*
 * pane_heat.c - the heatmap: for the chosen histogram aggregation and key
 * (tui_heat_choose), buckets down the side and time across, one column
 * per refresh with the newest on the right.  Intensity is log-scaled to
 * the largest count shown, drawn with shade glyphs in three roles.  In a
 * replay the newest column is the time cursor's, and [ ] { } scrub it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tui_view.h"

static void cell(tui_surface_t *s, int x, int y, int64_t v, int64_t max)
{
	static const uint32_t g[] = { 0x2591, 0x2592, 0x2593, 0x2588 };
	double f;
	int i;

	if (v <= 0 || max <= 0) {
		tui_surface_putc(s, x, y, TUI_R_DIM, ' ');
		return;
	}
	f = log((double)v + 1) / log((double)max + 1);
	i = (int)(f * 3.999);
	tui_surface_putc(s, x, y, i < 1 ? TUI_R_HEAT_LO : i < 3 ?
	    TUI_R_HEAT_MID : TUI_R_HEAT_HI, g[i]);
}

static void heat_draw(tui_pane_t *p, tui_surface_t *s, const tui_model_t *m)
{
	const tui_heat_t *h = &m->tm_heat;
	int w = s->ts_w - 12, ncol, lo = -1, hi = -1, rows;
	int64_t max = 0;

	if (h->th_agg == NULL) {
		tui_surface_puts(s, 0, 0, TUI_R_DIM, "(no heatmap: select a "
		    "histogram in Aggregations and press H)");
		return;
	}
	ncol = w < h->th_ncols ? w : h->th_ncols;
	for (int c = 0; c < ncol; c++)
		for (int b = 0; b < h->th_nbuckets; b++) {
			int64_t v = tui_heat_at(h, c, b);

			if (v > 0) {
				lo = lo < 0 || b < lo ? b : lo;
				hi = b > hi ? b : hi;
				max = v > max ? v : max;
			}
		}
	/* the scale: what the darkest cell stands for */
	tui_surface_printf(s, 0, 0, TUI_R_TITLE, "@%s %s  %d refresh%s, "
	    "newest right at %.3f s; darkest = %lld per refresh",
	    h->th_agg, h->th_key, h->th_ncols, h->th_ncols == 1 ? "" : "es",
	    tui_heat_time(h, 0) > 0 ? tui_heat_time(h, 0) : 0.0,
	    (long long)max);
	if (lo < 0)
		return;
	rows = s->ts_h - 1;
	if (hi - lo + 1 > rows)
		lo = hi - rows + 1;
	for (int b = hi, y = 1; b >= lo; b--, y++) {
		tui_surface_printf(s, 0, y, TUI_R_KEY, "%11s ",
		    h->th_labels[b]);
		for (int c = 0; c < ncol; c++)
			cell(s, 12 + w - 1 - c, y, tui_heat_at(h, c, b), max);
	}
}

/*
 * Scrubbing a replay's time cursor: [ and { move it back one and ten
 * columns (to the time the column was taken: the heatmap is rebuilt up
 * to there; a heatmap chosen after the cursor moved has no columns of
 * the past yet, and [ first rebuilds them at the cursor), ] and } on one
 * and ten ticks, through the prompt's :jump and :step (a live session
 * answers that they need a replay).
 */
static unsigned scrub(tui_pane_t *p, const tui_cmd_t *c, tui_model_t *m)
{
	const tui_heat_t *h = &m->tm_heat;
	int back = c->tc_key == '[' ? 1 : 10;

	if (c->tc_key == ']' || c->tc_key == '}') {
		snprintf(p->tp_action, sizeof(p->tp_action), ":step %d",
		    c->tc_key == ']' ? 1 : 10);
		return TUI_HANDLED | TUI_ACTION | TUI_REDRAW;
	}
	if (h->th_ncols < 2) {		/* chosen since: rebuild its past */
		snprintf(p->tp_action, sizeof(p->tp_action), ":jump %.9f",
		    m->tm_now);
		return TUI_HANDLED | TUI_ACTION | TUI_REDRAW;
	}
	if (back > h->th_ncols - 1)
		back = h->th_ncols - 1;
	snprintf(p->tp_action, sizeof(p->tp_action), ":jump %.9f",
	    tui_heat_time(h, back));
	return TUI_HANDLED | TUI_ACTION | TUI_REDRAW;
}

/* Left/Right: follow the previous/next key of the same aggregation. */
static unsigned heat_handle(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	tui_heat_t *h = &m->tm_heat;
	tui_agg_t *a;
	char agg[128], key[512];
	int k = 0, d = c->tc_kind == TUI_C_RIGHT ? 1 : -1;

	if (c->tc_kind == TUI_C_CHAR && strchr("[]{}", (int)c->tc_key) &&
	    c->tc_key != 0)
		return scrub(p, c, m);
	if ((c->tc_kind != TUI_C_LEFT && c->tc_kind != TUI_C_RIGHT) ||
	    h->th_agg == NULL || (a = tui_model_agg_find(m, h->th_agg)) == NULL ||
	    a->tag_nents == 0)
		return 0;
	while (k < a->tag_nents && strcmp(a->tag_ents[k].ta_key, h->th_key))
		k++;
	k = ((k < a->tag_nents ? k : 0) + d + a->tag_nents) % a->tag_nents;
	snprintf(agg, sizeof(agg), "%s", h->th_agg);
	snprintf(key, sizeof(key), "%s", a->tag_ents[k].ta_key);
	tui_heat_choose(m, agg, key);
	return TUI_HANDLED | TUI_REDRAW;
}

/* No state of its own: the base pane is all it needs. */
const struct tui_pane_ops tui_pane_heat_ops = {
	.name = "Heatmap",
	.size = sizeof(tui_pane_t),
	.draw = heat_draw,
	.handle = heat_handle,
};
