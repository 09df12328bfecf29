/*
 * agg.c - aggregation snapshots: AGGSNAP every CPU, merge per key, sort.
 *
 * struct eng_aggstate keeps:
 *   - the aggregation descriptions by aggregation id (AGGDESC, cached);
 *   - the rows of the last snapshot (eng_aggrow_t), one per (variable id,
 *     key bytes), found through a hash table; a row's data is a copy of
 *     one record with the value merged over every CPU and every ECB that
 *     feeds the variable; sym/mod/usym/umod keys are re-keyed to their
 *     symbol's or object's address first (rekey), as libdtrace does;
 *   - per variable: normalization, printed flag;
 *   - baselines: the shim's aggregation buffers only grow, so clear() and
 *     trunc() remember each row's value at that moment and later
 *     snapshots subtract it (count, sum, avg, stddev, histograms; min and
 *     max keep their value).  A truncated row stays hidden until its
 *     value moves again.
 * Rows stay valid until the next eng_agg_snap().
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "consume.h"
#include "ccinfo.h"
#include "exp.h"

struct aggvar {
	dtrace_aggvarid_t av_id;
	int64_t av_normal;
	int av_printed;
};

struct base {			/* a remembered value (clear/trunc) */
	dtrace_aggvarid_t b_varid;
	char *b_key;
	size_t b_keylen;
	int64_t *b_val;
	size_t b_nval;
	int b_hide;
	struct base *b_next;		/* every base, for freeing */
	struct base *b_hnext;		/* same hash bucket */
};

struct eng_aggstate {
	dtrace_aggdesc_t **as_desc;	/* by aggregation id */
	size_t as_ndesc;
	eng_aggrow_t *as_rows;		/* last snapshot */
	size_t as_nrows, as_caprows;
	size_t *as_hash;		/* row index + 1, 0 = empty */
	size_t as_nhash;
	struct aggvar *as_vars;
	size_t as_nvars;
	dtrace_aggvarid_t *as_ids;	/* ids for eng_agg_varids */
	struct base *as_base;
	/* bases by variable and key: a trunc() of churning keys leaves one
	 * per key, and every snapshot looks each row up */
	struct base **as_bhash;
	size_t as_nbhash, as_nbase;
	char *as_buf;			/* AGGSNAP buffer */
	size_t as_bufsize;
	char *as_rekey;			/* a record with its keys re-keyed */
	size_t as_rekeysize;
	uint64_t as_seq;
};

const dtrace_aggdesc_t *eng_agg_cached(const struct eng_aggstate *a,
    size_t id)
{
	return a != NULL && id < a->as_ndesc ? a->as_desc[id] : NULL;
}

size_t eng_agg_nrows(const struct eng_aggstate *a)
{
	return a != NULL ? a->as_nrows : 0;
}

eng_aggrow_t *eng_agg_row(struct eng_aggstate *a, size_t i)
{
	return &a->as_rows[i];
}

static void free_rows(struct eng_aggstate *a)
{
	for (size_t i = 0; i < a->as_nrows; i++)
		free(a->as_rows[i].ar_data);
	a->as_nrows = 0;
	if (a->as_hash != NULL)
		memset(a->as_hash, 0, a->as_nhash * sizeof (size_t));
}

void eng_agg_free(struct eng_aggstate *a)
{
	if (a == NULL)
		return;
	free_rows(a);
	free(a->as_rows);
	free(a->as_hash);
	for (size_t i = 0; i < a->as_ndesc; i++)
		free(a->as_desc[i]);
	free(a->as_desc);
	free(a->as_vars);
	free(a->as_ids);
	while (a->as_base != NULL) {
		struct base *b = a->as_base;

		a->as_base = b->b_next;
		free(b->b_key);
		free(b->b_val);
		free(b);
	}
	free(a->as_bhash);
	free(a->as_buf);
	free(a->as_rekey);
	free(a);
}

static struct eng_aggstate *state(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;

	if (c->ec_agg == NULL)
		c->ec_agg = calloc(1, sizeof (struct eng_aggstate));
	return c->ec_agg;
}

const dtrace_recdesc_t *eng_agg_valrec(const dtrace_aggdesc_t *d)
{
	return &d->dtagd_rec[d->dtagd_nrecs - 1];
}

