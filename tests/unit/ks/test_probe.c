/*
 * test_probe.c - the probe registry: dtrace provider ids, create/lookup,
 * glob matching, PROBES/PROBEMATCH/PROBEARG/CONF, lazy kpo_provide,
 * thread-safe registration, and unregistration (a gone process's
 * provider: its probes unmatched, its name and slot reusable, past the
 * registry's limit).
 */
#include <errno.h>
#include <pthread.h>
#include "ks_test.h"
#include "ks_impl.h"

int ks_glob_match(const char *pat, const char *s);	/* kernel-shim/glob.c */

static void dtrace_provider_ids(void **state)
{
	ks_state_t *st = ks_open();
	dtrace_probedesc_t d;

	(void)state;
	assert_non_null(st);
	memset(&d, 0, sizeof(d));
	d.dtpd_id = 1;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBES, &d), 0);
	assert_int_equal(d.dtpd_id, 1);
	assert_string_equal(d.dtpd_provider, "dtrace");
	assert_string_equal(d.dtpd_name, "BEGIN");
	d.dtpd_id = 2;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBES, &d), 0);
	assert_string_equal(d.dtpd_name, "END");
	d.dtpd_id = 3;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBES, &d), 0);
	assert_string_equal(d.dtpd_name, "ERROR");
	ks_close(st);
}

static void create_lookup(void **state)
{
	dtrace_id_t id;

	(void)state;
	kt_setup();
	id = ks_probe_create(kt_prov, "mod", "func", "p3", 0, NULL);
	assert_int_equal(id, kt_probe[3]);
	assert_int_equal(ks_probe_lookup(kt_prov, "mod", "func", "p3"), id);
	assert_int_equal(ks_probe_lookup(kt_prov, "mod", "func", "nope"),
	    DTRACE_IDNONE);
	assert_int_equal(ks_probe_create(kt_prov, "m", "f", "", 0, NULL),
	    DTRACE_IDNONE);
	assert_int_equal(ks_probe_create(999, "m", "f", "n", 0, NULL),
	    DTRACE_IDNONE);
	assert_int_equal(ks_provider_register("ktest", &(ks_provider_ops_t){0},
	    NULL, NULL), -1);
	assert_false(ks_probe_is_enabled(id));
}

static void globs(void **state)
{
	(void)state;
	assert_true(ks_glob_match("", "anything"));
	assert_true(ks_glob_match("*", ""));
	assert_true(ks_glob_match("sys_*", "sys_read"));
	assert_false(ks_glob_match("sys_*", "xsys_read"));
	assert_true(ks_glob_match("*read*", "pread64"));
	assert_true(ks_glob_match("r?ad", "read"));
	assert_false(ks_glob_match("r?ad", "rad"));
	assert_true(ks_glob_match("[rw]rite", "write"));
	assert_true(ks_glob_match("[a-c]x", "bx"));
	assert_false(ks_glob_match("[a-c]x", "dx"));
	assert_true(ks_glob_match("[!a-c]x", "dx"));
	assert_false(ks_glob_match("[^a-c]x", "ax"));
	assert_true(ks_glob_match("[]]", "]"));
	assert_true(ks_glob_match("a\\*", "a*"));
	assert_false(ks_glob_match("a\\*", "ab"));
	assert_true(ks_glob_match("[abc", "[abc"));
	assert_true(ks_glob_match("*a*b*c*", "xxaxxbxxcxx"));
	assert_false(ks_glob_match("*a*b*c", "xxaxxbxxcxx"));
	assert_true(ks_glob_match("exact", "exact"));
	assert_false(ks_glob_match("exact", "exactly"));
}

static void probematch(void **state)
{
	ks_state_t *st = ks_open();
	dtrace_probedesc_t d;
	int n = 0;

	(void)state;
	kt_setup();
	memset(&d, 0, sizeof(d));
	strcpy(d.dtpd_provider, "kt*");
	strcpy(d.dtpd_name, "p[2-4]");
	d.dtpd_id = 0;
	while (ks_ioctl(st, DTRACEIOC_PROBEMATCH, &d) == 0) {
		assert_string_equal(d.dtpd_provider, "ktest");
		n++;
		d.dtpd_id++;
		strcpy(d.dtpd_provider, "kt*");
		strcpy(d.dtpd_name, "p[2-4]");
		d.dtpd_mod[0] = d.dtpd_func[0] = '\0';
	}
	assert_int_equal(n, 3);
	ks_close(st);
}

static int provided;
static dtrace_id_t lazy_id;
static ks_provider_id_t lazy_prov;

static void lazy_provide(void *arg, const dtrace_probedesc_t *desc)
{
	(void)arg;
	(void)desc;
	provided++;
	lazy_id = ks_probe_create(lazy_prov, "", "lazyfn", "go", 0, NULL);
}

static void lazy_getarg(void *arg, dtrace_id_t id, void *pa,
    dtrace_argdesc_t *d)
{
	(void)arg; (void)id; (void)pa;
	if (d->dtargd_ndx > 0) {
		d->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	strcpy(d->dtargd_native, "char *");
}

static void lazy_and_args(void **state)
{
	static const ks_provider_ops_t ops = {
		.kpo_provide = lazy_provide, .kpo_getargdesc = lazy_getarg,
	};
	ks_state_t *st = ks_open();
	dtrace_probedesc_t d;
	dtrace_argdesc_t a;

	(void)state;
	assert_int_equal(ks_provider_register("lazy", &ops, NULL, &lazy_prov),
	    0);
	memset(&d, 0, sizeof(d));
	strcpy(d.dtpd_provider, "lazy");
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBEMATCH, &d), 0);
	assert_true(provided >= 1);
	assert_string_equal(d.dtpd_func, "lazyfn");
	assert_int_equal(d.dtpd_id, lazy_id);
	memset(&a, 0, sizeof(a));
	a.dtargd_id = lazy_id;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBEARG, &a), 0);
	assert_string_equal(a.dtargd_native, "char *");
	a.dtargd_ndx = 1;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBEARG, &a), 0);
	assert_int_equal(a.dtargd_ndx, DTRACE_ARGNONE);
	a.dtargd_id = 3;	/* dtrace:::ERROR has six */
	a.dtargd_ndx = 5;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBEARG, &a), 0);
	assert_string_equal(a.dtargd_native, "uint64_t");
	a.dtargd_id = 0x7fffffff;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_PROBEARG, &a), -1);
	ks_close(st);
}

