/*
 * printf.c - dtrace's printf(): a format string applied to records.
 *
 * The format grammar and the conversions are pfmt.c's, shared with the
 * compiler's checks; here each conversion prints its record.  Integers
 * are read by record size, sign-extended for signed conversions, and
 * printed with the C printf of the same conversion at 64 bits (%hd and
 * %hu convert to short first, as printf(3C) does).  %a/%A print
 * module`symbol+offset, %k a stack, %Y a walltimestamp as
 * "%Y %b %e %T", %T as RFC 822, %S a string and %C a character with C
 * escapes, %P a port in network order.
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
#include <wchar.h>
#include "consume.h"
#include "pfmt.h"

/* A parsed conversion with its width and precision for this call. */
struct conv {
	struct eng_pfconv pf;
	int width, prec;	/* prec -1 if none */
	char ch;		/* the conversion's last letter */
};

/* Build a C format for cv ending in conv ("lld", "s"). */
static void cfmt(const struct conv *cv, const char *conv, char *out,
    size_t len)
{
	eng_pf_cfmt(&cv->pf, cv->width, cv->prec, conv, out, len);
}

static int is_signed_conv(const struct conv *cv)
{
	enum eng_pf_print k = cv->pf.pc_def->pd_print;

	return k == PFP_SINT || k == PFP_DINT || k == PFP_FP;
}

/* a / b without the traps: 0 for b == 0, and INT64_MIN / -1 wraps. */
static int64_t sdiv(int64_t a, int64_t b)
{
	if (b == 0)
		return 0;
	if (b == -1)
		return (int64_t)(0 - (uint64_t)a);
	return a / b;
}

/* The integer value of an argument (aggregation values computed; a
 * record too short for its aggregating function, which only a corrupt
 * description gives, reads as a plain integer). */