/* Key bytes of a record: from the first key to the value. */
static size_t keyspan(const dtrace_aggdesc_t *d, size_t *off)
{
	*off = d->dtagd_nrecs > 2 ? d->dtagd_rec[1].dtrd_offset : 0;
	return d->dtagd_nrecs > 2 ? eng_agg_valrec(d)->dtrd_offset - *off : 0;
}

static struct aggvar *var(struct eng_aggstate *a, dtrace_aggvarid_t id,
    int make)
{
	for (size_t i = 0; i < a->as_nvars; i++)
		if (a->as_vars[i].av_id == id)
			return &a->as_vars[i];
	if (!make)
		return NULL;
	struct aggvar *nv = realloc(a->as_vars,
	    (a->as_nvars + 1) * sizeof (*nv));
	if (nv == NULL)
		return NULL;
	a->as_vars = nv;
	nv = &a->as_vars[a->as_nvars++];
	nv->av_id = id;
	nv->av_normal = 1;
	nv->av_printed = 0;
	return nv;
}

/* Where aggregation id's description is kept (the table grown to hold
 * it); NULL when out of memory or id is not one the shim hands out. */
static dtrace_aggdesc_t **slot(struct eng_aggstate *a, dtrace_aggid_t id)
{
	if (id > (1u << 20))
		return NULL;
	if (id >= a->as_ndesc) {
		size_t n = (size_t)id + 16;
		dtrace_aggdesc_t **nd = realloc(a->as_desc, n * sizeof (*nd));

		if (nd == NULL)
			return NULL;
		memset(nd + a->as_ndesc, 0, (n - a->as_ndesc) * sizeof (*nd));
		a->as_desc = nd;
		a->as_ndesc = n;
	}
	return &a->as_desc[id];
}

/* The description of aggregation id, from the cache or the shim (quiet:
 * an id the shim does not know is no error). */
static const dtrace_aggdesc_t *desc_of(eng_hdl_t *h, struct eng_aggstate *a,
    dtrace_aggid_t id, int quiet)
{
	/* the shim describes it before the table grows to hold it */
	if (id < a->as_ndesc && a->as_desc[id] != NULL)
		return a->as_desc[id];
	if (id > (1u << 20))
		return NULL;
	for (int room = 8; ; ) {
		size_t sz = sizeof (dtrace_aggdesc_t) +
		    (size_t)room * sizeof (dtrace_recdesc_t);
		dtrace_aggdesc_t *d = calloc(1, sz);

		if (d == NULL)
			return NULL;
		d->dtagd_id = id;
		d->dtagd_nrecs = room;
		if (eng_ks_ioctl(h, DTRACEIOC_AGGDESC, d) != 0) {
			if (!quiet)
				eng_error(h, "failed to get aggregation %u: %s",
				    id, ks_errmsg(h->eh_ks));
			free(d);
			return NULL;
		}
		if (d->dtagd_nrecs > room) {
			room = d->dtagd_nrecs;
			free(d);
			continue;
		}
		if (eng_agg_desc_put(h, d) != 0) {
			eng_error(h, "corrupt description for aggregation %u",
			    id);
			return NULL;
		}
		/* an experiment names it, though this consumer may never
		 * print the name (dtrace's default output): a replay in dtui
		 * shows @name */
		if (eng_exp_recording(h))
			(void)eng_exp_aggname(h, d->dtagd_varid);
		return d;
	}
}

static const dtrace_aggdesc_t *desc(eng_hdl_t *h, struct eng_aggstate *a,
    dtrace_aggid_t id)
{
	return desc_of(h, a, id, 0);
}

/*
 * A description of variable varid's aggregations when it has no entry
 * (a joined printa prints its zero in its own layout): the cached ones,
 * then the shim's, by aggregation id from 1 up as dtrace's walk looks for
 * one.  NULL when there is none (a replayed session without it).
 */
const dtrace_aggdesc_t *eng_agg_desc_var(eng_hdl_t *h,
    dtrace_aggvarid_t varid)
{
	struct eng_aggstate *a = state(h);
	const dtrace_aggdesc_t *d;

	if (a == NULL)
		return NULL;
	for (size_t id = 1; id < a->as_ndesc; id++)
		if (a->as_desc[id] != NULL && a->as_desc[id]->dtagd_varid == varid)
			return a->as_desc[id];
	for (dtrace_aggid_t id = 1; (d = desc_of(h, a, id, 1)) != NULL; id++)
		if (d->dtagd_varid == varid)
			return d;
	return NULL;
}

