/*
 * dif_var.c - variable storage of one consumer's user variables
 * (ks_vstate_t).  The built-in variables of ch. 9 are read in dif_emul.c.
 *
 * Storage, all allocated by ks_vstate_create (probe context never
 * allocates):
 *   - global scalars live in kvs_gstore, a block carved up at declare time
 *     (integers 8 bytes; strings strsize + 1, holding at most strsize - 1
 *     characters and a NUL; other by-ref values their declared size);
 *   - dynamic variables (thread-local scalars, global and thread-local
 *     associative array elements) live in the arena kvs_dyn of dynvarsize
 *     bytes.  Each is one block: a dent header, its key, its value.  Blocks
 *     come from a bump pointer or from per-size free lists (sizes are
 *     multiples of 16), are found through a hash table of chains, and go
 *     back to their free list when a zero is stored.  A store that finds
 *     no block is dropped and counted in kvs_dyndrops.
 * A key is the variable id and scope, then for thread-locals the tid, then
 * the tuple stack: each element a tag ('V' value, 'S' string, 'R' other
 * reference), a length for references, and the bytes.
 *
 * Variable ids: each user variable is declared once per consumer (global
 * and thread-local ids are separate spaces), with its type, in kvs_vtab:
 * a fixed open-addressing table of KS_VSTATE_NVARS entries keyed by
 * (space, id).  Declaring happens at load time and allocates nothing.
 *
 * strtok()'s saved strings (one per thread, NTOK slots by tid) live here
 * too, so a clause can continue what an earlier clause started.
 *
 * Concurrency: the shim serialises firings of a consumer (ecb.c), so the
 * key buffer and the arena need no lock.  Loaded by-ref values point into
 * the storage; a block deleted later in the same firing is still readable
 * memory, so a stale pointer can read old bytes but never fault the
 * process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dif_impl.h"

#define KS_VSTATE_NVARS	1024		/* declared variables, power of 2 */
#define NTOK		32		/* threads with strtok state (by tid) */
#define BLK		16		/* arena block granularity */

typedef struct vinfo {
	uint32_t vi_key;		/* space << 16 | id; 0: free slot */
	uint8_t vi_kind;		/* DIFV_KIND_* */
	uint8_t vi_strtype;		/* value is a string */
	uint8_t vi_byref;		/* value is copied in and out */
	uint32_t vi_size;		/* bytes of the value */
	uint64_t vi_off;		/* global scalars: offset in gstore */
} vinfo_t;

typedef struct dent {			/* one dynamic variable block */
	uint32_t de_next;		/* chain: handle of the next, 0 end */
	uint32_t de_hash;
	uint32_t de_keylen;
	uint32_t de_bsize;		/* block size, multiple of BLK */
} dent_t;

typedef struct tokstate {
	int32_t ts_tid;
	int ts_used;
	uint64_t ts_pos;
	char *ts_buf;			/* strsize + 1 bytes */
} tokstate_t;

struct ks_vstate {
	uint64_t kvs_strsize;
	uint64_t kvs_dyndrops;
	uint64_t kvs_used;		/* bytes of live dynamic blocks */
	vinfo_t *kvs_vtab;		/* KS_VSTATE_NVARS declarations */
	uint32_t kvs_nvars;
	char *kvs_gstore;		/* global scalars */
	uint64_t kvs_gsize, kvs_gused;
	char *kvs_dyn;			/* dynamic variable arena */
	uint64_t kvs_dynsize, kvs_bump;
	uint32_t *kvs_bucket;		/* hash chains (handles) */
	uint32_t kvs_nbucket;		/* power of two */
	uint32_t *kvs_free;		/* free list per size class */
	uint32_t kvs_nclass;
	char *kvs_key;			/* key being built */
	uint64_t kvs_keymax;
	char *kvs_zero;			/* zeroed: missing by-ref values */
	uint64_t kvs_zerosize;
	uint64_t kvs_maxval;		/* largest value size */
	tokstate_t kvs_tok[NTOK];
};

static uint64_t round_up(uint64_t n, uint64_t to)
{
	return (n + to - 1) / to * to;
}

