/*
 * pane.c - pane objects and helpers shared by the pane kinds: making and
 * freeing one, its size, scrolling a selection through n rows, sparkline
 * glyphs.  Each kind (pane_*.c) has a struct of its own that embeds
 * tui_pane_t first and holds only its own state (sort order, zoom,
 * search text); its ops table says the struct's size and has only the
 * hooks the kind uses.
 */
#include <stdlib.h>
#include "tui_view.h"

static const struct tui_pane_ops *const kinds[TUI_NPANES] = {
	[TUI_P_OUTPUT] = &tui_pane_output_ops,
	[TUI_P_AGGS] = &tui_pane_aggs_ops,
	[TUI_P_BUFS] = &tui_pane_bufs_ops,
	[TUI_P_PROBES] = &tui_pane_probes_ops,
	[TUI_P_HEAT] = &tui_pane_heat_ops,
	[TUI_P_ENABS] = &tui_pane_enabs_ops,
};

tui_pane_t *tui_pane_new(enum tui_panek kind)
{
	tui_pane_t *p;

	if ((unsigned)kind >= TUI_NPANES ||
	    (p = tui_calloc(1, kinds[kind]->size)) == NULL)
		return NULL;
	p->tp_ops = kinds[kind];
	p->tp_cols = 80;
	p->tp_rows = 20;
	if (p->tp_ops->init != NULL)
		p->tp_ops->init(p);
	return p;
}

void tui_pane_free(tui_pane_t *p)
{
	if (p == NULL)
		return;
	if (p->tp_ops->destroy != NULL)
		p->tp_ops->destroy(p);
	free(p);
}

void tui_pane_resize(tui_pane_t *p, int cols, int rows)
{
	p->tp_cols = cols;
	p->tp_rows = rows;
	if (p->tp_ops->resize != NULL)
		p->tp_ops->resize(p, cols, rows);
}

/* Move tp_sel through n rows by c and keep it inside the h shown rows. */
void tui_pane_scroll(tui_pane_t *p, const tui_cmd_t *c, int n, int h)
{
	if (h < 1)
		h = 1;
	switch (c->tc_kind) {
	case TUI_C_UP:
		p->tp_sel--;
		break;
	case TUI_C_DOWN:
		p->tp_sel++;
		break;
	case TUI_C_PGUP:
		p->tp_sel -= h;
		break;
	case TUI_C_PGDN:
		p->tp_sel += h;
		break;
	case TUI_C_HOME:
		p->tp_sel = 0;
		break;
	case TUI_C_END:
		p->tp_sel = n - 1;
		break;
	default:
		break;
	}
	if (p->tp_sel >= n)
		p->tp_sel = n - 1;
	if (p->tp_sel < 0)
		p->tp_sel = 0;
	if (p->tp_sel < p->tp_top)
		p->tp_top = p->tp_sel;
	if (p->tp_sel >= p->tp_top + h)
		p->tp_top = p->tp_sel - h + 1;
	if (p->tp_top < 0)
		p->tp_top = 0;
}

uint32_t tui_pane_spark(uint64_t v, uint64_t max)
{
	static const uint32_t g[] = { 0x2581, 0x2582, 0x2583, 0x2584, 0x2585,
	    0x2586, 0x2587, 0x2588 };

	if (v == 0 || max == 0)
		return ' ';
	if (v >= max)
		return g[7];
	return g[(v * 7) / max];
}