/* The value record's size for func (0: any multiple of 8 from 16, the
 * (l)lquantize encoding word and buckets). */
static int valsize_ok(const dtrace_recdesc_t *v)
{
	switch (v->dtrd_action) {
	case DTRACEAGG_COUNT: case DTRACEAGG_SUM: case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
		return v->dtrd_size == 8;
	case DTRACEAGG_AVG:
		return v->dtrd_size == 16;
	case DTRACEAGG_STDDEV:
		return v->dtrd_size == 32;
	case DTRACEAGG_QUANTIZE:
		return v->dtrd_size == DTRACE_QUANTIZE_NBUCKETS * 8;
	case DTRACEAGG_LQUANTIZE: case DTRACEAGG_LLQUANTIZE:
		return v->dtrd_size >= 16 && v->dtrd_size % 8 == 0;
	default:
		return 0;
	}
}

int eng_agg_desc_put(eng_hdl_t *h, dtrace_aggdesc_t *d)
{
	struct eng_aggstate *a = state(h);
	dtrace_aggdesc_t **sp = a != NULL ? slot(a, d->dtagd_id) : NULL;

	/* the value is read as 64-bit words where it lies in the record */
	if (sp == NULL || d->dtagd_nrecs < 2 || d->dtagd_size > (1u << 30) ||
	    !valsize_ok(eng_agg_valrec(d)) ||
	    eng_agg_valrec(d)->dtrd_offset % 8 != 0) {
		free(d);
		return -1;
	}
	for (int i = 0; i < d->dtagd_nrecs; i++) {
		const dtrace_recdesc_t *r = &d->dtagd_rec[i];

		if (r->dtrd_offset > d->dtagd_size ||
		    r->dtrd_size > d->dtagd_size - r->dtrd_offset ||
		    !eng_rec_size_ok(r) ||
		    (i > 0 && r->dtrd_offset < d->dtagd_rec[i - 1].dtrd_offset +
		    d->dtagd_rec[i - 1].dtrd_size)) {
			free(d);
			return -1;
		}
	}
	d->dtagd_varid = (dtrace_aggvarid_t)eng_agg_valrec(d)->dtrd_uarg;
	d->dtagd_name = NULL;
	free(*sp);
	*sp = d;
	return 0;
}

static uint32_t hashkey(dtrace_aggvarid_t v, const char *k, size_t n)
{
	uint32_t x = 2166136261u ^ (uint32_t)v;

	for (size_t i = 0; i < n; i++)
		x = (x ^ (unsigned char)k[i]) * 16777619u;
	return x;
}

static int rehash(struct eng_aggstate *a)
{
	size_t n = a->as_nhash ? a->as_nhash * 2 : 1024;
	size_t *t = calloc(n, sizeof (*t));

	if (t == NULL)
		return -1;
	free(a->as_hash);
	a->as_hash = t;
	a->as_nhash = n;
	for (size_t i = 0; i < a->as_nrows; i++) {
		const eng_aggrow_t *r = &a->as_rows[i];
		size_t off, len = keyspan(r->ar_desc, &off);
		size_t j = hashkey(r->ar_varid, r->ar_data + off, len) & (n - 1);

		while (t[j] != 0)
			j = (j + 1) & (n - 1);
		t[j] = i + 1;
	}
	return 0;
}

/* Counts and sums wrap as the shim's do (two's complement), never
 * overflow as signed C arithmetic would. */
static int64_t wrap_add(int64_t a, uint64_t b)
{
	return (int64_t)((uint64_t)a + b);
}

/* Combine value src into dst (both the value record's words). */
static void merge(int func, int64_t *dst, const int64_t *src, size_t nw)
{
	switch (func) {
	case DTRACEAGG_MIN:
		if (src[0] < dst[0])
			dst[0] = src[0];
		return;
	case DTRACEAGG_MAX:
		if (src[0] > dst[0])
			dst[0] = src[0];
		return;
	case DTRACEAGG_STDDEV: {
		unsigned __int128 x = ((unsigned __int128)(uint64_t)dst[2] << 64)
		    | (uint64_t)dst[3];
		unsigned __int128 y = ((unsigned __int128)(uint64_t)src[2] << 64)
		    | (uint64_t)src[3];

		dst[0] = wrap_add(dst[0], src[0]);
		dst[1] = wrap_add(dst[1], src[1]);
		x += y;
		dst[2] = (int64_t)(uint64_t)(x >> 64);
		dst[3] = (int64_t)(uint64_t)x;
		return;
	}
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		for (size_t i = 1; i < nw; i++)
			dst[i] = wrap_add(dst[i], src[i]);
		return;
	default:			/* count, sum, avg, quantize */
		for (size_t i = 0; i < nw; i++)
			dst[i] = wrap_add(dst[i], src[i]);
		return;
	}
}

