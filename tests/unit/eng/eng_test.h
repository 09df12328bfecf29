/*
 * eng_test.h - helpers for the consumer's unit tests: a handle without
 * providers, hand-built enabled-probe descriptions put straight into the
 * consumer's cache, record buffers laid out as the clause protocol says,
 * and output captured in memory.  Header-only (static functions).
 */
#ifndef ENG_TEST_H
#define ENG_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "consume.h"

#define ET_FN static __attribute__((unused))

ET_FN eng_hdl_t *et_open(void)
{
	char err[256];
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, sizeof (err));

	if (h == NULL)
		fail_msg("eng_open: %s", err);
	return h;
}

/* One record of an enabled probe: action, size, arg, uarg, format. */
struct et_rec {
	int act;
	uint32_t size;
	uint64_t arg, uarg;
	uint16_t fmt;
};

/* Put an enabled probe epid (probe id, four names, records) in the cache;
 * record offsets follow the clause protocol.  Returns the description. */
ET_FN dtrace_eprobedesc_t *et_epid(eng_hdl_t *h, dtrace_epid_t epid,
    dtrace_id_t probe, const char *names[4], const struct et_rec *recs,
    int n, uint64_t uarg)
{
	struct eng_consumer *c = h->eh_cons;
	size_t sz = sizeof (dtrace_eprobedesc_t) +
	    (size_t)(n > 0 ? n : 1) * sizeof (dtrace_recdesc_t);
	dtrace_eprobedesc_t *d = calloc(1, sz);
	uint32_t off = sizeof (dtrace_rechdr_t);

	assert_non_null(d);
	d->dtepd_epid = epid;
	d->dtepd_probeid = probe;
	d->dtepd_uarg = uarg;
	d->dtepd_nrecs = n;
	for (int i = 0; i < n; i++) {
		dtrace_recdesc_t *r = &d->dtepd_rec[i];
		uint32_t al = recs[i].size == 1 || recs[i].size == 2 ||
		    recs[i].size == 4 || recs[i].size == 8 ? recs[i].size :
		    recs[i].act == DTRACEACT_DIFEXPR ? 1 : 8;

		if (recs[i].size == 0)
			al = 1;
		off = (off + al - 1) & ~(al - 1);
		r->dtrd_action = (dtrace_actkind_t)recs[i].act;
		r->dtrd_size = recs[i].size;
		r->dtrd_offset = off;
		r->dtrd_alignment = (uint16_t)al;
		r->dtrd_format = recs[i].fmt;
		r->dtrd_arg = recs[i].arg;
		r->dtrd_uarg = recs[i].uarg;
		off += recs[i].size;
	}
	d->dtepd_size = (off + 7) & ~7u;
	if (epid >= c->ec_nep) {
		c->ec_ep = realloc(c->ec_ep, (epid + 1) * sizeof (*c->ec_ep));
		memset(c->ec_ep + c->ec_nep, 0, (epid + 1 - c->ec_nep) *
		    sizeof (*c->ec_ep));
		c->ec_nep = epid + 1;
	}
	free(c->ec_ep[epid].ep_desc);
	c->ec_ep[epid].ep_desc = d;
	memset(&c->ec_ep[epid].ep_probe, 0, sizeof (dtrace_probedesc_t));
	c->ec_ep[epid].ep_probe.dtpd_id = probe;
	snprintf(c->ec_ep[epid].ep_probe.dtpd_provider, DTRACE_PROVNAMELEN,
	    "%s", names[0]);
	snprintf(c->ec_ep[epid].ep_probe.dtpd_mod, DTRACE_MODNAMELEN, "%s",
	    names[1]);
	snprintf(c->ec_ep[epid].ep_probe.dtpd_func, DTRACE_FUNCNAMELEN, "%s",
	    names[2]);
	snprintf(c->ec_ep[epid].ep_probe.dtpd_name, DTRACE_NAMELEN, "%s",
	    names[3]);
	return d;
}

/* Put format string id in the cache. */
ET_FN void et_fmt(eng_hdl_t *h, uint16_t id, const char *s)
{
	struct eng_consumer *c = h->eh_cons;

	if (id >= c->ec_nfmt) {
		c->ec_fmt = realloc(c->ec_fmt, ((size_t)id + 1) * sizeof (char *));
		memset(c->ec_fmt + c->ec_nfmt, 0, ((size_t)id + 1 - c->ec_nfmt) *
		    sizeof (char *));
		c->ec_nfmt = (size_t)id + 1;
	}
	free(c->ec_fmt[id]);
	c->ec_fmt[id] = strdup(s);
}

/* A buffer of firings being built. */
struct et_buf {
	char data[65536];
	size_t len;
	size_t cur;			/* start of the current firing */
};

/* Start a firing of d in b; its data is zeroed. */
ET_FN void et_fire(struct et_buf *b, const dtrace_eprobedesc_t *d)
{
	dtrace_rechdr_t rh = { d->dtepd_epid, 0, 1000 };

	b->cur = b->len;
	memset(b->data + b->len, 0, d->dtepd_size);
	memcpy(b->data + b->len, &rh, sizeof (rh));
	b->len += (d->dtepd_size + 7) & ~(size_t)7;
}

/* Fill record i of the current firing with n bytes of p. */
ET_FN void et_put(struct et_buf *b, const dtrace_eprobedesc_t *d, int i,
    const void *p, size_t n)
{
	memcpy(b->data + b->cur + d->dtepd_rec[i].dtrd_offset, p, n);
}

ET_FN void et_put64(struct et_buf *b, const dtrace_eprobedesc_t *d, int i,
    int64_t v)
{
	et_put(b, d, i, &v, 8);
}

/* Consume b on cpu and return what was printed (malloc'd). */
ET_FN char *et_consume(eng_hdl_t *h, const struct et_buf *b, int cpu)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	assert_non_null(fp);
	assert_int_equal(eng_rec_consume(h, fp, cpu, b->data, b->len), 0);
	fclose(fp);
	return s;
}

static const char *et_begin[4] __attribute__((unused)) = { "dtrace", "", "", "BEGIN" };

#endif /* ENG_TEST_H */
