/* test_save.c - :save output and :save aggs write what the panes show. */
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
#include "dtrace_abi.h"

static char *slurp(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void test_tui_save_output_writes_lines_and_partial(void **st)
{
	tui_model_t *m = tui_model_new(10);
	char path[] = "/tmp/dtui-save-XXXXXX", err[256], buf[256];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	tui_model_output(m, "one\ntwo\nthr", 11, 0);
	assert_int_equal(tui_save_output(m, path, err, sizeof(err)), 0);
	assert_string_equal(slurp(path, buf, sizeof(buf)), "one\ntwo\nthr\n");
	unlink(path);
	assert_int_equal(tui_save_output(m, "/nonexistent/dir/x", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/dir/x: "));
	tui_model_free(m);
}

static void test_tui_save_aggs_tables_and_histograms(void **st)
{
	static char *labels[4] = { "0", "1", "2", "4" };
	int64_t b[4] = { 0, 3, 0, 0 };
	tui_model_t *m = tui_model_new(10);
	char path[] = "/tmp/dtui-save-XXXXXX", err[256], buf[1024];
	int fd = mkstemp(path);
	tui_agg_t *a;

	assert_true(fd >= 0);
	close(fd);
	tui_model_agg_begin(m);
	a = tui_model_agg_get(m, "c", DTRACEAGG_COUNT);
	tui_model_agg_put(a, "bash", 12, 0, NULL, NULL);
	a = tui_model_agg_get(m, "q", DTRACEAGG_QUANTIZE);
	tui_model_agg_put(a, "read", 3, 4, b, labels);
	tui_model_agg_end(m);
	assert_int_equal(tui_save_aggs(m, path, err, sizeof(err)), 0);
	slurp(path, buf, sizeof(buf));
	unlink(path);
	assert_non_null(strstr(buf, "@c\n  bash"));
	assert_non_null(strstr(buf, "                   12\n"));
	assert_non_null(strstr(buf, "@q\n  read\n           value  count\n"
	    "               0  0\n               1  3\n               2  0\n"));
	tui_model_free(m);
}

/* A full disk is a message naming the error, never "saved". */
static void test_tui_save_reports_write_errors(void **st)
{
	tui_model_t *m = tui_model_new(10);
	char err[256];

	if (access("/dev/full", W_OK) != 0) {
		print_message("SKIP: no writable /dev/full\n");
		skip();
	}
	tui_model_output(m, "one\ntwo\n", 8, 0);
	assert_int_equal(tui_save_output(m, "/dev/full", err, sizeof(err)),
	    -1);
	assert_string_equal(err,
	    "/dev/full: write failed: No space left on device");
	tui_model_agg_begin(m);
	tui_model_agg_put(tui_model_agg_get(m, "c", DTRACEAGG_COUNT), "k", 1,
	    0, NULL, NULL);
	tui_model_agg_end(m);
	err[0] = '\0';
	assert_int_equal(tui_save_aggs(m, "/dev/full", err, sizeof(err)), -1);
	assert_string_equal(err,
	    "/dev/full: write failed: No space left on device");
	tui_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_save_output_writes_lines_and_partial),
		cmocka_unit_test(test_tui_save_aggs_tables_and_histograms),
		cmocka_unit_test(test_tui_save_reports_write_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