/* Add one AGGSNAP record to the rows: 1 if it made a new row, 0 if it
 * merged into one, -1 out of memory. */
static int add_record(struct eng_aggstate *a, const dtrace_aggdesc_t *d,
    const char *rec)
{
	const dtrace_recdesc_t *vr = eng_agg_valrec(d);
	size_t off, len = keyspan(d, &off), j;

	if (a->as_nrows * 2 >= a->as_nhash && rehash(a) != 0)
		return -1;
	j = hashkey(d->dtagd_varid, rec + off, len) & (a->as_nhash - 1);
	for (; a->as_hash[j] != 0; j = (j + 1) & (a->as_nhash - 1)) {
		eng_aggrow_t *r = &a->as_rows[a->as_hash[j] - 1];
		size_t roff, rlen = keyspan(r->ar_desc, &roff);

		if (r->ar_varid != d->dtagd_varid || rlen != len ||
		    memcmp(r->ar_data + roff, rec + off, len) != 0)
			continue;
		if (eng_agg_valrec(r->ar_desc)->dtrd_size != vr->dtrd_size)
			return 0;
		int64_t dst[vr->dtrd_size / 8 + 1], src[vr->dtrd_size / 8 + 1];

		memcpy(dst, r->ar_data + vr->dtrd_offset, vr->dtrd_size);
		memcpy(src, rec + vr->dtrd_offset, vr->dtrd_size);
		merge(vr->dtrd_action, dst, src, vr->dtrd_size / 8);
		memcpy(r->ar_data + vr->dtrd_offset, dst, vr->dtrd_size);
		return 0;
	}
	if (a->as_nrows == a->as_caprows) {
		size_t n = a->as_caprows ? a->as_caprows * 2 : 256;
		eng_aggrow_t *nr = realloc(a->as_rows, n * sizeof (*nr));

		if (nr == NULL)
			return -1;
		a->as_rows = nr;
		a->as_caprows = n;
	}
	eng_aggrow_t *r = &a->as_rows[a->as_nrows];
	if ((r->ar_data = malloc(d->dtagd_size)) == NULL)
		return -1;
	memcpy(r->ar_data, rec, d->dtagd_size);
	r->ar_varid = d->dtagd_varid;
	r->ar_desc = d;
	r->ar_seq = a->as_seq++;
	r->ar_hidden = 0;
	a->as_hash[j] = ++a->as_nrows;
	var(a, d->dtagd_varid, 1);
	return 1;
}

/* A new row's user-address keys: remember their processes' mappings
 * while the processes live (printing may come after they exit). */
static void touch_procs(eng_hdl_t *h, const dtrace_aggdesc_t *d,
    const char *rec)
{
	for (int i = 1; i < d->dtagd_nrecs - 1; i++) {
		int act = d->dtagd_rec[i].dtrd_action;

		if (act == DTRACEACT_USTACK || act == DTRACEACT_JSTACK ||
		    act == DTRACEACT_USYM || act == DTRACEACT_UMOD ||
		    act == DTRACEACT_UADDR)
			eng_sym_touch(h, (int)eng_rec_int(rec +
			    d->dtagd_rec[i].dtrd_offset, 8, 0), 0);
	}
}

/*
 * libdtrace re-keys sym()/func()/mod() and usym()/ufunc()/umod() keys
 * when it snapshots (dt_aggregate_sym, _mod, _usym, _umod): the address
 * becomes its symbol's start or its object's base, so every address in
 * one function or object adds to one row.  rec, or a re-keyed copy of it;
 * NULL when out of memory.
 */
