/* w_pidbench.c - pid provider benchmark workload: calls pb_f(i) N times
 * (argv[1], default 100000) and prints the mean ns per call of the loop
 * ("ns_per_call X"), for the tracer's per-call cost over an untraced run,
 * and the mean CPU time per call of the process ("cpu_ns_per_call X":
 * a uprobe's trap and BPF program run in the traced thread, so this
 * counts them without the time other processes of a loaded machine
 * took the CPU from it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long pb_f(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, t = 0;
	struct timespec a, b, ca, cb;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		t += pb_f(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	printf("ns_per_call %.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 +
	    (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	printf("cpu_ns_per_call %.1f\n", ((cb.tv_sec - ca.tv_sec) * 1e9 +
	    (double)(cb.tv_nsec - ca.tv_nsec)) / (double)n);
	return t == 0;
}
