/* test_session.c - the session against the real engine: enable clauses
 * from the prompt, output and aggregations reach the model, ':' commands,
 * compile errors with a caret.  Skipped when the engine cannot open. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "tui.h"

typedef struct fx {
	tui_model_t *m;
	tui_session_t *s;
} fx_t;

static char skip_why[256];	/* why the session could not open */

static int setup(void **st)
{
	static fx_t f;

	f.m = tui_model_new(1000);
	f.s = tui_session_new(f.m, skip_why, sizeof(skip_why));
	*st = &f;
	return 0;
}

/* No session (tui_session_new refused, e.g. not root): say why, skip. */
static void need_session(const fx_t *f)
{
	if (f->s == NULL) {
		print_message("no session: %s\n", skip_why);
		skip();
	}
}

static int teardown(void **st)
{
	fx_t *f = *st;

	tui_session_free(f->s);
	tui_model_free(f->m);
	return 0;
}

static int has_line(const tui_model_t *m, const char *text)
{
	for (int i = 0; i < m->tm_nlines; i++)
		if (strstr(tui_model_line(m, i)->tl_text, text) != NULL)
			return 1;
	return 0;
}

/* Tick until pred holds, at most 30 s (a deadline for a failure only: a
 * loaded machine may take seconds). */
static int tick_until(fx_t *f, int (*pred)(fx_t *))
{
	for (int i = 0; i < 600; i++) {
		tui_session_tick(f->s);
		if (pred(f))
			return 1;
		usleep(50000);
	}
	return 0;
}

static int have_aggs(fx_t *f)
{
	return tui_model_agg_find(f->m, "a") != NULL &&
	    tui_model_agg_find(f->m, "q") != NULL;
}

static void test_tui_session_enable_feeds_output_and_aggs(void **st)
{
	fx_t *f = *st;
	tui_agg_t *a;

	need_session(f);
	assert_int_equal(tui_session_enable(f->s, "BEGIN { @a[\"x\"] = "
	    "count(); @q = quantize(5); printf(\"hi-from-begin\\n\"); }", 0,
	    0), 0);
	assert_int_equal(f->m->tm_state, TUI_TRACING);
	assert_int_equal(f->m->tm_nens, 1);
	assert_true(tick_until(f, have_aggs));
	assert_true(has_line(f->m, "hi-from-begin"));
	a = tui_model_agg_find(f->m, "a");
	assert_int_equal(a->tag_nents, 1);
	assert_string_equal(a->tag_ents[0].ta_key, "x");
	assert_int_equal(a->tag_ents[0].ta_value, 1);
	a = tui_model_agg_find(f->m, "q");
	assert_true(tui_is_hist(a->tag_func));
	assert_true(a->tag_ents[0].ta_nbuckets > 0);
	assert_int_equal(a->tag_ents[0].ta_value, 1);	/* one value */
}

static void test_tui_session_second_clause_keeps_aggs(void **st)
{
	fx_t *f = *st;

	need_session(f);
	assert_int_equal(tui_session_enable(f->s,
	    "BEGIN { @b = sum(7); }", 0, 0), 0);
	assert_int_equal(f->m->tm_nens, 2);
	for (int i = 0; i < 30 && tui_model_agg_find(f->m, "b") == NULL; i++) {
		tui_session_tick(f->s);
		usleep(50000);
	}
	assert_non_null(tui_model_agg_find(f->m, "a"));	/* still there */
}

static void test_tui_session_compile_error_has_caret(void **st)
{
	fx_t *f = *st;
	const char *nl;

	need_session(f);
	assert_int_equal(tui_session_enable(f->s, "BEGIN { x = 1 +; }", 0,
	    0), -1);
	assert_true(f->m->tm_msg_err);
	assert_int_equal(strncmp(f->m->tm_msg, "<prompt>:1:", 11), 0);
	nl = strchr(f->m->tm_msg, '\n');
	assert_non_null(nl);
	assert_int_equal(strncmp(nl + 1, "BEGIN { x = 1 +; }\n", 19), 0);
	assert_non_null(strchr(nl + 20, '^'));
	/* the caret sits under the column the message names */
	assert_int_equal((int)(strchr(nl + 20, '^') - (nl + 20)) + 1,
	    atoi(f->m->tm_msg + 11));
	assert_int_equal(f->m->tm_nens, 2);	/* nothing added */
}

static void test_tui_session_commands(void **st)
{
	fx_t *f = *st;
	char path[] = "/tmp/dtui-aggs-XXXXXX", buf[4096];
	FILE *fp;
	size_t n;
	int fd;

	need_session(f);
	tui_session_command(f->s, ":list");
	assert_false(f->m->tm_msg_err);
	assert_non_null(strstr(f->m->tm_msg, "1 on "));
	assert_non_null(strstr(f->m->tm_msg, "2 on "));
	tui_session_command(f->s, ":set nosuchoption=1");
	assert_true(f->m->tm_msg_err);
	tui_session_command(f->s, ":set aggsortkey");	/* runtime option */
	assert_false(f->m->tm_msg_err);
	tui_session_command(f->s, ":disable 2");
	assert_false(f->m->tm_msg_err);
	assert_int_equal(tui_model_enabling(f->m, 2)->te_enabled, 0);
	tui_session_command(f->s, ":remove 2");
	assert_null(tui_model_enabling(f->m, 2));
	tui_session_command(f->s, ":remove 9");
	assert_true(f->m->tm_msg_err);
	tui_session_command(f->s, ":frobnicate");
	assert_true(f->m->tm_msg_err);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(buf, sizeof(buf), ":save aggs %s", path);
	tui_session_command(f->s, buf);
	assert_false(f->m->tm_msg_err);
	fp = fopen(path, "r");
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	unlink(path);
	assert_non_null(strstr(buf, "@a"));
	tui_session_command(f->s, ":clear @a");
	if (f->m->tm_msg_err) {
		print_message("engine: %s\n", f->m->tm_msg);
	} else {
		tui_agg_t *a = tui_model_agg_find(f->m, "a");

		assert_string_equal(f->m->tm_msg, "cleared @a");
		for (int i = 0; a != NULL && i < a->tag_nents; i++)
			assert_int_equal(a->tag_ents[i].ta_value, 0);
	}
	assert_true(tui_session_command(f->s, ":quit") & TUI_QUIT);
}

static void test_tui_session_probes_and_stop(void **st)
{
	fx_t *f = *st;
	const tui_probes_t *p = &f->m->tm_probes;
	int found = 0;

	need_session(f);
	tui_session_probes(f->s);
	for (int i = 0; i < p->tp_n; i++)
		found |= strcmp(p->tp_probes[i].tp_prov, "dtrace") == 0 &&
		    strcmp(p->tp_probes[i].tp_name, "BEGIN") == 0;
	assert_true(found);
	assert_int_equal(tui_session_stop(f->s), 0);
	assert_int_equal(f->m->tm_state, TUI_STOPPED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_session_enable_feeds_output_and_aggs),
		cmocka_unit_test(test_tui_session_second_clause_keeps_aggs),
		cmocka_unit_test(test_tui_session_compile_error_has_caret),
		cmocka_unit_test(test_tui_session_commands),
		cmocka_unit_test(test_tui_session_probes_and_stop),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
