/*
 * test_exp.c - experiments (engine/exp*.c) without providers: a session
 * of BEGIN/END clauses recorded and replayed to the same text; the
 * reader driven through the fuzz target (tests/fuzz/experiment) over its
 * corpus, over every truncation of one input and over every byte of it
 * changed, so that the sanitizer build walks the reader's refusals.
 */
#include "eng_test.h"
#include "../../fuzz/experiment/fuzz_experiment.c"

/* Run a whole session of src on h, text to out (dtrace's loop). */
static void session(eng_hdl_t *h, const char *src, FILE *out)
{
	eng_prog_t *p = eng_compile_str(h, src, NULL, 0, NULL);
	unsigned n;

	if (p == NULL)
		fail_msg("compile: %s", eng_errmsg(h));
	assert_int_equal(eng_prog_exec(h, p, &n), 0);
	assert_int_equal(eng_go(h), 0);
	for (int i = 0; i < 100; i++) {
		enum eng_status st = eng_status(h);

		assert_int_equal(eng_work(h, out), 0);
		if (st == ENG_STATUS_EXITED || st == ENG_STATUS_STOPPED)
			break;
	}
	eng_print_text(h, out, "\n");
	assert_int_equal(eng_agg_snap(h), 0);
	assert_int_equal(eng_agg_print(h, out), 0);
	eng_prog_free(p);
}

static char *slurp_stream(FILE *fp, char **buf)
{
	fclose(fp);
	return *buf;
}

static void test_exp_replay_prints_the_live_text(void **state)
{
	char tmpl[] = "/tmp/test_exp.XXXXXX", path[128];
	char *live = NULL, *again = NULL;
	size_t nl = 0, na = 0;
	FILE *lf = open_memstream(&live, &nl), *af;
	eng_hdl_t *h = et_open();

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(path, sizeof (path), "%s/t.er", tmpl);
	assert_int_equal(eng_setopt(h, "record", path), 0);
	session(h, "BEGIN { printf(\"%d %s\\n\", 7, \"seven\"); trace(8); "
	    "@c[\"k\"] = count(); @q = quantize(100); @a = avg(3); exit(5); } "
	    "END { printf(\"end\\n\"); }", lf);
	assert_string_equal(eng_record_name(h), path);
	assert_null(eng_record_error(h));
	assert_int_equal(eng_exit_status(h), 5);
	eng_close(h);
	slurp_stream(lf, &live);

	h = et_open();
	af = open_memstream(&again, &na);
	assert_int_equal(eng_replay_open(h, path), 0);
	assert_int_equal(eng_replay_run(h, af), 0);
	assert_null(eng_replay_warning(h));
	assert_int_equal(eng_exit_status(h), 5);
	eng_close(h);
	slurp_stream(af, &again);
	assert_non_null(strstr(live, "7 seven"));
	assert_string_equal(again, live);
	free(live);
	free(again);
}

static void test_exp_refuses_what_is_not_one(void **state)
{
	eng_hdl_t *h = et_open();

	(void)state;
	assert_int_equal(eng_replay_open(h, "/nonexistent/x.er"), -1);
	assert_non_null(strstr(eng_errmsg(h), "/nonexistent/x.er"));
	eng_close(h);
	h = et_open();
	assert_int_equal(eng_replay_open(h, "/tmp"), -1);
	assert_non_null(strstr(eng_errmsg(h), "log.xml"));
	eng_close(h);
}

static uint8_t *read_all(const char *path, size_t *np)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *b = NULL;
	size_t n = 0, cap = 0, r;

	if (fp == NULL)
		return NULL;
	do {
		if (n == cap && (b = realloc(b, cap = cap ? cap * 2 : 4096)) ==
		    NULL)
			break;
		r = fread(b + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	*np = n;
	return b;
}

#define CORPUS "tests/fuzz/experiment/corpus/"

static void test_exp_reader_survives_the_corpus_cut_and_changed(void **st)
{
	static const char *const names[] = { "a.bin", "b.bin", "c.bin" };
	size_t n;
	uint8_t *in;

	(void)st;
	for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
		char path[256];

		snprintf(path, sizeof (path), CORPUS "%s", names[i]);
		in = read_all(path, &n);
		if (in == NULL)
			fail_msg("cannot read %s (run from the top directory)",
			    path);
		LLVMFuzzerTestOneInput(in, n);
		free(in);
	}
	in = read_all(CORPUS "c.bin", &n);
	assert_non_null(in);
	for (size_t len = 0; len < n; len += 1 + len / 64)
		LLVMFuzzerTestOneInput(in, len);
	for (size_t off = 0; off < n; off += 7) {
		uint8_t save = in[off];

		in[off] ^= 0x5a;
		LLVMFuzzerTestOneInput(in, n);
		in[off] = save;
	}
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exp_replay_prints_the_live_text),
		cmocka_unit_test(test_exp_refuses_what_is_not_one),
		cmocka_unit_test(test_exp_reader_survives_the_corpus_cut_and_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
