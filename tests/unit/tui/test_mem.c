/* test_mem.c - every allocation of the model, probe tree, layout and
 * surface fails in turn: nothing crashes, nothing leaks (under ASan), and
 * what was built stays consistent. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"
#include "dtrace_abi.h"

static void check_model(const tui_model_t *m)
{
	assert_true(m->tm_nlines <= m->tm_maxlines);
	for (int i = 0; i < m->tm_nlines; i++)
		assert_non_null(tui_model_line(m, i)->tl_text);
	for (int i = 0; i < m->tm_naggs; i++) {
		const tui_agg_t *a = &m->tm_aggs[i];

		assert_non_null(a->tag_name);
		for (int j = 0; j < a->tag_nents; j++) {
			assert_non_null(a->tag_ents[j].ta_key);
			if (a->tag_ents[j].ta_nbuckets > 0)
				assert_non_null(a->tag_ents[j].ta_buckets);
		}
	}
	for (int i = 0; i < m->tm_probes.tp_nrows; i++)
		assert_true(m->tm_probes.tp_rows[i].tpr_first <
		    m->tm_probes.tp_n);
}

static void snap(tui_model_t *m, int round)
{
	static char *labels[4] = { "0", "1", "2", "4" };
	int64_t b[4] = { 0, round, 1, 0 };
	char key[16];
	tui_agg_t *a;

	tui_model_agg_begin(m);
	if ((a = tui_model_agg_get(m, "lat", DTRACEAGG_QUANTIZE)) != NULL)
		tui_model_agg_put(a, "read", round + 1, 4, b, labels);
	if ((a = tui_model_agg_get(m, "c", DTRACEAGG_COUNT)) != NULL)
		for (int i = 0; i < 40; i++) {
			snprintf(key, sizeof(key), "k%d", i);
			tui_model_agg_put(a, key, i * round, 0, NULL, NULL);
		}
	tui_model_agg_end(m);
	tui_heat_push(m);
}

/* One run of everything; returns 1 if it ran without the hook firing. */
static int scenario(void)
{
	tui_model_t *m = tui_model_new(5);
	tui_layout_t *l;
	tui_surface_t *s;

	if (m == NULL)
		return 0;
	for (int i = 0; i < 8; i++)
		tui_model_output(m, "abc\ndef", 7, i);
	tui_model_message(m, 1, "x");
	tui_model_setcpus(m, 2);
	tui_model_error(m, "boom\n");
	snap(m, 1);
	tui_heat_choose(m, "lat", NULL);
	snap(m, 2);
	tui_model_enabling_add(m, "BEGIN { }", 1, NULL);
	tui_probes_add(&m->tm_probes, 1, "dtrace", "", "", "BEGIN");
	tui_probes_add(&m->tm_probes, 2, "syscall", "vmlinux", "read", "entry");
	tui_probes_sort(&m->tm_probes);
	tui_probes_toggle(&m->tm_probes, 1);
	tui_probes_filter(&m->tm_probes, "read");
	check_model(m);
	l = tui_layout_new();
	s = tui_surface_new(80, 24);
	if (l != NULL && s != NULL) {
		l->tl_focus = TUI_P_AGGS;
		tui_layout_key(l, 's', 0, 0, m);	/* sorting allocates */
		tui_layout_draw(l, s, m, NULL);
	}
	tui_layout_free(l);
	tui_surface_free(s);
	tui_model_free(m);
	return 1;
}

static void test_tui_every_allocation_failure_is_survived(void **st)
{
	long n;

	for (n = 0; n < 100000; n++) {
		tui_mem_fail_after(n);
		scenario();
		if (tui_mem_fail_after(-1) >= 0)
			break;		/* fewer than n + 1 allocations: done */
	}
	print_message("walked %ld allocation failures\n", n);
	assert_true(n > 50);		/* the walk reached real depth */
	assert_true(n < 100000);	/* and ended */
	assert_int_equal(scenario(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_every_allocation_failure_is_survived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
