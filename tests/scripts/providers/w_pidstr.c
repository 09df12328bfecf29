/* w_pidstr.c - a short-lived process whose string arguments a tracer
 * reads after it has gone: ps_str(buf, i) N times (default 50) with a
 * buffer reused for each call ("str-<i>") and ps_name(i), which
 * returns "ret-<i>" in a static buffer, ps_blob(b) once with 16
 * bytes 0..15, ps_two("left", "right") once, then exits at once (no
 * pause: the root route must have copied the strings at the event). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void ps_str(const char *s, int i)
{
	__asm__ volatile("" :: "r"(s), "r"(i) : "memory");
}

__attribute__((noinline)) const char *ps_name(int i)
{
	static char name[32];

	snprintf(name, sizeof(name), "ret-%d", i);
	return name;
}

__attribute__((noinline)) void ps_blob(const unsigned char *b)
{
	__asm__ volatile("" :: "r"(b) : "memory");
}

__attribute__((noinline)) void ps_two(const char *a, const char *b)
{
	__asm__ volatile("" :: "r"(a), "r"(b) : "memory");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	unsigned char blob[16];
	char buf[32];

	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "str-%d", i);
		ps_str(buf, i);
		ps_name(i);
	}
	for (int i = 0; i < 16; i++)
		blob[i] = (unsigned char)i;
	ps_blob(blob);
	ps_two("left", "right");
	return 0;
}
