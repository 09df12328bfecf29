/*
 * hist.c - quantize(), lquantize() and llquantize() drawn as dtrace(1M)
 * draws them.
 *
 * Value layouts (clause protocol): quantize 127 buckets (zero bucket at
 * 63); lquantize an encoding word then underflow, levels, overflow;
 * llquantize an encoding word then underflow, the buckets, overflow.
 * Rows printed run from the bucket before the first non-zero one to the
 * bucket after the last one (all-zero: the rows around zero, or the first
 * rows).  A bar is round(|count| * 40 / total) '@'s, total being the sum
 * of |counts| over the printed rows (aggzoom: 38 of 40 for the largest);
 * negative-only data draws leftwards, mixed signs draw two half bars.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "consume.h"

static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
static const char spaces[] = "                                        ";

/* The distribution part of one row: bar and count. */
void eng_hist_bar(FILE *fp, int64_t val, int64_t normal, long double total,
    int pos, int neg)
{
	unsigned len = 40, depth = 0;

	if (normal == 0)
		normal = 1;
	if (!neg) {
		if (pos && total > 0)
			depth = (unsigned)(fabsl((long double)val) * len /
			    total + 0.5);
		if (depth > len)
			depth = len;
		fprintf(fp, "|%s%s %-9lld\n", ats + len - depth,
		    spaces + depth, (long long)(val / normal));
		return;
	}
	if (!pos) {
		depth = (unsigned)(fabsl((long double)val) * len / total + 0.5);
		if (depth > len)
			depth = len;
		fprintf(fp, "%s%s| %-9lld\n", spaces + depth,
		    ats + len - depth, (long long)(val / normal));
		return;
	}
	len /= 2;
	depth = (unsigned)(fabsl((long double)val) * len / total + 0.5);
	if (depth > len)
		depth = len;
	if (val <= 0)
		fprintf(fp, "%s%s|%*s %-9lld\n", spaces + 20 + depth,
		    ats + 40 - depth, (int)len, "", (long long)(val / normal));
	else
		fprintf(fp, "%20s|%s%s %-9lld\n", "", ats + 40 - depth,
		    spaces + 20 + depth, (long long)(val / normal));
}

/* First and last rows to print of n buckets; zero-data rows given. */
static void range(const int64_t *b, int n, int zfirst, int zlast,
    int *first, int *last)
{
	int f = 0, l = n - 1;

	while (f < n && b[f] == 0)
		f++;
	if (f == n) {
		*first = zfirst;
		*last = zlast;
		return;
	}
	if (f > 0)
		f--;
	while (l > 0 && b[l] == 0)
		l--;
	if (l < n - 1)
		l++;
	*first = f;
	*last = l;
}

/* Sign summary and the total the bars are scaled to. */
static long double scale(const int64_t *b, int first, int last, int zoom,
    int *pos, int *neg)
{
	long double total = 0, max = 0;

	*pos = *neg = 0;
	for (int i = first; i <= last; i++) {
		long double a = fabsl((long double)b[i]);

		*pos |= b[i] > 0;
		*neg |= b[i] < 0;
		total += a;
		if (a > max)
			max = a;
	}
	/* aggzoom: the largest bucket fills 95% of the bar, as dtrace. */
	return zoom ? max / 0.95L : total;
}

static void head(FILE *fp)
{
	fprintf(fp, "\n%16s %41s %-9s\n", "value",
	    "------------- Distribution -------------", "count");
}

static void quantize(FILE *fp, const int64_t *b, int64_t normal, int zoom)
{
	int n = DTRACE_QUANTIZE_NBUCKETS, first, last, pos, neg;
	int z = DTRACE_QUANTIZE_ZEROBUCKET;
	long double total;

	range(b, n, z - 1, z + 1, &first, &last);
	if (first == n - 1 && b[n - 1] == 0) {
		first = z - 1;
		last = z + 1;
	}
	total = scale(b, first, last, zoom, &pos, &neg);
	head(fp);
	for (int i = first; i <= last; i++) {
		fprintf(fp, "%16lld ",
		    (long long)DTRACE_QUANTIZE_BUCKETVAL((size_t)i));
		eng_hist_bar(fp, b[i], normal, total, pos, neg);
	}
}

