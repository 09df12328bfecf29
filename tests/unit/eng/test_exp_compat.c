/*
 * test_exp_compat.c - the experiment format's versions (engine/exp.h).
 * A session is recorded, then its data files are rewritten as a build of
 * a newer minor format might have written them: records of kinds this
 * build does not know among its own, inside calls and between them, in
 * the events and descriptions files.  Its replay prints the live text
 * exactly, with a note saying what was skipped and no warning.  The same
 * records in an experiment of this build's own minor are damage: the
 * replay stops there with a warning.  A newer major format, in a data
 * file's header or in log.xml, is refused with a message saying so.
 */
#include "eng_test.h"
#include "exp.h"

#define UNKNOWN_A	(EXP_R_NTYPES + 3)
#define UNKNOWN_B	(EXP_R_NTYPES + 40)

static char *session_text(eng_hdl_t *h, const char *src)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);
	eng_prog_t *p = eng_compile_str(h, src, NULL, 0, NULL);
	unsigned np;

	if (p == NULL)
		fail_msg("compile: %s", eng_errmsg(h));
	assert_int_equal(eng_prog_exec(h, p, &np), 0);
	assert_int_equal(eng_go(h), 0);
	for (int i = 0; i < 100; i++) {
		enum eng_status st = eng_status(h);

		assert_int_equal(eng_work(h, out), 0);
		if (st == ENG_STATUS_EXITED || st == ENG_STATUS_STOPPED)
			break;
	}
	assert_int_equal(eng_agg_snap(h), 0);
	assert_int_equal(eng_agg_print(h, out), 0);
	eng_prog_free(p);
	fclose(out);
	return text;
}

static char *replay_text(eng_hdl_t *h, const char *dir)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	assert_int_equal(eng_replay_open(h, dir), 0);
	assert_int_equal(eng_replay_run(h, out), 0);
	fclose(out);
	return text;
}

/* One record of a file, as read. */
struct rec {
	int file;
	struct exp_rhdr rh;
	char *body;
};

static struct rec *recs;
static size_t nrecs;

static void read_file(const char *dir, int f)
{
	char path[256];
	FILE *fp;
	struct exp_fhdr fh;
	struct exp_bhdr bh;

	snprintf(path, sizeof (path), "%s/%s", dir, eng_exp_fname(f));
	assert_non_null(fp = fopen(path, "rb"));
	assert_int_equal(fread(&fh, sizeof (fh), 1, fp), 1);
	while (fread(&bh, sizeof (bh), 1, fp) == 1) {
		char *pay = malloc(bh.bh_len);
		size_t pos = 0;

		assert_int_equal(fread(pay, 1, bh.bh_len, fp), bh.bh_len);
		for (uint32_t i = 0; i < bh.bh_nrecs; i++) {
			struct rec *r;

			recs = realloc(recs, (nrecs + 1) * sizeof (*recs));
			r = &recs[nrecs++];
			r->file = f;
			memcpy(&r->rh, pay + pos, sizeof (r->rh));
			r->body = malloc(r->rh.rh_len + 1);
			memcpy(r->body, pay + pos + sizeof (r->rh),
			    r->rh.rh_len);
			pos += sizeof (r->rh) + ((r->rh.rh_len + 7) & ~7u);
		}
		free(pay);
	}
	fclose(fp);
}

static int by_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->rh.rh_seq < y->rh.rh_seq ? -1 : x->rh.rh_seq > y->rh.rh_seq;
}

/* Append one record to fp as a block of its own. */
static void put(FILE *fp, const struct exp_rhdr *rh, const char *body)
{
	size_t len = sizeof (*rh) + ((rh->rh_len + 7) & ~7u);
	char *pay = calloc(1, len);
	struct exp_bhdr bh = { EXP_BLOCK_MAGIC, (uint32_t)len, rh->rh_seq,
	    rh->rh_time, 1, 0 };

	memcpy(pay, rh, sizeof (*rh));
	memcpy(pay + sizeof (*rh), body, rh->rh_len);
	bh.bh_sum = eng_exp_sum(pay, len);
	assert_int_equal(fwrite(&bh, sizeof (bh), 1, fp), 1);
	assert_int_equal(fwrite(pay, 1, len, fp), len);
	free(pay);
}

/*
 * Rewrite the experiment at dir as format 1.minor, with a record of an
 * unknown kind after each mark (in the call, in the events file) and
 * after each keyed description (in the descriptions file), renumbered.
 */
