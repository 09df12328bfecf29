/*
 * glob.c - the glob matching of probe description fields (spec ch. 2,
 * "Probe descriptions"): `*` matches any run of characters, `?` any one,
 * `[...]` one of a set with ranges `a-z`, negated by a leading `!` or `^`,
 * and `\` quotes the next character.  An empty pattern matches everything,
 * as an empty field in a probe description does.
 *
 * The matcher is iterative: on a mismatch it returns to the last `*` and
 * lets it swallow one more character, so time is O(len(pat) * len(s)) and
 * no recursion depth depends on input.
 */
#include "ks_impl.h"

/*
 * Match one bracket expression starting after '['.  Sets *end past the
 * closing ']' and returns whether c is in the set.  A '[' without a closing
 * ']' is matched as a literal '[' (*end = NULL tells the caller).
 */
static int bracket(const char *p, unsigned char c, const char **end)
{
	int neg = 0, hit = 0, first = 1;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	for (; *p != '\0'; first = 0) {
		unsigned char lo, hi;

		if (*p == ']' && !first) {
			*end = p + 1;
			return hit != neg;
		}
		if (*p == '\\' && p[1] != '\0')
			p++;
		lo = hi = (unsigned char)*p++;
		if (*p == '-' && p[1] != ']' && p[1] != '\0') {
			p++;
			if (*p == '\\' && p[1] != '\0')
				p++;
			hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	*end = NULL;
	return 0;
}

/* Match one pattern element at p against c; sets *next past it. */
static int one(const char *p, unsigned char c, const char **next)
{
	const char *end;
	int in;

	switch (*p) {
	case '?':
		*next = p + 1;
		return 1;
	case '[':
		in = bracket(p + 1, c, &end);
		if (end != NULL) {
			*next = end;
			return in;
		}
		*next = p + 1;
		return c == '[';
	case '\\':
		if (p[1] != '\0') {
			*next = p + 2;
			return c == (unsigned char)p[1];
		}
		/* FALLTHROUGH */
	default:
		*next = p + 1;
		return c == (unsigned char)*p;
	}
}

int ks_glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *retry = NULL;

	if (pat == NULL || *pat == '\0')
		return 1;
	for (;;) {
		const char *next;

		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			if (*pat == '\0')
				return 1;
			star = pat;
			retry = s;
			continue;
		}
		if (*s == '\0')
			return *pat == '\0';
		if (*pat != '\0' && one(pat, (unsigned char)*s, &next)) {
			pat = next;
			s++;
			continue;
		}
		if (star == NULL)
			return 0;
		pat = star;
		s = ++retry;
	}
}