static int sizes(ks_vstate_t *vs, uint64_t dynvarsize, uint64_t strsize)
{
	uint64_t elem = 5 + (strsize > 8 ? strsize : 8);

	vs->kvs_strsize = strsize;
	/* dtrace's dtrace_global_maxsize: a variable's value (a D array,
	 * a struct) may be 16 KB */
	vs->kvs_maxval = strsize + 1 > 16384 ? strsize + 1 : 16384;
	vs->kvs_keymax = 8 + (KS_DIF_TUPLE_MAX + 1) * elem;
	vs->kvs_gsize = 65536 + 256 * round_up(strsize + 1, 8);
	vs->kvs_zerosize = vs->kvs_maxval;
	vs->kvs_dynsize = dynvarsize / BLK * BLK;
	if (vs->kvs_dynsize > (uint64_t)BLK * UINT32_MAX)
		vs->kvs_dynsize = (uint64_t)BLK * (UINT32_MAX - 1);
	vs->kvs_nclass = (uint32_t)((sizeof (dent_t) + vs->kvs_keymax + 8 +
	    vs->kvs_maxval) / BLK + 2);
	vs->kvs_nbucket = 64;
	while (vs->kvs_nbucket < (1u << 20) &&
	    (uint64_t)vs->kvs_nbucket * 256 < vs->kvs_dynsize)
		vs->kvs_nbucket <<= 1;
	return 0;
}

ks_vstate_t *ks_vstate_create(uint64_t dynvarsize, uint64_t strsize)
{
	ks_vstate_t *vs = calloc(1, sizeof (*vs));
	int ok = 1;

	if (vs == NULL || strsize == 0 || strsize > (1u << 24)) {
		free(vs);
		return NULL;
	}
	sizes(vs, dynvarsize, strsize);
	vs->kvs_gstore = calloc(1, vs->kvs_gsize);
	vs->kvs_dyn = calloc(1, vs->kvs_dynsize ? vs->kvs_dynsize : 1);
	vs->kvs_bucket = calloc(vs->kvs_nbucket, sizeof (uint32_t));
	vs->kvs_free = calloc(vs->kvs_nclass, sizeof (uint32_t));
	vs->kvs_key = calloc(1, vs->kvs_keymax);
	vs->kvs_zero = calloc(1, vs->kvs_zerosize);
	vs->kvs_vtab = calloc(KS_VSTATE_NVARS, sizeof (vinfo_t));
	ok = vs->kvs_vtab && vs->kvs_gstore && vs->kvs_dyn && vs->kvs_bucket &&
	    vs->kvs_free && vs->kvs_key && vs->kvs_zero;
	for (int i = 0; ok && i < NTOK; i++) {
		vs->kvs_tok[i].ts_buf = calloc(1, strsize + 1);
		ok = vs->kvs_tok[i].ts_buf != NULL;
	}
	if (!ok) {
		ks_vstate_destroy(vs);
		return NULL;
	}
	return vs;
}

void ks_vstate_destroy(ks_vstate_t *vs)
{
	if (vs == NULL)
		return;
	free(vs->kvs_vtab);
	for (int i = 0; i < NTOK; i++)
		free(vs->kvs_tok[i].ts_buf);
	free(vs->kvs_gstore);
	free(vs->kvs_dyn);
	free(vs->kvs_bucket);
	free(vs->kvs_free);
	free(vs->kvs_key);
	free(vs->kvs_zero);
	free(vs);
}

uint64_t ks_vstate_dyndrops(const ks_vstate_t *vs)
{
	return vs->kvs_dyndrops;
}

void ks_vstate_add_dyndrops(ks_vstate_t *vs, uint64_t n)
{
	vs->kvs_dyndrops += n;
}

/* A block of one integer thread-local: header, key (head and tid), value;
 * as dyn_insert sizes it. */
uint64_t ks_vstate_tls_capacity(const ks_vstate_t *vs)
{
	uint64_t bsize = (sizeof(dent_t) + 16 + 8 + BLK - 1) / BLK * BLK;

	return vs->kvs_dynsize / bsize;
}

uint64_t ks_vstate_used(const ks_vstate_t *vs)
{
	return vs->kvs_used;
}

uint64_t ks_vstate_strsize(const ks_vstate_t *vs)
{
	return vs->kvs_strsize;
}

