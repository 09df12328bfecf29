/*
 * printf.c - dtrace's printf(): a format string applied to records.
 *
 * Conversions (as dtrace(1M)): d i u o x X c s S p e E f F g G a A k Y T P
 * and %%, with flags - + space # 0 ' ? and @ (aggregation value, for
 * printa), width and precision (digits or '*', which take the next
 * argument), and size prefixes hh h l ll L z j t (the value's size is
 * the record's size; h and hh then convert it to short and char as C's
 * printf does).  Integers are read by record size, sign-extended for
 * signed conversions, and printed with the C printf of the same
 * conversion at 64 bits.  %a/%A print module`symbol+offset, %k a
 * stack, %Y a walltimestamp as "%Y %b %e %T", %S a string with C escapes.
 *
 * Invariant: one conversion consumes exactly one argument (plus one per
 * '*'); missing arguments print nothing for that conversion.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "consume.h"

/* One parsed conversion. */
struct conv {
	char flags[16];		/* without '?' and '@' */
	int width, prec;	/* -1 if none */
	int star_w, star_p;	/* width/precision from arguments */
	int agg;		/* '@' */
	int ptrwidth;		/* '?' */
	int bytes;		/* h: 2, hh: 1 (the C conversion's size), else 0 */
	char ch;		/* the conversion character */
};

/* Parse the conversion after '%' at *sp; advances *sp.  0 or -1. */
static int parse_conv(const char **sp, struct conv *cv)
{
	const char *s = *sp;
	size_t nf = 0;

	memset(cv, 0, sizeof (*cv));
	cv->width = cv->prec = -1;
	for (; strchr("-+ #0'?@", *s) != NULL && *s != '\0'; s++) {
		if (*s == '?')
			cv->ptrwidth = 1;
		else if (*s == '@')
			cv->agg = 1;
		else if (nf + 1 < sizeof (cv->flags))
			cv->flags[nf++] = *s;
	}
	if (*s == '*') {
		cv->star_w = 1;
		s++;
	} else if (isdigit((unsigned char)*s)) {
		cv->width = (int)strtol(s, (char **)&s, 10);
	}
	if (*s == '.') {
		s++;
		if (*s == '*') {
			cv->star_p = 1;
			s++;
		} else {
			cv->prec = (int)strtol(s, (char **)&s, 10);
		}
	}
	for (; *s != '\0' && strchr("hlLzjtq", *s) != NULL; s++)
		cv->bytes = *s != 'h' ? 0 : cv->bytes == 2 ? 1 : 2;
	if (*s == '\0' || strchr("diuoxXcsSpeEfFgGaAkYTP%", *s) == NULL)
		return -1;
	cv->ch = *s++;
	*sp = s;
	if (cv->ptrwidth && cv->width < 0 && !cv->star_w)
		cv->width = 16;
	return 0;
}

/* Build a C format: '%' flags width precision, then conv. */
static void cfmt(const struct conv *cv, const char *conv, char *out,
    size_t len)
{
	int n = snprintf(out, len, "%%%s", cv->flags);

	if (cv->width >= 0)
		n += snprintf(out + n, len - (size_t)n, "%d", cv->width);
	if (cv->prec >= 0)
		n += snprintf(out + n, len - (size_t)n, ".%d", cv->prec);
	snprintf(out + n, len - (size_t)n, "%s", conv);
}

static int is_signed_conv(char ch)
{
	return ch == 'd' || ch == 'i' || ch == 'c' || strchr("eEfFgG", ch);
}

/* The integer value of an argument (aggregation values computed). */
static int64_t argval(const eng_pfarg_t *a, int sign)
{
	const dtrace_recdesc_t *r = a->pa_rec;
	int64_t norm = a->pa_normal != 0 ? a->pa_normal : 1;
	int64_t w[2];

	switch (r->dtrd_action) {
	case DTRACEAGG_AVG:
		memcpy(w, a->pa_data, 16);
		return w[0] != 0 ? w[1] / norm / w[0] : 0;
	case DTRACEAGG_STDDEV:
		return (int64_t)eng_agg_stddev((const uint64_t *)
		    (const void *)a->pa_data, norm);
	case DTRACEAGG_COUNT: case DTRACEAGG_SUM: case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
		return eng_rec_int(a->pa_data, 8, 1) / norm;
	default:
		break;
	}
	if (r->dtrd_size > 8)
		return eng_rec_int(a->pa_data, 8, sign);
	return eng_rec_int(a->pa_data, r->dtrd_size, sign);
}