static void conf(void **state)
{
	ks_state_t *st = ks_open();
	dtrace_conf_t c;

	(void)state;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_CONF, &c), 0);
	assert_int_equal(c.dtc_difversion, DIF_VERSION);
	assert_int_equal(c.dtc_ncpus, ks_ncpus());
	assert_true(c.dtc_ncpus >= 1);
	assert_int_equal(ks_ioctl(st, 999, &c), -1);
	assert_true(strlen(ks_errmsg(st)) > 0);
	ks_close(st);
}

static ks_provider_id_t race_prov;

static void *racer(void *arg)
{
	char name[32];
	int i;

	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "r%ld_%d", (long)(intptr_t)arg, i);
		if (ks_probe_create(race_prov, "m", "f", name, 0, NULL) ==
		    DTRACE_IDNONE)
			return (void *)1;
		(void)ks_probe_create(race_prov, "m", "f", "shared", 0, NULL);
	}
	return NULL;
}

static void concurrent_registration(void **state)
{
	static const ks_provider_ops_t ops = { 0 };
	pthread_t t[4];
	void *rv;
	long i;
	dtrace_id_t before = 0, shared;

	(void)state;
	assert_int_equal(ks_provider_register("race", &ops, NULL, &race_prov),
	    0);
	before = ks_probe_lookup(race_prov, "m", "f", "shared");
	assert_int_equal(before, DTRACE_IDNONE);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, racer, (void *)i);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &rv);
		assert_null(rv);
	}
	shared = ks_probe_lookup(race_prov, "m", "f", "shared");
	assert_int_not_equal(shared, DTRACE_IDNONE);
	for (i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "r%ld_499", i);
		assert_int_not_equal(ks_probe_lookup(race_prov, "m", "f", name),
		    DTRACE_IDNONE);
	}
}

/* How many probes PROBEMATCH finds for a provider-field pattern. */
static int count_matches(ks_state_t *st, const char *prov)
{
	dtrace_probedesc_t d;
	dtrace_id_t next = 1;
	int n = 0;

	for (;; n++) {
		memset(&d, 0, sizeof(d));
		snprintf(d.dtpd_provider, sizeof(d.dtpd_provider), "%s", prov);
		d.dtpd_id = next;
		if (ks_ioctl(st, DTRACEIOC_PROBEMATCH, &d) != 0)
			return n;
		next = d.dtpd_id + 1;
	}
}

static void unregister(void **state)
{
	static const ks_provider_ops_t ops = { 0 };
	ks_state_t *st = ks_open();
	ks_provider_id_t id, id2;
	dtrace_id_t p1, p2;

	(void)state;
	assert_non_null(st);
	assert_int_equal(ks_provider_register("gone123", &ops, NULL, &id), 0);
	p1 = ks_probe_create(id, "a.out", "main", "tick", 0, NULL);
	assert_int_not_equal(p1, DTRACE_IDNONE);
	assert_int_equal(count_matches(st, "gone123"), 1);
	assert_int_equal(ks_provider_unregister(id), 0);
	assert_int_equal(count_matches(st, "gone123"), 0);
	assert_int_equal(count_matches(st, "gone*"), 0);
	assert_int_equal(ks_probe_lookup(id, "a.out", "main", "tick"),
	    DTRACE_IDNONE);
	assert_non_null(ks_probe_get(p1));	/* still there for its ECBs */
	assert_int_equal(ks_provider_unregister(id), -1);
	assert_int_equal(errno, ENOENT);
	/* the name again (a reused pid), in the freed slot: new probes */
	assert_int_equal(ks_provider_register("gone123", &ops, NULL, &id2), 0);
	assert_int_equal(id2, id);
	p2 = ks_probe_create(id2, "a.out", "main", "tick", 0, NULL);
	assert_true(p2 != DTRACE_IDNONE && p2 != p1);
	assert_int_equal(count_matches(st, "gone123"), 1);
	assert_int_equal(ks_provider_unregister(id2), 0);
	/* many more than the registry holds at once, one at a time */
	for (int i = 0; i < 3000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "churn%d", i);
		assert_int_equal(ks_provider_register(name, &ops, NULL, &id),
		    0);
		assert_int_not_equal(ks_probe_create(id, "m", "f", "n", 0,
		    NULL), DTRACE_IDNONE);
		assert_int_equal(ks_provider_unregister(id), 0);
	}
	assert_int_equal(count_matches(st, "churn*"), 0);
	assert_int_equal(count_matches(st, "dtrace"), 3);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dtrace_provider_ids),
		cmocka_unit_test(create_lookup),
		cmocka_unit_test(globs),
		cmocka_unit_test(probematch),
		cmocka_unit_test(lazy_and_args),
		cmocka_unit_test(conf),
		cmocka_unit_test(concurrent_registration),
		cmocka_unit_test(unregister),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
