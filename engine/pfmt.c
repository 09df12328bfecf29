/*
 * pfmt.c - dtrace's printf format grammar and conversion dictionary
 * (see pfmt.h).  The dictionary holds illumos libdtrace's conversions:
 * no %F, %m, %n, %z..., and %hhd is not one either; a name outside it is
 * refused as dtrace refuses it.  Entries sharing a first letter are kept
 * together (lookup() relies on it).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pfmt.h"

#define	XINT	"char, short, int, long, or long long"
#define	CSI	"char, short, or int"
#define	FP	"float, double, or long double"
#define	ADDR	"pointer or integer"
#define	UADDR	"pointer or integer (with -p/-c) or _usymaddr (without -p/-c)"
#define	CSTR	"char [] or string (or use stringof)"
#define	WSTR	"wchar_t []"

static const struct eng_pfdef dict[] = {
	{ "a", "s", ADDR, PFC_KADDR, PFP_ADDR },
	{ "A", "s", UADDR, PFC_UADDR, PFP_UADDR },
	{ "c", "c", CSI, PFC_CSI, PFP_SINT },
	{ "C", "s", CSI, PFC_CSI, PFP_ECHR },
	{ "d", "d", XINT, PFC_DINT, PFP_DINT },
	{ "e", "e", FP, PFC_FP, PFP_FP },
	{ "E", "E", FP, PFC_FP, PFP_FP },
	{ "f", "f", FP, PFC_FP, PFP_FP },
	{ "g", "g", FP, PFC_FP, PFP_FP },
	{ "G", "G", FP, PFC_FP, PFP_FP },
	{ "hd", "d", "short", PFC_TYPE, PFP_SINT },
	{ "hi", "i", "short", PFC_TYPE, PFP_SINT },
	{ "ho", "o", "unsigned short", PFC_TYPE, PFP_UINT },
	{ "hu", "u", "unsigned short", PFC_TYPE, PFP_UINT },
	{ "hx", "x", "short", PFC_XSHORT, PFP_UINT },
	{ "hX", "X", "short", PFC_XSHORT, PFP_UINT },
	{ "i", "i", XINT, PFC_DINT, PFP_DINT },
	{ "k", "s", "stack", PFC_STACK, PFP_STACK },
	{ "lc", "lc", "int", PFC_TYPE, PFP_SINT },
	{ "ld", "d", "long", PFC_TYPE, PFP_SINT },
	{ "li", "i", "long", PFC_TYPE, PFP_SINT },
	{ "lo", "o", "unsigned long", PFC_TYPE, PFP_UINT },
	{ "lu", "u", "unsigned long", PFC_TYPE, PFP_UINT },
	{ "ls", "ls", WSTR, PFC_WSTR, PFP_WSTR },
	{ "lx", "x", "long", PFC_XLONG, PFP_UINT },
	{ "lX", "X", "long", PFC_XLONG, PFP_UINT },
	{ "lld", "d", "long long", PFC_TYPE, PFP_SINT },
	{ "lli", "i", "long long", PFC_TYPE, PFP_SINT },
	{ "llo", "o", "unsigned long long", PFC_TYPE, PFP_UINT },
	{ "llu", "u", "unsigned long long", PFC_TYPE, PFP_UINT },
	{ "llx", "x", "long long", PFC_XLONGLONG, PFP_UINT },
	{ "llX", "X", "long long", PFC_XLONGLONG, PFP_UINT },
	{ "Le", "e", "long double", PFC_TYPE, PFP_FP },
	{ "LE", "E", "long double", PFC_TYPE, PFP_FP },
	{ "Lf", "f", "long double", PFC_TYPE, PFP_FP },
	{ "Lg", "g", "long double", PFC_TYPE, PFP_FP },
	{ "LG", "G", "long double", PFC_TYPE, PFP_FP },
	{ "o", "o", XINT, PFC_XINT, PFP_UINT },
	{ "p", "x", ADDR, PFC_ADDR, PFP_UINT },
	{ "P", "s", "uint16_t", PFC_TYPE, PFP_PORT },
	{ "s", "s", CSTR, PFC_STR, PFP_CSTR },
	{ "S", "s", CSTR, PFC_STR, PFP_ESTR },
	{ "T", "s", "int64_t", PFC_TIME, PFP_TIME822 },
	{ "u", "u", XINT, PFC_XINT, PFP_UINT },
	{ "wc", "lc", "int", PFC_TYPE, PFP_SINT },
	{ "ws", "ls", WSTR, PFC_WSTR, PFP_WSTR },
	{ "x", "x", XINT, PFC_XINT, PFP_UINT },
	{ "X", "X", XINT, PFC_XINT, PFP_UINT },
	{ "Y", "s", "int64_t", PFC_TIME, PFP_TIME },
	{ "%", "%", "void", PFC_PCT, PFP_PCT },
};

#define	NDICT	(sizeof(dict) / sizeof(dict[0]))

/* Where each first letter's entries start: the consumer looks up every
 * conversion of every record, so no scan of the whole dictionary. */
static unsigned char first[128];
static pthread_once_t first_once = PTHREAD_ONCE_INIT;