/* A string argument: the record's bytes up to NUL (bounded). */
static char *argstr(const eng_pfarg_t *a)
{
	size_t n = a->pa_rec->dtrd_size;
	char *s = malloc(n + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, a->pa_data, n);
	s[n] = '\0';
	return s;
}

/* %S: C escapes for what would not print. */
static char *escape(const char *s)
{
	size_t n = strlen(s);
	char *o = malloc(n * 4 + 1), *p = o;

	if (o == NULL)
		return NULL;
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;
		const char *e = strchr("\a\b\f\n\r\t\v\\\"", ch);

		if (e != NULL && ch != '\0') {
			*p++ = '\\';
			*p++ = "abfnrtv\\\""[e - "\a\b\f\n\r\t\v\\\""];
		} else if (!isprint(ch)) {
			p += sprintf(p, "\\%03o", ch);
		} else {
			*p++ = (char)ch;
		}
	}
	*p = '\0';
	return o;
}

static void print_time(FILE *fp, const struct conv *cv, int64_t ns, int rfc)
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;
	char buf[64], f[64];

	localtime_r(&t, &tm);
	/* libdtrace: %T as RFC 822 (with the ISO year, %G), %Y as ctime's
	 * fields with the year first */
	strftime(buf, sizeof (buf), rfc ? "%a, %d %b %G %T %Z" :
	    "%Y %b %e %T", &tm);
	cfmt(cv, "s", f, sizeof (f));
	fprintf(fp, f, buf);
}

/* %s-like conversions of a symbol, stack or string argument. */
static void print_textual(eng_hdl_t *h, FILE *fp, const struct conv *cv,
    const eng_pfarg_t *a)
{
	const dtrace_recdesc_t *r = a->pa_rec;
	char f[64], text[1024], *s;

	cfmt(cv, "s", f, sizeof (f));
	switch (cv->ch) {
	case 'k':
		if (r->dtrd_action == DTRACEACT_USTACK ||
		    r->dtrd_action == DTRACEACT_JSTACK)
			eng_rec_ustack(h, fp, f, a->pa_data,
			    (int)(r->dtrd_arg & 0xffffffffu));
		else if (r->dtrd_arg > 0)
			eng_rec_stack(h, fp, f, a->pa_data, (int)r->dtrd_arg,
			    (int)(r->dtrd_size / r->dtrd_arg));
		return;
	case 'a':
	case 'A': {
		int user = r->dtrd_size >= 16;
		int pid = user ? (int)eng_rec_int(a->pa_data, 8, 0) : 0;
		uint64_t pc = (uint64_t)eng_rec_int(a->pa_data + (user ? 8 : 0),
		    8, 0);

		eng_sym_text(h, pid, pc, ENG_SYM_OFF, text, sizeof (text));
		fprintf(fp, f, text);
		return;
	}
	default:
		break;
	}
	if (r->dtrd_action == DTRACEACT_SYM || r->dtrd_action ==
	    DTRACEACT_MOD || r->dtrd_action == DTRACEACT_USYM ||
	    r->dtrd_action == DTRACEACT_UMOD ||
	    r->dtrd_action == DTRACEACT_UADDR) {
		eng_rec_sym(h, fp, f, r->dtrd_action, a->pa_data);
		return;
	}
	if ((s = argstr(a)) == NULL)
		return;
	if (cv->ch == 'S') {
		char *e = escape(s);

		free(s);
		if ((s = e) == NULL)
			return;
	}
	fprintf(fp, f, s);
	free(s);
}

/* An aggregation value under %@: histograms draw, others print. */
static void print_aggval(eng_hdl_t *h, FILE *fp, const struct conv *cv,
    const eng_pfarg_t *a)
{
	int act = a->pa_rec->dtrd_action;

	if (act == DTRACEAGG_QUANTIZE || act == DTRACEAGG_LQUANTIZE ||
	    act == DTRACEAGG_LLQUANTIZE) {
		eng_hist_print(fp, act, (const int64_t *)(const void *)
		    a->pa_data, a->pa_rec->dtrd_size, a->pa_normal,
		    eng_opt_isset(h, DTRACEOPT_AGGZOOM));
		return;
	}
	char f[64];
	int64_t v = argval(a, 1);

	switch (cv->ch) {
	case 'd': case 'i': cfmt(cv, "lld", f, sizeof (f)); break;
	case 'u': cfmt(cv, "llu", f, sizeof (f)); break;
	case 'o': cfmt(cv, "llo", f, sizeof (f)); break;
	case 'x': case 'p': cfmt(cv, "llx", f, sizeof (f)); break;
	case 'X': cfmt(cv, "llX", f, sizeof (f)); break;
	default: cfmt(cv, "lld", f, sizeof (f)); break;
	}
	fprintf(fp, f, (long long)v);
}