static void lquantize(FILE *fp, const int64_t *d, size_t size,
    int64_t normal, int zoom)
{
	uint64_t arg = (uint64_t)d[0];
	int32_t base = DTRACE_LQUANTIZE_BASE(arg);
	int step = DTRACE_LQUANTIZE_STEP(arg);
	int levels = DTRACE_LQUANTIZE_LEVELS(arg);
	const int64_t *b = d + 1;
	int first, last, pos, neg;
	long double total;
	char c[32];

	if (size != (size_t)(levels + 3) * 8)
		return;
	range(b, levels + 2, 0, 2, &first, &last);
	if (last > levels + 1)
		last = levels + 1;
	total = scale(b, first, last, zoom, &pos, &neg);
	head(fp);
	for (int i = first; i <= last; i++) {
		if (i == 0) {
			snprintf(c, sizeof (c), "< %d", base);
			fprintf(fp, "%16s ", c);
		} else if (i == levels + 1) {
			/* 64-bit: a corrupt record's base and step must not
			 * overflow an int */
			snprintf(c, sizeof (c), ">= %lld", (long long)base +
			    (long long)levels * step);
			fprintf(fp, "%16s ", c);
		} else {
			fprintf(fp, "%16lld ", (long long)base +
			    (long long)(i - 1) * step);
		}
		eng_hist_bar(fp, b[i], normal, total, pos, neg);
	}
}

/*
 * Are arg's llquantize parameters ones the compiler accepts (factor two
 * or more, low magnitude below high, steps a multiple of the factor
 * dividing a power of it, factor^high within 64 bits)?  Anything else
 * (a corrupt record) would walk the buckets for ever, or overflow.
 */
static int llvalid(uint64_t arg)
{
	uint64_t factor = DTRACE_LLQUANTIZE_FACTOR(arg);
	uint64_t low = DTRACE_LLQUANTIZE_LMAG(arg);
	uint64_t high = DTRACE_LLQUANTIZE_HMAG(arg);
	uint64_t nsteps = DTRACE_LLQUANTIZE_STEPS(arg), x, v = 1;

	if (factor < 2 || low >= high || nsteps < factor ||
	    nsteps % factor != 0)
		return 0;
	for (x = factor; x < nsteps; x *= factor)
		continue;
	if (x % nsteps != 0)
		return 0;
	for (uint64_t i = 0; i < high; i++) {
		if (v * factor / factor != v)
			return 0;
		v *= factor;
	}
	return 1;
}

/* llquantize bucket i's lower bound (i from 1; past the last, the last
 * magnitude's end); 0 when arg's parameters are not valid. */
static int64_t llbound(uint64_t arg, int i);

/* Walking llquantize's buckets from the first above the zeroth: the
 * lower bound of the current one, and how to step to the next. */
struct llwalk {
	uint64_t arg;
	uint64_t value, next, step;	/* unsigned: the bound past the high
					 * magnitude may pass INT64_MAX */
	int order, bin;
};

static void llstart(struct llwalk *w, uint64_t arg)
{
	int factor = DTRACE_LLQUANTIZE_FACTOR(arg);
	int nsteps = DTRACE_LLQUANTIZE_STEPS(arg);

	w->arg = arg;
	w->value = 1;
	for (w->order = 0; w->order < DTRACE_LLQUANTIZE_LMAG(arg); w->order++)
		w->value *= factor;
	w->next = w->value * factor;
	w->step = w->next > (uint64_t)nsteps ? w->next / nsteps : 1;
	w->bin = 1;
}

/* To the next bucket; 0 past the last magnitude (w->value is then the
 * overflow bucket's bound). */
static int llstep(struct llwalk *w)
{
	int factor = DTRACE_LLQUANTIZE_FACTOR(w->arg);
	int nsteps = DTRACE_LLQUANTIZE_STEPS(w->arg);

	if (w->order > DTRACE_LLQUANTIZE_HMAG(w->arg))
		return 0;
	w->bin++;
	if ((w->value += w->step) == w->next) {
		w->next = w->value * factor;
		w->step = w->next > (uint64_t)nsteps ? w->next / nsteps : 1;
		w->order++;
		/* the magnitude past the high one may not fit in 64 bits:
		 * then it is the last (stepping towards a wrapped bound
		 * would never end) */
		if (w->next / factor != w->value)
			w->order = DTRACE_LLQUANTIZE_HMAG(w->arg) + 1;
	}
	return w->order <= DTRACE_LLQUANTIZE_HMAG(w->arg);
}

static int64_t llbound(uint64_t arg, int i)
{
	struct llwalk w;

	if (!llvalid(arg))
		return 0;
	llstart(&w, arg);
	while (w.bin < i && llstep(&w))
		continue;
	return w.value;
}

