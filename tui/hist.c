/*
 * hist.c - the numbers of a quantize/lquantize/llquantize histogram, for
 * drawing it (hist_draw.c) and saving it (save.c): the rows shown, the
 * bucket of a percentile, a bar's length.
 *
 * Trimming follows dtrace(1M): rows run from one bucket before the first
 * non-zero bucket to one after the last.  Bars are count/total of the
 * pane's bar width (dtrace's 40 '@' scaled to the pane).
 */
#include <stdio.h>
#include <string.h>
#include "tui_model.h"

void tui_hist_trim(const int64_t *b, int n, int *lo, int *hi)
{
	int first = -1, last = -1;

	for (int i = 0; i < n; i++) {
		if (b[i] != 0) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (first < 0) {
		*lo = 0;
		*hi = -1;
		return;
	}
	*lo = first > 0 ? first - 1 : 0;
	*hi = last < n - 1 ? last + 1 : n - 1;
}

int tui_hist_pctl(const int64_t *b, int n, double pct)
{
	int64_t total = 0, acc = 0;
	double want;

	for (int i = 0; i < n; i++)
		total += b[i] > 0 ? b[i] : 0;
	if (total == 0)
		return -1;
	want = total * pct / 100.0;
	for (int i = 0; i < n; i++) {
		acc += b[i] > 0 ? b[i] : 0;
		if ((double)acc >= want && acc > 0)
			return i;
	}
	return n - 1;
}

int tui_hist_bar(int64_t count, int64_t total, int width)
{
	if (total <= 0 || count <= 0 || width <= 0)
		return 0;
	if (count >= total)
		return width;
	return (int)((double)count * width / (double)total + 0.5);
}
