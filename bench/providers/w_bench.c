/*
 * w_bench.c - the benchmark workload.
 *   w_bench calls N   N getppid() system calls; prints "ns_per_call"
 *   w_bench spin N    N million loop iterations; prints "ms"
 *   w_bench open N    N openat()+close() of four paths in turn; prints
 *                     "ns_per_open"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	uint64_t t0 = now_ns();

	if (argc > 1 && strcmp(argv[1], "spin") == 0) {
		for (long i = 0; i < n * 1000000; i++)
			sink++;
		printf("%.1f\n", (double)(now_ns() - t0) / 1e6);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "open") == 0) {
		static const char *const paths[] = {
			"/dev/null", "/dev/zero", "/dev/urandom", "/proc/self/stat"
		};

		for (long i = 0; i < n; i++) {
			int fd = openat(AT_FDCWD, paths[i & 3], O_RDONLY);

			if (fd >= 0)
				close(fd);
		}
		printf("%.1f\n", (double)(now_ns() - t0) / (double)n);
		return 0;
	}
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%.1f\n", (double)(now_ns() - t0) / (double)n);
	return 0;
}