static void llquantize(FILE *fp, const int64_t *d, size_t size,
    int64_t normal, int zoom)
{
	uint64_t arg = (uint64_t)d[0];
	const int64_t *b = d + 1;
	int levels = (int)(size / 8) - 1, first, last, pos, neg, nrows;
	struct llwalk w;
	long double total;
	char c[32];

	if (levels < 2 || !llvalid(arg))
		return;
	llstart(&w, arg);
	while (llstep(&w))
		continue;
	nrows = w.bin + 1;
	if (nrows < levels)
		levels = nrows;
	range(b, levels, 0, 1, &first, &last);
	total = scale(b, first, last, zoom, &pos, &neg);
	head(fp);
	llstart(&w, arg);
	for (int i = 0; i < first - 1 && i < levels; i++)
		(void)llstep(&w);
	for (int i = first; i <= last; i++) {
		if (i == 0) {
			snprintf(c, sizeof (c), "< %lld", (long long)w.value);
			fprintf(fp, "%16s ", c);
		} else {
			if (i > 1 && i > first)
				(void)llstep(&w);
			if (i == levels - 1) {
				snprintf(c, sizeof (c), ">= %lld",
				    (long long)w.value);
				fprintf(fp, "%16s ", c);
			} else {
				fprintf(fp, "%16lld ", (long long)w.value);
			}
		}
		eng_hist_bar(fp, b[i], normal, total, pos, neg);
	}
}

int eng_hist_print(FILE *fp, int func, const int64_t *data, size_t size,
    int64_t normal, int zoom)
{
	switch (func) {
	case DTRACEAGG_QUANTIZE:
		if (size != DTRACE_QUANTIZE_NBUCKETS * 8)
			return -1;
		quantize(fp, data, normal, zoom);
		return 0;
	case DTRACEAGG_LQUANTIZE:
		lquantize(fp, data, size, normal, zoom);
		return 0;
	case DTRACEAGG_LLQUANTIZE:
		llquantize(fp, data, size, normal, zoom);
		return 0;
	default:
		return -1;
	}
}

int eng_hist_buckets(int func, const int64_t *data, size_t size,
    uint64_t *argp, const int64_t **bucketsp)
{
	if (func == DTRACEAGG_QUANTIZE) {
		*argp = 0;
		*bucketsp = data;
		return (int)(size / 8);
	}
	*argp = (uint64_t)data[0];
	*bucketsp = data + 1;
	return (int)(size / 8) - 1;
}

void eng_agg_bucket_label(const eng_aggent_t *ent, int i, char *buf,
    size_t len)
{
	uint64_t arg = ent->eae_hist_arg;

	switch (ent->eae_func) {
	case DTRACEAGG_QUANTIZE:
		snprintf(buf, len, "%lld",
		    (long long)DTRACE_QUANTIZE_BUCKETVAL((size_t)i));
		return;
	case DTRACEAGG_LQUANTIZE: {
		int32_t base = DTRACE_LQUANTIZE_BASE(arg);
		int step = DTRACE_LQUANTIZE_STEP(arg);
		int levels = DTRACE_LQUANTIZE_LEVELS(arg);

		if (i == 0)
			snprintf(buf, len, "< %d", base);
		else if (i >= levels + 1)
			snprintf(buf, len, ">= %lld", (long long)base +
			    (long long)levels * step);
		else
			snprintf(buf, len, "%lld", (long long)base +
			    (long long)(i - 1) * step);
		return;
	}
	case DTRACEAGG_LLQUANTIZE:
		if (i == 0)
			snprintf(buf, len, "< %lld",
			    (long long)llbound(arg, 1));
		else if (i == ent->eae_nbuckets - 1)
			snprintf(buf, len, ">= %lld",
			    (long long)llbound(arg, i));
		else
			snprintf(buf, len, "%lld",
			    (long long)llbound(arg, i));
		return;
	default:
		snprintf(buf, len, "%d", i);
		return;
	}
}

/* ---- aggpack: one line per key ------------------------------------------ */

/* Columns dtrace gives a bucket value in packed output (at least 4). */
static int ndigits(long long v)
{
	int n = 1;
	long long cmp = 10;

	if (v < 0) {
		v = v == INT64_MIN ? INT64_MAX : -v;
		n++;
	}
	while (v > cmp && cmp > 0) {
		n++;
		cmp *= 10;
	}
	return n < 4 ? 4 : n;
}