uintptr_t ks_vstate_region_end(const ks_vstate_t *vs, uintptr_t a)
{
	const struct { const char *p; uint64_t n; } r[] = {
		{ vs->kvs_dyn, vs->kvs_dynsize },
		{ vs->kvs_gstore, vs->kvs_gsize },
		{ vs->kvs_zero, vs->kvs_zerosize },
	};

	for (unsigned i = 0; i < 3; i++) {
		uintptr_t lo = (uintptr_t)r[i].p;

		if (a >= lo && a - lo < r[i].n)
			return lo + r[i].n;
	}
	return 0;
}

char *ks_vstate_strtok(ks_vstate_t *vs, int32_t tid, uint64_t **posp,
    int reset)
{
	tokstate_t *t = &vs->kvs_tok[(uint32_t)tid % NTOK];

	if (!reset && (!t->ts_used || t->ts_tid != tid ||
	    t->ts_pos == UINT64_MAX))
		return NULL;
	if (reset) {
		t->ts_used = 1;
		t->ts_tid = tid;
		t->ts_pos = 0;
	}
	*posp = &t->ts_pos;
	return t->ts_buf;
}

/* ---- declarations ------------------------------------------------------ */

/* The slot of (space, id): its declaration, or the free slot for it. */
static vinfo_t *slot(const ks_vstate_t *vs, unsigned space, uint32_t id)
{
	uint32_t key = (uint32_t)space << 16 | id;
	uint32_t i = (key * 2654435761u) & (KS_VSTATE_NVARS - 1);

	while (vs->kvs_vtab[i].vi_key != 0 && vs->kvs_vtab[i].vi_key != key)
		i = (i + 1) & (KS_VSTATE_NVARS - 1);
	return &vs->kvs_vtab[i];
}

static vinfo_t *vinfo(const ks_vstate_t *vs, unsigned space, uint32_t id)
{
	vinfo_t *vi = slot(vs, space, id);

	return vi->vi_key != 0 ? vi : NULL;
}

/* Describe dv's value; -1 with a message if it cannot be stored. */
static int describe(ks_vstate_t *vs, const dtrace_difv_t *dv, vinfo_t *vi,
    char *err, size_t errlen)
{
	const dtrace_diftype_t *t = &dv->dtdv_type;

	memset(vi, 0, sizeof (*vi));
	vi->vi_kind = dv->dtdv_kind;
	vi->vi_strtype = t->dtdt_kind == DIF_TYPE_STRING;
	vi->vi_byref = vi->vi_strtype || (t->dtdt_flags & DIF_TF_BYREF);
	if (vi->vi_strtype)
		vi->vi_size = (uint32_t)vs->kvs_strsize + 1;
	else if (vi->vi_byref)
		vi->vi_size = t->dtdt_size;
	else
		vi->vi_size = 8;
	if (vi->vi_size == 0 || vi->vi_size > vs->kvs_maxval) {
		snprintf(err, errlen, "variable %#x: by-reference size %u is "
		    "not in 1..%llu", dv->dtdv_id, t->dtdt_size,
		    (unsigned long long)vs->kvs_maxval);
		return -1;
	}
	return 0;
}

static int declare_one(ks_vstate_t *vs, const dtrace_difv_t *dv, char *err,
    size_t errlen)
{
	unsigned space = dv->dtdv_scope == DIFV_SCOPE_THREAD;
	uint32_t id = dv->dtdv_id & 0xffff;
	vinfo_t vi, *old;

	if (describe(vs, dv, &vi, err, errlen) != 0)
		return -1;
	old = vinfo(vs, space, id);
	if (old != NULL) {
		if (old->vi_kind == vi.vi_kind && old->vi_size == vi.vi_size &&
		    old->vi_strtype == vi.vi_strtype)
			return 0;
		snprintf(err, errlen, "variable %#x is declared twice with "
		    "different types", id);
		return -1;
	}
	if (vs->kvs_nvars >= KS_VSTATE_NVARS / 2) {
		snprintf(err, errlen, "variable %#x: more than %u variables",
		    id, KS_VSTATE_NVARS / 2);
		return -1;
	}
	if (!space && vi.vi_kind == DIFV_KIND_SCALAR) {
		uint64_t need = round_up(vi.vi_size, 8);

		if (need > vs->kvs_gsize - vs->kvs_gused) {
			snprintf(err, errlen, "variable %#x: no room for more "
			    "global variables (%llu bytes)", id,
			    (unsigned long long)vs->kvs_gsize);
			return -1;
		}
		vi.vi_off = vs->kvs_gused;
		vs->kvs_gused += need;
	}
	vi.vi_key = (uint32_t)space << 16 | id;
	*slot(vs, space, id) = vi;
	vs->kvs_nvars++;
	return 0;
}

