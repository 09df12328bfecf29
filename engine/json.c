/*
 * json.c - -x oformat=json: every probe firing and aggregation snapshot as
 * one JSON object per line (the schema is in man/dtrace.1).
 *
 *   {"type":"probe","cpu":C,"id":ID,"epid":E,"timestamp":T,
 *    "probe":{"provider":..,"module":..,"function":..,"name":..},
 *    "records":[R...]}
 *   R: {"action":"trace","value":N} | {"action":"trace","string":S} |
 *      {"action":"trace","bytes":"hex"} | {"action":"printf","output":S} |
 *      {"action":"stack"|"ustack","frames":[S...]} |
 *      {"action":"sym"|"mod"|"usym"|"umod"|"uaddr","value":S} |
 *      {"action":"tracemem","bytes":"hex"} | {"action":"exit","status":N}
 *   {"type":"aggregation","name":S,"id":V,"function":F,"keys":[K...],
 *    "value":N} or with "buckets":[{"label":S,"count":N}...] instead.
 * Drops and errors are formatted by drops.c in the same style.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "consume.h"

void eng_json_str(FILE *fp, const char *s, size_t max)
{
	fputc('"', fp);
	for (size_t i = 0; i < max && s[i] != '\0'; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			fprintf(fp, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", fp);
		else if (ch == '\t')
			fputs("\\t", fp);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(fp, "\\u%04x", ch);
		else
			fputc(ch, fp);
	}
	fputc('"', fp);
}

static void hex(FILE *fp, const char *p, size_t n)
{
	fputc('"', fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%02x", (unsigned char)p[i]);
	fputc('"', fp);
}

/* The record's action by its D name ("trace" for plain values). */
static const char *actname(int act)
{
	const char *n = eng_d_actname((uint32_t)act);

	return n != NULL ? n : "trace";
}

/* A trace()d value: number, string or bytes. */
static void value(FILE *fp, const dtrace_recdesc_t *r, const char *p)
{
	size_t n = r->dtrd_size, i;

	if (n == 1 || n == 2 || n == 4 || n == 8) {
		fprintf(fp, "\"value\":%" PRId64, eng_rec_int(p, n, n >= 4));
		return;
	}
	for (i = 0; i < n && p[i] != '\0'; i++)
		if ((unsigned char)p[i] < 0x20 && p[i] != '\n' && p[i] != '\t')
			break;
	if (i > 0 && (i == n || p[i] == '\0')) {
		fputs("\"string\":", fp);
		eng_json_str(fp, p, n);
		return;
	}
	fputs("\"bytes\":", fp);
	hex(fp, p, n);
}

/* Text a record formats to, as a JSON string (stacks: frame lines). */
static void frames(eng_hdl_t *h, FILE *fp, const dtrace_recdesc_t *r,
    const char *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (mf == NULL)
		return;
	if (r->dtrd_action == DTRACEACT_STACK && r->dtrd_arg > 0)
		eng_rec_stack(h, mf, "%s", p, (int)r->dtrd_arg,
		    (int)(r->dtrd_size / r->dtrd_arg));
	else
		eng_rec_ustack(h, mf, "%s", p, (int)(r->dtrd_arg & 0xffffffffu));
	fclose(mf);
	fputs("\"frames\":[", fp);
	int first = 1;
	for (char *s = buf, *e; s != NULL && *s != '\0'; s = e) {
		e = strchr(s, '\n');
		if (e != NULL)
			*e++ = '\0';
		while (*s == ' ')
			s++;
		if (*s == '\0')
			continue;
		if (!first)
			fputc(',', fp);
		first = 0;
		eng_json_str(fp, s, strlen(s));
	}
	fputc(']', fp);
	free(buf);
}

/* One record; returns how many records it used. */
static int record(eng_hdl_t *h, FILE *fp, const eng_epcache_t *ep,
    const char *base, int i)
{
	const dtrace_recdesc_t *r = &ep->ep_desc->dtepd_rec[i];
	const char *p = base + r->dtrd_offset;
	int act = r->dtrd_action;

	if (DTRACEACT_ISPRINTFLIKE(act) || act == DTRACEACT_LIBACT) {
		/* Let the text formatter do the work, then quote it. */
		char *buf = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&buf, &len);
		int used = 1 + (int)r->dtrd_uarg;
		dtrace_optval_t of = h->eh_opt[ENG_OPT_OFORMAT];

		if (mf == NULL)
			return used;
		h->eh_opt[ENG_OPT_OFORMAT] = ENG_OFORMAT_TEXT;
		used = eng_rec_one(h, mf, ep, base, i);
		h->eh_opt[ENG_OPT_OFORMAT] = of;
		fclose(mf);
		fprintf(fp, "{\"action\":\"%s\",\"output\":",
		    act == DTRACEACT_PRINTA ? "printa" : act ==
		    DTRACEACT_LIBACT ? "libact" : "printf");
		eng_json_str(fp, buf != NULL ? buf : "", len);
		fputc('}', fp);
		free(buf);
		return used;
	}
	switch (act) {
	case DTRACEACT_EXIT:
		fprintf(fp, "{\"action\":\"exit\",\"status\":%d}",
		    (int)eng_rec_int(p, 4, 1));
		h->eh_cons->ec_exited = 1;
		h->eh_cons->ec_exitstatus = (int)eng_rec_int(p, 4, 1);
		return 1;
	case DTRACEACT_TRACEMEM:
		fputs("{\"action\":\"tracemem\",\"bytes\":", fp);
		hex(fp, p, r->dtrd_size);
		fputc('}', fp);
		return 1;
	case DTRACEACT_STACK: case DTRACEACT_USTACK: case DTRACEACT_JSTACK:
		fprintf(fp, "{\"action\":\"%s\",", actname(act));
		frames(h, fp, r, p);
		fputc('}', fp);
		return 1;
	case DTRACEACT_SYM: case DTRACEACT_MOD: case DTRACEACT_USYM:
	case DTRACEACT_UMOD: case DTRACEACT_UADDR: {
		char *buf = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&buf, &len);

		if (mf == NULL)
			return 1;
		eng_rec_sym(h, mf, "%s", act, p);
		fclose(mf);
		fprintf(fp, "{\"action\":\"%s\",\"value\":", actname(act));
		eng_json_str(fp, buf, len);
		fputc('}', fp);
		free(buf);
		return 1;
	}
	case DTRACEACT_DIFEXPR:
		fputs("{\"action\":\"trace\",", fp);
		value(fp, r, p);
		fputc('}', fp);
		return 1;
	default:
		fprintf(fp, "{\"action\":%d}", act);
		return 1;
	}
}