static const char *rekey(eng_hdl_t *h, struct eng_aggstate *a,
    const dtrace_aggdesc_t *d, const char *rec)
{
	char *copy = NULL;

	for (int i = 1; i < d->dtagd_nrecs - 1; i++) {
		const dtrace_recdesc_t *r = &d->dtagd_rec[i];
		int act = r->dtrd_action, user = act == DTRACEACT_USYM ||
		    act == DTRACEACT_UMOD;
		uint64_t v;

		if (!user && act != DTRACEACT_SYM && act != DTRACEACT_MOD)
			continue;
		if (copy == NULL) {
			if (a->as_rekeysize < d->dtagd_size) {
				free(a->as_rekey);
				a->as_rekeysize = 0;
				a->as_rekey = malloc(d->dtagd_size);
				if (a->as_rekey == NULL)
					return NULL;
				a->as_rekeysize = d->dtagd_size;
			}
			copy = memcpy(a->as_rekey, rec, d->dtagd_size);
		}
		char *p = copy + r->dtrd_offset + (user ? 8 : 0);
		memcpy(&v, p, 8);
		v = eng_sym_norm(h, user ? (int)eng_rec_int(p - 8, 8, 0) : 0, v,
		    act == DTRACEACT_MOD || act == DTRACEACT_UMOD ?
		    ENG_SYM_MOD : ENG_SYM_NAME);
		memcpy(p, &v, 8);
	}
	return copy != NULL ? copy : rec;
}

int eng_agg_add(eng_hdl_t *h, const dtrace_aggdesc_t *d, const char *rec)
{
	struct eng_aggstate *a = state(h);

	if (a == NULL || (rec = rekey(h, a, d, rec)) == NULL ||
	    add_record(a, d, rec) < 0)
		return eng_error(h, "out of memory");
	return 0;
}

/*
 * Aggregation drops: the shim reports a per-CPU count that may be
 * cumulative or since the last snapshot; report what is new either way.
 */
static void agg_drops(eng_hdl_t *h, int cpu, uint64_t n)
{
	uint64_t *seen = h->eh_cons->ec_aggseen;

	if (seen == NULL || cpu >= h->eh_cons->ec_ncpus)
		return;
	if (n > seen[cpu])
		eng_drops_cpu(h, cpu, DTRACEDROP_AGGREGATION, n - seen[cpu]);
	else if (n < seen[cpu] && n > 0)
		eng_drops_cpu(h, cpu, DTRACEDROP_AGGREGATION, n);
	seen[cpu] = n;
}

/* Snapshot one CPU and merge its records. */
static int snap_cpu(eng_hdl_t *h, struct eng_aggstate *a, int cpu)
{
	dtrace_bufdesc_t bd;

	for (;;) {
		memset(&bd, 0, sizeof (bd));
		bd.dtbd_cpu = (uint32_t)cpu;
		bd.dtbd_size = a->as_bufsize;
		bd.dtbd_data = a->as_buf;
		if (eng_ks_ioctl(h, DTRACEIOC_AGGSNAP, &bd) == 0)
			break;
		if (errno == ENOENT)
			return 0;
		if (errno != ENOSPC || a->as_bufsize >= ((size_t)1 << 31))
			return eng_error(h, "failed to snapshot aggregations "
			    "on CPU %d: %s", cpu, ks_errmsg(h->eh_ks));
		char *nb = realloc(a->as_buf, a->as_bufsize * 2);
		if (nb == NULL)
			return eng_error(h, "out of memory");
		a->as_buf = nb;
		a->as_bufsize *= 2;
	}
	agg_drops(h, cpu, bd.dtbd_drops);
	return eng_agg_consume(h, cpu, a->as_buf, bd.dtbd_size);
}

int eng_agg_consume(eng_hdl_t *h, int cpu, const char *buf, size_t size)
{
	struct eng_aggstate *a = state(h);

	if (a == NULL)
		return eng_error(h, "out of memory");
	for (size_t off = 0; off + 8 <= size; ) {
		uint32_t id;
		const dtrace_aggdesc_t *d;

		memcpy(&id, buf + off, sizeof (id));
		if (id == DTRACE_AGGIDNONE) {
			off += 8;
			continue;
		}
		if ((d = desc(h, a, id)) == NULL || d->dtagd_size == 0 ||
		    off + d->dtagd_size > size)
			return eng_error(h, "bad aggregation record (id %u) at "
			    "offset %zu on CPU %d", id, off, cpu);
		const char *rec = rekey(h, a, d, buf + off);
		int rc = rec != NULL ? add_record(a, d, rec) : -1;

		if (rc < 0)
			return eng_error(h, "out of memory");
		if (rc > 0)
			touch_procs(h, d, rec);
		off += (d->dtagd_size + 7) & ~(size_t)7;
	}
	return 0;
}