int ks_vstate_declare(ks_vstate_t *vs, const ks_difo_t *dp, char *err,
    size_t errlen)
{
	for (uint32_t i = 0; i < dp->dtdo_varlen; i++) {
		const dtrace_difv_t *dv = &dp->dtdo_vartab[i];

		if (dv->dtdv_scope == DIFV_SCOPE_LOCAL)
			continue;
		if (declare_one(vs, dv, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* ---- global scalars ---------------------------------------------------- */

/* The declaration of a variable, or NULL after an ILLOP fault. */
static const vinfo_t *need(ks_dif_exec_t *x, unsigned space, uint32_t id,
    unsigned kind)
{
	const ks_vstate_t *vs = x->kdx_ms->kms_vstate;
	const vinfo_t *vi = vs ? vinfo(vs, space, id) : NULL;

	if (vi == NULL || vi->vi_kind != kind) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return NULL;
	}
	return vi;
}

uint64_t ks_dif_ldgs(ks_dif_exec_t *x, uint32_t id)
{
	const vinfo_t *vi = need(x, 0, id, DIFV_KIND_SCALAR);
	char *p;
	uint64_t v;

	if (vi == NULL)
		return 0;
	p = x->kdx_ms->kms_vstate->kvs_gstore + vi->vi_off;
	if (vi->vi_byref)
		return (uint64_t)(uintptr_t)p;
	memcpy(&v, p, 8);
	return v;
}

/*
 * Copy a by-ref value into dst (size bytes): strings up to strsize bytes
 * and a NUL, others exactly size bytes.  0, or -1 after a fault.
 */
static int copy_value(ks_dif_exec_t *x, const vinfo_t *vi, char *dst,
    uint64_t val)
{
	if (vi->vi_strtype) {
		int64_t len = val ? ks_dif_strlen(x, val) : 0;

		if (len < 0)
			return -1;
		if ((uint64_t)len > ks_dif_strmax(x))
			len = (int64_t)ks_dif_strmax(x);
		memmove(dst, (const void *)(uintptr_t)val, (size_t)len);
		dst[len] = '\0';
		return 0;
	}
	if (!ks_dif_canload(x, val, vi->vi_size))
		return -1;
	memmove(dst, (const void *)(uintptr_t)val, vi->vi_size);
	return 0;
}

void ks_dif_stgs(ks_dif_exec_t *x, uint32_t id, uint64_t val)
{
	const vinfo_t *vi = need(x, 0, id, DIFV_KIND_SCALAR);
	char *p;

	if (vi == NULL)
		return;
	x->kdx_klen = 0;		/* a cached key may read this */
	p = x->kdx_ms->kms_vstate->kvs_gstore + vi->vi_off;
	if (!vi->vi_byref)
		memcpy(p, &val, 8);
	else if (val == 0)
		memset(p, 0, vi->vi_size);
	else
		copy_value(x, vi, p, val);
}

/* ---- dynamic variables --------------------------------------------------- */

static dent_t *dent_at(const ks_vstate_t *vs, uint32_t h)
{
	return (dent_t *)(void *)(vs->kvs_dyn + (uint64_t)(h - 1) * BLK);
}

static char *dent_val(dent_t *d)
{
	return (char *)(d + 1) + round_up(d->de_keylen, 8);
}

/* Hash a key a word at a time (keys are short: ids, tids, small tuples). */
static uint32_t hash(const char *k, uint64_t len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ull, w, total = len;

	for (; len >= 8; k += 8, len -= 8) {
		memcpy(&w, k, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len > 0 && total >= 8) {	/* last word, overlapping */
		memcpy(&w, k + len - 8, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	} else if (len > 0) {
		w = 0;
		memcpy(&w, k, len);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 29;
	return (uint32_t)h;
}

/* Append n bytes to the key; -1 (BADSIZE) if it would overflow. */
static int put(ks_dif_exec_t *x, uint64_t *len, const void *p, uint64_t n)
{
	ks_vstate_t *vs = x->kdx_ms->kms_vstate;

	if (n == 0)
		return 0;
	if (n > vs->kvs_keymax - *len) {
		ks_dif_fault(x, DTRACEFLT_BADSIZE, 0);
		return -1;
	}
	memcpy(vs->kvs_key + *len, p, n);
	*len += n;
	return 0;
}

static int put_elem(ks_dif_exec_t *x, uint64_t *len,
    const ks_dif_tuple_t *t)
{
	uint64_t sz = t->kdt_size;
	char tag = !t->kdt_ref ? 'V' : t->kdt_type == DIF_TYPE_STRING ?
	    'S' : 'R';
	uint32_t n32 = (uint32_t)sz;

	if (tag == 'V')
		return (put(x, len, &tag, 1) || put(x, len, &t->kdt_val, 8)) ?
		    -1 : 0;
	if (sz > x->kdx_ms->kms_vstate->kvs_strsize) {
		ks_dif_fault(x, DTRACEFLT_BADSIZE, t->kdt_val);
		return -1;
	}
	/* strings were found readable when pushed (regions only grow
	 * during a run); other references are checked here */
	if (tag == 'R' && !ks_dif_canload(x, t->kdt_val, sz))
		return -1;
	return (put(x, len, &tag, 1) || put(x, len, &n32, 4) ||
	    put(x, len, (const void *)(uintptr_t)t->kdt_val, sz)) ? -1 : 0;
}

/*
 * Build the key of a dynamic variable in kvs_key and hash it; its length,
 * or 0 after a fault.  Reuses the key already there when this run built
 * it for the same variable and the tuple stack has not changed since.
 */
static uint64_t build_key(ks_dif_exec_t *x, uint32_t id, int tls,
    int array, uint32_t *hashp)
{
	const ks_mstate_t *ms = x->kdx_ms;
	uint32_t head = id | (uint32_t)tls << 16 | (uint32_t)array << 17;
	uint64_t len = 0;

	if (x->kdx_klen != 0 && x->kdx_khead == head) {
		*hashp = x->kdx_khash;
		return x->kdx_klen;
	}
	if (put(x, &len, &head, 4) != 0)
		return 0;
	if (tls) {
		int64_t tid = ms->kms_ctx ? ms->kms_ctx->kpc_tid : 0;

		if (put(x, &len, &tid, 8) != 0)
			return 0;
	}
	for (unsigned i = 0; array && i < x->kdx_ntup; i++) {
		if (put_elem(x, &len, &x->kdx_tup[i]) != 0)
			return 0;
	}
	x->kdx_klen = len;
	x->kdx_khead = head;
	x->kdx_kfound = 0;
	x->kdx_khash = *hashp = hash(x->kdx_ms->kms_vstate->kvs_key, len);
	return len;
}

/* Find the block with this key; *prevp gets the link that points at it. */
static dent_t *lookup(ks_vstate_t *vs, uint64_t klen, uint32_t h,
    uint32_t **prevp)
{
	uint32_t *link = &vs->kvs_bucket[h & (vs->kvs_nbucket - 1)];

	while (*link != 0) {
		dent_t *d = dent_at(vs, *link);

		if (d->de_hash == h && d->de_keylen == klen &&
		    memcmp(d + 1, vs->kvs_key, klen) == 0) {
			*prevp = link;
			return d;
		}
		link = &d->de_next;
	}
	*prevp = link;
	return NULL;
}

uint64_t ks_dif_lddyn(ks_dif_exec_t *x, uint32_t id, int tls, int array)
{
	const vinfo_t *vi = need(x, (unsigned)tls, id,
	    array ? DIFV_KIND_ARRAY : DIFV_KIND_SCALAR);
	ks_vstate_t *vs = x->kdx_ms->kms_vstate;
	uint64_t klen, v;
	uint32_t *link, hv;
	dent_t *d;

	if (vi == NULL || (klen = build_key(x, id, tls, array, &hv)) == 0)
		return 0;
	d = lookup(vs, klen, hv, &link);
	x->kdx_kfound = 1;		/* for x[k] = x[k] + 1 */
	x->kdx_kent = d;
	x->kdx_klink = link;
	if (d == NULL)
		return vi->vi_byref ? (uint64_t)(uintptr_t)vs->kvs_zero : 0;
	if (vi->vi_byref)
		return (uint64_t)(uintptr_t)dent_val(d);
	memcpy(&v, dent_val(d), 8);
	return v;
}

/* A free block of bsize bytes (a handle), or 0 if the arena is full. */
static uint32_t dyn_alloc(ks_vstate_t *vs, uint64_t bsize)
{
	uint32_t cls = (uint32_t)(bsize / BLK), h;

	if (cls < vs->kvs_nclass && vs->kvs_free[cls] != 0) {
		h = vs->kvs_free[cls];
		vs->kvs_free[cls] = dent_at(vs, h)->de_next;
		return h;
	}
	if (bsize > vs->kvs_dynsize - vs->kvs_bump)
		return 0;
	h = (uint32_t)(vs->kvs_bump / BLK) + 1;
	vs->kvs_bump += bsize;
	return h;
}

static void dyn_delete(ks_vstate_t *vs, dent_t *d, uint32_t *link)
{
	uint32_t h = *link, cls = d->de_bsize / BLK;

	*link = d->de_next;
	vs->kvs_used -= d->de_bsize;
	d->de_next = vs->kvs_free[cls];
	vs->kvs_free[cls] = h;
}

/* A new block for the key in kvs_key, linked at *link; NULL (and a drop
 * counted) when the arena is full. */
static dent_t *dyn_insert(ks_vstate_t *vs, const vinfo_t *vi, uint64_t klen,
    uint32_t hv, uint32_t *link)
{
	uint64_t bsize = round_up(sizeof (dent_t) + round_up(klen, 8) +
	    vi->vi_size, BLK);
	uint32_t h = dyn_alloc(vs, bsize);
	dent_t *d;

	if (h == 0) {
		vs->kvs_dyndrops++;
		return NULL;
	}
	d = dent_at(vs, h);
	d->de_hash = hv;
	d->de_keylen = (uint32_t)klen;
	d->de_bsize = (uint32_t)bsize;
	memcpy(d + 1, vs->kvs_key, klen);
	d->de_next = *link;
	*link = h;
	vs->kvs_used += bsize;
	return d;
}

void ks_dif_stdyn(ks_dif_exec_t *x, uint32_t id, int tls, int array,
    uint64_t val)
{
	const vinfo_t *vi = need(x, (unsigned)tls, id,
	    array ? DIFV_KIND_ARRAY : DIFV_KIND_SCALAR);
	ks_vstate_t *vs = x->kdx_ms->kms_vstate;
	uint64_t klen;
	uint32_t *link, hv;
	dent_t *d;

	if (vi == NULL || (klen = build_key(x, id, tls, array, &hv)) == 0)
		return;
	if (x->kdx_kfound) {		/* just looked up by a load */
		d = x->kdx_kent;
		link = x->kdx_klink;
	} else {
		d = lookup(vs, klen, hv, &link);
	}
	x->kdx_kfound = 0;		/* the store may change the chains */
	x->kdx_klen = 0;		/* ... and memory a key refers to */
	if (val == 0) {			/* storing zero deletes */
		if (d != NULL)
			dyn_delete(vs, d, link);
		return;
	}
	if (vi->vi_byref && vi->vi_strtype && ks_dif_strlen(x, val) < 0)
		return;
	if (vi->vi_byref && !vi->vi_strtype &&
	    !ks_dif_canload(x, val, vi->vi_size))
		return;
	if (d == NULL && (d = dyn_insert(vs, vi, klen, hv, link)) == NULL)
		return;
	if (vi->vi_byref)
		copy_value(x, vi, dent_val(d), val);
	else
		memcpy(dent_val(d), &val, 8);
}
