/*
 * dif_fmt.c - subroutines that parse or format data as text: json,
 * inet_ntop, inet_ntoa, inet_ntoa6, uuidstr, link_ntop.
 *
 * inet_ntop/inet_ntoa6 print IPv6 as inet_ntop(3) does, except that
 * IPv4-mapped and IPv4-compatible addresses print as the IPv4 address, as
 * DTrace prints them.
 *
 * json(doc, path) walks a JSON document (a D string, so at most strsize
 * bytes) along a key path like "a.b[0].c": names select object members,
 * [n] selects array elements.  The result is a scratch string: a string
 * value unescaped, a number or true/false/null as written, an object or
 * array as its raw text; 0 when the path is missing or the document is
 * malformed.  The walker never reads past the document and never
 * recurses, so nesting depth is not a risk.
 */
#include <arpa/inet.h>
#include <string.h>
#include "dif_impl.h"

typedef struct jcur {
	const char *s;
	uint64_t n, i;
} jcur_t;

static void ws(jcur_t *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
	    j->s[j->i] == '\n' || j->s[j->i] == '\r'))
		j->i++;
}

static int at(const jcur_t *j, char c)
{
	return j->i < j->n && j->s[j->i] == c;
}

/* Skip a string starting at its opening quote; -1 if unterminated. */
static int skip_string(jcur_t *j)
{
	for (j->i++; j->i < j->n; j->i++) {
		if (j->s[j->i] == '\\')
			j->i++;
		else if (j->s[j->i] == '"') {
			j->i++;
			return 0;
		}
	}
	return -1;
}

/* Skip one value (any nesting, iteratively); -1 if malformed. */
static int skip_value(jcur_t *j)
{
	uint64_t depth = 0;

	ws(j);
	if (j->i >= j->n)
		return -1;
	do {
		char c = j->i < j->n ? j->s[j->i] : '\0';

		if (c == '\0')
			return -1;
		if (c == '"') {
			if (skip_string(j) != 0)
				return -1;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (depth == 0)
				return -1;
			depth--;
		} else if (depth == 0 && !strchr("+-.0123456789eEtruefalsn", c))
			return -1;
		j->i++;
		if (depth == 0 && (c != '}' && c != ']'))
			while (j->i < j->n &&
			    strchr("+-.0123456789eEtruefalsn", j->s[j->i]))
				j->i++;
	} while (depth > 0);
	return 0;
}

/* In an object at j, find member name[0..len); j at its value. */
static int member(jcur_t *j, const char *name, uint64_t len)
{
	ws(j);
	if (!at(j, '{'))
		return -1;
	j->i++;
	for (;;) {
		uint64_t k, klen;

		ws(j);
		if (!at(j, '"'))
			return -1;
		k = j->i + 1;
		if (skip_string(j) != 0)
			return -1;
		klen = j->i - 1 - k;
		ws(j);
		if (!at(j, ':'))
			return -1;
		j->i++;
		if (klen == len && memcmp(j->s + k, name, len) == 0)
			return 0;
		if (skip_value(j) != 0)
			return -1;
		ws(j);
		if (!at(j, ','))
			return -1;
		j->i++;
	}
}

/* In an array at j, find element ndx; j at it. */
static int element(jcur_t *j, uint64_t ndx)
{
	ws(j);
	if (!at(j, '['))
		return -1;
	j->i++;
	for (uint64_t e = 0; e < ndx; e++) {
		if (skip_value(j) != 0)
			return -1;
		ws(j);
		if (!at(j, ','))
			return -1;
		j->i++;
	}
	ws(j);
	return at(j, ']') ? -1 : 0;
}

/* Follow path[0..plen) from j; -1 if it does not lead to a value. */
static int follow(jcur_t *j, const char *path, uint64_t plen)
{
	uint64_t p = 0;

	while (p < plen) {
		if (path[p] == '[') {
			uint64_t ndx = 0, q = ++p;

			while (p < plen && path[p] >= '0' && path[p] <= '9')
				ndx = ndx * 10 + (uint64_t)(path[p++] - '0');
			if (p == q || p >= plen || path[p] != ']')
				return -1;
			p++;
			if (element(j, ndx) != 0)
				return -1;
		} else {
			uint64_t q = p;

			while (p < plen && path[p] != '.' && path[p] != '[')
				p++;
			if (p == q || member(j, path + q, p - q) != 0)
				return -1;
		}
		if (p < plen && path[p] == '.')
			p++;
	}
	return 0;
}

static char unescape(char c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'b': return '\b';
	case 'f': return '\f';
	default: return c;		/* \" \\ \/ */
	}
}

/*
 * A \uXXXX escape at s (pointing at the 'u', n bytes left) written as
 * UTF-8 into d; the bytes written (at most 3, fewer than the 6 read), or
 * 0 if it is not one.
 */
static unsigned utf8(const char *s, uint64_t n, char *d)
{
	unsigned cp = 0;

	if (n < 5)
		return 0;
	for (int i = 1; i <= 4; i++) {
		char c = s[i];
		unsigned v = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
		    c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
		    c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;

		if (v > 15)
			return 0;
		cp = cp << 4 | v;
	}
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | cp >> 6);
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	d[0] = (char)(0xe0 | cp >> 12);
	d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