static void rewrite(const char *dir, uint32_t minor)
{
	FILE *out[EXP_NFILES];
	uint64_t seq = 0;
	static const char junk[] = "a newer build's record";

	for (int f = 0; f < EXP_NFILES; f++)
		read_file(dir, f);
	qsort(recs, nrecs, sizeof (*recs), by_seq);
	for (int f = 0; f < EXP_NFILES; f++) {
		char path[256];
		struct exp_fhdr fh;
		FILE *in;

		snprintf(path, sizeof (path), "%s/%s", dir, eng_exp_fname(f));
		assert_non_null(in = fopen(path, "rb"));
		assert_int_equal(fread(&fh, sizeof (fh), 1, in), 1);
		fclose(in);
		fh.fh_minor = minor;
		assert_non_null(out[f] = fopen(path, "wb"));
		assert_int_equal(fwrite(&fh, sizeof (fh), 1, out[f]), 1);
	}
	for (size_t i = 0; i < nrecs; i++) {
		struct rec *r = &recs[i];
		struct exp_rhdr u = { 0, 0, sizeof (junk), 0, r->rh.rh_time };

		r->rh.rh_seq = ++seq;
		put(out[r->file], &r->rh, r->body);
		if (r->rh.rh_type == EXP_R_MARK) {
			u.rh_type = UNKNOWN_A;
			u.rh_depth = (uint16_t)(r->rh.rh_depth + 1);
			u.rh_seq = ++seq;
			put(out[EXP_F_EVENTS], &u, junk);
		} else if (r->file == EXP_F_DESCRIBE) {
			u.rh_type = UNKNOWN_B;
			u.rh_depth = r->rh.rh_depth;
			u.rh_seq = ++seq;
			put(out[EXP_F_DESCRIBE], &u, junk);
		}
		free(r->body);
	}
	for (int f = 0; f < EXP_NFILES; f++)
		fclose(out[f]);
	free(recs);
	recs = NULL;
	nrecs = 0;
}

static const char src[] = "BEGIN { printf(\"%d %s\\n\", 7, \"seven\"); "
    "trace(8); @c[\"k\"] = count(); @q = quantize(100); exit(5); } "
    "END { printf(\"end %d\\n\", 9); }";

/* Remove the temporary directory of the experiment at dir. */
static void cleanup(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof (cmd), "rm -rf '%.*s'", (int)(strrchr(dir, '/') -
	    dir), dir);
	assert_int_equal(system(cmd), 0);
}

/* Record src into a new experiment; its path in dir (128), live text. */
static char *record(char *dir)
{
	char tmpl[] = "/tmp/test_exp_compat.XXXXXX";
	eng_hdl_t *h = et_open();
	char *live;

	assert_non_null(mkdtemp(tmpl));
	snprintf(dir, 128, "%s/t.er", tmpl);
	assert_int_equal(eng_setopt(h, "record", dir), 0);
	live = session_text(h, src);
	assert_null(eng_record_error(h));
	eng_close(h);
	assert_non_null(strstr(live, "end 9"));
	return live;
}

static void test_newer_minor_skips_unknown_kinds(void **st)
{
	char dir[128];
	char *live = record(dir), *again;
	eng_hdl_t *h = et_open();

	(void)st;
	rewrite(dir, EXP_MINOR + 1);
	again = replay_text(h, dir);
	assert_string_equal(again, live);
	assert_null(eng_replay_warning(h));
	assert_non_null(eng_replay_note(h));
	assert_non_null(strstr(eng_replay_note(h), "written in experiment "
	    "format 1.3, newer than this build's 1.2: skipped"));
	assert_non_null(strstr(eng_replay_note(h), "of kinds it does not "
	    "know"));
	assert_int_equal(eng_exit_status(h), 5);
	eng_close(h);
	cleanup(dir);
	free(again);
	free(live);
}

static void test_own_minor_with_unknown_kinds_is_damage(void **st)
{
	char dir[128];
	char *live = record(dir), *again;
	eng_hdl_t *h = et_open();

	(void)st;
	rewrite(dir, EXP_MINOR);
	again = replay_text(h, dir);
	assert_non_null(eng_replay_warning(h));
	assert_non_null(strstr(eng_replay_warning(h), "record of an unknown "
	    "kind at offset"));
	assert_null(eng_replay_note(h));
	assert_true(strlen(again) < strlen(live));
	assert_memory_equal(again, live, strlen(again));
	eng_close(h);
	cleanup(dir);
	free(again);
	free(live);
}

