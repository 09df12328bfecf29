/*
 * bench_tui.c - the TUI's model and view under synthetic load, without a
 * terminal:
 *   1. refresh: 8 quantize aggregations and one 10,000-row count table
 *      copied into the model (as session.c does at each snapshot) and the
 *      aggregations pane drawn into a 200x60 surface; CPU per refresh,
 *      reported as % of one core at 10 Hz (aim: under 5%).
 *   2. browser: 100,000 probes; time from a keystroke in the filter to
 *      the pane drawn, typing "syscall::*read*:" one key at a time
 *      (aim: under 20 ms).
 * Build and run: bench/tui/run.sh (links build/libtui.a).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tui.h"
#include "dtrace_abi.h"

#define NHIST 8
#define NBUCKETS 64
#define NROWS 10000
#define NPROBES 100000

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *labels[NBUCKETS];

static void snapshot(tui_model_t *m, int round)
{
	int64_t b[NBUCKETS];
	char key[32];
	tui_agg_t *a;

	tui_model_agg_begin(m);
	for (int h = 0; h < NHIST; h++) {
		snprintf(key, sizeof(key), "h%d", h);
		a = tui_model_agg_get(m, key, DTRACEAGG_QUANTIZE);
		for (int i = 0; i < NBUCKETS; i++)
			b[i] = (i > 10 && i < 30) ? (int64_t)(i * round + h) : 0;
		tui_model_agg_put(a, "", 0, NBUCKETS, b, labels);
	}
	a = tui_model_agg_get(m, "table", DTRACEAGG_COUNT);
	for (int i = 0; i < NROWS; i++) {
		snprintf(key, sizeof(key), "process-%05d", i);
		tui_model_agg_put(a, key, (int64_t)i * round, 0, NULL, NULL);
	}
	tui_model_agg_end(m);
}

static void bench_refresh(void)
{
	tui_model_t *m = tui_model_new(1000);
	tui_layout_t *l = tui_layout_new();
	tui_surface_t *s = tui_surface_new(200, 60);
	int n = 100;
	double t0, per;

	tui_layout_resize(l, 200, 60);
	l->tl_focus = TUI_P_AGGS;
	l->tl_panes[TUI_P_AGGS]->tp_sort = 2;	/* sorted by value: worst */
	snapshot(m, 1);
	t0 = cpu_now();
	for (int r = 0; r < n; r++) {
		snapshot(m, r + 2);
		tui_layout_draw(l, s, m, NULL);
	}
	per = (cpu_now() - t0) / n;
	printf("refresh: %d histograms + %d-row table: %.3f ms CPU per "
	    "refresh = %.2f%% of one core at 10 Hz (aim < 5%%)\n", NHIST,
	    NROWS, per * 1e3, per * 10 * 100);
	tui_model_free(m);
	tui_layout_free(l);
	tui_surface_free(s);
}

static void make_probes(tui_probes_t *p)
{
	static const char *const prov[] = { "syscall", "sched", "proc",
	    "sdt", "pid1234", "profile" };
	char mod[32], func[32];

	for (int i = 0; i < NPROBES; i++) {
		snprintf(mod, sizeof(mod), "mod%d", i % 50);
		snprintf(func, sizeof(func), "%s%d", i % 7 ? "func" : "read",
		    i / 2);
		tui_probes_add(p, i + 1, prov[i % 6], mod, func,
		    i % 2 ? "entry" : "return");
	}
	tui_probes_sort(p);
}

static void bench_browser(void)
{
	tui_model_t *m = tui_model_new(10);
	tui_layout_t *l = tui_layout_new();
	tui_surface_t *s = tui_surface_new(80, 24);
	const char *typed = "syscall::*read*:";
	double worst = 0, sum = 0;
	int n = 0;

	make_probes(&m->tm_probes);
	l->tl_focus = TUI_P_PROBES;
	tui_layout_key(l, '/', 0, 0, m);
	for (const char *k = typed; *k != '\0'; k++) {
		double t0 = wall_now(), dt;

		tui_layout_key(l, (unsigned char)*k, 0, 0, m);
		tui_layout_draw(l, s, m, NULL);
		dt = wall_now() - t0;
		sum += dt;
		n++;
		if (dt > worst)
			worst = dt;
	}
	printf("browser: %d probes, typing \"%s\": %.2f ms mean, %.2f ms "
	    "worst per keystroke (aim < 20 ms); %d match\n", NPROBES, typed,
	    sum / n * 1e3, worst * 1e3, m->tm_probes.tp_nmatch);
	tui_model_free(m);
	tui_layout_free(l);
	tui_surface_free(s);
}

int main(void)
{
	static char lab[NBUCKETS][24];

	for (int i = 0; i < NBUCKETS; i++) {
		snprintf(lab[i], sizeof(lab[i]), "%lld", i ? 1LL << (i - 1) : 0);
		labels[i] = lab[i];
	}
	bench_refresh();
	bench_browser();
	return 0;
}
