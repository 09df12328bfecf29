/*
 * dif_str.c - the string subroutines of spec ch. 10: strlen, strjoin,
 * lltostr, strtoll, basename, dirname, cleanpath, strchr, strrchr, strstr,
 * strtok, substr, index, rindex, toupper, tolower, memstr.
 *
 * Invariants: a string argument is read only after ks_dif_str_arg has
 * found its length inside readable memory (at most strsize bytes, with or
 * without a NUL); new strings are built in scratch with a NUL and at most
 * strsize bytes before it.  Pointer results of strchr/strrchr/strstr point
 * into the argument, as in DTrace.  Edge cases follow DTrace (illumos):
 * substr with negative index or length, index/rindex with a start,
 * strtok(NULL, ...) continuing this thread's last string.
 */
#include <string.h>
#include "dif_impl.h"

const char *ks_dif_str_arg(ks_dif_exec_t *x, unsigned i, uint64_t *lenp)
{
	uint64_t a = ks_dif_arg(x, i);
	int64_t len;

	/* PUSHTR measured (and so checked) this string already */
	if (i < x->kdx_ntup && x->kdx_tup[i].kdt_ref && a != 0 &&
	    x->kdx_tup[i].kdt_type == DIF_TYPE_STRING) {
		*lenp = x->kdx_tup[i].kdt_size;
		return (const char *)(uintptr_t)a;
	}
	len = ks_dif_strlen(x, a);

	if (len < 0)
		return NULL;
	*lenp = (uint64_t)len;
	return (const char *)(uintptr_t)a;
}

char *ks_dif_newstr(ks_dif_exec_t *x, uint64_t len)
{
	uint64_t max = ks_dif_strmax(x);

	return ks_dif_alloc(x, (len < max ? len : max) + 1);
}

uint64_t ks_dif_strend(ks_dif_exec_t *x, char *d, uint64_t n)
{
	uint64_t max = ks_dif_strmax(x);

	d[n < max ? n : max] = '\0';
	return (uint64_t)(uintptr_t)d;
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* A scratch string holding s[0..n), truncated to strsize. */
static uint64_t mkstr(ks_dif_exec_t *x, const char *s, uint64_t n)
{
	char *d;

	if (n > ks_dif_strmax(x))
		n = ks_dif_strmax(x);
	if ((d = ks_dif_newstr(x, n)) == NULL)
		return 0;
	memcpy(d, s, n);
	return ptr(d);
}

static uint64_t s_strjoin(ks_dif_exec_t *x)
{
	uint64_t la, lb, n;
	const char *a = ks_dif_str_arg(x, 0, &la);
	const char *b = a ? ks_dif_str_arg(x, 1, &lb) : NULL;
	char *d;

	if (b == NULL)
		return 0;
	n = la + lb;
	if (n > ks_dif_strmax(x))
		n = ks_dif_strmax(x);
	if ((d = ks_dif_newstr(x, n)) == NULL)
		return 0;
	memcpy(d, a, la < n ? la : n);
	if (n > la)
		memcpy(d + la, b, n - la);
	return ptr(d);
}

/* lltostr(v [, base]): base 10 signed; 16 gets "0x", 8 gets "0". */
static uint64_t s_lltostr(ks_dif_exec_t *x)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	uint64_t v = ks_dif_arg(x, 0), base = 10;
	char buf[72], *p = buf + sizeof (buf);
	int neg = 0;

	if (x->kdx_ntup > 1)
		base = ks_dif_arg(x, 1);
	if (base < 2 || base > 36) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	if (base == 10 && (int64_t)v < 0) {
		neg = 1;
		v = 0 - v;
	}
	do {
		*--p = digits[v % base];
		v /= base;
	} while (v != 0);
	if (base == 16) {
		*--p = 'x';
		*--p = '0';
	} else if (base == 8 && !(p[0] == '0' && p[1] == '\0')) {
		*--p = '0';
	}
	if (neg)
		*--p = '-';
	return mkstr(x, p, (uint64_t)(buf + sizeof (buf) - p));
}

