/*
 * bench_shim.c - the cost of one probe firing through the kernel shim, as
 * a provider sees it (ks_probe_fire with a prepared context):
 *   1. predicate true + @[arg0] = count() over 10,000 keys (the aim:
 *      <= 150 ns per firing),
 *   2. predicate false (ECB lookup, lock, predicate only),
 *   3. trace(arg0) into a switch buffer, snapshotted as it fills.
 * Prints ns per firing for each, best of three runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dofbuild.h"
#include "ks.h"
#include "ks_provider.h"

#define NKEYS	10000
#define NFIRE	5000000

static dtrace_id_t probe;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A state with one clause on bench:::fire. */
static ks_state_t *state(int kind)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[2];
	dtrace_enable_arg_t ea;
	uint32_t pd = dofb_probedesc(b, "bench", "", "", "fire"), cpu;
	size_t size;
	void *img;

	dofb_option(b, DTRACEOPT_BUFSIZE, 1 << 20);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEAGG_COUNT, DOF_SECIDX_NONE, 0);
	a[1].dofa_ntuple = 1;
	a[1].dofa_uarg = 1;
	dofb_ecb(b, pd, kind == 3 ? DOF_SECIDX_NONE : dofb_difo_argeq(b, 1, 1),
	    dofb_actions(b, a, kind == 3 ? 1 : 2), 1);
	img = dofb_finish(b, &size);
	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = img;
	ea.dtea_size = size;
	if (ks_ioctl(st, DTRACEIOC_ENABLE, &ea) != 0 ||
	    ks_ioctl(st, DTRACEIOC_GO, &cpu) != 0) {
		fprintf(stderr, "bench: %s\n", ks_errmsg(st));
		exit(1);
	}
	free(img);
	dofb_free(b);
	return st;
}

static double run(int kind)
{
	ks_state_t *st = state(kind);
	static char buf[1 << 20];
	dtrace_bufdesc_t d;
	ks_probe_ctx_t ctx;
	uint64_t t0, t;
	int i;

	ks_probe_ctx_self(&ctx, probe);
	ctx.kpc_cpu = 0;
	ctx.kpc_args[1] = kind == 2 ? 0 : 1;
	t0 = now();
	for (i = 0; i < NFIRE; i++) {
		ctx.kpc_args[0] = (uint64_t)(i % NKEYS);
		ks_probe_fire(&ctx);
		if (kind == 3 && i % 30000 == 0) {
			memset(&d, 0, sizeof(d));
			d.dtbd_size = sizeof(buf);
			d.dtbd_data = buf;
			(void)ks_ioctl(st, DTRACEIOC_BUFSNAP, &d);
		}
	}
	t = now() - t0;
	if (kind == 1) {	/* check the work was done: 10,000 keys */
		memset(&d, 0, sizeof(d));
		d.dtbd_size = sizeof(buf);
		d.dtbd_data = buf;
		if (ks_ioctl(st, DTRACEIOC_AGGSNAP, &d) != 0 ||
		    d.dtbd_size != (uint64_t)NKEYS * 24) {
			fprintf(stderr, "bench: %llu aggregation bytes\n",
			    (unsigned long long)d.dtbd_size);
			exit(1);
		}
	}
	ks_close(st);
	return (double)t / NFIRE;
}

int main(void)
{
	static const char *const what[] = { "",
	    "predicate true, @[arg0] = count(), 10,000 keys",
	    "predicate false",
	    "trace(arg0), switch buffer" };
	static const ks_provider_ops_t ops = { 0 };
	ks_provider_id_t id;
	int kind, r;

	if (ks_provider_register("bench", &ops, NULL, &id) != 0)
		return 1;
	probe = ks_probe_create(id, "", "", "fire", 0, NULL);
	for (kind = 1; kind <= 3; kind++) {
		double best = 1e9;

		for (r = 0; r < 3; r++) {
			double ns = run(kind);

			best = ns < best ? ns : best;
		}
		printf("%-50s %6.1f ns/firing\n", what[kind], best);
	}
	return 0;
}