/* The value at j as a scratch string. */
static uint64_t jvalue(ks_dif_exec_t *x, jcur_t *j)
{
	uint64_t b, e, k = 0;
	char *d;

	ws(j);
	b = j->i;
	if (skip_value(j) != 0)
		return 0;
	e = j->i;
	if (j->s[b] != '"') {
		if ((d = ks_dif_newstr(x, e - b)) == NULL)
			return 0;
		memcpy(d, j->s + b, e - b < ks_dif_strmax(x) ? e - b :
		    ks_dif_strmax(x));
		return ks_dif_strend(x, d, e - b);
	}
	if ((d = ks_dif_newstr(x, e - b - 2)) == NULL)
		return 0;
	for (uint64_t i = b + 1; i < e - 1 && k < ks_dif_strmax(x); i++) {
		char u8[3];
		unsigned u;

		if (j->s[i] != '\\' || i + 1 >= e - 1) {
			d[k++] = j->s[i];
		} else if (j->s[i + 1] == 'u' &&
		    (u = utf8(j->s + i + 1, e - 1 - (i + 1), u8)) != 0) {
			if (k + u > ks_dif_strmax(x))
				break;		/* no half characters */
			memcpy(d + k, u8, u);
			k += u;
			i += 5;
		} else {
			d[k++] = unescape(j->s[++i]);
		}
	}
	return ks_dif_strend(x, d, k);
}

static uint64_t s_json(ks_dif_exec_t *x)
{
	uint64_t n, plen;
	const char *doc = ks_dif_str_arg(x, 0, &n);
	const char *path = doc ? ks_dif_str_arg(x, 1, &plen) : NULL;
	jcur_t j = { doc, n, 0 };

	if (path == NULL || follow(&j, path, plen) != 0)
		return 0;
	return jvalue(x, &j);
}

static uint64_t text(ks_dif_exec_t *x, const char *s)
{
	uint64_t n = strlen(s);
	char *d = ks_dif_newstr(x, n);

	if (d == NULL)
		return 0;
	memcpy(d, s, n < ks_dif_strmax(x) ? n : ks_dif_strmax(x));
	return ks_dif_strend(x, d, n);
}

/*
 * An IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d, but not
 * :: or ::1) address, which DTrace's inet_ntoa6 prints as a.b.c.d.
 */
static int v4_in_v6(const uint8_t *a)
{
	static const uint8_t zero[12];

	if (memcmp(a, zero, 10) != 0)
		return 0;
	if (a[10] == 0xff && a[11] == 0xff)
		return 1;
	return a[10] == 0 && a[11] == 0 &&
	    (a[12] | a[13] | a[14] | (a[15] & 0xfe)) != 0;
}

/* Format the address of family af (AF_INET, or AF_INET6 in Linux's or
 * illumos's numbering) at addr. */
static uint64_t ntop(ks_dif_exec_t *x, int af, uint64_t addr)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t a[16];
	uint64_t size = af == AF_INET ? 4 : 16;

	if (af == 26)
		af = AF_INET6;
	if (af != AF_INET && af != AF_INET6) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	if (!ks_dif_canload(x, addr, size))
		return 0;
	memcpy(a, (const void *)(uintptr_t)addr, size);
	if (af == AF_INET6 && v4_in_v6(a)) {	/* DTrace prints the IPv4 */
		af = AF_INET;
		memmove(a, a + 12, 4);
	}
	if (inet_ntop(af, a, buf, sizeof (buf)) == NULL) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	return text(x, buf);
}

/* link_ntop(type, addr) (Oracle's): a link-layer address as hex bytes
 * joined by ':', 6 for ARPHRD_ETHER (1), 20 for ARPHRD_INFINIBAND (32);
 * another type is an illegal operation. */
static uint64_t s_link_ntop(ks_dif_exec_t *x)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t type = ks_dif_arg(x, 0), a = ks_dif_arg(x, 1);
	unsigned n = type == 1 ? 6 : type == 32 ? 20 : 0;
	const uint8_t *u = (const uint8_t *)(uintptr_t)a;
	char buf[64];
	int k = 0;

	if (n == 0) {
		ks_dif_fault(x, DTRACEFLT_ILLOP, 0);
		return 0;
	}
	if (!ks_dif_canload(x, a, n))
		return 0;
	for (unsigned i = 0; i < n; i++) {
		if (i > 0)
			buf[k++] = ':';
		buf[k++] = hex[u[i] >> 4];
		buf[k++] = hex[u[i] & 15];
	}
	buf[k] = '\0';
	return text(x, buf);
}

static uint64_t s_uuidstr(ks_dif_exec_t *x)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t a = ks_dif_arg(x, 0);
	const uint8_t *u = (const uint8_t *)(uintptr_t)a;
	char buf[40];
	int k = 0;

	if (!ks_dif_canload(x, a, 16))
		return 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[k++] = '-';
		buf[k++] = hex[u[i] >> 4];
		buf[k++] = hex[u[i] & 15];
	}
	buf[k] = '\0';
	return text(x, buf);
}

uint64_t ks_dif_call_fmt(ks_dif_exec_t *x, uint32_t subr, int *handled)
{
	*handled = 1;
	switch (subr) {
	case DIF_SUBR_json: return s_json(x);
	case DIF_SUBR_inet_ntop:
		return ntop(x, (int)ks_dif_arg(x, 0), ks_dif_arg(x, 1));
	case DIF_SUBR_inet_ntoa: return ntop(x, AF_INET, ks_dif_arg(x, 0));
	case DIF_SUBR_inet_ntoa6: return ntop(x, AF_INET6, ks_dif_arg(x, 0));
	case DIF_SUBR_uuidstr: return s_uuidstr(x);
	case DIF_SUBR_link_ntop: return s_link_ntop(x);
	default:
		*handled = 0;
		return 0;
	}
}
