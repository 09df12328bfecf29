/*
 * agg.c - aggregations: record layout (AGGDESC), the per-CPU aggregation
 * buffer, and the aggregating functions with DTrace's bucket math.
 *
 * An aggregation buffer is aggsize bytes allocated at GO: a bucket table
 * of 32-bit entry offsets, then entries appended in arrival order.  An
 * entry is a small header (chain, hash, size) followed by exactly the
 * AGGSNAP record: aggregation id, keys, value (layout in dtrace_abi.h).
 * Keys compare as bytes (strings are NUL-padded to strsize), so a lookup
 * is a hash and a memcmp.  When no room is left for a new key the update
 * is dropped (the caller counts an aggregation drop); nothing is ever
 * freed until the state goes, so memory stays at aggsize.
 *
 * Value layouts: COUNT/SUM/MIN/MAX one word; AVG count, sum; STDDEV count,
 * sum, sum of squares as 128 bits, high word then low word (as the DTrace
 * guide's aggregation data section says); QUANTIZE 127 buckets;
 * LQUANTIZE encoding, underflow, levels, overflow; LLQUANTIZE encoding and
 * buckets (underflow first, overflow last).
 *
 * ks_agg_apply_n applies n identical samples at once (kernel-side
 * counting, ks_probe_fire_n): counts and bucket increments grow by n,
 * sums (and stddev's sum of squares) by n times the value, modulo the
 * word size exactly as n single updates; min and max take the value once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ks_impl.h"

typedef struct entry {
	uint32_t e_next;		/* next entry offset in the chain, 0 */
	uint32_t e_hash;
	uint32_t e_size;		/* record bytes that follow */
	uint32_t e_pad;
} entry_t;

/* llquantize bucket (DTrace's algorithm: zeroth bucket below
 * factor^low, then nsteps buckets per magnitude, fewer while a magnitude
 * has fewer distinct values, top bucket at factor^(high+1)). */
int ks_agg_llquantize_bucket(uint16_t factor, uint16_t low, uint16_t high,
    uint16_t nsteps, int64_t val)
{
	int64_t this = 1, last, next;
	int base = 1, order;

	for (order = 0; order < low; order++)
		this *= factor;
	if (val < (last = this))
		return 0;
	for (this *= factor; order <= high; order++) {
		int nb = this > nsteps ? nsteps : (int)this;

		if ((next = (int64_t)((uint64_t)this * factor)) < this ||
		    next / factor != this)
			val = this - 1;		/* clamp on overflow */
		if (val < this)
			return base + (int)((val - last) / (this / nb));
		base += nb - nb / factor;
		last = this;
		this = next;
	}
	return base;
}

/* quantize bucket: 0 is the zero bucket's left neighbour for negatives. */
int ks_agg_quantize_bucket(int64_t val)
{
	int zero = (int)DTRACE_QUANTIZE_ZEROBUCKET, b;

	if (val == 0)
		return zero;
	if (val > 0)
		return zero + 1 + (63 - __builtin_clzll((uint64_t)val));
	b = zero - 1 - (63 - __builtin_clzll(-(uint64_t)val));
	return b < 0 ? 0 : b;
}

static uint32_t value_size(const ks_agg_t *g)
{
	uint64_t a = g->kg_arg;

	switch (g->kg_kind) {
	case DTRACEAGG_AVG:
		return 16;
	case DTRACEAGG_STDDEV:
		return 32;
	case DTRACEAGG_QUANTIZE:
		return DTRACE_QUANTIZE_NBUCKETS * 8;
	case DTRACEAGG_LQUANTIZE:
		return (1 + DTRACE_LQUANTIZE_LEVELS(a) + 2) * 8;
	case DTRACEAGG_LLQUANTIZE:
		return (uint32_t)(1 + ks_agg_llquantize_bucket(
		    DTRACE_LLQUANTIZE_FACTOR(a), DTRACE_LLQUANTIZE_LMAG(a),
		    DTRACE_LLQUANTIZE_HMAG(a), DTRACE_LLQUANTIZE_STEPS(a),
		    INT64_MAX) + 1) * 8;
	default:
		return 8;
	}
}

