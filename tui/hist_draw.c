/*
 * hist_draw.c - quantize/lquantize/llquantize drawn as horizontal bars
 * into a surface (the numbers are hist.c's).  The buckets holding the
 * median and the 99th percentile carry "p50"/"p99" marks.
 */
#include <stdio.h>
#include <string.h>
#include "tui_view.h"

/* Counts to draw: current, or since the previous snapshot. */
static int64_t count_at(const tui_aggent_t *e, int i, int delta)
{
	int64_t v = e->ta_buckets[i];

	if (delta)
		v -= e->ta_pbuckets[i];
	return v < 0 ? 0 : v;
}

static void header(tui_surface_t *s, int y, int barw)
{
	char dist[256];
	int dash = (barw - 14) / 2;

	if (dash < 1)
		dash = 1;
	memset(dist, '-', dash);
	memcpy(dist + dash, " Distribution ", 14);
	memset(dist + dash + 14, '-', barw - dash - 14 > 0 ?
	    barw - dash - 14 : 1);
	dist[barw > dash + 15 ? barw : dash + 15] = '\0';
	tui_surface_printf(s, 0, y, TUI_R_TITLE, "%16s  %s count", "value",
	    dist);
}

int tui_hist_draw(tui_surface_t *s, int y, int h, const tui_aggent_t *e,
    int delta)
{
	int64_t c[512], total = 0;
	int n = e->ta_nbuckets < 512 ? e->ta_nbuckets : 512;
	int lo, hi, p50, p99, row = 0;
	int barw = s->ts_w - 16 - 2 - 14 - 5;

	if (barw > 200)
		barw = 200;
	if (barw < 4)
		barw = 4;
	for (int i = 0; i < n; i++) {
		c[i] = count_at(e, i, delta);
		total += c[i];
	}
	tui_hist_trim(c, n, &lo, &hi);
	p50 = tui_hist_pctl(c, n, 50);
	p99 = tui_hist_pctl(c, n, 99);
	if (h > 0)
		header(s, y + row++, barw);
	for (int i = lo; i <= hi && row < h; i++, row++) {
		const char *lab = e->ta_labels && e->ta_labels[i] ?
		    e->ta_labels[i] : "?";
		int len = tui_hist_bar(c[i], total, barw);
		int x = 0;

		x += tui_surface_printf(s, x, y + row, TUI_R_KEY, "%16s ", lab);
		tui_surface_putc(s, x++, y + row, TUI_R_NORMAL, '|');
		tui_surface_fill(s, x, y + row, len, TUI_R_BAR, '@');
		x += barw;
		x += tui_surface_printf(s, x, y + row, TUI_R_COUNT, " %-12lld",
		    (long long)c[i]);
		if (i == p50)
			tui_surface_puts(s, x, y + row, TUI_R_MARK,
			    i == p99 ? "p50,99" : "p50");
		else if (i == p99)
			tui_surface_puts(s, x, y + row, TUI_R_MARK, "p99");
	}
	return row;
}
