/*
 * fuzz_consume.c - libFuzzer target for the consumer's decoding of what
 * the shim hands it: enabled-probe descriptions, format strings,
 * aggregation descriptions (the metadata) and principal-buffer and
 * aggregation snapshots (the records), all taken from the input:
 *   u8 flags        quiet, json, flowindent, buffered output, rawbytes,
 *                   aggsortkey, the CPU
 *   u8 neps, then per EPID 1..neps: u8 nrecs, u16 size, u8 uarg kind,
 *                   then per record: u8 action, u16 size, u16 offset,
 *                   u8 alignment, u8 format, u64 arg, u8 uarg
 *   u8 nfmts, then NUL-terminated format strings (IDs 1..nfmts)
 *   u8 naggs, then per aggregation ID 1..naggs: u8 nrecs, u16 size,
 *                   per record: u8 action, u16 size, u16 offset, u64 arg
 *   u16 length of the aggregation snapshot, its bytes; the rest is the
 *   principal buffer.
 * Descriptions go through the consumer's own checks (as when the shim
 * hands them over); the snapshots are decoded, then the aggregations are
 * printed (text and JSON), as at the end of a session.  Errors must come
 * back as messages: any crash, hang, leak or sanitizer report is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "consume.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint64_t get(struct rd *r, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes && r->n > 0; i++, r->n--)
		v |= (uint64_t)*r->p++ << (8 * i);
	return v;
}

/* Actions a record may carry: the real ones, and anything at all but
 * system() and freopen(), which the consumer carries out (a shell
 * command, a file opened for writing). */
static const uint16_t acts[] = {
	DTRACEACT_DIFEXPR, DTRACEACT_EXIT, DTRACEACT_PRINTF, DTRACEACT_PRINTA,
	DTRACEACT_LIBACT, DTRACEACT_TRACEMEM, DTRACEACT_TRACEMEM_DYNSIZE,
	DTRACEACT_STACK, DTRACEACT_USTACK, DTRACEACT_SYM, DTRACEACT_MOD,
	DTRACEACT_USYM, DTRACEACT_UMOD, DTRACEACT_UADDR,
	DTRACEACT_SPECULATE, DTRACEACT_COMMIT, DTRACEACT_DISCARD,
	DTRACEACT_STOP, DTRACEACT_RAISE, DTRACEACT_CHILL, DTRACEACT_JSTACK,
	DTRACEAGG_COUNT, DTRACEAGG_SUM,
	DTRACEAGG_MIN, DTRACEAGG_MAX, DTRACEAGG_AVG, DTRACEAGG_STDDEV,
	DTRACEAGG_QUANTIZE, DTRACEAGG_LQUANTIZE, DTRACEAGG_LLQUANTIZE,
};
#define NACTS (sizeof (acts) / sizeof (acts[0]))

static uint16_t action(struct rd *r)
{
	unsigned v = (unsigned)get(r, 1);
	uint16_t a = v < NACTS ? acts[v] : (uint16_t)(v << 4 | (v & 0xf));

	return a == DTRACEACT_SYSTEM || a == DTRACEACT_FREOPEN ?
	    DTRACEACT_NONE : a;
}

static void eprobes(eng_hdl_t *h, struct rd *r)
{
	struct eng_consumer *c = h->eh_cons;
	unsigned n = (unsigned)get(r, 1) % 5;

	for (dtrace_epid_t epid = 1; epid <= n; epid++) {
		int nrecs = (int)(get(r, 1) % 9);
		dtrace_eprobedesc_t *d = calloc(1, sizeof (*d) +
		    (size_t)(nrecs + 1) * sizeof (dtrace_recdesc_t));

		if (d == NULL)
			return;
		d->dtepd_epid = epid;
		d->dtepd_probeid = epid;
		d->dtepd_nrecs = nrecs;
		d->dtepd_size = (uint32_t)get(r, 2);
		d->dtepd_uarg = get(r, 1) == 0xff ? DT_ECB_ERROR : epid;
		for (int i = 0; i < nrecs; i++) {
			dtrace_recdesc_t *rd = &d->dtepd_rec[i];

			rd->dtrd_action = action(r);
			rd->dtrd_size = (uint32_t)get(r, 2);
			rd->dtrd_offset = (uint32_t)get(r, 2);
			rd->dtrd_alignment = (uint16_t)get(r, 1);
			rd->dtrd_format = (uint16_t)get(r, 1);
			rd->dtrd_arg = get(r, 8);
			rd->dtrd_uarg = get(r, 1);
		}
		/* as fetch_epid: a description the checks refuse is never
		 * cached, and a firing of that EPID asks the shim (which
		 * knows nothing here) and fails with a message */
		if (eng_rec_desc_check(d) != 0 || epid >= c->ec_nep) {
			free(d);
			continue;
		}
		c->ec_ep[epid].ep_desc = d;
		memset(&c->ec_ep[epid].ep_probe, 0, sizeof (dtrace_probedesc_t));
		c->ec_ep[epid].ep_probe.dtpd_id = epid;
		snprintf(c->ec_ep[epid].ep_probe.dtpd_provider,
		    DTRACE_PROVNAMELEN, "fuzz");
		snprintf(c->ec_ep[epid].ep_probe.dtpd_func, DTRACE_FUNCNAMELEN,
		    "f%u", epid);
		snprintf(c->ec_ep[epid].ep_probe.dtpd_name, DTRACE_NAMELEN,
		    "p%u", epid);
	}
}

