/* test_probes.c - probe tree rows, expansion, dtrace glob filtering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "tui.h"

static void fill(tui_probes_t *p)
{
	memset(p, 0, sizeof(*p));
	tui_probes_add(p, 3, "syscall", "vmlinux", "read", "entry");
	tui_probes_add(p, 4, "syscall", "vmlinux", "read", "return");
	tui_probes_add(p, 5, "syscall", "vmlinux", "write", "entry");
	tui_probes_add(p, 1, "dtrace", "", "", "BEGIN");
	tui_probes_add(p, 6, "syscall", "vmlinux", "pread64", "entry");
	tui_probes_sort(p);
}

static void test_tui_glob_follows_dtrace_rules(void **st)
{
	assert_true(tui_glob("*read*", "pread64"));
	assert_true(tui_glob("read", "read"));
	assert_false(tui_glob("read", "readv"));
	assert_true(tui_glob("r?ad", "read"));
	assert_true(tui_glob("[pr]read*", "pread64"));
	assert_false(tui_glob("[!p]read*", "pread64"));
	assert_true(tui_glob("[a-c]x", "bx"));
	assert_true(tui_glob("a\\*", "a*"));
	assert_false(tui_glob("a\\*", "ab"));
	assert_true(tui_glob("*", ""));
	assert_false(tui_glob("[ab", "a"));	/* unclosed set */
}

static void test_tui_probes_rows_start_collapsed_with_counts(void **st)
{
	tui_probes_t p;

	fill(&p);
	assert_int_equal(p.tp_n, 5);
	assert_int_equal(p.tp_nrows, 2);	/* dtrace, syscall */
	assert_int_equal(p.tp_rows[0].tpr_count, 1);
	assert_int_equal(p.tp_rows[1].tpr_count, 4);
	tui_probes_toggle(&p, 1);		/* open syscall */
	assert_int_equal(p.tp_nrows, 3);	/* + vmlinux */
	tui_probes_toggle(&p, 2);		/* open vmlinux */
	assert_int_equal(p.tp_nrows, 6);	/* + pread64 read write */
	assert_int_equal(p.tp_rows[4].tpr_count, 2);	/* read */
	tui_probes_toggle(&p, 4);
	assert_int_equal(p.tp_nrows, 8);
	assert_int_equal(p.tp_rows[5].tpr_depth, 3);
	tui_probes_toggle(&p, 1);		/* close syscall */
	assert_int_equal(p.tp_nrows, 2);
	tui_probes_clear(&p);
}

static void test_tui_probes_filter_word_matches_any_field(void **st)
{
	tui_probes_t p;
	char desc[128];

	fill(&p);
	assert_int_equal(tui_probes_filter(&p, "read"), 3);
	assert_true(p.tp_allopen);
	/* syscall, vmlinux, pread64, entry, read, entry, return */
	assert_int_equal(p.tp_nrows, 7);
	assert_int_equal(p.tp_rows[0].tpr_count, 3);
	tui_probes_desc(&p, 4, desc, sizeof(desc));
	assert_string_equal(desc, "syscall:vmlinux:read:");
	tui_probes_desc(&p, 6, desc, sizeof(desc));
	assert_string_equal(desc, "syscall:vmlinux:read:return");
	tui_probes_desc(&p, 0, desc, sizeof(desc));
	assert_string_equal(desc, "syscall:::");
	tui_probes_clear(&p);
}

static void test_tui_probes_filter_description_fields(void **st)
{
	tui_probes_t p;

	fill(&p);
	assert_int_equal(tui_probes_filter(&p, "syscall::*read*:"), 3);
	assert_int_equal(tui_probes_filter(&p, "syscall::*read*:entry"), 2);
	assert_int_equal(tui_probes_filter(&p, "read:return"), 1);
	assert_int_equal(tui_probes_filter(&p, ":::BEGIN"), 1);
	assert_int_equal(tui_probes_filter(&p, "nothing:::"), 0);
	assert_int_equal(p.tp_nrows, 0);
	assert_int_equal(tui_probes_filter(&p, ""), 5);
	assert_false(p.tp_allopen);
	tui_probes_clear(&p);
}

static void test_tui_probes_count_descriptions_of_a_clause(void **st)
{
	tui_probes_t p;

	fill(&p);
	assert_int_equal(tui_probes_count(&p, "syscall::read:entry { }"), 1);
	assert_int_equal(tui_probes_count(&p, "syscall::*read*:"), 3);
	assert_int_equal(tui_probes_count(&p, "BEGIN, syscall::write:entry\n"
	    "/pid == 1/ { }"), 2);
	assert_int_equal(tui_probes_count(&p, "entry,syscall:::entry"), 3);
	assert_int_equal(tui_probes_count(&p, "nomatch:::"), 0);
	assert_int_equal(tui_probes_count(&p, "{ x }"), -1);
	tui_probes_clear(&p);
}

/* Listed usdt probes (id 0, once per note) and made ones: one row per
 * name, the made probe's id kept. */
static void test_tui_probes_listed_usdt_once_made_id_kept(void **st)
{
	tui_probes_t p;

	memset(&p, 0, sizeof(p));
	tui_probes_add(&p, 0, "py12", "python3", "f", "gc-start");
	tui_probes_add(&p, 9, "py12", "python3", "f", "gc-start");
	tui_probes_add(&p, 0, "py12", "python3", "f", "gc-start");
	tui_probes_add(&p, 0, "py12", "python3", "g", "gc-done");
	tui_probes_add(&p, 0, "py12", "python3", "g", "gc-done");
	tui_probes_sort(&p);
	assert_int_equal(p.tp_n, 2);
	assert_int_equal(p.tp_probes[0].tp_id, 9);
	assert_string_equal(p.tp_probes[1].tp_name, "gc-done");
	assert_int_equal(p.tp_probes[1].tp_id, 0);
	assert_int_equal(p.tp_nmatch, 2);
	tui_probes_clear(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_glob_follows_dtrace_rules),
		cmocka_unit_test(test_tui_probes_rows_start_collapsed_with_counts),
		cmocka_unit_test(test_tui_probes_filter_word_matches_any_field),
		cmocka_unit_test(test_tui_probes_filter_description_fields),
		cmocka_unit_test(test_tui_probes_count_descriptions_of_a_clause),
		cmocka_unit_test(test_tui_probes_listed_usdt_once_made_id_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
