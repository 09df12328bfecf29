/*
 * pane_aggs.c - the aggregations pane: every aggregation of the last
 * snapshot, keyed tables and histograms, scrolled as one virtual list.
 *
 * Rows are counted in a virtual space starting at tp_top; blocks above
 * the top are drawn at negative rows, which the surface clips, so
 * scrolling never has to split a histogram by hand.  tp_sel is the
 * selected aggregation (Left/Right); aggs_t has the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "tui_view.h"
#include "dtrace_abi.h"

#define NAGGROW 64		/* aggregations whose rows a click finds */

typedef struct aggs {
	tui_pane_t super;
	int sort;		/* 0 printa order, 1 by key, 2 by value
				 * (descending) */
	int cumul;		/* 1: per-interval values */
	int zoom;		/* show only the selected aggregation */
	int showsel;		/* scroll the selection into view */
	int aggrow[NAGGROW];	/* title row of each as drawn, -1 */
} aggs_t;

/* The aggregating function's D name, as the engine knows it. */
static const char *func_name(int f)
{
	const char *n = eng_d_actname((uint32_t)f);

	return n != NULL ? n : "?";
}

static int64_t shown_value(const tui_aggent_t *e, int delta)
{
	return delta ? e->ta_value - e->ta_prev : e->ta_value;
}

static const tui_aggent_t *sort_ents;
static int sort_delta;

static int by_key(const void *a, const void *b)
{
	return strcmp(sort_ents[*(const int *)a].ta_key,
	    sort_ents[*(const int *)b].ta_key);
}

static int by_value(const void *a, const void *b)
{
	int64_t x = shown_value(&sort_ents[*(const int *)a], sort_delta);
	int64_t y = shown_value(&sort_ents[*(const int *)b], sort_delta);

	return x < y ? 1 : x > y ? -1 : by_key(a, b);
}

/* Entry order for drawing: an index array, malloc'd (NULL: as given). */
static int *order(const tui_pane_t *p, const tui_agg_t *a)
{
	const aggs_t *pa = (const aggs_t *)p;
	int *ix;

	if (pa->sort == 0 || a->tag_nents < 2)
		return NULL;
	if ((ix = tui_malloc(a->tag_nents * sizeof(*ix))) == NULL)
		return NULL;
	for (int i = 0; i < a->tag_nents; i++)
		ix[i] = i;
	sort_ents = a->tag_ents;
	sort_delta = pa->cumul;
	qsort(ix, a->tag_nents, sizeof(*ix), pa->sort == 1 ? by_key :
	    by_value);
	return ix;
}

static int hist_rows(const tui_aggent_t *e, int delta)
{
	int64_t c[512];
	int n = e->ta_nbuckets < 512 ? e->ta_nbuckets : 512, lo, hi;

	for (int i = 0; i < n; i++)
		c[i] = e->ta_buckets[i] - (delta ? e->ta_pbuckets[i] : 0);
	tui_hist_trim(c, n, &lo, &hi);
	return hi - lo + 2;
}