static void formats(eng_hdl_t *h, struct rd *r)
{
	struct eng_consumer *c = h->eh_cons;
	unsigned n = (unsigned)get(r, 1) % 5;

	for (unsigned id = 1; id <= n && id < c->ec_nfmt; id++) {
		size_t len = strnlen((const char *)r->p, r->n);
		char *s = malloc(len + 1);

		if (s == NULL)
			return;
		memcpy(s, r->p, len);
		s[len] = '\0';
		r->p += len < r->n ? len + 1 : len;
		r->n -= len < r->n ? len + 1 : len;
		c->ec_fmt[id] = s;
	}
}

static void aggdescs(eng_hdl_t *h, struct rd *r)
{
	unsigned n = (unsigned)get(r, 1) % 4;

	for (dtrace_aggid_t id = 1; id <= n; id++) {
		int nrecs = (int)(get(r, 1) % 6);
		dtrace_aggdesc_t *d = calloc(1, sizeof (*d) +
		    (size_t)(nrecs + 1) * sizeof (dtrace_recdesc_t));

		if (d == NULL)
			return;
		d->dtagd_id = id;
		d->dtagd_nrecs = nrecs;
		d->dtagd_size = (uint32_t)get(r, 2);
		for (int i = 0; i < nrecs; i++) {
			dtrace_recdesc_t *rd = &d->dtagd_rec[i];

			rd->dtrd_action = action(r);
			rd->dtrd_size = (uint32_t)get(r, 2);
			rd->dtrd_offset = (uint32_t)get(r, 2);
			rd->dtrd_arg = get(r, 8);
			rd->dtrd_uarg = id;	/* the variable ID */
		}
		(void)eng_agg_desc_put(h, d);	/* takes d */
	}
}

static void buffered(const eng_bufdata_t *bd, void *arg)
{
	(void)bd;
	(void)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the kernel's symbols, read once (a few MB of /proc/kallsyms) and
	 * handed from one handle to the next; dropped every 4096 inputs, as
	 * the table also keeps every live process a made-up pid happened to
	 * name, with its mappings (on a machine where processes come and go
	 * by the hundred, that grew without bound over a long run) */
	static struct eng_symtab *syms;
	static unsigned long runs;
	static FILE *null;
	struct rd r = { data, size };
	struct eng_consumer *c;
	eng_hdl_t *h;
	char err[256];
	unsigned flags;
	size_t alen;
	char *snap;

	/* FUZZ_VERBOSE=1 shows what an input decodes to */
	if (null == NULL && (null = getenv("FUZZ_VERBOSE") != NULL ? stdout :
	    fopen("/dev/null", "w")) == NULL)
		abort();
	if ((h = eng_open(ENG_O_NOPROVIDERS, err, sizeof (err))) == NULL)
		abort();
	c = h->eh_cons;
	if (syms != NULL && ++runs % 4096 == 0) {
		eng_sym_free(syms);
		syms = NULL;
	}
	if (syms != NULL) {
		eng_sym_free(c->ec_sym);
		c->ec_sym = syms;
	}
	/* room in the caches for the IDs the input may define */
	c->ec_ep = calloc(8, sizeof (*c->ec_ep));
	c->ec_nep = c->ec_ep != NULL ? 8 : 0;
	c->ec_fmt = calloc(8, sizeof (*c->ec_fmt));
	c->ec_nfmt = c->ec_fmt != NULL ? 8 : 0;
	flags = (unsigned)get(&r, 1);
	if (flags & 1)
		(void)eng_setopt(h, "quiet", NULL);
	if (flags & 2)
		(void)eng_setopt(h, "oformat", "json");
	if (flags & 4)
		(void)eng_setopt(h, "flowindent", NULL);
	if (flags & 16)
		(void)eng_setopt(h, "rawbytes", NULL);
	if (flags & 32)
		(void)eng_setopt(h, "aggsortkey", NULL);
	eng_handle_buffered(h, buffered, NULL);
	eprobes(h, &r);
	formats(h, &r);
	aggdescs(h, &r);
	alen = (size_t)get(&r, 2);
	if (alen > r.n)
		alen = r.n;
	/* snapshots arrive in malloc'd (8-byte aligned) buffers, records at
	 * 8-byte boundaries: copied so, as the consumer's own are */
	if ((snap = malloc(r.n + 1)) == NULL)
		abort();
	memcpy(snap, r.p, alen);
	if (eng_agg_consume(h, (int)(flags >> 6), snap, alen) != 0 &&
	    eng_errmsg(h)[0] == '\0')
		abort();		/* a refusal must say why */
	if (null == stdout)
		printf("[%s]\n", eng_errmsg(h));
	r.p += alen;
	r.n -= alen;
	memcpy(snap, r.p, r.n);
	if (eng_rec_consume(h, flags & 8 ? NULL : null, (int)(flags >> 6),
	    snap, r.n) != 0 && eng_errmsg(h)[0] == '\0')
		abort();
	free(snap);
	if (null == stdout)
		printf("[%s]\n", eng_errmsg(h));
	(void)eng_agg_print(h, null);
	(void)eng_setopt(h, "oformat", "json");
	(void)eng_agg_print(h, null);
	syms = c->ec_sym;
	c->ec_sym = NULL;
	eng_close(h);
	return 0;
}