int ks_agg_check(dtrace_actkind_t kind, uint64_t arg, char *err,
    size_t errlen)
{
	if (kind == DTRACEAGG_LQUANTIZE) {
		if (DTRACE_LQUANTIZE_STEP(arg) == 0 ||
		    DTRACE_LQUANTIZE_LEVELS(arg) == 0) {
			snprintf(err, errlen, "lquantize: step and number of "
			    "levels must be positive");
			return -1;
		}
	} else if (kind == DTRACEAGG_LLQUANTIZE) {
		uint16_t f = DTRACE_LLQUANTIZE_FACTOR(arg);
		uint16_t lo = DTRACE_LLQUANTIZE_LMAG(arg);
		uint16_t hi = DTRACE_LLQUANTIZE_HMAG(arg);
		uint16_t n = DTRACE_LLQUANTIZE_STEPS(arg);
		uint64_t v, p = 1;
		int i, big = 0;

		for (v = f; f >= 2 && v < n; v *= f)
			;
		for (i = 0; f >= 2 && i <= hi && !big; i++) {
			big = p > (uint64_t)INT64_MAX / f;
			p *= f;
		}
		if (f < 2 || lo >= hi || n < f || n % f != 0 ||
		    v % n != 0 || big) {
			snprintf(err, errlen, "llquantize: factor %u, low %u, "
			    "high %u, steps %u: need factor >= 2, low < high, "
			    "steps a multiple of factor dividing a power of "
			    "it, factor^(high+1) below 2^63", f, lo, hi, n);
			return -1;
		}
	}
	return 0;
}

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

