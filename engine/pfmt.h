/*
 * pfmt.h - dtrace's printf format grammar, in one place: the compiler's
 * checks (act.c) and the consumer's formatter (printf.c) both parse a
 * format with eng_pf_parse() and look its conversions up in one
 * dictionary, so what compiles is exactly what prints.
 *
 * A conversion is '%', flags (- + space # 0 ' ? @), a width (digits or
 * '*'), a precision ('.' then digits or '*'), size letters (h l L w) and
 * a name; the size letters and the name together name the dictionary
 * entry ("d", "lld", "hx", "P" ...), as libdtrace's dt_pfdict does.
 * "%%" is the conversion named "%".
 */
#ifndef ENG_PFMT_H
#define ENG_PFMT_H

#include <stddef.h>

/* How the compiler checks a conversion's argument (libdtrace pfcheck_*). */
enum eng_pf_check {
	PFC_XINT,	/* any integer */
	PFC_DINT,	/* any integer; %d of an unsigned one prints as %u */
	PFC_CSI,	/* integer no wider than int */
	PFC_FP,		/* float, double, long double */
	PFC_ADDR,	/* pointer or integer */
	PFC_KADDR,	/* pointer, integer or kernel symbol address */
	PFC_UADDR,	/* pointer, integer or user symbol address */
	PFC_STR,	/* string or char array (char * by stringof) */
	PFC_WSTR,	/* wchar_t array */
	PFC_STACK,	/* stack(), ustack(), jstack() */
	PFC_TIME,	/* 64-bit integer */
	PFC_TYPE,	/* exactly the type named by pd_proto */
	PFC_XSHORT,	/* short of either sign */
	PFC_XLONG,	/* long of either sign */
	PFC_XLONGLONG,	/* long long of either sign, or [u]int64_t */
	PFC_PCT		/* "%%": no argument */
};

/* How the consumer prints it (libdtrace pfprint_*). */
enum eng_pf_print {
	PFP_SINT, PFP_UINT, PFP_DINT, PFP_FP, PFP_ADDR, PFP_UADDR,
	PFP_STACK, PFP_TIME, PFP_TIME822, PFP_CSTR, PFP_ESTR, PFP_ECHR,
	PFP_WSTR, PFP_PORT, PFP_PCT
};

/* One entry of the conversion dictionary. */
struct eng_pfdef {
	const char *pd_name;		/* "d", "lld", "hx", "%" */
	const char *pd_ofmt;		/* the C conversion it prints with */
	const char *pd_proto;		/* argument type(s), for messages */
	enum eng_pf_check pd_check;
	enum eng_pf_print pd_print;
};

/* Conversion flags. */
#define	ENG_PF_LEFT	0x001	/* - */
#define	ENG_PF_ZPAD	0x002	/* 0 */
#define	ENG_PF_ALT	0x004	/* # */
#define	ENG_PF_SPOS	0x008	/* + */
#define	ENG_PF_SPACE	0x010	/* ' ' */
#define	ENG_PF_GROUP	0x020	/* ' */
#define	ENG_PF_AGG	0x040	/* @: the aggregation's value (printa) */
#define	ENG_PF_DYNW	0x080	/* width from an argument */
#define	ENG_PF_DYNP	0x100	/* precision from an argument */

/*
 * The widest field width and the longest precision a conversion prints
 * with: the C library's printf allocates a work buffer as wide as the
 * field (a width in the millions, written or taken from a '*' argument,
 * would allocate that much, megabytes for each conversion), so larger
 * ones print as this.  A digit string longer than it parses as this too
 * (no int overflow).
 */
#define	ENG_PF_MAXWIDTH	65536

/* One parsed conversion. */
struct eng_pfconv {
	const struct eng_pfdef *pc_def;
	int pc_flags;			/* ENG_PF_* */
	int pc_width;			/* 0 if none */
	int pc_prec;			/* -1 if no '.' */
	const char *pc_end;		/* just after the conversion */
};

/*
 * Parse the conversion whose '%' is at pct, the convno'th of its format
 * (dtrace counts "%%" too).  Returns 0, or -1 with dtrace's message
 * ("format conversion #2 is undefined: %r") in err.
 */
int eng_pf_parse(const char *pct, int convno, struct eng_pfconv *cv,
    char *err, size_t errlen);

/*
 * The C printf format for cv: '%', its flags, width (or abs(width) when
 * given, -1 for none) and precision (prec >= 0), then conv ("lld", "s").
 */
void eng_pf_cfmt(const struct eng_pfconv *cv, int width, int prec,
    const char *conv, char *out, size_t len);

#endif
