/*
 * save.c - ":save output FILE" and ":save aggs FILE": the output lines
 * as text, and the aggregations as dtrace prints them (keyed values, or
 * a histogram's value/count rows).  Errors come back as messages.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "tui_model.h"

static FILE *open_out(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return fp;
}

/* Flush and close; a write error (a full disk: ENOSPC) is the message,
 * never "saved". */
static int close_out(FILE *fp, const char *path, char *err, size_t errlen)
{
	int bad, why;

	errno = 0;
	bad = fflush(fp) != 0 || ferror(fp);
	why = errno;
	if (fclose(fp) != 0 && !bad) {
		bad = 1;
		why = errno;
	}
	if (!bad)
		return 0;
	snprintf(err, errlen, "%s: write failed: %s", path,
	    strerror(why != 0 ? why : EIO));
	return -1;
}

int tui_save_output(const tui_model_t *m, const char *path, char *err,
    size_t errlen)
{
	FILE *fp = open_out(path, err, errlen);

	if (fp == NULL)
		return -1;
	for (int i = 0; i < m->tm_nlines; i++)
		fprintf(fp, "%s\n", tui_model_line(m, i)->tl_text);
	if (m->tm_partial != NULL)
		fprintf(fp, "%s\n", m->tm_partial);
	return close_out(fp, path, err, errlen);
}

static void save_hist(FILE *fp, const tui_aggent_t *e)
{
	int lo, hi;

	fprintf(fp, "  %s\n%16s  count\n", e->ta_key, "value");
	tui_hist_trim(e->ta_buckets, e->ta_nbuckets, &lo, &hi);
	for (int i = lo; i <= hi; i++)
		fprintf(fp, "%16s  %lld\n", e->ta_labels && e->ta_labels[i] ?
		    e->ta_labels[i] : "?", (long long)e->ta_buckets[i]);
	fputc('\n', fp);
}

int tui_save_aggs(const tui_model_t *m, const char *path, char *err,
    size_t errlen)
{
	FILE *fp = open_out(path, err, errlen);

	if (fp == NULL)
		return -1;
	for (int i = 0; i < m->tm_naggs; i++) {
		const tui_agg_t *a = &m->tm_aggs[i];

		fprintf(fp, "@%s\n", a->tag_name);
		for (int j = 0; j < a->tag_nents; j++) {
			const tui_aggent_t *e = &a->tag_ents[j];

			if (tui_is_hist(a->tag_func))
				save_hist(fp, e);
			else
				fprintf(fp, "  %-50s %20lld\n", e->ta_key,
				    (long long)e->ta_value);
		}
		fputc('\n', fp);
	}
	return close_out(fp, path, err, errlen);
}