static int64_t argval(const eng_pfarg_t *a, int sign)
{
	const dtrace_recdesc_t *r = a->pa_rec;
	int64_t norm = a->pa_normal != 0 ? a->pa_normal : 1;
	int64_t w[2];

	switch (r->dtrd_action) {
	case DTRACEAGG_AVG:
		if (r->dtrd_size < 16)
			break;
		memcpy(w, a->pa_data, 16);
		return sdiv(sdiv(w[1], norm), w[0]);
	case DTRACEAGG_STDDEV:
		if (r->dtrd_size < 32)
			break;
		return (int64_t)eng_agg_stddev((const uint64_t *)
		    (const void *)a->pa_data, norm);
	case DTRACEAGG_COUNT: case DTRACEAGG_SUM: case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
		if (r->dtrd_size < 8)
			break;
		return sdiv(eng_rec_int(a->pa_data, 8, 1), norm);
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

/* %k: a stack record, one frame a line. */
static void print_stack(eng_hdl_t *h, FILE *fp, const char *f,
    const dtrace_recdesc_t *r, const char *data)
{
	if (r->dtrd_action == DTRACEACT_USTACK ||
	    r->dtrd_action == DTRACEACT_JSTACK)
		eng_rec_ustack(h, fp, f, data, (int)(r->dtrd_arg & 0xffffffffu));
	else if (r->dtrd_arg > 0)
		eng_rec_stack(h, fp, f, data, (int)r->dtrd_arg,
		    (int)(r->dtrd_size / r->dtrd_arg));
}

/* A sym()/mod()/usym()/umod()/uaddr() record long enough for what
 * eng_rec_sym reads (the address; the pid first for the user ones)?  A
 * shorter one (only a corrupt description) prints as a string. */
static int symrec(const dtrace_recdesc_t *r)
{
	switch (r->dtrd_action) {
	case DTRACEACT_SYM: case DTRACEACT_MOD:
		return r->dtrd_size >= 8;
	case DTRACEACT_USYM: case DTRACEACT_UMOD: case DTRACEACT_UADDR:
		return r->dtrd_size >= 16;
	default:
		return 0;
	}
}

/* %s-like conversions of a symbol, stack or string argument. */
static void print_textual(eng_hdl_t *h, FILE *fp, const struct conv *cv,
    const eng_pfarg_t *a)
{
	const dtrace_recdesc_t *r = a->pa_rec;
	enum eng_pf_print k = cv->pf.pc_def->pd_print;
	char f[64], text[1024], *s;

	cfmt(cv, "s", f, sizeof (f));
	if (k == PFP_STACK) {
		print_stack(h, fp, f, r, a->pa_data);
		return;
	}
	if (k == PFP_ADDR || k == PFP_UADDR) {
		int user = r->dtrd_size >= 16;
		int pid = user ? (int)eng_rec_int(a->pa_data, 8, 0) : 0;
		const struct eng_consumer *c = h->eh_cons;

		/* %A of a plain value: an address in $target, the first
		 * -c/-p process, as dtrace's pfprint_uaddr takes it */
		if (k == PFP_UADDR && !user && c != NULL && c->ec_ntargets > 0)
			pid = c->ec_targets[0];
		/* a record narrower than an address (only a corrupt one)
		 * is read for its own size */
		uint64_t pc = (uint64_t)eng_rec_int(a->pa_data + (user ? 8 : 0),
		    r->dtrd_size < 8 ? r->dtrd_size : 8, 0);

		eng_sym_text(h, pid, pc, ENG_SYM_OFF, text, sizeof (text));
		fprintf(fp, f, text);
		return;
	}
	if (symrec(r)) {
		eng_rec_sym(h, fp, f, r->dtrd_action, a->pa_data);
		return;
	}
	if ((s = argstr(a)) == NULL)
		return;
	if (k == PFP_ESTR) {
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
	char f[64], conv[4] = "ll";

	if (act == DTRACEAGG_QUANTIZE || act == DTRACEAGG_LQUANTIZE ||
	    act == DTRACEAGG_LLQUANTIZE) {
		eng_hist_print(fp, act, (const int64_t *)(const void *)
		    a->pa_data, a->pa_rec->dtrd_size, a->pa_normal,
		    eng_opt_isset(h, DTRACEOPT_AGGZOOM));
		return;
	}
	switch (cv->pf.pc_def->pd_print) {
	case PFP_TIME: case PFP_TIME822:
		print_time(fp, cv, argval(a, 1), cv->ch == 'T');
		return;
	case PFP_SINT: case PFP_UINT: case PFP_DINT:
		if (strchr("diouxX", cv->ch) != NULL) {
			conv[2] = cv->ch;
			break;
		}
		/* FALLTHROUGH */
	default:
		conv[2] = 'd';
		break;
	}
	cfmt(cv, conv, f, sizeof (f));
	fprintf(fp, f, (long long)argval(a, 1));
}

/* An integer as the C conversion sees it: %hd (and %hu...) convert to
 * short, as printf(3C), which dtrace hands the conversion with its size
 * prefix. */
static long long sized(const struct conv *cv, int64_t v)
{
	if (cv->pf.pc_def->pd_name[0] != 'h')
		return (long long)v;
	return is_signed_conv(cv) ? (long long)(short)v :
	    (long long)(unsigned short)v;
}

/*
 * %e %f %g of a floating-point value (the compiler lets only those
 * through): the record holds a float, a double or a long double by its
 * size, as libdtrace's pfprint_fp reads it.
 */
static void print_fp(FILE *fp, const struct conv *cv, const eng_pfarg_t *a)
{
	char f[64], conv[8];
	const char *o = cv->pf.pc_def->pd_ofmt;
	size_t n = a->pa_rec->dtrd_size;
	float fv;
	double dv;
	long double lv;

	if (n == sizeof (float)) {
		memcpy(&fv, a->pa_data, sizeof (fv));
		lv = fv;
	} else if (n == sizeof (double)) {
		memcpy(&dv, a->pa_data, sizeof (dv));
		lv = dv;
	} else if (n >= sizeof (long double)) {
		memcpy(&lv, a->pa_data, sizeof (lv));
	} else {
		lv = (long double)argval(a, 1);
	}
	snprintf(conv, sizeof (conv), "L%s", o[0] == 'L' ? o + 1 : o);
	cfmt(cv, conv, f, sizeof (f));
	fprintf(fp, f, lv);
}

/* One conversion with its argument a (NULL if missing). */
static void convert(eng_hdl_t *h, FILE *fp, const struct conv *cv,
    const eng_pfarg_t *a)
{
	char f[64], conv[4] = { 'l', 'l', 0, 0 };

	if (a == NULL)
		return;
	if (cv->pf.pc_flags & ENG_PF_AGG) {
		print_aggval(h, fp, cv, a);
		return;
	}
	/* libdtrace prints mod()/umod() records as the module whatever the
	 * conversion (dt_printf_format: pfprint_mod, pfprint_umod) */
	if ((a->pa_rec->dtrd_action == DTRACEACT_MOD ||
	    a->pa_rec->dtrd_action == DTRACEACT_UMOD) && symrec(a->pa_rec)) {
		cfmt(cv, "s", f, sizeof (f));
		eng_rec_sym(h, fp, f, a->pa_rec->dtrd_action, a->pa_data);
		return;
	}
	switch (cv->pf.pc_def->pd_print) {
	case PFP_SINT: case PFP_UINT: case PFP_DINT:
		if (cv->ch == 'c') {
			cfmt(cv, cv->pf.pc_def->pd_ofmt, f, sizeof (f));
			if (cv->pf.pc_def->pd_ofmt[0] == 'c')
				fprintf(fp, f, (int)(char)argval(a, 1));
			else
				fprintf(fp, f, (wint_t)argval(a, 1));
			return;
		}
		conv[2] = cv->pf.pc_def->pd_ofmt[0];
		cfmt(cv, conv, f, sizeof (f));
		fprintf(fp, f, sized(cv, argval(a, is_signed_conv(cv))));
		return;
	case PFP_FP:
		print_fp(fp, cv, a);
		return;
	case PFP_TIME: case PFP_TIME822:
		print_time(fp, cv, argval(a, 1), cv->ch == 'T');
		return;
	case PFP_PORT:
		cfmt(cv, "u", f, sizeof (f));
		fprintf(fp, f, (unsigned)ntohs((uint16_t)argval(a, 0)));
		return;
	case PFP_ECHR: {
		char s[2] = { (char)argval(a, 1), '\0' }, *e = escape(s);

		cfmt(cv, "s", f, sizeof (f));
		if (e != NULL)
			fprintf(fp, f, e);
		free(e);
		return;
	}
	default:
		print_textual(h, fp, cv, a);
		return;
	}
}

/* A '*' width or precision: the next argument, or 0 when missing. */
static int star(const eng_pfarg_t *args, int nargs, int *ai)
{
	return *ai < nargs ? (int)argval(&args[(*ai)++], 1) : 0;
}

int eng_printf(eng_hdl_t *h, FILE *fp, const char *fmt,
    const eng_pfarg_t *args, int nargs, const eng_pfarg_t *aggs, int naggs)
{
	int ai = 0, gi = 0, convno = 0;

	for (const char *s = fmt; *s != '\0'; ) {
		struct conv cv;
		const char *pct = strchr(s, '%');
		char err[128];

		if (pct == NULL) {
			fputs(s, fp);
			break;
		}
		fwrite(s, 1, (size_t)(pct - s), fp);
		if (eng_pf_parse(pct, ++convno, &cv.pf, err, sizeof (err)) != 0)
			return eng_error(h, "%s", err);
		s = cv.pf.pc_end;
		cv.ch = s[-1];
		if (cv.pf.pc_def->pd_print == PFP_PCT) {
			fputc('%', fp);
			continue;
		}
		cv.width = cv.pf.pc_width;
		cv.prec = cv.pf.pc_prec;
		if (cv.pf.pc_flags & ENG_PF_DYNW)
			cv.width = star(args, nargs, &ai);
		if (cv.pf.pc_flags & ENG_PF_DYNP)
			cv.prec = star(args, nargs, &ai);
		/* %@ beyond the last aggregation converts the last again */
		if (cv.pf.pc_flags & ENG_PF_AGG)
			convert(h, fp, &cv, gi < naggs ? &aggs[gi++] :
			    naggs > 0 ? &aggs[naggs - 1] : NULL);
		else
			convert(h, fp, &cv, ai < nargs ? &args[ai++] : NULL);
	}
	return 0;
}
