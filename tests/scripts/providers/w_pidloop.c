/* w_pidloop.c - pl_f(i) called N times (argv[1]) for the pid provider's
 * in-kernel counting: prints the sum of its return values (i + 1), so a
 * test knows the exact count, sum of arg0 and sum of the return values;
 * and pl_k(i % 5) as often (few distinct arguments). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long pl_f(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) void pl_k(long k)
{
	__asm__ volatile("" :: "r"(k) : "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, t = 0;

	for (long i = 0; i < n; i++) {
		t += pl_f(i);
		pl_k(i % 5);
	}
	printf("%ld\n", t);
	return 0;
}