/* Put bytes at off in dir/name. */
static void poke(const char *dir, const char *name, long off,
    const void *p, size_t n)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof (path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "r+b"));
	assert_int_equal(fseek(fp, off, SEEK_SET), 0);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	fclose(fp);
}

/* The offset of s in dir/name (read whole), -1 if absent. */
static long find(const char *dir, const char *name, const char *s)
{
	char path[256], *buf = calloc(1, 1 << 16), *v;
	FILE *fp;
	long off;

	snprintf(path, sizeof (path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "rb"));
	assert_true(fread(buf, 1, (1 << 16) - 1, fp) > 0);
	fclose(fp);
	v = strstr(buf, s);
	off = v != NULL ? v - buf : -1;
	free(buf);
	return off;
}

static void test_newer_major_is_refused(void **st)
{
	char dir[128];
	char *live = record(dir);
	eng_hdl_t *h = et_open();
	uint32_t two = 2, one = EXP_VERSION;
	long v;

	(void)st;
	poke(dir, "principal", offsetof(struct exp_fhdr, fh_version), &two,
	    sizeof (two));
	assert_int_equal(eng_replay_open(h, dir), -1);
	assert_non_null(strstr(eng_errmsg(h), "t.er/principal: experiment "
	    "format version 2.2 is newer than this build reads (1.2): open it "
	    "with a newer dtrace (offset 8)"));
	eng_close(h);

	/* the files' headers right again, log.xml says 3.2 */
	poke(dir, "principal", offsetof(struct exp_fhdr, fh_version), &one,
	    sizeof (one));
	v = find(dir, "log.xml", "<experiment version=\"1.2\">");
	assert_true(v >= 0);
	poke(dir, "log.xml", v + 21, "3", 1);
	h = et_open();
	assert_int_equal(eng_replay_open(h, dir), -1);
	assert_non_null(strstr(eng_errmsg(h), "t.er/log.xml: experiment "
	    "format version 3.2 is newer than this build reads (1.2): open it "
	    "with a newer dtrace (<experiment version>)"));
	eng_close(h);

	/* and back to 1.2: it opens */
	poke(dir, "log.xml", v + 21, "1", 1);
	h = et_open();
	assert_int_equal(eng_replay_open(h, dir), 0);
	eng_close(h);
	cleanup(dir);
	free(live);
}

/* The ECBs' counters and timed runs (format 1.2) as the recording last
 * read them: each of BEGIN's and END's clauses ran once and that run
 * was timed; the replay's last tick gives the same. */
static void test_ecb_times_replay_as_recorded(void **st)
{
	char tmpl[] = "/tmp/test_exp_compat.XXXXXX", dir[128];
	eng_hdl_t *h = et_open();
	eng_ecbstat_t live[4];
	const eng_ecbstat_t *e;
	size_t n, nlive;
	char *text;

	(void)st;
	assert_non_null(mkdtemp(tmpl));
	snprintf(dir, sizeof (dir), "%s/t.er", tmpl);
	assert_int_equal(eng_setopt(h, "record", dir), 0);
	free(session_text(h, src));
	assert_non_null(e = eng_ecbstats(h, &nlive));
	assert_int_equal(nlive, 2);
	memcpy(live, e, nlive * sizeof (*e));
	for (size_t i = 0; i < nlive; i++) {
		assert_int_equal(live[i].ees_fires, 1);
		assert_int_equal(live[i].ees_samples, 1);
	}
	eng_close(h);
	h = et_open();
	text = replay_text(h, dir);
	assert_non_null(e = eng_ecbstats(h, &n));
	assert_int_equal(n, nlive);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(e[i].ees_clause, live[i].ees_clause);
		assert_int_equal(e[i].ees_fires, live[i].ees_fires);
		assert_int_equal(e[i].ees_samples, live[i].ees_samples);
		assert_int_equal(e[i].ees_sampns, live[i].ees_sampns);
	}
	eng_close(h);
	cleanup(dir);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newer_minor_skips_unknown_kinds),
		cmocka_unit_test(test_own_minor_with_unknown_kinds_is_damage),
		cmocka_unit_test(test_newer_major_is_refused),
		cmocka_unit_test(test_ecb_times_replay_as_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
