/*
 * pane_bufs.c - the per-CPU buffers pane: one row per CPU with policy,
 * fill of the active buffer, records and bytes per second, drops by kind
 * with a sparkline of recent drops, errors; under the table, the option
 * that relieves each kind of drop seen, how often a buffer was switched
 * early because it passed half full, and the last error message.
 */
#include <stdio.h>
#include "tui_view.h"
#include "dtrace_abi.h"

#define SPARK_W 12	/* history cells shown */

static const char *policy(int p)
{
	switch (p) {
	case DTRACEOPT_BUFPOLICY_RING: return "ring";
	case DTRACEOPT_BUFPOLICY_FILL: return "fill";
	default: return "switch";
	}
}

/* Numbers in at most 5 columns: 99999, 136K, 1.2M, 12.3G. */
static void human(double v, char *buf, size_t len)
{
	const char *u = " KMGT";

	if (v < 100000) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	while (v >= 1000 && u[1] != '\0') {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, v >= 99.95 ? "%.0f%c" : "%.1f%c", v, *u);
}

static void cpu_row(tui_surface_t *s, int y, const tui_cpu_t *c)
{
	char r[16], b[16];
	int pct = c->tcp_size ? (int)(c->tcp_used * 100 / c->tcp_size) : 0;
	int x = 0;
	uint64_t max = 0;

	human(c->tcp_recps, r, sizeof(r));
	human(c->tcp_byteps, b, sizeof(b));
	x += tui_surface_printf(s, x, y, TUI_R_CPU, "%3d ", c->tcp_cpu);
	x += tui_surface_printf(s, x, y, TUI_R_NORMAL, "%-6s ",
	    policy(c->tcp_policy));
	tui_surface_fill(s, x, y, pct / 10, TUI_R_BAR, 0x2588);
	tui_surface_fill(s, x + pct / 10, y, 10 - pct / 10, TUI_R_DIM, 0x2591);
	x += 10;
	x += tui_surface_printf(s, x, y, TUI_R_NORMAL, "%4d%% %6s %6s ",
	    pct > 100 ? 100 : pct, r, b);
	for (int k = 0; k < TUI_NDROPK; k++) {	/* 5 columns: 99999, 1.2M */
		char d[16];

		human((double)c->tcp_drops[k], d, sizeof(d));
		x += tui_surface_printf(s, x, y, c->tcp_drops[k] ? TUI_R_DROP :
		    TUI_R_DIM, "%5s", d);
	}
	x++;
	for (int i = 0; i < TUI_SPARK_N; i++)
		if (c->tcp_hist[i] > max)
			max = c->tcp_hist[i];
	for (int i = TUI_SPARK_N - SPARK_W; i < TUI_SPARK_N; i++)
		tui_surface_putc(s, x++, y, TUI_R_SPARK,
		    tui_pane_spark(c->tcp_hist[i], max));
	tui_surface_printf(s, x, y, c->tcp_errors ? TUI_R_ERROR : TUI_R_DIM,
	    " %4llu", (unsigned long long)c->tcp_errors);
}

static const char *const relief[TUI_NDROPK] = {
	"principal buffer drops: raise bufsize (-b) or switchrate",
	"aggregation drops: raise aggsize or aggrate",
	"dynamic variable drops: raise dynvarsize or cleanrate",
	"speculation drops: raise nspec or specsize",
};

static void bufs_draw(tui_pane_t *p, tui_surface_t *s, const tui_model_t *m)
{
	uint64_t tot[TUI_NDROPK] = { 0 }, hiwats = 0;
	int y = 0;

	tui_surface_puts(s, 0, y++, TUI_R_TITLE,
	    "CPU policy fill          rec/s  byte/s  buf  agg  dyn spec "
	    "drop history     err");
	for (int i = p->tp_top; i < m->tm_ncpus && y < s->ts_h - 2; i++) {
		cpu_row(s, y++, &m->tm_cpus[i]);
		for (int k = 0; k < TUI_NDROPK; k++)
			tot[k] += m->tm_cpus[i].tcp_drops[k];
	}
	for (int i = 0; i < m->tm_ncpus; i++)
		hiwats += m->tm_cpus[i].tcp_hiwats;
	if (m->tm_ncpus == 0)
		tui_surface_puts(s, 0, y++, TUI_R_DIM, "(not tracing)");
	y++;
	for (int k = 0; k < TUI_NDROPK && y < s->ts_h; k++)
		if (tot[k] != 0)
			tui_surface_printf(s, 0, y++, TUI_R_WARN, "%llu %s",
			    (unsigned long long)tot[k], relief[k]);
	if (hiwats != 0 && y < s->ts_h)
		tui_surface_printf(s, 0, y++, TUI_R_DIM, "%llu early switches "
		    "(a buffer passed half full between ticks)",
		    (unsigned long long)hiwats);
	if (m->tm_lasterr != NULL && y < s->ts_h)
		tui_surface_printf(s, 0, y, TUI_R_ERROR, "%llu errors; last: %s",
		    (unsigned long long)m->tm_errors, m->tm_lasterr);
}

static unsigned bufs_handle(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	switch (c->tc_kind) {
	case TUI_C_UP: case TUI_C_DOWN: case TUI_C_PGUP: case TUI_C_PGDN:
	case TUI_C_HOME: case TUI_C_END:
		tui_pane_scroll(p, c, m->tm_ncpus, p->tp_rows - 3);
		return TUI_HANDLED | TUI_REDRAW;
	default:
		return 0;
	}
}

/* No state of its own: the base pane is all it needs. */
const struct tui_pane_ops tui_pane_bufs_ops = {
	.name = "Buffers",
	.size = sizeof(tui_pane_t),
	.draw = bufs_draw,
	.handle = bufs_handle,
};