static int digitval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* strtoll(s [, base]): like C's, wrapping on overflow; "0x" for 16. */
static uint64_t s_strtoll(ks_dif_exec_t *x)
{
	uint64_t len, i = 0, v = 0, base = 10;
	const char *s = ks_dif_str_arg(x, 0, &len);
	int neg = 0;

	if (s == NULL)
		return 0;
	if (x->kdx_ntup > 1)
		base = ks_dif_arg(x, 1);
	if (base < 2 || base > 36) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	while (i < len && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
		i++;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (base == 16 && i + 1 < len && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X'))
		i += 2;
	for (; i < len && (uint64_t)digitval(s[i]) < base; i++)
		v = v * base + (uint64_t)digitval(s[i]);
	return neg ? 0 - v : v;
}

static uint64_t s_basename(ks_dif_exec_t *x)
{
	uint64_t n, start;
	const char *s = ks_dif_str_arg(x, 0, &n);

	if (s == NULL)
		return 0;
	if (n == 0)
		return mkstr(x, ".", 1);
	while (n > 1 && s[n - 1] == '/')
		n--;
	if (n == 1 && s[0] == '/')
		return mkstr(x, "/", 1);
	for (start = n; start > 0 && s[start - 1] != '/'; start--)
		;
	return mkstr(x, s + start, n - start);
}

static uint64_t s_dirname(ks_dif_exec_t *x)
{
	uint64_t n;
	const char *s = ks_dif_str_arg(x, 0, &n);

	if (s == NULL)
		return 0;
	while (n > 1 && s[n - 1] == '/')
		n--;
	while (n > 0 && s[n - 1] != '/')
		n--;
	if (n == 0)
		return mkstr(x, ".", 1);
	while (n > 1 && s[n - 1] == '/')
		n--;
	return mkstr(x, s, n);
}

/* Drop the last component of d[0..*n) unless it is ".."; 1 if dropped. */
static int pop_component(char *d, uint64_t *n)
{
	uint64_t p = *n;

	while (p > 0 && d[p - 1] != '/')
		p--;
	if (*n - p == 2 && d[p] == '.' && d[p + 1] == '.')
		return 0;
	*n = p > 0 ? p - 1 : 0;
	return 1;
}

/* cleanpath(s): no "//", "/./" or "dir/.."; a trailing '/' is kept. */
static uint64_t s_cleanpath(ks_dif_exec_t *x)
{
	uint64_t len, n = 0, i = 0;
	const char *s = ks_dif_str_arg(x, 0, &len);
	char *d = s ? ks_dif_alloc(x, len + 2) : NULL;
	int abs;

	if (d == NULL)
		return 0;
	abs = len > 0 && s[0] == '/';
	while (i < len) {
		uint64_t b = i, c;

		while (i < len && s[i] != '/')
			i++;
		c = i - b;
		i++;
		if (c == 0 || (c == 1 && s[b] == '.'))
			continue;
		if (c == 2 && s[b] == '.' && s[b + 1] == '.' &&
		    (n > 0 ? pop_component(d, &n) : abs))
			continue;
		if (n > 0)
			d[n++] = '/';
		memcpy(d + n, s + b, c);
		n += c;
	}
	if (abs) {
		memmove(d + 1, d, n);
		d[0] = '/';
		n++;
	}
	if (len > 0 && s[len - 1] == '/' && n > 0 && d[n - 1] != '/')
		d[n++] = '/';
	if (n == 0 && len > 0)
		d[n++] = '.';
	return ks_dif_strend(x, d, n);
}

/* strchr/strrchr(s, c): pointer into s, or 0. */
static uint64_t s_strchr(ks_dif_exec_t *x, int last)
{
	uint64_t n;
	const char *s = ks_dif_str_arg(x, 0, &n);
	char c = (char)ks_dif_arg(x, 1);
	const char *hit = NULL;

	if (s == NULL)
		return 0;
	if (c == '\0')
		return n < x->kdx_ms->kms_strsize ? ptr(s + n) : 0;
	hit = last ? memrchr(s, c, n) : memchr(s, c, n);
	return hit ? ptr(hit) : 0;
}

static uint64_t s_strstr(ks_dif_exec_t *x)
{
	uint64_t n, m;
	const char *s = ks_dif_str_arg(x, 0, &n);
	const char *t = s ? ks_dif_str_arg(x, 1, &m) : NULL;
	const char *hit;

	if (t == NULL)
		return 0;
	hit = memmem(s, n, t, m);
	return hit ? ptr(hit) : 0;
}

/* index/rindex(s, t [, start]): position of t in s, or -1 (Perl's
 * index/rindex, as DTrace's tests check them). */
static uint64_t s_index(ks_dif_exec_t *x, int rev)
{
	uint64_t n, m;
	const char *s = ks_dif_str_arg(x, 0, &n);
	const char *t = s ? ks_dif_str_arg(x, 1, &m) : NULL;
	int64_t pos = rev ? (int64_t)n : 0, len = (int64_t)n;

	if (t == NULL)
		return 0;
	if (x->kdx_ntup > 2)
		pos = (int64_t)ks_dif_arg(x, 2);
	if (!rev) {
		if (pos < 0)
			pos = 0;
		if (pos >= len)		/* only "" is found past the end */
			return m == 0 ? (uint64_t)len : (uint64_t)-1;
		for (; pos + (int64_t)m <= len; pos++)
			if (memcmp(s + pos, t, m) == 0)
				return (uint64_t)pos;
		return (uint64_t)-1;
	}
	if (pos < 0)			/* only "" is found before the start */
		return m == 0 ? 0 : (uint64_t)-1;
	if (pos > len - (int64_t)m)
		pos = len - (int64_t)m;
	for (; pos >= 0; pos--)
		if (memcmp(s + pos, t, m) == 0)
			return (uint64_t)pos;
	return (uint64_t)-1;
}

/*
 * substr(s, index [, length]), as DTrace: a negative index counts from the
 * end (clipped at 0, eating into length); a negative length stops that
 * many characters before the end.
 */
static uint64_t s_substr(ks_dif_exec_t *x)
{
	uint64_t n;
	const char *s = ks_dif_str_arg(x, 0, &n);
	/* 128-bit: index + length cannot overflow for any 64-bit inputs */
	__int128 len, i = (int64_t)ks_dif_arg(x, 1);
	__int128 rem = x->kdx_ms->kms_strsize;

	if (s == NULL)
		return 0;
	len = n;
	if (x->kdx_ntup > 2)
		rem = (int64_t)ks_dif_arg(x, 2);
	if (i < 0) {
		i += len;
		if (i < 0 && i + rem > 0) {
			rem += i;
			i = 0;
		}
	}
	if (i >= len || i < 0)
		rem = 0;
	else if (rem < 0)
		rem += len - i;
	else if (rem > len - i)
		rem = len - i;
	if (rem < 0)
		rem = 0;
	return mkstr(x, rem ? s + i : "", (uint64_t)rem);
}

/*
 * strtok(s, delims): s == NULL continues this thread's saved string.  As
 * in DTrace, the call after the last token returns NULL and forgets the
 * string; strtok(NULL, ...) with nothing saved faults BADADDR.
 */
static uint64_t s_strtok(ks_dif_exec_t *x)
{
	ks_vstate_t *vs = x->kdx_ms->kms_vstate;
	int32_t tid = x->kdx_ms->kms_ctx ? x->kdx_ms->kms_ctx->kpc_tid : 0;
	uint64_t n = 0, m, *pos, b;
	const char *s = NULL, *d;
	char *buf;

	if (vs == NULL || ks_vstate_strsize(vs) < x->kdx_ms->kms_strsize)
		return 0;
	if (ks_dif_arg(x, 0) != 0 && (s = ks_dif_str_arg(x, 0, &n)) == NULL)
		return 0;
	if ((d = ks_dif_str_arg(x, 1, &m)) == NULL)
		return 0;
	if ((buf = ks_vstate_strtok(vs, tid, &pos, s != NULL)) == NULL) {
		ks_dif_fault(x, DTRACEFLT_BADADDR, 0);	/* nothing saved */
		return 0;
	}
	if (s != NULL) {
		memcpy(buf, s, n);
		buf[n] = '\0';
	}
	while (buf[*pos] != '\0' && memchr(d, buf[*pos], m) != NULL)
		(*pos)++;
	if (buf[*pos] == '\0') {	/* no more tokens: forget the string */
		*pos = UINT64_MAX;
		return 0;
	}
	b = *pos;
	while (buf[*pos] != '\0' && memchr(d, buf[*pos], m) == NULL)
		(*pos)++;
	/* the next call starts at the delimiter that ended this token, as
	 * DTrace's does: only that call's delimiters are skipped there */
	return mkstr(x, buf + b, *pos - b);
}

static uint64_t s_case(ks_dif_exec_t *x, int upper)
{
	uint64_t n;
	const char *s = ks_dif_str_arg(x, 0, &n);
	char *d = s ? ks_dif_newstr(x, n) : NULL;

	if (d == NULL)
		return 0;
	if (n > ks_dif_strmax(x))
		n = ks_dif_strmax(x);
	for (uint64_t i = 0; i < n; i++) {
		char c = s[i];

		if (upper && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!upper && c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		d[i] = c;
	}
	return ptr(d);
}

#define KS_DIF_MEMSTR_MAX	4096	/* spec: memstr's default limit */

/* memstr(addr, c, len): len bytes with inner NULs replaced by c. */
static uint64_t s_memstr(ks_dif_exec_t *x)
{
	uint64_t a = ks_dif_arg(x, 0), len = ks_dif_arg(x, 2);
	char c = (char)ks_dif_arg(x, 1), *d;
	const char *s = (const char *)(uintptr_t)a;

	if (len > KS_DIF_MEMSTR_MAX) {
		ks_dif_fault(x, DTRACEFLT_BADSIZE, a);
		return 0;
	}
	if (!ks_dif_canload(x, a, len) || (d = ks_dif_newstr(x, len)) == NULL)
		return 0;
	for (uint64_t i = 0; i < len && i < ks_dif_strmax(x); i++)
		d[i] = (s[i] == '\0' && i + 1 < len) ? c : s[i];
	return ks_dif_strend(x, d, len);
}

uint64_t ks_dif_call_str(ks_dif_exec_t *x, uint32_t subr, int *handled)
{
	uint64_t n;

	*handled = 1;
	switch (subr) {
	case DIF_SUBR_strlen:
		return ks_dif_str_arg(x, 0, &n) ? n : 0;
	case DIF_SUBR_strjoin: return s_strjoin(x);
	case DIF_SUBR_lltostr: return s_lltostr(x);
	case DIF_SUBR_strtoll: return s_strtoll(x);
	case DIF_SUBR_basename: return s_basename(x);
	case DIF_SUBR_dirname: return s_dirname(x);
	case DIF_SUBR_cleanpath: return s_cleanpath(x);
	case DIF_SUBR_strchr: return s_strchr(x, 0);
	case DIF_SUBR_strrchr: return s_strchr(x, 1);
	case DIF_SUBR_strstr: return s_strstr(x);
	case DIF_SUBR_strtok: return s_strtok(x);
	case DIF_SUBR_substr: return s_substr(x);
	case DIF_SUBR_index: return s_index(x, 0);
	case DIF_SUBR_rindex: return s_index(x, 1);
	case DIF_SUBR_toupper: return s_case(x, 1);
	case DIF_SUBR_tolower: return s_case(x, 0);
	case DIF_SUBR_memstr: return s_memstr(x);
	default:
		return ks_dif_call_fmt(x, subr, handled);
	}
}