/* The base remembered for key of variable varid, NULL if none. */
static struct base *find_base(struct eng_aggstate *a, dtrace_aggvarid_t varid,
    const char *key, size_t len)
{
	if (a->as_nbhash == 0)
		return NULL;
	for (struct base *b = a->as_bhash[hashkey(varid, key, len) %
	    a->as_nbhash]; b != NULL; b = b->b_hnext)
		if (b->b_varid == varid && b->b_keylen == len &&
		    memcmp(b->b_key, key, len) == 0)
			return b;
	return NULL;
}

/* Twice the buckets (at least 64), every base moved over. */
static int rehash_bases(struct eng_aggstate *a)
{
	size_t n = a->as_nbhash ? a->as_nbhash * 2 : 64;
	struct base **nh = calloc(n, sizeof (*nh));

	if (nh == NULL)
		return -1;
	for (struct base *b = a->as_base; b != NULL; b = b->b_next) {
		size_t hb = hashkey(b->b_varid, b->b_key, b->b_keylen) % n;

		b->b_hnext = nh[hb];
		nh[hb] = b;
	}
	free(a->as_bhash);
	a->as_bhash = nh;
	a->as_nbhash = n;
	return 0;
}

/* Subtract remembered baselines; hide truncated rows still unchanged. */
static void apply_bases(struct eng_aggstate *a)
{
	for (size_t i = 0; i < a->as_nrows; i++) {
		eng_aggrow_t *r = &a->as_rows[i];
		const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);
		size_t off, len = keyspan(r->ar_desc, &off);
		int func = vr->dtrd_action;
		struct base *b = find_base(a, r->ar_varid, r->ar_data + off,
		    len);

		if (b != NULL && b->b_nval * 8 == vr->dtrd_size) {
			int64_t v[b->b_nval];
			int same = 1;

			memcpy(v, r->ar_data + vr->dtrd_offset, vr->dtrd_size);
			for (size_t k = 0; k < b->b_nval; k++) {
				int skip = k == 0 && (func == DTRACEAGG_LQUANTIZE
				    || func == DTRACEAGG_LLQUANTIZE);

				if (v[k] != b->b_val[k])
					same = 0;
				if (!skip && func != DTRACEAGG_MIN &&
				    func != DTRACEAGG_MAX)
					v[k] = wrap_add(v[k], -(uint64_t)
					    b->b_val[k]);
			}
			if (func == DTRACEAGG_STDDEV) {
				unsigned __int128 x, y;

				memcpy(v, r->ar_data + vr->dtrd_offset, 32);
				x = ((unsigned __int128)(uint64_t)v[2] << 64) |
				    (uint64_t)v[3];
				y = ((unsigned __int128)(uint64_t)b->b_val[2] <<
				    64) | (uint64_t)b->b_val[3];
				x -= y;
				v[0] = wrap_add(v[0], -(uint64_t)b->b_val[0]);
				v[1] = wrap_add(v[1], -(uint64_t)b->b_val[1]);
				v[2] = (int64_t)(uint64_t)(x >> 64);
				v[3] = (int64_t)(uint64_t)x;
			}
			memcpy(r->ar_data + vr->dtrd_offset, v, vr->dtrd_size);
			r->ar_hidden = b->b_hide && same;
		}
	}
}

int eng_agg_snap(eng_hdl_t *h)
{
	EXP_SCOPE(h, EXP_M_AGGSNAP);
	if (eng_exp_replay_idle(h))	/* the replay snapshots, as recorded */
		return 0;
	struct eng_aggstate *a = state(h);
	int ncpus = h->eh_cons->ec_ncpus;

	if (a == NULL)
		return eng_error(h, "out of memory");
	if (a->as_buf == NULL) {
		dtrace_optval_t sz = eng_opt_get(h, DTRACEOPT_AGGSIZE);

		a->as_bufsize = sz > 0 && sz < (1 << 26) ? (size_t)sz : 1 << 20;
		if ((a->as_buf = malloc(a->as_bufsize)) == NULL)
			return eng_error(h, "out of memory");
	}
	free_rows(a);
	a->as_seq = 0;
	for (int cpu = 0; cpu < ncpus; cpu++)
		if (snap_cpu(h, a, cpu) != 0)
			return -1;
	apply_bases(a);
	return 0;
}

/* ---- baselines: clear, trunc ----------------------------------------- */

