/*
 * bench_consume.c - how fast the consumer formats and aggregates.
 *
 * 1. printf-heavy records: a buffer of firings of one enabled probe whose
 *    clause is printf("%d %s %x\n", int, string, long) (the one-liner
 *    `printf("%d %s %x\n", pid, execname, arg0)`), decoded and formatted
 *    by eng_rec_consume to /dev/null; records per second.
 * 2. an aggregation of 100,000 keys (@[string, int] = count()): merging
 *    two CPUs' records into the snapshot (eng_agg_add, as eng_agg_snap
 *    does), then sort and print with printa to /dev/null; milliseconds.
 * Best of three runs each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "consume.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Cache an enabled probe: printf then its three arguments. */
static dtrace_eprobedesc_t *printf_probe(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;
	dtrace_eprobedesc_t *d = calloc(1, sizeof (*d) +
	    4 * sizeof (dtrace_recdesc_t));

	d->dtepd_epid = 1;
	d->dtepd_probeid = 1;
	d->dtepd_nrecs = 4;
	d->dtepd_rec[0].dtrd_action = DTRACEACT_PRINTF;
	d->dtepd_rec[0].dtrd_format = 1;
	d->dtepd_rec[0].dtrd_uarg = 3;
	d->dtepd_rec[0].dtrd_offset = 12;
	d->dtepd_rec[1].dtrd_action = DTRACEACT_DIFEXPR;
	d->dtepd_rec[1].dtrd_size = 4;
	d->dtepd_rec[1].dtrd_offset = 12;
	d->dtepd_rec[2].dtrd_action = DTRACEACT_DIFEXPR;
	d->dtepd_rec[2].dtrd_size = 16;
	d->dtepd_rec[2].dtrd_offset = 16;
	d->dtepd_rec[3].dtrd_action = DTRACEACT_DIFEXPR;
	d->dtepd_rec[3].dtrd_size = 8;
	d->dtepd_rec[3].dtrd_offset = 32;
	d->dtepd_size = 40;
	c->ec_ep = calloc(2, sizeof (*c->ec_ep));
	c->ec_nep = 2;
	c->ec_ep[1].ep_desc = d;
	strcpy(c->ec_ep[1].ep_probe.dtpd_provider, "syscall");
	strcpy(c->ec_ep[1].ep_probe.dtpd_name, "entry");
	c->ec_fmt = calloc(2, sizeof (char *));
	c->ec_nfmt = 2;
	c->ec_fmt[1] = strdup("%d %s %x\n");
	eng_setopt(h, "quiet", NULL);
	return d;
}

static void bench_printf(eng_hdl_t *h, FILE *out)
{
	dtrace_eprobedesc_t *d = printf_probe(h);
	size_t n = 100000, sz = d->dtepd_size;
	char *buf = calloc(n, sz);
	double best = 1e9;

	for (size_t i = 0; i < n; i++) {
		char *r = buf + i * sz;
		uint32_t epid = 1, pid = (uint32_t)(1000 + i % 50);
		uint64_t a0 = 0xdead0000 + i;

		memcpy(r, &epid, 4);
		memcpy(r + 12, &pid, 4);
		snprintf(r + 16, 16, "proc%zu", i % 7);
		memcpy(r + 32, &a0, 8);
	}
	for (int run = 0; run < 3; run++) {
		double t = now();

		for (int k = 0; k < 10; k++)
			eng_rec_consume(h, out, 0, buf, n * sz);
		fflush(out);
		t = now() - t;
		if (t < best)
			best = t;
	}
	printf("printf records: %.0f records/s (%.0f ns per record)\n",
	    10.0 * n / best, best / (10.0 * n) * 1e9);
	free(buf);
}

static void bench_agg(eng_hdl_t *h, FILE *out)
{
	dtrace_aggdesc_t *d = calloc(1, sizeof (*d) + 4 *
	    sizeof (dtrace_recdesc_t));
	size_t nkeys = 100000;
	char rec[64];
	dtrace_aggvarid_t id = 1;
	double best = 1e9, merge = 0, print = 0;

	d->dtagd_id = 1;
	d->dtagd_varid = 1;
	d->dtagd_nrecs = 4;
	d->dtagd_rec[0].dtrd_size = 4;
	d->dtagd_rec[1].dtrd_action = DTRACEACT_DIFEXPR;
	d->dtagd_rec[1].dtrd_size = 32;
	d->dtagd_rec[1].dtrd_offset = 4;
	d->dtagd_rec[2].dtrd_action = DTRACEACT_DIFEXPR;
	d->dtagd_rec[2].dtrd_size = 8;
	d->dtagd_rec[2].dtrd_offset = 40;
	d->dtagd_rec[3].dtrd_action = DTRACEAGG_COUNT;
	d->dtagd_rec[3].dtrd_size = 8;
	d->dtagd_rec[3].dtrd_offset = 48;
	d->dtagd_rec[3].dtrd_uarg = 1;
	d->dtagd_size = 56;
	for (int run = 0; run < 3; run++) {
		double t = now(), tm, te;

		eng_agg_free(h->eh_cons->ec_agg);
		h->eh_cons->ec_agg = NULL;
		for (int cpu = 0; cpu < 2; cpu++)
			for (size_t i = 0; i < nkeys; i++) {
				int64_t k = (int64_t)(i % 1000), v = (int64_t)
				    ((i * 7919) % 10007 + cpu);

				memset(rec, 0, sizeof (rec));
				memcpy(rec, &d->dtagd_id, 4);
				snprintf(rec + 4, 32, "key-%zu", i);
				memcpy(rec + 40, &k, 8);
				memcpy(rec + 48, &v, 8);
				eng_agg_add(h, d, rec);
			}
		tm = now();
		eng_agg_printa(h, out, NULL, &id, 1);
		fflush(out);
		te = now();
		if (te - t < best) {
			best = te - t;
			merge = tm - t;
			print = te - tm;
		}
	}
	printf("aggregation, 100,000 keys: snapshot merge + sort + print "
	    "%.1f ms (merge of 2 CPUs %.1f ms, sort+print %.1f ms)\n",
	    best * 1e3, merge * 1e3, print * 1e3);
	free(d);
}

int main(void)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof (err));
	FILE *out = fopen("/dev/null", "w");

	if (h == NULL || out == NULL) {
		fprintf(stderr, "bench_consume: %s\n", err);
		return 1;
	}
	bench_printf(h, out);
	bench_agg(h, out);
	eng_close(h);
	fclose(out);
	return 0;
}