void eng_json_firing(eng_hdl_t *h, FILE *fp, const eng_epcache_t *ep,
    const char *base, int cpu)
{
	const dtrace_eprobedesc_t *d = ep->ep_desc;
	const dtrace_probedesc_t *pd = &ep->ep_probe;
	dtrace_rechdr_t rh;

	memcpy(&rh, base, sizeof (rh));	/* base need not be aligned */
	fprintf(fp, "{\"type\":\"probe\",\"cpu\":%d,\"id\":%u,\"epid\":%u,"
	    "\"timestamp\":%" PRIu64 ",\"probe\":{\"provider\":", cpu,
	    pd->dtpd_id, d->dtepd_epid, DTRACE_RECORD_LOAD_TIMESTAMP(&rh));
	eng_json_str(fp, pd->dtpd_provider, sizeof (pd->dtpd_provider));
	fputs(",\"module\":", fp);
	eng_json_str(fp, pd->dtpd_mod, sizeof (pd->dtpd_mod));
	fputs(",\"function\":", fp);
	eng_json_str(fp, pd->dtpd_func, sizeof (pd->dtpd_func));
	fputs(",\"name\":", fp);
	eng_json_str(fp, pd->dtpd_name, sizeof (pd->dtpd_name));
	fputs("},\"records\":[", fp);
	for (int i = 0; i < d->dtepd_nrecs; ) {
		if (i > 0)
			fputc(',', fp);
		i += record(h, fp, ep, base, i);
	}
	fputs("]}\n", fp);
}

/* One aggregation entry. */
static int aggent(const eng_aggent_t *e, void *arg)
{
	FILE *fp = arg;

	fputs("{\"type\":\"aggregation\",\"name\":", fp);
	eng_json_str(fp, e->eae_name, strlen(e->eae_name));
	fprintf(fp, ",\"id\":%" PRId64 ",\"function\":\"%s\",\"keys\":[",
	    e->eae_varid, actname(e->eae_func));
	for (int i = 0; i < e->eae_nkeys; i++) {
		const eng_aggkey_t *k = &e->eae_keys[i];

		if (i > 0)
			fputc(',', fp);
		if (k->eak_kind == 0)
			fprintf(fp, "%" PRId64, k->eak_int);
		else
			eng_json_str(fp, k->eak_str ? k->eak_str : "",
			    k->eak_str ? strlen(k->eak_str) : 0);
	}
	fputc(']', fp);
	if (e->eae_nbuckets > 0) {
		fputs(",\"buckets\":[", fp);
		int first = 1;
		for (int i = 0; i < e->eae_nbuckets; i++) {
			char lab[48];

			if (e->eae_buckets[i] == 0)
				continue;
			eng_agg_bucket_label(e, i, lab, sizeof (lab));
			fprintf(fp, "%s{\"label\":\"%s\",\"count\":%" PRId64 "}",
			    first ? "" : ",", lab, e->eae_buckets[i] /
			    (e->eae_normal ? e->eae_normal : 1));
			first = 0;
		}
		fputs("]}\n", fp);
	} else {
		fprintf(fp, ",\"value\":%" PRId64 "}\n", e->eae_value);
	}
	return 0;
}

struct jsel {
	FILE *fp;
	eng_hdl_t *h;
	const dtrace_aggvarid_t *ids;
	int n, all;
};

static int select_ent(const eng_aggent_t *e, void *arg)
{
	struct jsel *s = arg;

	if (s->all)
		return eng_agg_printed(s->h, e->eae_varid) ? 0 :
		    aggent(e, s->fp);
	for (int i = 0; i < s->n; i++)
		if (s->ids[i] == e->eae_varid)
			return aggent(e, s->fp);
	return 0;
}

int eng_json_aggs(eng_hdl_t *h, FILE *fp, const dtrace_aggvarid_t *ids,
    int n, int all)
{
	struct jsel s = { fp, h, ids, n, all };

	if (fp == NULL)
		return 0;
	return eng_agg_walk(h, select_ent, &s);
}
