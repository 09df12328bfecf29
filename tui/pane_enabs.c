/*
 * pane_enabs.c - the enablings pane: one row per enabled clause, with
 * its enabling's number and state, its first probe and how many probes
 * it is enabled on, its predicate (as much as the column holds), where
 * it runs (shim; filter: BPF checks its predicate in the kernel; kernel:
 * BPF aggregates there; mixed; "-" unknown, a replay), and what the shim
 * counted for its ECBs: runs, runs per second, false predicates, drops
 * and errors, and what a run costs in the shim (ns/run: the mean of the
 * runs the shim timed, one in 64, the clock's own cost taken off; "-"
 * when none was timed: a clause filtered out in the kernel every time;
 * what BPF spends in the kernel is not in it, and for a clause counted
 * there it is the shim's replay of the counts, per firing).  The bottom
 * line gives the tracer's ns per hit of pid and usdt probes, which the
 * providers measure for all of them together (what reaching the shim
 * costs, on top of ns/run).  Keys act on the
 * selected clause's enabling through the prompt's commands: d disables
 * it, e enables it again, x removes it, Enter puts its text back at the
 * prompt to edit.
 */
#include <stdio.h>
#include <string.h>
#include "tui_view.h"

/* Numbers in at most 7 columns: 9999999, 12.3M. */
static void num(double v, char *buf, size_t len)
{
	const char *u = " KMGT";

	if (v < 9999999.5) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	while (v >= 1000 && u[1] != '\0') {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.1f%c", v, *u);
}

static const tui_enabling_t *enabling_of(const tui_model_t *m,
    const tui_clause_t *c)
{
	for (int i = 0; i < m->tm_nens; i++)
		if (m->tm_ens[i].te_id == c->tcl_enabling)
			return &m->tm_ens[i];
	return NULL;
}

/* Columns but the clause's: "EN st " 8, its blank 1, where 7, the
 * counters 52, and the screen's last, which a terminal may not show. */
#define OTHER_COLS	(8 + 1 + 7 + 52 + 1)
#define CLAUSE_MIN	11		/* what 80 columns leave */

/* The clause column's width on a surface w wide: what is left. */
static int clause_cols(int w)
{
	return w - OTHER_COLS > CLAUSE_MIN ? w - OTHER_COLS : CLAUSE_MIN;
}

static const char *where(int runs)
{
	switch (runs) {
	case TUI_RUN_SHIM: return "shim";
	case TUI_RUN_KFILTER: return "filter";
	case TUI_RUN_KAGG: return "kernel";
	case TUI_RUN_MIXED: return "mixed";
	default: return "-";
	}
}

static void clause_row(tui_surface_t *s, int y, const tui_model_t *m,
    const tui_clause_t *c, int sel)
{
	const tui_enabling_t *e = enabling_of(m, c);
	char probe[320], v[6][16];
	int cw = clause_cols(s->ts_w);
	int x = 0, role = sel ? TUI_R_SELECT : TUI_R_NORMAL;

	if (sel)
		tui_surface_fill(s, 0, y, s->ts_w, TUI_R_SELECT, ' ');
	if (c->tcl_enabling > 0)
		x += tui_surface_printf(s, x, y, role, "%3d %-3s ",
		    c->tcl_enabling, e == NULL ? "del" : e->te_enabled ?
		    "on" : "off");
	else
		x += tui_surface_printf(s, x, y, role, "  - %-3s ", "");
	if (c->tcl_nprobes > 1)
		snprintf(probe, sizeof(probe), "%s (+%d)%s%s", c->tcl_probe,
		    c->tcl_nprobes - 1, c->tcl_pred[0] ? " " : "", c->tcl_pred);
	else
		snprintf(probe, sizeof(probe), "%s%s%s", c->tcl_probe,
		    c->tcl_pred[0] ? " " : "", c->tcl_pred);
	x += tui_surface_printf(s, x, y, sel ? role : TUI_R_KEY, "%-*.*s ",
	    cw, cw, probe);
	x += tui_surface_printf(s, x, y, role, "%-6s ", where(c->tcl_runs));
	num((double)c->tcl_nprobes, v[0], sizeof(v[0]));
	num((double)c->tcl_fires, v[1], sizeof(v[1]));
	num(c->tcl_fireps, v[2], sizeof(v[2]));
	num((double)c->tcl_predfalse, v[3], sizeof(v[3]));
	num((double)c->tcl_drops, v[4], sizeof(v[4]));
	if (c->tcl_samples > 0)
		num((double)c->tcl_sampns / (double)c->tcl_samples, v[5],
		    sizeof(v[5]));
	else
		snprintf(v[5], sizeof(v[5]), "-");
	x += tui_surface_printf(s, x, y, role, "%6s %7s %7s %7s %7s ", v[0],
	    v[1], v[2], v[5], v[3]);
	x += tui_surface_printf(s, x, y, c->tcl_drops && !sel ? TUI_R_DROP :
	    role, "%6s ", v[4]);
	num((double)c->tcl_errors, v[4], sizeof(v[4]));
	tui_surface_printf(s, x, y, c->tcl_errors && !sel ? TUI_R_ERROR : role,
	    "%6s", v[4]);
}

static void enabs_draw(tui_pane_t *p, tui_surface_t *s, const tui_model_t *m)
{
	int y = 0, x;

	tui_surface_printf(s, 0, y++, TUI_R_TITLE, " EN     %-*s where  probes"
	    "    runs  runs/s  ns/run  pred-f  drops errors",
	    clause_cols(s->ts_w),
	    "clause's first probe /predicate/");
	if (m->tm_nclauses == 0) {
		tui_surface_puts(s, 0, y, TUI_R_DIM, m->tm_state == TUI_TRACING ?
		    "(no counters yet)" : "(no clause enabled)");
		return;
	}
	if (p->tp_sel >= m->tm_nclauses)
		p->tp_sel = m->tm_nclauses - 1;
	for (int i = p->tp_top; i < m->tm_nclauses && y < s->ts_h - 1; i++)
		clause_row(s, y++, m, &m->tm_clauses[i], i == p->tp_sel);
	x = tui_surface_puts(s, 0, s->ts_h - 1, TUI_R_DIM, "d disable  "
	    "e enable  x remove  Enter edit at the prompt");
	if (m->tm_uroute != NULL && m->tm_uhits > 0)	/* reaching the */
		tui_surface_printf(s, x, s->ts_h - 1, TUI_R_DIM,   /* shim */
		    "   pid/usdt via %s: %.0f ns per hit", m->tm_uroute,
		    m->tm_unsperhit);
}

static unsigned enabs_handle(tui_pane_t *p, const tui_cmd_t *c,
    tui_model_t *m)
{
	const tui_clause_t *cl;
	const tui_enabling_t *e;
	const char *verb;

	switch (c->tc_kind) {
	case TUI_C_UP: case TUI_C_DOWN: case TUI_C_PGUP: case TUI_C_PGDN:
	case TUI_C_HOME: case TUI_C_END:
		tui_pane_scroll(p, c, m->tm_nclauses, p->tp_rows - 2);
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_C_ENTER: case TUI_C_CHAR:
		break;
	default:
		return 0;
	}
	if (p->tp_sel < 0 || p->tp_sel >= m->tm_nclauses)
		return 0;
	cl = &m->tm_clauses[p->tp_sel];
	if (cl->tcl_enabling <= 0)
		return 0;
	if (c->tc_kind == TUI_C_ENTER) {
		if ((e = enabling_of(m, cl)) == NULL || e->te_file != 0)
			return TUI_HANDLED;	/* only prompt text is edited */
		snprintf(p->tp_insert, sizeof(p->tp_insert), "%s  ",
		    e->te_src);
		return TUI_HANDLED | TUI_INSERT | TUI_REDRAW;
	}
	switch (c->tc_key) {
	case 'd': verb = "disable"; break;
	case 'e': verb = "enable"; break;
	case 'x': verb = "remove"; break;
	default: return 0;
	}
	snprintf(p->tp_action, sizeof(p->tp_action), ":%s %d", verb,
	    cl->tcl_enabling);
	return TUI_HANDLED | TUI_ACTION | TUI_REDRAW;
}

/* No state of its own: the base pane is all it needs. */
const struct tui_pane_ops tui_pane_enabs_ops = {
	.name = "Enablings",
	.size = sizeof(tui_pane_t),
	.draw = enabs_draw,
	.handle = enabs_handle,
};
