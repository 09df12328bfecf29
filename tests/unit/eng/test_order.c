/*
 * test_order.c - the consumer's order across CPUs, as dtrace_consume:
 * the buffer of the CPU that ran BEGIN is consumed before any other, so
 * BEGIN's output comes first even when another CPU traced before the
 * first consumption (a busy machine delays it); once stopped, the CPU
 * that ran END is consumed last.  BEGIN and END run on the CPU of the
 * thread calling eng_go/eng_stop, so the test pins itself to a CPU and
 * fires a probe "on" another one.
 */
#include <sched.h>
#include "eng_test.h"
#include "ks_provider.h"

static dtrace_id_t probe;

static int noop_enable(void *a, dtrace_id_t id, void *pa)
{
	(void)a; (void)id; (void)pa;
	return 0;
}

static void noop_disable(void *a, dtrace_id_t id, void *pa)
{
	(void)a; (void)id; (void)pa;
}

static void setup_probe(void)
{
	static const ks_provider_ops_t ops = {
		.kpo_enable = noop_enable, .kpo_disable = noop_disable,
	};
	ks_provider_id_t prov;

	if (probe != 0)
		return;
	assert_int_equal(ks_provider_register("ordtest", &ops, NULL, &prov),
	    0);
	probe = ks_probe_create(prov, "mod", "func", "other", 0, NULL);
	assert_int_not_equal(probe, DTRACE_IDNONE);
}

static void fire_on(unsigned cpu)
{
	ks_probe_ctx_t ctx;

	ks_probe_ctx_self(&ctx, probe);
	ctx.kpc_cpu = cpu;
	ks_probe_fire(&ctx);
}

/* Pin the calling thread to cpu; 0 if it could not be. */
static int pin(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof (set), &set) == 0 &&
	    (unsigned)sched_getcpu() == cpu;
}

static void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (unsigned i = 0; i < ks_ncpus(); i++)
		CPU_SET(i, &set);
	(void)sched_setaffinity(0, sizeof (set), &set);
}

/* Run BEGIN/END on cpu `self`, fire the probe on `other` between GO and
 * the first consumption and again before STOP; the whole output. */
static char *run(unsigned self, unsigned other)
{
	eng_hdl_t *h = et_open();
	eng_prog_t *p;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	setup_probe();
	assert_int_equal(eng_setopt(h, "quiet", NULL), 0);
	p = eng_compile_str(h, "BEGIN { printf(\"begin\\n\"); }"
	    "ordtest:::other { printf(\"other\\n\"); }"
	    "END { printf(\"end\\n\"); }", NULL, 0, NULL);
	if (p == NULL)
		fail_msg("compile: %s", eng_errmsg(h));
	assert_int_equal(eng_prog_exec(h, p, NULL), 0);
	if (!pin(self)) {
		eng_close(h);
		fclose(fp);
		free(out);
		unpin();
		return NULL;
	}
	assert_int_equal(eng_go(h), 0);
	fire_on(other);
	assert_int_equal(eng_work(h, fp), 0);
	fire_on(other);
	assert_int_equal(eng_stop(h), 0);
	assert_int_equal(eng_work(h, fp), 0);
	unpin();
	fclose(fp);
	eng_prog_free(p);
	eng_close(h);
	return out;
}

static void begin_first(void **state)
{
	unsigned last = ks_ncpus() - 1;
	char *out;

	(void)state;
	if (ks_ncpus() < 2) {
		print_message("SKIP: one CPU, no order to check\n");
		skip();
	}
	/* BEGIN on the last CPU, the probe on CPU 0: CPU order would put
	 * "other" first */
	if ((out = run(last, 0)) == NULL) {
		print_message("SKIP: cannot pin this thread to a CPU\n");
		skip();
	}
	assert_string_equal(out, "begin\nother\nother\nend\n");
	free(out);
}

static void end_last(void **state)
{
	char *out;

	(void)state;
	if (ks_ncpus() < 2) {
		print_message("SKIP: one CPU, no order to check\n");
		skip();
	}
	/* END on CPU 0, the probe on CPU 1, both buffers read after STOP */
	if ((out = run(0, 1)) == NULL) {
		print_message("SKIP: cannot pin this thread to a CPU\n");
		skip();
	}
	assert_string_equal(out, "begin\nother\nother\nend\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(begin_first),
		cmocka_unit_test(end_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