static int remember(struct eng_aggstate *a, const eng_aggrow_t *r, int hide)
{
	const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);
	size_t off, len = keyspan(r->ar_desc, &off);
	struct base *b;

	b = find_base(a, r->ar_varid, r->ar_data + off, len);
	if (b == NULL) {
		if (a->as_nbase >= a->as_nbhash && rehash_bases(a) != 0)
			return -1;
		if ((b = calloc(1, sizeof (*b))) == NULL ||
		    (b->b_key = malloc(len + 1)) == NULL) {
			free(b);
			return -1;
		}
		memcpy(b->b_key, r->ar_data + off, len);
		b->b_keylen = len;
		b->b_varid = r->ar_varid;
		b->b_next = a->as_base;
		a->as_base = b;
		size_t hb = hashkey(b->b_varid, b->b_key, len) %
		    a->as_nbhash;
		b->b_hnext = a->as_bhash[hb];
		a->as_bhash[hb] = b;
		a->as_nbase++;
	}
	size_t nw = vr->dtrd_size / 8;
	int64_t *v = realloc(b->b_val, (nw + 1) * 8);
	if (v == NULL)
		return -1;
	int64_t cur[nw + 1];
	memcpy(cur, r->ar_data + vr->dtrd_offset, vr->dtrd_size);
	/* The row shows value - old base: the new base is their sum. */
	for (size_t k = 0; k < nw; k++)
		v[k] = wrap_add(b->b_val != NULL && b->b_nval == nw ?
		    b->b_val[k] : 0, (uint64_t)cur[k]);
	if (vr->dtrd_action == DTRACEAGG_LQUANTIZE ||
	    vr->dtrd_action == DTRACEAGG_LLQUANTIZE)
		v[0] = cur[0];
	b->b_val = v;
	b->b_nval = nw;
	b->b_hide = hide;
	return 0;
}

int eng_agg_clear_id(eng_hdl_t *h, dtrace_aggvarid_t id)
{
	struct eng_aggstate *a = state(h);

	if (a == NULL)
		return eng_error(h, "out of memory");
	for (size_t i = 0; i < a->as_nrows; i++) {
		eng_aggrow_t *r = &a->as_rows[i];
		const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);

		if (id != 0 && r->ar_varid != id)
			continue;
		if (remember(a, r, 0) != 0)
			return eng_error(h, "out of memory");
		if (vr->dtrd_action == DTRACEAGG_LQUANTIZE ||
		    vr->dtrd_action == DTRACEAGG_LLQUANTIZE)
			memset(r->ar_data + vr->dtrd_offset + 8, 0,
			    vr->dtrd_size - 8);
		else
			memset(r->ar_data + vr->dtrd_offset, 0, vr->dtrd_size);
	}
	return 0;
}

int eng_agg_trunc_id(eng_hdl_t *h, dtrace_aggvarid_t id, int64_t n)
{
	struct eng_aggstate *a = state(h);
	size_t cnt;
	eng_aggrow_t **rows;

	if (a == NULL)
		return eng_error(h, "out of memory");
	if (id == 0) {			/* every variable, each on its own */
		size_t nv;
		const dtrace_aggvarid_t *ids = eng_agg_varids(h, &nv);
		dtrace_aggvarid_t v[nv + 1];

		for (size_t i = 0; i < nv; i++)
			v[i] = ids[i];
		for (size_t i = 0; i < nv; i++)
			if (v[i] != 0 && eng_agg_trunc_id(h, v[i], n) != 0)
				return -1;
		return 0;
	}
	if ((rows = eng_agg_sorted(h, id, &cnt, 1)) == NULL && cnt > 0)
		return eng_error(h, "out of memory");
	/* Sorted by value (aggsortrev aside, as dtrace's trunc): keep the
	 * top n (n > 0) at the end or the bottom |n| at the start. */
	for (size_t i = 0; i < cnt; i++) {
		int keep = n > 0 ? i + (size_t)n >= cnt : n < 0 &&
		    i < (size_t)-n;

		if (!keep) {
			remember(a, rows[i], 1);
			rows[i]->ar_hidden = 1;
		}
	}
	free(rows);
	return 0;
}

int eng_agg_normalize_id(eng_hdl_t *h, dtrace_aggvarid_t id, int64_t n)
{
	struct eng_aggstate *a = state(h);
	struct aggvar *v = a != NULL ? var(a, id, 1) : NULL;

	if (v == NULL)
		return eng_error(h, "out of memory");
	if (n <= 0)
		return eng_error(h, "normalization factor must be positive");
	v->av_normal = n;
	return 0;
}

