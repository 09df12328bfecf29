/*
 * w_usdt.c - bench workload: a usdt probe of its own provider (built
 * through dtrace -h and -G) fired N times in a loop, timed.  Waits for
 * the go file first (the tracer attached), then prints the loop's ns per
 * call.
 *   w_usdt GOFILE N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "usdtbench.h"

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	struct timespec a, b;

	if (argc < 3)
		return 2;
	while (access(argv[1], F_OK) != 0)
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		DTUIBENCH_TICK(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.0f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec -
	    a.tv_nsec)) / (double)n);
	return 0;
}
