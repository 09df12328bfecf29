/*
 * enablings.c - the engine side of the enablings pane: the counters the
 * engine read for each ECB at its last work tick (eng_ecbstats) summed
 * into one model row per clause, with the TUI enabling the clause came
 * from and its predicate; and ":enable N", which turns a disabled
 * enabling on again.  While tracing, ECBs of no enabling (left disabled
 * in the shim by :enable's new program, or by :remove) are not listed;
 * a replay has no enablings and lists every ECB, with the predicate and
 * where it runs as the experiment recorded them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session_impl.h"

/* The TUI enabling whose program has clause id (NULL if none: a
 * replay, or the clause of an enabling since removed or enabled again
 * with a new program). */
static const tui_enabling_t *enabling_of(const tui_model_t *m, uint64_t id)
{
	for (int i = 0; i < m->tm_nens; i++)
		if (eng_prog_has_clause(m->tm_ens[i].te_prog, id))
			return &m->tm_ens[i];
	return NULL;
}

void tui_session_clauses(tui_session_t *s, double dt)
{
	tui_model_t *m = s->ts_m;
	size_t n;
	const eng_ecbstat_t *e = eng_ecbstats(s->ts_h, &n);
	const tui_enabling_t *en = NULL;

	if (e == NULL)
		return;
	tui_clauses_begin(m);
	for (size_t i = 0; i < n; i++) {
		const dtrace_probedesc_t *pd = &e[i].ees_probe;
		char probe[DTRACE_FULLNAMELEN];
		tui_ecb_t ecb = { e[i].ees_clause, 0, probe, NULL,
		    e[i].ees_runs, { e[i].ees_fires, e[i].ees_predfalse,
		    e[i].ees_drops, e[i].ees_errors }, e[i].ees_samples,
		    e[i].ees_sampns };

		if (i == 0 || e[i].ees_clause != e[i - 1].ees_clause)
			en = enabling_of(m, e[i].ees_clause);	/* ECBs of a */
		if (en == NULL && !s->ts_replay)	/* clause come together */
			continue;	/* a disabled ECB left in the shim */
		ecb.te_pred = e[i].ees_pred;	/* a replay's: recorded */
		if (en != NULL) {
			ecb.te_enabling = en->te_id;
			ecb.te_pred = eng_prog_clause_pred(en->te_prog,
			    e[i].ees_clause);
		}
		snprintf(probe, sizeof(probe), "%s:%s:%s:%s", pd->dtpd_provider,
		    pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name);
		if (tui_clauses_put(m, &ecb) != 0)
			break;
	}
	tui_clauses_end(m, dt);
}

void tui_session_cmd_enable(tui_session_t *s, const char *arg)
{
	tui_model_t *m = s->ts_m;
	tui_enabling_t *e = tui_model_enabling(m, atoi(arg));
	eng_prog_t *prog;
	unsigned np = 0;

	if (e == NULL) {
		tui_model_message(m, 1, "no enabling %s (see :list)", arg);
		return;
	}
	if (e->te_enabled) {
		tui_model_message(m, 0, "enabling %d is on", e->te_id);
		return;
	}
	if (m->tm_state != TUI_TRACING) {	/* the next start enables it */
		e->te_enabled = 1;
		tui_model_message(m, 0, "enabling %d on at the next start",
		    e->te_id);
		return;
	}
	prog = tui_session_compile(s, e->te_src, e->te_file == 1,
	    e->te_file == 2, ENG_SPEC_NAME);
	if (prog == NULL)
		return;
	if (eng_prog_exec(s->ts_h, prog, &np) != 0) {
		tui_model_message(m, 1, "%s", eng_errmsg(s->ts_h));
		eng_prog_free(prog);
		return;
	}
	eng_prog_free(e->te_prog);	/* its ECBs stay, disabled, in the */
	e->te_prog = prog;		/* shim: not listed any more */
	e->te_enabled = 1;
	e->te_nprobes = np;
	m->tm_nenabled += np;
	tui_model_message(m, 0, "enabling %d enabled again: %u probe%s",
	    e->te_id, np, np == 1 ? "" : "s");
}
