/*
 * fuzz_dof_load.c - libFuzzer target for the shim's DOF loader and what
 * runs after it: bytes -> ENABLE on a fresh state, then (if accepted) GO,
 * a few firings of the "fuzz" provider's probes with varied arguments,
 * snapshots of every CPU's buffers, STOP, STATUS and close.
 *
 * Seeds: corpus/ holds valid images built by mkcorpus.c (clauses on
 * fuzz:::p0..p3 and dtrace:::BEGIN/END/ERROR with traces, strings,
 * aggregations, speculations, ring and fill buffers).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ks.h"
#include "ks_provider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static dtrace_id_t probes[4];

static void setup(void)
{
	static const ks_provider_ops_t ops = { 0 };
	ks_provider_id_t id;
	static const char *const names[4] = { "p0", "p1", "p2", "p3" };
	int i;

	if (probes[0] != DTRACE_IDNONE)
		return;
	if (ks_provider_register("fuzz", &ops, NULL, &id) != 0)
		abort();
	for (i = 0; i < 4; i++)
		probes[i] = ks_probe_create(id, "mod", "func", names[i], 0,
		    NULL);
}

static void fire_all(unsigned round)
{
	static const uint64_t kst[4] = { 0x1000, 0x2000, 0x3000, 0x4000 };
	static const uint8_t mem[16] = "captured bytes";
	ks_ucapture_t cap = { 0x10000, sizeof(mem), mem };
	ks_probe_ctx_t ctx;
	int i, k;

	for (i = 0; i < 4; i++) {
		ks_probe_ctx_self(&ctx, probes[i]);
		ctx.kpc_cpu = (round + (unsigned)i) % ks_ncpus();
		for (k = 0; k < DTRACE_MAXARGS; k++)
			ctx.kpc_args[k] = (uint64_t)(round * 7 + (unsigned)k) -
			    3;
		ctx.kpc_args[2] = 0x10000;	/* a captured user address */
		ctx.kpc_kstack = kst;
		ctx.kpc_nkstack = 4;
		ctx.kpc_ustack = kst;
		ctx.kpc_nustack = 2;
		ctx.kpc_ucap = &cap;
		ctx.kpc_nucap = 1;
		ctx.kpc_pid = 0;	/* never signal anything */
		ks_probe_fire(&ctx);
	}
}

static void snap_all(ks_state_t *st, char *buf, uint64_t size)
{
	dtrace_bufdesc_t d;
	unsigned c;

	for (c = 0; c < ks_ncpus(); c++) {
		memset(&d, 0, sizeof(d));
		d.dtbd_cpu = c;
		d.dtbd_size = size;
		d.dtbd_data = buf;
		(void)ks_ioctl(st, DTRACEIOC_BUFSNAP, &d);
		d.dtbd_size = size;
		(void)ks_ioctl(st, DTRACEIOC_AGGSNAP, &d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *buf;
	ks_state_t *st;
	dtrace_enable_arg_t ea;
	dtrace_status_t s;
	uint64_t bufsize;
	uint32_t cpu;
	unsigned r;

	setup();
	if ((st = ks_open()) == NULL)
		return 0;
	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = data;
	ea.dtea_size = size;
	/* keep each run small: large buffers only cost time here */
	if (ks_ioctl(st, DTRACEIOC_ENABLE, &ea) != 0 ||
	    ks_getopt(st, DTRACEOPT_BUFSIZE) > (4 << 20) ||
	    ks_getopt(st, DTRACEOPT_AGGSIZE) > (4 << 20) ||
	    ks_getopt(st, DTRACEOPT_DYNVARSIZE) > (4 << 20) ||
	    ks_getopt(st, DTRACEOPT_NSPEC) * ks_getopt(st,
	    DTRACEOPT_SPECSIZE) > (4 << 20)) {
		ks_close(st);
		return 0;
	}
	bufsize = (uint64_t)ks_getopt(st, DTRACEOPT_BUFSIZE);
	if ((uint64_t)ks_getopt(st, DTRACEOPT_AGGSIZE) > bufsize)
		bufsize = (uint64_t)ks_getopt(st, DTRACEOPT_AGGSIZE);
	buf = realloc(buf, bufsize);
	if (buf != NULL && ks_ioctl(st, DTRACEIOC_GO, &cpu) == 0) {
		for (r = 0; r < 8; r++) {
			fire_all(r);
			if (r % 3 == 0)
				snap_all(st, buf, bufsize);
		}
		(void)ks_ioctl(st, DTRACEIOC_STATUS, &s);
		(void)ks_ioctl(st, DTRACEIOC_STOP, &cpu);
		snap_all(st, buf, bufsize);
	}
	ks_close(st);
	return 0;
}