/* ---- public by-name operations --------------------------------------- */

/* The variable id called name ("@a" or "a"), 0 for every one, -1 none. */
static dtrace_aggvarid_t byname(eng_hdl_t *h, const char *name)
{
	struct eng_aggstate *a = state(h);

	if (name == NULL || *name == '\0')
		return 0;
	if (*name == '@')
		name++;
	for (size_t i = 0; a != NULL && i < a->as_nvars; i++)
		if (strcmp(eng_agg_name(h, a->as_vars[i].av_id), name) == 0)
			return a->as_vars[i].av_id;
	return -1;
}

int eng_agg_clear(eng_hdl_t *h, const char *name)
{
	dtrace_aggvarid_t id = byname(h, name);

	if (id < 0)
		return eng_error(h, "no aggregation named @%s", name);
	return eng_agg_clear_id(h, id);
}

int eng_agg_trunc(eng_hdl_t *h, const char *name, int64_t n)
{
	dtrace_aggvarid_t id = byname(h, name);

	if (id < 0)
		return eng_error(h, "no aggregation named @%s", name);
	return eng_agg_trunc_id(h, id, n);
}

/* ---- per-variable facts ------------------------------------------------- */

int64_t eng_agg_normal(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	struct eng_aggstate *a = state(h);
	struct aggvar *v = a != NULL ? var(a, varid, 0) : NULL;

	return v != NULL ? v->av_normal : 1;
}

void eng_agg_set_printed(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	struct eng_aggstate *a = state(h);
	struct aggvar *v = a != NULL ? var(a, varid, 1) : NULL;

	if (v != NULL)
		v->av_printed = 1;
}

int eng_agg_printed(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	struct eng_aggstate *a = state(h);
	struct aggvar *v = a != NULL ? var(a, varid, 0) : NULL;

	return v != NULL && v->av_printed;
}

static int idcmp(const void *x, const void *y)
{
	dtrace_aggvarid_t a = *(const dtrace_aggvarid_t *)x;
	dtrace_aggvarid_t b = *(const dtrace_aggvarid_t *)y;

	return (a > b) - (a < b);
}

const dtrace_aggvarid_t *eng_agg_varids(eng_hdl_t *h, size_t *np)
{
	struct eng_aggstate *a = state(h);
	dtrace_aggvarid_t *ids;

	*np = 0;
	if (a == NULL || a->as_nvars == 0)
		return NULL;
	if ((ids = realloc(a->as_ids, a->as_nvars * sizeof (*ids))) == NULL)
		return NULL;
	a->as_ids = ids;
	for (size_t i = 0; i < a->as_nvars; i++)
		ids[i] = a->as_vars[i].av_id;
	qsort(ids, a->as_nvars, sizeof (*ids), idcmp);
	*np = a->as_nvars;
	return ids;
}

const char *eng_agg_name(eng_hdl_t *h, dtrace_aggvarid_t varid)
{
	const char *n = eng_exp_aggname(h, varid);

	return n != NULL ? n : "?";
}

uint64_t eng_agg_stddev(const uint64_t *data, int64_t normal)
{
	if (data[0] == 0)
		return 0;
	if (normal <= 0)
		normal = 1;
	/* a count of -1 (a corrupt record) must not trap INT64_MIN / -1 */
	int64_t q = (int64_t)data[1] / normal, n = (int64_t)data[0];
	int64_t avg = n == -1 ? (int64_t)(0 - (uint64_t)q) : q / n;
	uint64_t mag = avg < 0 ? 0 - (uint64_t)avg : (uint64_t)avg;
	unsigned __int128 sq = ((unsigned __int128)data[2] << 64) | data[3];
	unsigned __int128 avgsq = (unsigned __int128)mag * mag;

	sq /= (unsigned __int128)normal * (unsigned __int128)normal;
	sq /= data[0];
	if (sq < avgsq)
		return 0;
	long double diff = (long double)(sq - avgsq);
	uint64_t r = (uint64_t)sqrtl(diff);

	while ((unsigned __int128)r * r > sq - avgsq)
		r--;
	while ((unsigned __int128)(r + 1) * (r + 1) <= sq - avgsq)
		r++;
	return r;
}
