/*
 * clauses.c - the enablings pane's rows: each enabled clause with the
 * counters of its ECBs (runs, false predicates, drops, errors) summed,
 * its runs per second, its predicate and where it runs (in the kernel
 * or the shim: "mixed" when its probes differ).  The session puts every ECB at every tick;
 * a clause whose ECBs are all gone (a new tracing session) goes with
 * them.
 */
#include <stdlib.h>
#include <string.h>
#include "tui_model.h"

void tui_clauses_begin(tui_model_t *m)
{
	for (int i = 0; i < m->tm_nclauses; i++) {
		tui_clause_t *c = &m->tm_clauses[i];

		c->tcl_seen = 0;
		c->tcl_nprobes = 0;
		c->tcl_fires = c->tcl_predfalse = 0;
		c->tcl_drops = c->tcl_errors = 0;
		c->tcl_samples = c->tcl_sampns = 0;
	}
}

/* The row of clause id, made (in id order) if new; NULL out of memory. */
static tui_clause_t *row(tui_model_t *m, uint64_t id)
{
	int lo = 0, hi = m->tm_nclauses;
	tui_clause_t *c;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (m->tm_clauses[mid].tcl_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->tm_nclauses && m->tm_clauses[lo].tcl_id == id)
		return &m->tm_clauses[lo];
	if (m->tm_nclauses == m->tm_clausecap) {
		int cap = m->tm_clausecap ? m->tm_clausecap * 2 : 8;

		c = tui_realloc(m->tm_clauses, (size_t)cap * sizeof(*c));
		if (c == NULL)
			return NULL;
		m->tm_clauses = c;
		m->tm_clausecap = cap;
	}
	c = &m->tm_clauses[lo];
	memmove(c + 1, c, (size_t)(m->tm_nclauses - lo) * sizeof(*c));
	m->tm_nclauses++;
	memset(c, 0, sizeof(*c));
	c->tcl_id = id;
	return c;
}

int tui_clauses_put(tui_model_t *m, const tui_ecb_t *e)
{
	tui_clause_t *c = row(m, e->te_clause);
	const uint64_t *counts = e->te_counts;

	if (c == NULL)
		return -1;
	if (c->tcl_nprobes == 0) {
		snprintf(c->tcl_probe, sizeof(c->tcl_probe), "%s", e->te_probe);
		snprintf(c->tcl_pred, sizeof(c->tcl_pred), "%s",
		    e->te_pred != NULL ? e->te_pred : "");
		c->tcl_runs = e->te_runs;
	} else if (c->tcl_runs != e->te_runs) {
		c->tcl_runs = TUI_RUN_MIXED;
	}
	c->tcl_enabling = e->te_enabling;
	c->tcl_nprobes++;
	c->tcl_fires += counts[0];
	c->tcl_predfalse += counts[1];
	c->tcl_drops += counts[2];
	c->tcl_errors += counts[3];
	c->tcl_samples += e->te_samples;
	c->tcl_sampns += e->te_sampns;
	c->tcl_seen = 1;
	return 0;
}

void tui_clauses_end(tui_model_t *m, double dt)
{
	int w = 0;

	for (int i = 0; i < m->tm_nclauses; i++) {
		tui_clause_t *c = &m->tm_clauses[i];

		if (!c->tcl_seen)
			continue;
		c->tcl_fireps = tui_rate_tick(&c->tcl_rate, c->tcl_lastfires,
		    c->tcl_fires, dt);
		c->tcl_lastfires = c->tcl_fires;
		if (w != i)
			m->tm_clauses[w] = *c;
		w++;
	}
	m->tm_nclauses = w;
}

void tui_clauses_clear(tui_model_t *m)
{
	m->tm_nclauses = 0;
}
