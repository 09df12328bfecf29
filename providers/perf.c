/*
 * perf.c - perf_event_open rings per CPU and the drain thread (stub: the
 * perf route is not wired yet; every open fails with a message).
 */
#include <string.h>
#include <unistd.h>
#include "prov_impl.h"

prov_perf_src_t *prov_perf_open(const struct perf_event_attr *attr,
    int callchain, prov_perf_cb_t *cb, void *arg)
{
	ks_provider_error("perf route not available yet");
	return NULL;
}

void prov_perf_close(prov_perf_src_t *src)
{
}

prov_perf_src_t *prov_perf_tracepoint(int tpid, int callchain,
    prov_perf_cb_t *cb, void *arg)
{
	ks_provider_error("perf route not available yet");
	return NULL;
}

void prov_perf_shutdown(void)
{
}

int prov_perf_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

int prov_perf_wants_stack(dtrace_id_t id)
{
	return 1;
}

void prov_perf_ctx(ks_probe_ctx_t *ctx, dtrace_id_t id,
    const prov_perf_sample_t *s)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->kpc_id = id;
	ctx->kpc_cpu = s->pps_cpu;
}