int ks_agg_layout(ks_agg_t *g, const dtrace_recdesc_t *keys, int nkeys,
    char *err, size_t errlen)
{
	uint32_t off = sizeof(dtrace_aggid_t);
	dtrace_recdesc_t *r;
	int i;

	g->kg_nrecs = nkeys + 2;
	g->kg_recs = ks_calloc((size_t)g->kg_nrecs, sizeof(*r));
	if (g->kg_recs == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = g->kg_recs;
	r[0].dtrd_action = DTRACEACT_DIFEXPR;
	r[0].dtrd_size = sizeof(dtrace_aggid_t);
	r[0].dtrd_alignment = sizeof(dtrace_aggid_t);
	for (i = 0; i < nkeys; i++) {
		r[i + 1] = keys[i];
		off = align_up(off, keys[i].dtrd_alignment);
		r[i + 1].dtrd_offset = off;
		off += keys[i].dtrd_size;
	}
	g->kg_keysize = off;
	off = align_up(off, 8);
	g->kg_valoff = off;
	g->kg_valsize = value_size(g);
	r[nkeys + 1].dtrd_action = g->kg_kind;
	r[nkeys + 1].dtrd_size = g->kg_valsize;
	r[nkeys + 1].dtrd_offset = off;
	r[nkeys + 1].dtrd_alignment = 8;
	r[nkeys + 1].dtrd_arg = g->kg_arg;
	r[nkeys + 1].dtrd_uarg = g->kg_varid;
	g->kg_size = align_up(off + g->kg_valsize, 8);
	return 0;
}

int ks_aggbuf_init(ks_aggbuf_t *ab, uint64_t size)
{
	uint32_t nb = 16;

	memset(ab, 0, sizeof(*ab));
	if (size < 1024)
		size = 1024;
	while ((uint64_t)nb * 2 * 128 <= size && nb < (1u << 24))
		nb *= 2;
	ab->ka_data = ks_calloc(1, size);
	if (ab->ka_data == NULL)
		return -1;
	ab->ka_size = size;
	ab->ka_nbuckets = nb;
	ab->ka_hash = (uint32_t *)ab->ka_data;
	ab->ka_first = ab->ka_used = (uint64_t)nb * sizeof(uint32_t);
	return 0;
}

void ks_aggbuf_fini(ks_aggbuf_t *ab)
{
	free(ab->ka_data);
	ab->ka_data = NULL;
}

static uint32_t key_hash(const char *k, uint32_t n)
{
	uint64_t h = 14695981039346656037ull;
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, k + i, 8);
		h = (h ^ w) * 1099511628211ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* The value words' starting state. */
static void value_init(const ks_agg_t *g, uint64_t *v)
{
	memset(v, 0, g->kg_valsize);
	if (g->kg_kind == DTRACEAGG_MIN)
		v[0] = (uint64_t)INT64_MAX;
	else if (g->kg_kind == DTRACEAGG_MAX)
		v[0] = (uint64_t)INT64_MIN;
	else if (g->kg_kind == DTRACEAGG_LQUANTIZE ||
	    g->kg_kind == DTRACEAGG_LLQUANTIZE)
		v[0] = g->kg_arg;
}

static entry_t *lookup(ks_aggbuf_t *ab, const ks_agg_t *g, const char *key,
    uint32_t h)
{
	uint32_t off = ab->ka_hash[h & (ab->ka_nbuckets - 1)];
	uint64_t need;
	entry_t *e;

	while (off != 0) {
		e = (entry_t *)(ab->ka_data + off);
		if (e->e_hash == h && e->e_size == g->kg_size &&
		    memcmp(e + 1, key, g->kg_keysize) == 0)
			return e;
		off = e->e_next;
	}
	need = sizeof(entry_t) + g->kg_size;
	if (ab->ka_used + need > ab->ka_size || ab->ka_used > UINT32_MAX)
		return NULL;
	e = (entry_t *)(ab->ka_data + ab->ka_used);
	e->e_hash = h;
	e->e_size = g->kg_size;
	e->e_next = ab->ka_hash[h & (ab->ka_nbuckets - 1)];
	ab->ka_hash[h & (ab->ka_nbuckets - 1)] = (uint32_t)ab->ka_used;
	ab->ka_used += need;
	memcpy(e + 1, key, g->kg_keysize);
	memset((char *)(e + 1) + g->kg_keysize, 0, g->kg_size - g->kg_keysize);
	value_init(g, (uint64_t *)((char *)(e + 1) + g->kg_valoff));
	return e;
}

/* Add n times the square of |val| to the 128-bit sum at v[0] (high),
 * v[1] (low), modulo 2^128 as n separate additions would. */
static void add_square(uint64_t *v, int64_t val, uint64_t n)
{
	uint64_t a = val < 0 ? -(uint64_t)val : (uint64_t)val;
	unsigned __int128 sum = ((unsigned __int128)v[0] << 64) | v[1];

	sum += (unsigned __int128)a * a * n;
	v[0] = (uint64_t)(sum >> 64);
	v[1] = (uint64_t)sum;
}

static void lquantize(uint64_t *v, uint64_t incr, int64_t nval)
{
	int32_t base = DTRACE_LQUANTIZE_BASE(v[0]);
	uint16_t step = DTRACE_LQUANTIZE_STEP(v[0]);
	uint16_t levels = DTRACE_LQUANTIZE_LEVELS(v[0]);
	int64_t val = (int32_t)nval, level;

	if (val < base) {
		v[1] += incr;
		return;
	}
	level = (val - base) / step;
	if (level < levels)
		v[2 + level] += incr;
	else
		v[2 + levels] += incr;
}

/* Apply n samples of val (and incr) to the value words v.  Every sum
 * wraps as n separate updates would; min and max need one sample. */
static void update(const ks_agg_t *g, uint64_t *v, uint64_t val,
    uint64_t incr, uint64_t n)
{
	uint64_t a = g->kg_arg;

	switch (g->kg_kind) {
	case DTRACEAGG_COUNT:	v[0] += n; break;
	case DTRACEAGG_SUM:	v[0] += n * val; break;
	case DTRACEAGG_MIN:
		if ((int64_t)val < (int64_t)v[0])
			v[0] = val;
		break;
	case DTRACEAGG_MAX:
		if ((int64_t)val > (int64_t)v[0])
			v[0] = val;
		break;
	case DTRACEAGG_AVG:	v[0] += n; v[1] += n * val; break;
	case DTRACEAGG_STDDEV:
		v[0] += n;
		v[1] += n * val;
		add_square(v + 2, (int64_t)val, n);
		break;
	case DTRACEAGG_QUANTIZE:
		v[ks_agg_quantize_bucket((int64_t)val)] += n * incr;
		break;
	case DTRACEAGG_LQUANTIZE:
		lquantize(v, n * incr, (int64_t)val);
		break;
	case DTRACEAGG_LLQUANTIZE:
		v[1 + ks_agg_llquantize_bucket(DTRACE_LLQUANTIZE_FACTOR(a),
		    DTRACE_LLQUANTIZE_LMAG(a), DTRACE_LLQUANTIZE_HMAG(a),
		    DTRACE_LLQUANTIZE_STEPS(a), (int64_t)val)] += n * incr;
		break;
	}
}

int ks_agg_apply_n(ks_aggbuf_t *ab, const ks_agg_t *g, const char *key,
    uint64_t val, uint64_t incr, uint64_t n)
{
	uint32_t h = key_hash(key, g->kg_keysize);
	entry_t *e = lookup(ab, g, key, h);

	if (e == NULL)
		return -1;
	update(g, (uint64_t *)((char *)(e + 1) + g->kg_valoff), val, incr, n);
	return 0;
}

int ks_aggbuf_snap(ks_aggbuf_t *ab, dtrace_bufdesc_t *d)
{
	uint64_t off, n = 0;

	for (off = ab->ka_first; off < ab->ka_used;
	    off += sizeof(entry_t) + ((entry_t *)(ab->ka_data + off))->e_size)
		n += ((entry_t *)(ab->ka_data + off))->e_size;
	if (n > d->dtbd_size || (n > 0 && d->dtbd_data == NULL))
		return -1;
	n = 0;
	for (off = ab->ka_first; off < ab->ka_used;) {
		const entry_t *e = (const entry_t *)(ab->ka_data + off);

		memcpy(d->dtbd_data + n, e + 1, e->e_size);
		n += e->e_size;
		off += sizeof(entry_t) + e->e_size;
	}
	d->dtbd_size = n;
	d->dtbd_oldest = 0;
	d->dtbd_timestamp = ks_gethrtime();
	return 0;
}
