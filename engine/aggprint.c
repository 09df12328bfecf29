/*
 * aggprint.c - sorting and printing aggregations as dtrace(1M) does.
 *
 * Order (dtrace's defaults): by variable id, then by value, then by key;
 * -x aggsortkey puts the key before the value, aggsortkeypos says which
 * key column to compare first, aggsortpos which variable's value orders
 * a joined printa(@a, @b), aggsortrev reverses.  Keys compare as unsigned
 * integers by size, user symbols (usym/umod/uaddr: pid, address) as two
 * such integers, other records byte by byte; values by what the
 * aggregating function means (avg by average, histograms by weighted
 * sum).
 *
 * Default layout: per row the keys (integers " %16lld" / " %8d" / " %5d" /
 * " %3d", strings and symbols "  %-50s", stacks one frame per line), then
 * each value (" %16lld", stddev " %16llu", histograms drawn), then a
 * newline.  printa() without a format prints a newline first; at exit
 * every variable not printed by printa() is printed.
 */
#include <stdlib.h>
#include <string.h>
#include "consume.h"
#include "exp.h"

/* qsort has no context argument: the handle being sorted for, and
 * whether to sort by value only (trunc), ignoring the agg* options. */
static eng_hdl_t *sort_h;
static int sort_plain;

/* A user-symbol key: two 64-bit words (pid, address). */
static int is_upair(const dtrace_recdesc_t *r)
{
	return r->dtrd_size == 16 && (r->dtrd_action == DTRACEACT_USYM ||
	    r->dtrd_action == DTRACEACT_UMOD ||
	    r->dtrd_action == DTRACEACT_UADDR);
}