/* An integer as the C conversion sees it: %hd and %hhd (and %hu...)
 * convert to short and char, as printf(3C), which dtrace hands the
 * conversion with its size prefix. */
static long long sized(const struct conv *cv, int64_t v)
{
	int sign = is_signed_conv(cv->ch);

	if (cv->bytes == 1)
		return sign ? (long long)(signed char)v :
		    (long long)(unsigned char)v;
	if (cv->bytes == 2)
		return sign ? (long long)(short)v : (long long)(unsigned short)v;
	return (long long)v;
}

/* One conversion with its argument a (NULL if missing). */
static void convert(eng_hdl_t *h, FILE *fp, const struct conv *cv,
    const eng_pfarg_t *a)
{
	char f[64], conv[4] = { 'l', 'l', 0, 0 };

	if (a == NULL)
		return;
	if (cv->agg) {
		print_aggval(h, fp, cv, a);
		return;
	}
	/* libdtrace prints mod()/umod() records as the module whatever the
	 * conversion (dt_printf_format: pfprint_mod, pfprint_umod) */
	if (a->pa_rec->dtrd_action == DTRACEACT_MOD ||
	    a->pa_rec->dtrd_action == DTRACEACT_UMOD) {
		cfmt(cv, "s", f, sizeof (f));
		eng_rec_sym(h, fp, f, a->pa_rec->dtrd_action, a->pa_data);
		return;
	}
	switch (cv->ch) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
		conv[2] = cv->ch;
		cfmt(cv, conv, f, sizeof (f));
		fprintf(fp, f, sized(cv, argval(a, is_signed_conv(cv->ch))));
		return;
	case 'p':
		cfmt(cv, "llx", f, sizeof (f));
		fprintf(fp, f, (unsigned long long)argval(a, 0));
		return;
	case 'c':
		cfmt(cv, "c", f, sizeof (f));
		fprintf(fp, f, (int)(char)argval(a, 1));
		return;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
		conv[0] = cv->ch;
		conv[1] = '\0';
		cfmt(cv, conv, f, sizeof (f));
		fprintf(fp, f, (double)argval(a, 1));
		return;
	case 'Y': case 'T':
		print_time(fp, cv, argval(a, 1), cv->ch == 'T');
		return;
	case 'P':
		cfmt(cv, "u", f, sizeof (f));
		fprintf(fp, f, (unsigned)ntohs((uint16_t)argval(a, 0)));
		return;
	default:
		print_textual(h, fp, cv, a);
		return;
	}
}

int eng_printf(eng_hdl_t *h, FILE *fp, const char *fmt,
    const eng_pfarg_t *args, int nargs, const eng_pfarg_t *aggs, int naggs)
{
	int ai = 0, gi = 0;

	for (const char *s = fmt; *s != '\0'; ) {
		struct conv cv;
		const char *pct = strchr(s, '%');

		if (pct == NULL) {
			fputs(s, fp);
			break;
		}
		fwrite(s, 1, (size_t)(pct - s), fp);
		s = pct + 1;
		if (parse_conv(&s, &cv) != 0)
			return eng_error(h, "invalid format conversion in "
			    "\"%s\" at offset %d", fmt, (int)(pct - fmt));
		if (cv.ch == '%') {
			fputc('%', fp);
			continue;
		}
		if (cv.star_w)
			cv.width = ai < nargs ? (int)argval(&args[ai++], 1) : 0;
		if (cv.star_p)
			cv.prec = ai < nargs ? (int)argval(&args[ai++], 1) : 0;
		if (cv.width < 0 && cv.star_w) {
			cv.width = -cv.width;
			strncat(cv.flags, "-", sizeof (cv.flags) - 1 -
			    strlen(cv.flags));
		}
		if (cv.agg)
			convert(h, fp, &cv, gi < naggs ? &aggs[gi++] : NULL);
		else
			convert(h, fp, &cv, ai < nargs ? &args[ai++] : NULL);
	}
	return 0;
}
