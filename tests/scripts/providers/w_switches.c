/* w_switches.c - sleep 1 ms N times (argv[1], default 50) between two
 * getrusage(RUSAGE_THREAD) calls, then print how many context switches
 * the kernel counted for this thread between them (voluntary plus
 * involuntary: each one is a sched_switch with this thread as prev, and
 * one as next follows it before the second call). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	struct rusage a, b;

	getrusage(RUSAGE_THREAD, &a);
	for (int i = 0; i < n; i++)
		usleep(1000);
	getrusage(RUSAGE_THREAD, &b);
	printf("switches %ld\n", (b.ru_nvcsw + b.ru_nivcsw) -
	    (a.ru_nvcsw + a.ru_nivcsw));
	return 0;
}
