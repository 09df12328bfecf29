/*
 * w_soak.c - the soak's workload: about RATE lseek(-1, n, SEEK_SET) calls
 * a second (each fails with EBADF at once; n counts up, so the clauses'
 * string keys never repeat) for SECONDS, and every 1000 calls a child
 * process that makes 10 more and exits (new pids all the time).  Prints
 * "calls N" (parent and children together) at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long rate = argc > 1 ? atol(argv[1]) : 100000;
	double secs = argc > 2 ? atof(argv[2]) : 300, t0 = now(), t;
	long n = 0, calls = 0;

	while ((t = now() - t0) < secs) {
		/* ahead of the rate: wait for it to catch up */
		if ((double)calls > t * (double)rate) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		for (int i = 0; i < 100; i++, n++, calls++)
			(void)lseek(-1, (off_t)n, SEEK_SET);
		if (n % 1000 == 0) {
			pid_t p = fork();

			if (p == 0) {
				for (int i = 0; i < 10; i++)
					(void)lseek(-1, (off_t)(n + i), SEEK_SET);
				_exit(0);
			}
			if (p > 0) {
				calls += 10;
				while (waitpid(p, NULL, 0) < 0)
					;
			}
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	printf("calls %ld\n", calls);
	return 0;
}