static void first_fill(void)
{
	for (size_t i = NDICT; i-- > 0; )
		first[(unsigned char)dict[i].pd_name[0]] = (unsigned char)(i + 1);
}

static const struct eng_pfdef *lookup(const char *name)
{
	unsigned char c = (unsigned char)name[0];

	pthread_once(&first_once, first_fill);
	if (c >= 128 || first[c] == 0)
		return NULL;
	for (size_t i = first[c] - 1u; i < NDICT && dict[i].pd_name[0] ==
	    name[0]; i++)
		if (strcmp(dict[i].pd_name, name) == 0)
			return &dict[i];
	return NULL;
}

#define	FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

int eng_pf_parse(const char *pct, int convno, struct eng_pfconv *cv,
    char *err, size_t errlen)
{
	const char *p = pct;
	char name[8];
	size_t namelen = 0;
	int dot = 0, digits = 0;

	memset(cv, 0, sizeof(*cv));
	cv->pc_prec = -1;
	for (;;) {
		char c = *++p;

		if (isdigit((unsigned char)c)) {
			int n = 0;

			if (c == '0' && !dot && !digits) {
				cv->pc_flags = (cv->pc_flags | ENG_PF_ZPAD) &
				    ~ENG_PF_LEFT;
				continue;
			}
			for (; isdigit((unsigned char)*p); p++)
				if ((n = n * 10 + (*p - '0')) > ENG_PF_MAXWIDTH)
					n = ENG_PF_MAXWIDTH + 1;
			p--;
			if (dot)
				cv->pc_prec = n;
			else
				cv->pc_width = n;
			digits++;
			continue;
		}
		switch (c) {
		case '#': cv->pc_flags |= ENG_PF_ALT; continue;
		case '+': cv->pc_flags |= ENG_PF_SPOS; continue;
		case '@': cv->pc_flags |= ENG_PF_AGG; continue;
		case '\'': cv->pc_flags |= ENG_PF_GROUP; continue;
		case ' ': cv->pc_flags |= ENG_PF_SPACE; continue;
		case '?': cv->pc_width = 16; continue;	/* LP64 pointers */
		case '-':
			cv->pc_flags = (cv->pc_flags | ENG_PF_LEFT) &
			    ~ENG_PF_ZPAD;
			continue;
		case '*': {
			int f = dot ? ENG_PF_DYNP : ENG_PF_DYNW;

			if (cv->pc_flags & f)
				return FAIL("format conversion #%d has more "
				    "than one '*' specified for the output %s",
				    convno, dot ? "precision" : "width");
			cv->pc_flags |= f;
			continue;
		}
		case '.':
			if (dot++ != 0)
				return FAIL("format conversion #%d has more "
				    "than one '.' specified", convno);
			if (cv->pc_prec < 0)
				cv->pc_prec = 0;
			digits = 0;
			continue;
		case '$':
			return FAIL("format conversion #%d uses unsupported "
			    "positional format (%%n$)", convno);
		case '%':
			if (p[-1] == '%')
				break;
			return FAIL("format conversion #%d cannot be combined "
			    "with other format flags: %%%%", convno);
		case '\0':
			return FAIL("format conversion #%d name expected before "
			    "end of format string", convno);
		case 'h': case 'l': case 'L': case 'w':
			if (namelen < sizeof(name) - 2)
				name[namelen++] = c;
			continue;
		default:
			break;
		}
		name[namelen++] = c;
		name[namelen] = '\0';
		break;
	}
	if ((cv->pc_def = lookup(name)) == NULL)
		return FAIL("format conversion #%d is undefined: %%%s", convno,
		    name);
	cv->pc_end = p + 1;
	return 0;
}

void eng_pf_cfmt(const struct eng_pfconv *cv, int width, int prec,
    const char *conv, char *out, size_t len)
{
	char flags[8];
	size_t n = 0;

	if (cv->pc_flags & ENG_PF_ALT)
		flags[n++] = '#';
	if (cv->pc_flags & ENG_PF_ZPAD)
		flags[n++] = '0';
	if (width < 0 || (cv->pc_flags & ENG_PF_LEFT))
		flags[n++] = '-';
	if (cv->pc_flags & ENG_PF_SPOS)
		flags[n++] = '+';
	if (cv->pc_flags & ENG_PF_GROUP)
		flags[n++] = '\'';
	if (cv->pc_flags & ENG_PF_SPACE)
		flags[n++] = ' ';
	flags[n] = '\0';
	/* a '*' width of INT_MIN has no positive counterpart in an int */
	if (width < -ENG_PF_MAXWIDTH || width > ENG_PF_MAXWIDTH)
		width = ENG_PF_MAXWIDTH;
	if (width < 0)
		width = -width;
	if (prec > ENG_PF_MAXWIDTH)
		prec = ENG_PF_MAXWIDTH;
	if (width != 0 && prec >= 0)
		snprintf(out, len, "%%%s%d.%d%s", flags, width, prec, conv);
	else if (width != 0)
		snprintf(out, len, "%%%s%d%s", flags, width, conv);
	else if (prec >= 0)
		snprintf(out, len, "%%%s.%d%s", flags, prec, conv);
	else
		snprintf(out, len, "%%%s%s", flags, conv);
}
