/*
 * test_bpf_agg_drops.c - a full aggregation map (providers/bpf/bpf_agg.c) as
 * root: with the maps limited to 8 keys, a child making 100 system calls
 * with 100 different keys gets at most 8 of them counted, and every call
 * not counted is a drop: counted + drops == calls.  (A binary of its own:
 * the map size is fixed when the maps are first made.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "live.h"
#include "bpf_agg.h"

#define NCALLS 100
#define NKEYS 8

static dtrace_id_t plan_probe = DTRACE_IDNONE;

static int plan_hook(dtrace_id_t id, ks_aggplan_t *out)
{
	memset(out, 0, sizeof(*out));
	if (id == plan_probe) {
		out->kap_ok = 1;
		out->kap_vars = PROV_FV(KS_FV_PID) | PROV_FV(KS_FV_ARG);
		out->kap_args = 1u << 1;
	}
	return 0;
}

static void distinct_calls(void)
{
	for (int i = 0; i < NCALLS; i++)	/* who: no such process */
		syscall(SYS_getpriority, PRIO_PROCESS, 900000000 + i);
}

static void full_map_drops(void **state)
{
	uint64_t fired0, calls0, drops0, fired, calls, drops;
	int slot, kept;
	dtrace_id_t id;
	pid_t pid;

	(void)state;
	live_require();
	id = live_enable("syscall", "", "getpriority", "entry");
	plan_probe = id;
	prov_bpf_filter_update();
	slot = prov_bpf_filter_find(id);
	if (slot < 0) {
		print_message("no BPF slot for the probe (BPF unusable)\n");
		skip();
	}
	assert_true(prov_bpf_filter_agg(slot) > 0);
	prov_bpf_agg_stats(&fired0, &calls0, &drops0);
	live_reset();
	pid = live_run(distinct_calls);
	prov_bpf_agg_stats(&fired, &calls, &drops);
	kept = live_count(id, pid);
	assert_true(kept <= NKEYS);
	assert_true(drops - drops0 >= NCALLS - NKEYS);
	assert_int_equal((uint64_t)kept + (drops - drops0), NCALLS);
	live_disable(id);
}

static int setup(void **state)
{
	prov_bpf_agg_set_maxkeys(NKEYS);
	prov_bpf_agg_set_plan_hook(plan_hook);
	return live_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_map_drops),
	};

	return cmocka_run_group_tests(tests, setup, live_teardown);
}