/* Draw aggregation a from virtual row y; returns rows used. */
static int draw_agg(const tui_pane_t *p, tui_surface_t *s, int y,
    const tui_agg_t *a, int selected)
{
	const aggs_t *pa = (const aggs_t *)p;
	int *ix = order(p, a), y0 = y;
	int hist = tui_is_hist(a->tag_func);

	tui_surface_fill(s, 0, y, s->ts_w, selected ? TUI_R_SELECT :
	    TUI_R_TITLE, ' ');
	tui_surface_printf(s, 0, y++, selected ? TUI_R_SELECT : TUI_R_TITLE,
	    "%s@%s  %s  %d entr%s%s%s", selected ? ">" : " ", a->tag_name,
	    func_name(a->tag_func), a->tag_nents, a->tag_nents == 1 ? "y" :
	    "ies", pa->cumul ? "  (per interval)" : "", hist ? "" :
	    pa->sort == 1 ? "  sorted by key" : pa->sort == 2 ?
	    "  sorted by value" : "");
	for (int k = 0; k < a->tag_nents && y < s->ts_h; k++) {
		const tui_aggent_t *e = &a->tag_ents[ix ? ix[k] : k];

		if (!hist) {
			if (y >= 0) {
				int w = s->ts_w - 22;

				tui_surface_printf(s, 2, y, TUI_R_KEY, "%-*.*s",
				    w > 0 ? w : 0, w > 0 ? w : 0, e->ta_key);
				tui_surface_printf(s, s->ts_w - 20, y,
				    TUI_R_COUNT, "%20lld",
				    (long long)shown_value(e, pa->cumul));
			}
			y++;
			continue;
		}
		if (e->ta_key[0] != '\0')
			tui_surface_printf(s, 2, y++, TUI_R_KEY, "%s",
			    e->ta_key);
		if (y + hist_rows(e, pa->cumul) <= 0) {	/* above the top */
			y += hist_rows(e, pa->cumul) + (k + 1 < a->tag_nents);
			continue;
		}
		y += tui_hist_draw(s, y, s->ts_h - y, e, pa->cumul);
		y += k + 1 < a->tag_nents;	/* a gap between entries */
	}
	free(ix);
	return y - y0;
}

/* Rows aggregation a takes when drawn (draw_agg and the gap after it). */
static int agg_rows(const tui_pane_t *p, const tui_agg_t *a)
{
	const aggs_t *pa = (const aggs_t *)p;
	int n = 2;

	if (!tui_is_hist(a->tag_func))
		return n + a->tag_nents;
	for (int k = 0; k < a->tag_nents; k++)
		n += (a->tag_ents[k].ta_key[0] != '\0') +
		    hist_rows(&a->tag_ents[k], pa->cumul) +
		    (k + 1 < a->tag_nents);
	return n;
}

/* After Left/Right: scroll so the selected aggregation's title is the
 * top row, unless it is already in view. */
static void show_sel(tui_pane_t *p, const tui_model_t *m, int h)
{
	aggs_t *pa = (aggs_t *)p;
	int y = 0;

	pa->showsel = 0;
	if (pa->zoom)
		return;
	for (int i = 0; i < p->tp_sel && i < m->tm_naggs; i++)
		y += agg_rows(p, &m->tm_aggs[i]);
	if (y < p->tp_top || y >= p->tp_top + h - 1)
		p->tp_top = y;
}

/* Scrolling stops with the last row at the bottom (End goes there). */
static void clamp_top(tui_pane_t *p, const tui_model_t *m, int h)
{
	aggs_t *pa = (aggs_t *)p;
	int total = 0;

	for (int i = 0; i < m->tm_naggs; i++)
		if (!pa->zoom || i == p->tp_sel)
			total += agg_rows(p, &m->tm_aggs[i]);
	total--;		/* no gap after the last */
	if (p->tp_top > total - h)
		p->tp_top = total - h;
	if (p->tp_top < 0)
		p->tp_top = 0;
}

static void aggs_draw(tui_pane_t *p, tui_surface_t *s, const tui_model_t *m)
{
	aggs_t *pa = (aggs_t *)p;
	int y;

	if (p->tp_sel >= m->tm_naggs)
		p->tp_sel = m->tm_naggs > 0 ? m->tm_naggs - 1 : 0;
	if (pa->showsel && m->tm_naggs > 0)
		show_sel(p, m, s->ts_h);
	clamp_top(p, m, s->ts_h);
	y = -p->tp_top;

	if (m->tm_naggs == 0) {
		tui_surface_puts(s, 0, 0, TUI_R_DIM, "(no aggregations yet)");
		return;
	}
	if (p->tp_sel >= m->tm_naggs)
		p->tp_sel = m->tm_naggs - 1;
	for (int i = 0; i < NAGGROW; i++)
		pa->aggrow[i] = -1;
	for (int i = 0; i < m->tm_naggs && y < s->ts_h; i++) {
		if (pa->zoom && i != p->tp_sel)
			continue;
		if (i < NAGGROW && y >= 0)
			pa->aggrow[i] = y;
		y += draw_agg(p, s, y, &m->tm_aggs[i], i == p->tp_sel);
		y++;
	}
}