/* UTF-8 block elements unless the terminal is known not to draw them. */
static int use_utf8(void)
{
	const char *t = getenv("TERM");

	return t == NULL || (strcmp(t, "dumb") != 0 && strcmp(t, "sun") != 0 &&
	    strcmp(t, "sun-color") != 0);
}

/* One bucket as one character cell (utf8: use_utf8(), asked once per
 * line by the caller). */
static void packed_cell(FILE *fp, long double v, long double total,
    int utf8)
{
	static const char ascii[] = "__xxxxXX", neg[] = "vvvvVV";

	if (v == 0 || total <= 0) {
		fputc(' ', fp);
	} else if (v < 0) {
		fputc(neg[(unsigned)(-v * (sizeof (neg) - 2) / total + 0.5)], fp);
	} else if (utf8) {
		unsigned b = 0x2581 + (unsigned)(v * 7 / total + 0.5);

		fputc(0xe0 | (b >> 12), fp);
		fputc(0x80 | ((b >> 6) & 0x3f), fp);
		fputc(0x80 | (b & 0x3f), fp);
	} else {
		fputc(ascii[(unsigned)(v * (sizeof (ascii) - 2) / total + 0.5)],
		    fp);
	}
}

/* quantize's packed range: one bucket either side of the data. */
static void qrange(int *min, int *max)
{
	if (*min != 0 && *min != (int)DTRACE_QUANTIZE_ZEROBUCKET)
		(*min)--;
	if (*max < (int)DTRACE_QUANTIZE_NBUCKETS - 1)
		(*max)++;
}

void eng_hist_packhdr(FILE *fp, int width, int func, int minbin,
    int maxbin)
{
	int minw = 7, maxw = 8;

	if (func == DTRACEAGG_QUANTIZE) {
		qrange(&minbin, &maxbin);
		minw = ndigits(DTRACE_QUANTIZE_BUCKETVAL((size_t)minbin));
		maxw = ndigits(DTRACE_QUANTIZE_BUCKETVAL((size_t)maxbin));
	} else {
		maxbin++;
	}
	fprintf(fp, "\n%*s %*s .", width, width > 0 ? "key" : "", minw, "min");
	for (int i = minbin; i <= maxbin; i++)
		fputc('-', fp);
	fprintf(fp, ". %*s | count\n", -maxw, "max");
}

int eng_hist_packed(FILE *fp, int func, const int64_t *data, size_t size,
    int minbin, int maxbin, int zoom)
{
	long double total = 0, count = 0;
	int min = minbin, max = maxbin;
	char c[32];

	if (func == DTRACEAGG_LQUANTIZE) {
		int32_t base = DTRACE_LQUANTIZE_BASE((uint64_t)data[0]);
		int step = DTRACE_LQUANTIZE_STEP((uint64_t)data[0]);
		int levels = DTRACE_LQUANTIZE_LEVELS((uint64_t)data[0]);

		if (size != (size_t)(levels + 3) * 8)
			return -1;
		data++;
		min = 0;
		max = levels + 1;
		snprintf(c, sizeof (c), "< %d", base);
		fprintf(fp, "%8s :", c);
		total = scale(data, min, max, zoom, &(int){ 0 }, &(int){ 0 });
		for (int i = min; i <= max; i++)
			count += data[i];
		for (int i = min, u = use_utf8(); i <= max; i++)
			packed_cell(fp, data[i], total, u);
		snprintf(c, sizeof (c), ">= %d", base + levels * step);
		fprintf(fp, ": %-8s | %lld\n", c, (long long)count);
		return 0;
	}
	if (func != DTRACEAGG_QUANTIZE || size != DTRACE_QUANTIZE_NBUCKETS * 8)
		return -1;
	qrange(&min, &max);
	long long minval = DTRACE_QUANTIZE_BUCKETVAL((size_t)min);
	long long maxval = DTRACE_QUANTIZE_BUCKETVAL((size_t)max);
	fprintf(fp, " %*lld :", ndigits(minval), minval);
	total = scale(data, min, max, zoom, &(int){ 0 }, &(int){ 0 });
	for (int i = min, u = use_utf8(); i <= max; i++) {
		count += data[i];
		packed_cell(fp, data[i], total, u);
	}
	fprintf(fp, ": %*lld | %lld\n", -ndigits(maxval), maxval,
	    (long long)count);
	return 0;
}