/* Compare n unsigned 64-bit words (unaligned) in order. */
static int cmp_words(const unsigned char *pa, const unsigned char *pb,
    int n)
{
	for (int w = 0; w < n; w++) {
		uint64_t x, y;

		memcpy(&x, pa + 8 * w, 8);
		memcpy(&y, pb + 8 * w, 8);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

int eng_agg_keycmp(eng_hdl_t *h, const eng_aggrow_t *a, const eng_aggrow_t *b)
{
	const dtrace_aggdesc_t *da = a->ar_desc, *db = b->ar_desc;
	int nkeys = da->dtagd_nrecs - 2, start = 0;

	if (nkeys != db->dtagd_nrecs - 2)
		return nkeys < db->dtagd_nrecs - 2 ? -1 : 1;
	if (nkeys <= 0)
		return 0;
	if (h != NULL) {
		dtrace_optval_t p = eng_opt_get(h, DTRACEOPT_AGGSORTKEYPOS);

		if (p != DTRACEOPT_UNSET && p > 0 && p < nkeys)
			start = (int)p;
	}
	for (int k = 0; k < nkeys; k++) {
		int i = 1 + (start + k) % nkeys;
		const dtrace_recdesc_t *ra = &da->dtagd_rec[i];
		const dtrace_recdesc_t *rb = &db->dtagd_rec[i];
		const unsigned char *pa = (const unsigned char *)a->ar_data +
		    ra->dtrd_offset;
		const unsigned char *pb = (const unsigned char *)b->ar_data +
		    rb->dtrd_offset;
		uint32_t size = ra->dtrd_size < rb->dtrd_size ? ra->dtrd_size :
		    rb->dtrd_size;

		if (size == 1 || size == 2 || size == 4 || size == 8) {
			uint64_t x = (uint64_t)eng_rec_int((const char *)pa,
			    size, 0);
			uint64_t y = (uint64_t)eng_rec_int((const char *)pb,
			    size, 0);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		int c = is_upair(ra) && is_upair(rb) ? cmp_words(pa, pb, 2) :
		    memcmp(pa, pb, size);

		if (c != 0)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/* The number a value sorts by (long double keeps histogram sums). */
static long double sortval(const eng_aggrow_t *r, int64_t *tie)
{
	const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);
	const int64_t *v = (const int64_t *)(const void *)
	    (r->ar_data + vr->dtrd_offset);
	long double t = 0;
	eng_aggent_t e;

	*tie = 0;
	switch (vr->dtrd_action) {
	case DTRACEAGG_AVG:
		return v[0] != 0 ? (long double)(v[1] / v[0]) : 0;
	case DTRACEAGG_STDDEV:
		return (long double)eng_agg_stddev((const uint64_t *)v, 1);
	case DTRACEAGG_QUANTIZE:
		for (int i = 0; i < (int)DTRACE_QUANTIZE_NBUCKETS; i++)
			t += (long double)DTRACE_QUANTIZE_BUCKETVAL((size_t)i) * v[i];
		*tie = v[DTRACE_QUANTIZE_ZEROBUCKET];
		return t;
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE: {
		int n = (int)(vr->dtrd_size / 8) - 1;

		memset(&e, 0, sizeof (e));
		e.eae_func = vr->dtrd_action;
		e.eae_hist_arg = (uint64_t)v[0];
		e.eae_nbuckets = n;
		for (int i = 0; i < n; i++) {
			char lab[32];

			eng_agg_bucket_label(&e, i, lab, sizeof (lab));
			const char *s = lab;
			while (*s != '\0' && (*s < '0' || *s > '9') && *s != '-')
				s++;
			t += strtold(s, NULL) * v[1 + i];
		}
		return t;
	}
	default:
		return (long double)v[0];
	}
}

int eng_agg_valcmp(const eng_aggrow_t *a, const eng_aggrow_t *b)
{
	int64_t ta, tb;
	long double x = sortval(a, &ta), y = sortval(b, &tb);

	if (x != y)
		return x < y ? -1 : 1;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return 0;
}

static int rowcmp(const void *x, const void *y)
{
	const eng_aggrow_t *a = *(eng_aggrow_t *const *)x;
	const eng_aggrow_t *b = *(eng_aggrow_t *const *)y;
	int rev = !sort_plain && eng_opt_isset(sort_h, DTRACEOPT_AGGSORTREV) ?
	    -1 : 1;
	int c;

	if (a->ar_varid != b->ar_varid)
		return a->ar_varid < b->ar_varid ? -1 : 1;
	if (!sort_plain && eng_opt_isset(sort_h, DTRACEOPT_AGGSORTKEY)) {
		if ((c = eng_agg_keycmp(sort_h, a, b)) == 0)
			c = eng_agg_valcmp(a, b);
	} else if ((c = eng_agg_valcmp(a, b)) == 0) {
		c = eng_agg_keycmp(sort_h, a, b);
	}
	if (c == 0)
		c = a->ar_seq < b->ar_seq ? -1 : a->ar_seq > b->ar_seq;
	return c * rev;
}

eng_aggrow_t **eng_agg_sorted(eng_hdl_t *h, dtrace_aggvarid_t varid,
    size_t *np, int plain)
{
	struct eng_aggstate *a = h->eh_cons->ec_agg;
	eng_aggrow_t **v;
	size_t n = 0;

	*np = 0;
	if (a == NULL)
		return NULL;
	size_t nrows = eng_agg_nrows(a);
	if ((v = malloc((nrows + 1) * sizeof (*v))) == NULL)
		return NULL;
	for (size_t i = 0; i < nrows; i++) {
		eng_aggrow_t *r = eng_agg_row(a, i);

		if (!r->ar_hidden && (varid == 0 || r->ar_varid == varid))
			v[n++] = r;
	}
	sort_h = h;
	sort_plain = plain;
	qsort(v, n, sizeof (*v), rowcmp);
	*np = n;
	return v;
}

/* ---- default layout ------------------------------------------------------ */

/* agghist: count()/sum() rows drawn as one histogram per variable. */
struct hist {
	dtrace_aggvarid_t hs_varid;	/* variable whose header is out */
	long double hs_total;		/* sum of |values| over its rows */
	int hs_pos, hs_neg;
	int hs_minbin, hs_maxbin;	/* aggpack: non-zero bucket range */
};

/* One key record as dtrace prints it in aggregation output (packed:
 * strings right-aligned in 16 columns, for agghist). */
static void key(eng_hdl_t *h, FILE *fp, const dtrace_recdesc_t *r,
    const char *p, int packed)
{
	static const int width[9] = { 0, 3, 5, 0, 8, 0, 0, 0, 16 };

	switch (r->dtrd_action) {
	case DTRACEACT_STACK:
		if (r->dtrd_arg > 0)
			eng_rec_stack(h, fp, NULL, p, (int)r->dtrd_arg,
			    (int)(r->dtrd_size / r->dtrd_arg));
		return;
	case DTRACEACT_USTACK: case DTRACEACT_JSTACK:
		eng_rec_ustack(h, fp, NULL, p, (int)(r->dtrd_arg & 0xffffffffu));
		return;
	case DTRACEACT_SYM: case DTRACEACT_MOD: case DTRACEACT_USYM:
	case DTRACEACT_UMOD: case DTRACEACT_UADDR:
		eng_rec_sym(h, fp, NULL, r->dtrd_action, p);
		return;
	default:
		break;
	}
	switch (r->dtrd_size) {
	case 8:
		fprintf(fp, " %*lld", width[8], (long long)eng_rec_int(p, 8, 1));
		return;
	case 4:
		fprintf(fp, " %*d", width[4], (int)eng_rec_int(p, 4, 1));
		return;
	case 2: case 1:
		fprintf(fp, " %*d", width[r->dtrd_size],
		    (int)eng_rec_int(p, r->dtrd_size, 0));
		return;
	default:
		eng_rec_bytes(h, fp, p, r->dtrd_size, packed ? 16 : -50, 0, 0);
		return;
	}
}

/* One value as dtrace prints it after the keys. */
static void value(eng_hdl_t *h, FILE *fp, const dtrace_recdesc_t *vr,
    const char *p, int64_t normal)
{
	int64_t w[4];

	switch (vr->dtrd_action) {
	case DTRACEAGG_QUANTIZE: case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		eng_hist_print(fp, vr->dtrd_action, (const int64_t *)
		    (const void *)p, vr->dtrd_size, normal,
		    eng_opt_isset(h, DTRACEOPT_AGGZOOM));
		return;
	case DTRACEAGG_AVG:
		memcpy(w, p, 16);
		fprintf(fp, " %16lld", (long long)(w[0] != 0 ?
		    w[1] / normal / w[0] : 0));
		return;
	case DTRACEAGG_STDDEV:
		memcpy(w, p, 32);
		fprintf(fp, " %16llu", (unsigned long long)eng_agg_stddev(
		    (const uint64_t *)w, normal));
		return;
	default:
		fprintf(fp, " %16lld", (long long)(eng_rec_int(p, 8, 1) /
		    normal));
		return;
	}
}

static void keys(eng_hdl_t *h, FILE *fp, const eng_aggrow_t *r, int packed)
{
	const dtrace_aggdesc_t *d = r->ar_desc;

	for (int i = 1; i < d->dtagd_nrecs - 1; i++)
		key(h, fp, &d->dtagd_rec[i], r->ar_data +
		    d->dtagd_rec[i].dtrd_offset, packed);
}

/* Key columns of packed layouts: each key's width plus a space. */
static int packed_width(const dtrace_aggdesc_t *d)
{
	int width = 0;

	for (int i = 1; i < d->dtagd_nrecs - 1; i++) {
		uint32_t sz = d->dtagd_rec[i].dtrd_size;

		width += (sz == 1 ? 3 : sz == 2 ? 5 : sz == 4 ? 8 : 16) + 1;
	}
	return width;
}

/* Is r drawn as an agghist row? */
static int is_hist(eng_hdl_t *h, const eng_aggrow_t *r)
{
	int f = eng_agg_valrec(r->ar_desc)->dtrd_action;

	return eng_opt_isset(h, DTRACEOPT_AGGHIST) &&
	    (f == DTRACEAGG_COUNT || f == DTRACEAGG_SUM);
}

/* agghist: the header and scale for r's variable, once per variable. */
static void hist_begin(eng_hdl_t *h, FILE *fp, const eng_aggrow_t *r,
    struct hist *hs)
{
	const dtrace_aggdesc_t *d = r->ar_desc;
	struct eng_aggstate *a = h->eh_cons->ec_agg;
	int width = 0;

	if (hs->hs_varid == r->ar_varid)
		return;
	hs->hs_varid = r->ar_varid;
	hs->hs_total = 0;
	hs->hs_pos = hs->hs_neg = 0;
	for (size_t i = 0; i < eng_agg_nrows(a); i++) {
		const eng_aggrow_t *o = eng_agg_row(a, i);
		int64_t v;

		if (o->ar_varid != r->ar_varid || o->ar_hidden)
			continue;
		v = eng_rec_int(o->ar_data + eng_agg_valrec(o->ar_desc)->
		    dtrd_offset, 8, 1);
		hs->hs_total += v < 0 ? -(long double)v : (long double)v;
		hs->hs_pos |= v > 0;
		hs->hs_neg |= v < 0;
	}
	width = packed_width(d);
	fprintf(fp, "\n%*s %41s %-9s\n", width ? width : 16,
	    width ? "key" : "value", "------------- Distribution -------------",
	    "count");
}

/* Is r drawn as an aggpack line? */
static int is_pack(eng_hdl_t *h, const eng_aggrow_t *r)
{
	int f = eng_agg_valrec(r->ar_desc)->dtrd_action;

	return eng_opt_isset(h, DTRACEOPT_AGGPACK) &&
	    (f == DTRACEAGG_QUANTIZE || f == DTRACEAGG_LQUANTIZE);
}

/* aggpack: the bucket range over r's variable and the header, once. */
static void pack_begin(eng_hdl_t *h, FILE *fp, const eng_aggrow_t *r,
    struct hist *hs)
{
	const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);
	struct eng_aggstate *a = h->eh_cons->ec_agg;
	int z = (int)DTRACE_QUANTIZE_ZEROBUCKET, lq;

	if (hs->hs_varid == r->ar_varid)
		return;
	hs->hs_varid = r->ar_varid;
	lq = vr->dtrd_action == DTRACEAGG_LQUANTIZE;
	hs->hs_minbin = lq ? 0 : -1;
	hs->hs_maxbin = lq ? (int)(vr->dtrd_size / 8) - 4 : -1;
	for (size_t i = 0; !lq && i < eng_agg_nrows(a); i++) {
		const eng_aggrow_t *o = eng_agg_row(a, i);
		const int64_t *b = (const int64_t *)(const void *)
		    (o->ar_data + vr->dtrd_offset);

		if (o->ar_varid != r->ar_varid || o->ar_hidden)
			continue;
		for (int k = 0; k < (int)DTRACE_QUANTIZE_NBUCKETS; k++)
			if (b[k] != 0) {
				if (hs->hs_minbin < 0 || k < hs->hs_minbin)
					hs->hs_minbin = k;
				if (k > hs->hs_maxbin)
					hs->hs_maxbin = k;
			}
	}
	if (hs->hs_minbin < 0)
		hs->hs_minbin = hs->hs_maxbin = z;
	eng_hist_packhdr(fp, packed_width(r->ar_desc), vr->dtrd_action,
	    hs->hs_minbin, hs->hs_maxbin);
}

/* One entry in the default layout; hs non-NULL allows agghist/aggpack. */
static void row(eng_hdl_t *h, FILE *fp, const eng_aggrow_t *r,
    struct hist *hs)
{
	const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);
	int64_t normal = eng_agg_normal(h, r->ar_varid);

	if (hs != NULL && is_pack(h, r)) {
		pack_begin(h, fp, r, hs);
		keys(h, fp, r, 1);
		eng_hist_packed(fp, vr->dtrd_action, (const int64_t *)
		    (const void *)(r->ar_data + vr->dtrd_offset),
		    vr->dtrd_size, hs->hs_minbin, hs->hs_maxbin,
		    eng_opt_isset(h, DTRACEOPT_AGGZOOM));
		return;
	}
	if (hs != NULL && is_hist(h, r)) {
		hist_begin(h, fp, r, hs);
		keys(h, fp, r, 1);
		fputc(' ', fp);
		eng_hist_bar(fp, eng_rec_int(r->ar_data + vr->dtrd_offset, 8,
		    1), normal, hs->hs_total, hs->hs_pos, hs->hs_neg);
		return;
	}
	keys(h, fp, r, 0);
	value(h, fp, vr, r->ar_data + vr->dtrd_offset, normal);
	fputc('\n', fp);
}

int eng_agg_print(eng_hdl_t *h, FILE *fp)
{
	EXP_SCOPE(h, EXP_M_AGGPRINT);
	size_t n;

	if (eng_export_final(h, fp))	/* chrome, folded */
		return 0;
	eng_aggrow_t **rows = eng_agg_sorted(h, 0, &n, 0);

	if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON) {
		free(rows);
		return eng_json_aggs(h, fp, NULL, 0, 1);
	}
	struct hist hs = { .hs_varid = -1 };

	for (size_t i = 0; i < n; i++)
		if (!eng_agg_printed(h, rows[i]->ar_varid))
			row(h, fp, rows[i], &hs);
	free(rows);
	return 0;
}

/* ---- printa ------------------------------------------------------------ */

/* Rows of a joined printa: one per key of any of the variables. */
struct joined {
	const eng_aggrow_t *j_key;	/* a row holding the key */
	const eng_aggrow_t **j_vals;	/* per variable, NULL if absent */
};

/* Find the joined entry for r's key among js[0..n). */
static struct joined *find_join(eng_hdl_t *h, struct joined *js, size_t n,
    const eng_aggrow_t *r)
{
	for (size_t i = 0; i < n; i++)
		if (eng_agg_keycmp(NULL, js[i].j_key, r) == 0)
			return &js[i];
	(void)h;
	return NULL;
}

/*
 * The value a variable shows under a key it has no entry for, as dtrace's
 * joined walk makes it: zero in the layout of that variable's own value,
 * so a histogram prints empty.  The layout comes from any row of it
 * (rep), or for a variable without entries from its description (d), as
 * dtrace looks it up by aggregation id; a linear histogram keeps its
 * parameter word (the row's, or the description's record argument).
 * malloc'd; NULL if neither is known.
 */
static char *zero_value(const dtrace_aggdesc_t *d, const eng_aggrow_t *rep,
    const dtrace_recdesc_t **vrp)
{
	const dtrace_recdesc_t *vr;
	char *z;

	if (rep != NULL)
		d = rep->ar_desc;
	if (d == NULL)
		return NULL;
	vr = eng_agg_valrec(d);
	if ((z = calloc(1, vr->dtrd_size + 8)) == NULL)
		return NULL;
	if (vr->dtrd_action == DTRACEAGG_LQUANTIZE ||
	    vr->dtrd_action == DTRACEAGG_LLQUANTIZE) {
		if (rep != NULL)
			memcpy(z, rep->ar_data + vr->dtrd_offset, 8);
		else
			memcpy(z, &vr->dtrd_arg, 8);
	}
	*vrp = vr;
	return z;
}

/* Format one row with a printa format: keys as arguments, values as %@. */
static void formatted(eng_hdl_t *h, FILE *fp, const char *fmt,
    const eng_aggrow_t *kr, const eng_aggrow_t *const *vals, int nv,
    const dtrace_aggvarid_t *ids, const eng_aggrow_t *const *reps,
    const dtrace_aggdesc_t *const *zd)
{
	char *z[nv > 0 ? nv : 1];

	const dtrace_aggdesc_t *d = kr->ar_desc;
	int nk = d->dtagd_nrecs - 2;
	eng_pfarg_t args[nk > 0 ? nk : 1], aggs[nv];

	memset(args, 0, sizeof(args));
	memset(aggs, 0, sizeof(aggs));
	for (int i = 0; i < nk; i++) {
		args[i].pa_rec = &d->dtagd_rec[1 + i];
		args[i].pa_data = kr->ar_data + d->dtagd_rec[1 + i].dtrd_offset;
		args[i].pa_normal = 1;
	}
	for (int i = 0; i < nv; i++) {
		const eng_aggrow_t *r = vals[i] != NULL ? vals[i] : kr;

		z[i] = NULL;
		aggs[i].pa_rec = eng_agg_valrec(r->ar_desc);
		aggs[i].pa_data = r->ar_data + aggs[i].pa_rec->dtrd_offset;
		/* zero in its own layout, else in the key row's (dtrace's
		 * fallback when it cannot find the variable's) */
		if (vals[i] == NULL && (z[i] = zero_value(zd != NULL ? zd[i] :
		    NULL, reps[i], &aggs[i].pa_rec)) == NULL)
			z[i] = zero_value(NULL, kr, &aggs[i].pa_rec);
		if (z[i] != NULL)
			aggs[i].pa_data = z[i];
		aggs[i].pa_normal = eng_agg_normal(h, ids[i]);
	}
	eng_printf(h, fp, fmt, args, nk, aggs, nv);
	for (int i = 0; i < nv; i++)
		free(z[i]);
}

/* printa of one variable. */
static int printa_one(eng_hdl_t *h, FILE *fp, const char *fmt,
    dtrace_aggvarid_t id)
{
	size_t n;
	eng_aggrow_t **rows = eng_agg_sorted(h, id, &n, 0);
	struct hist hs = { .hs_varid = -1 };

	if (fmt == NULL)
		fputc('\n', fp);
	for (size_t i = 0; i < n; i++) {
		const eng_aggrow_t *v = rows[i];

		if (fmt == NULL)
			row(h, fp, rows[i], &hs);
		else
			formatted(h, fp, fmt, rows[i], &v, 1, &id, &v, NULL);
	}
	free(rows);
	return 0;
}

/* Join the variables' rows by key, ordered by variable sortpos. */
static size_t join(eng_hdl_t *h, const dtrace_aggvarid_t *ids, int nv,
    struct joined **out, const eng_aggrow_t **reps)
{
	dtrace_optval_t sp = eng_opt_get(h, DTRACEOPT_AGGSORTPOS);
	int first = sp != DTRACEOPT_UNSET && sp >= 0 && sp < nv ? (int)sp : 0;
	struct joined *js = NULL;
	size_t nj = 0;

	for (int k = 0; k < nv; k++) {
		int v = (first + k) % nv;
		size_t n;
		eng_aggrow_t **rows = eng_agg_sorted(h, ids[v], &n, 0);

		reps[v] = n > 0 ? rows[0] : NULL;
		for (size_t i = 0; i < n; i++) {
			struct joined *j = find_join(h, js, nj, rows[i]);

			if (j == NULL) {
				struct joined *nj2 = realloc(js, (nj + 1) *
				    sizeof (*js));
				if (nj2 == NULL)
					break;
				js = nj2;
				j = &js[nj++];
				j->j_key = rows[i];
				j->j_vals = calloc((size_t)nv, sizeof (void *));
			}
			if (j->j_vals != NULL)
				j->j_vals[v] = rows[i];
		}
		free(rows);
	}
	*out = js;
	return nj;
}

int eng_agg_printa(eng_hdl_t *h, FILE *fp, const char *fmt,
    const dtrace_aggvarid_t *ids, int n)
{
	struct joined *js;
	size_t nj;
	const eng_aggrow_t *reps[n > 0 ? n : 1];
	const dtrace_aggdesc_t *zd[n > 0 ? n : 1];

	if (n <= 0)
		return eng_error(h, "printa() needs an aggregation");
	for (int i = 0; i < n; i++)
		eng_agg_set_printed(h, ids[i]);
	if (eng_opt_get(h, ENG_OPT_OFORMAT) == ENG_OFORMAT_JSON)
		return eng_json_aggs(h, fp, ids, n, 0);
	if (n == 1)
		return printa_one(h, fp, fmt, ids[0]);
	nj = join(h, ids, n, &js, reps);
	for (int v = 0; v < n; v++)	/* without entries: its own layout */
		zd[v] = reps[v] == NULL && nj > 0 ? eng_agg_desc_var(h, ids[v]) :
		    NULL;
	if (fmt == NULL)
		fputc('\n', fp);
	for (size_t i = 0; i < nj; i++) {
		if (js[i].j_vals == NULL)
			continue;
		if (fmt != NULL) {
			formatted(h, fp, fmt, js[i].j_key, js[i].j_vals, n, ids,
			    reps, zd);
		} else {
			keys(h, fp, js[i].j_key, 0);
			for (int v = 0; v < n; v++) {
				const eng_aggrow_t *r = js[i].j_vals[v];
				const dtrace_recdesc_t *vr = eng_agg_valrec(
				    (r != NULL ? r : js[i].j_key)->ar_desc);
				char *z = r == NULL ? zero_value(zd[v], reps[v],
				    &vr) : NULL;

				if (r == NULL && z == NULL)	/* unknown layout */
					z = zero_value(NULL, js[i].j_key, &vr);

				if (r != NULL || z != NULL)
					value(h, fp, vr, r != NULL ? r->ar_data +
					    vr->dtrd_offset : z,
					    eng_agg_normal(h, ids[v]));
				free(z);
			}
			fputc('\n', fp);
		}
		free(js[i].j_vals);
	}
	free(js);
	return 0;
}

/* ---- walking, for displays --------------------------------------------- */

/* A key as an eng_aggkey_t; texts[i] gets what must be freed. */
static void walk_key(eng_hdl_t *h, const dtrace_recdesc_t *r, const char *p,
    eng_aggkey_t *k, char **text)
{
	size_t len = 0;
	FILE *mf;

	*text = NULL;
	memset(k, 0, sizeof (*k));
	if (r->dtrd_action == DTRACEACT_DIFEXPR && (r->dtrd_size == 1 ||
	    r->dtrd_size == 2 || r->dtrd_size == 4 || r->dtrd_size == 8)) {
		k->eak_kind = 0;
		k->eak_int = eng_rec_int(p, r->dtrd_size, r->dtrd_size >= 4);
		return;
	}
	if (r->dtrd_action == DTRACEACT_DIFEXPR) {
		k->eak_kind = 1;
		*text = strndup(p, r->dtrd_size);
		k->eak_str = *text;
		return;
	}
	if ((mf = open_memstream(text, &len)) == NULL)
		return;
	if (r->dtrd_action == DTRACEACT_STACK ||
	    r->dtrd_action == DTRACEACT_USTACK ||
	    r->dtrd_action == DTRACEACT_JSTACK)
		key(h, mf, r, p, 0);
	else
		eng_rec_sym(h, mf, "%s", r->dtrd_action, p);
	fclose(mf);
	k->eak_kind = 2;
	k->eak_str = *text;
}

static void walk_value(const eng_aggrow_t *r, eng_aggent_t *e)
{
	const dtrace_recdesc_t *vr = eng_agg_valrec(r->ar_desc);
	const char *p = r->ar_data + vr->dtrd_offset;
	int64_t w[4];

	switch (vr->dtrd_action) {
	case DTRACEAGG_QUANTIZE: case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		e->eae_nbuckets = eng_hist_buckets(vr->dtrd_action,
		    (const int64_t *)(const void *)p, vr->dtrd_size,
		    &e->eae_hist_arg, &e->eae_buckets);
		return;
	case DTRACEAGG_AVG:
		memcpy(w, p, 16);
		e->eae_value = w[0] != 0 ? w[1] / e->eae_normal / w[0] : 0;
		return;
	case DTRACEAGG_STDDEV:
		memcpy(w, p, 32);
		e->eae_value = (int64_t)eng_agg_stddev((const uint64_t *)w,
		    e->eae_normal);
		return;
	default:
		e->eae_value = eng_rec_int(p, 8, 1) / e->eae_normal;
		return;
	}
}

int eng_agg_walk(eng_hdl_t *h, eng_agg_f *cb, void *arg)
{
	size_t n;
	eng_aggrow_t **rows = eng_agg_sorted(h, 0, &n, 0);
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const eng_aggrow_t *r = rows[i];
		const dtrace_aggdesc_t *d = r->ar_desc;
		const dtrace_recdesc_t *vr = eng_agg_valrec(d);
		int nk = d->dtagd_nrecs - 2;
		eng_aggkey_t k[nk > 0 ? nk : 1];
		char *texts[nk > 0 ? nk : 1];
		eng_aggent_t e;

		memset(&e, 0, sizeof (e));
		for (int j = 0; j < nk; j++)
			walk_key(h, &d->dtagd_rec[1 + j], r->ar_data +
			    d->dtagd_rec[1 + j].dtrd_offset, &k[j], &texts[j]);
		e.eae_name = eng_agg_name(h, r->ar_varid);
		e.eae_varid = r->ar_varid;
		e.eae_func = vr->dtrd_action;
		e.eae_nkeys = nk;
		e.eae_keys = k;
		e.eae_normal = eng_agg_normal(h, r->ar_varid);
		walk_value(r, &e);
		rc = cb(&e, arg);
		for (int j = 0; j < nk; j++)
			free(texts[j]);
	}
	free(rows);
	return rc < 0 ? -1 : 0;
}
