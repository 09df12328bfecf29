/*
 * test_bpf_tls_states.c - consumers come and go in one process (dtui's
 * restarts): each keeps its self-> variables in its own kernel map
 * (bpf_tls.c), at most 16 at once; the drain closes the map of a consumer
 * that is gone, so the 40 consumers opened one after the other here all
 * get the kernel path (a consumer that found no map would be vetoed:
 * its plans would show no kernel clause).  Needs root (BPF).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "engine.h"
#include "ks_filter.h"
#include "ks_impl.h"
#include "bpf_agg.h"
#include "bpf_filter.h"

/* The probe syscall:*:getppid:return (0 if none). */
static dtrace_id_t getppid_return(void)
{
	for (dtrace_id_t id = 1; id <= ks_probe_count(); id++) {
		ks_probe_t *p = ks_probe_get(id);

		if (p != NULL && strcmp(p->kp_prov->kv_name, "syscall") == 0 &&
		    strcmp(p->kp_func, "getppid") == 0 &&
		    strcmp(p->kp_name, "return") == 0)
			return id;
	}
	return DTRACE_IDNONE;
}

#define LATENCY \
	"syscall::getppid:entry /pid == 1/ { self->ts = timestamp; }\n" \
	"syscall::getppid:return /self->ts/ { @ = quantize(timestamp -" \
	" self->ts); self->ts = 0; }\n"

static void consumers_one_after_another(void **state)
{
	char err[256];
	eng_hdl_t *keep;

	(void)state;
	if (geteuid() != 0) {
		printf("skip: needs root (BPF)\n");
		skip();
	}
	/* one handle open throughout: the providers (and bpf_tls.c's maps)
	 * stay up between the consumers, as in dtui */
	keep = eng_open(0, err, sizeof(err));
	assert_non_null(keep);
	for (int i = 0; i < 40; i++) {
		eng_hdl_t *h = eng_open(0, err, sizeof(err));
		eng_prog_t *p;
		ks_aggplan_t pl;
		dtrace_id_t id;
		unsigned n = 0;

		assert_non_null(h);
		p = eng_compile_str(h, LATENCY, NULL, 0, NULL);
		if (p == NULL)
			fail_msg("compile: %s", eng_errmsg(h));
		assert_int_equal(eng_prog_exec(h, p, &n), 0);
		id = getppid_return();
		assert_int_not_equal(id, DTRACE_IDNONE);
		assert_int_equal(ks_probe_aggplan(id, &pl), 0);
		if (!pl.kap_ok || pl.kap_nkc != 1)
			fail_msg("consumer %d: ok %d, %d kernel clauses", i,
			    pl.kap_ok, pl.kap_nkc);
		/* and the provider runs it: the slot counts under a plan */
		if (prov_bpf_filter_agg(prov_bpf_filter_find(id)) < 0)
			fail_msg("consumer %d: slot %d delivers records", i,
			    prov_bpf_filter_find(id));
		eng_close(h);
		eng_prog_free(p);
		prov_bpf_agg_drain(1);
	}
	eng_close(keep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(consumers_one_after_another),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