static unsigned agg_action(tui_pane_t *p, tui_model_t *m, const char *what)
{
	if (m->tm_naggs == 0)
		return TUI_HANDLED;
	snprintf(p->tp_action, sizeof(p->tp_action), ":%s @%s%s", what,
	    m->tm_aggs[p->tp_sel].tag_name, what[0] == 't' ? " 10" : "");
	return TUI_HANDLED | TUI_ACTION | TUI_REDRAW;
}

/* A click selects the aggregation whose block holds the clicked row. */
static void click(tui_pane_t *p, int y)
{
	aggs_t *pa = (aggs_t *)p;

	for (int i = 0; i < NAGGROW; i++)
		if (pa->aggrow[i] >= 0 && pa->aggrow[i] <= y)
			p->tp_sel = i;
}

static unsigned aggs_handle(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	aggs_t *pa = (aggs_t *)p;
	int h = p->tp_rows;

	switch (c->tc_kind) {
	case TUI_C_CLICK: click(p, c->tc_y); break;
	case TUI_C_UP: p->tp_top--; break;
	case TUI_C_DOWN: p->tp_top++; break;
	case TUI_C_PGUP: p->tp_top -= h; break;
	case TUI_C_PGDN: p->tp_top += h; break;
	case TUI_C_HOME: p->tp_top = 0; break;
	case TUI_C_END: p->tp_top = 1 << 30; break;	/* clamped by draw */
	case TUI_C_LEFT: p->tp_sel--; pa->showsel = 1; break;
	case TUI_C_RIGHT: p->tp_sel++; pa->showsel = 1; break;
	case TUI_C_SORT: pa->sort = (pa->sort + 1) % 3; break;
	case TUI_C_CUMUL: pa->cumul = !pa->cumul; break;
	case TUI_C_ZOOM:
		pa->zoom = !pa->zoom;
		p->tp_top = 0;
		pa->showsel = !pa->zoom;
		break;
	case TUI_C_CLEAR: return agg_action(p, m, "clear");
	case TUI_C_TRUNC: return agg_action(p, m, "trunc");
	case TUI_C_HEAT:
		if (m->tm_naggs > 0 &&
		    tui_heat_choose(m, m->tm_aggs[p->tp_sel].tag_name,
		    NULL) == 0)
			tui_model_message(m, 0, "heatmap: @%s",
			    m->tm_aggs[p->tp_sel].tag_name);
		else
			tui_model_message(m, 1,
			    "heatmap: select a histogram aggregation");
		break;
	default:
		return 0;
	}
	if (p->tp_top < 0)
		p->tp_top = 0;
	if (p->tp_sel >= m->tm_naggs)
		p->tp_sel = m->tm_naggs - 1;
	if (p->tp_sel < 0)
		p->tp_sel = 0;
	return TUI_HANDLED | TUI_REDRAW;
}

static void aggs_init(tui_pane_t *p)
{
	for (int i = 0; i < NAGGROW; i++)
		((aggs_t *)p)->aggrow[i] = -1;
}

void tui_pane_aggs_select(tui_pane_t *p, int i)
{
	p->tp_sel = i;
	((aggs_t *)p)->showsel = 1;
}

const struct tui_pane_ops tui_pane_aggs_ops = {
	.name = "Aggregations",
	.size = sizeof(aggs_t),
	.init = aggs_init,
	.draw = aggs_draw,
	.handle = aggs_handle,
};
