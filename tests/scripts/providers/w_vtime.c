/* w_vtime.c [ms] [iters] - two threads, each iters times: getppid(),
 * spin until its own CPU time has grown by ms milliseconds, getpgrp(),
 * then getsid(0), sleep ms milliseconds, getpgid(0).  Before that, each
 * calls close(4242) (a bad descriptor) for the uregs[] tests. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile uint64_t sink;
static uint64_t ms = 60;
static int iters = 3;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void spin_cpu(void)
{
	uint64_t until = cpu_ns() + ms * 1000000ull;

	while (cpu_ns() < until)
		for (int i = 0; i < 20000; i++)
			sink++;
}

static void *work(void *arg)
{
	(void)arg;
	close(4242);
	for (int i = 0; i < iters; i++) {
		syscall(SYS_getppid);
		spin_cpu();
		syscall(SYS_getpgrp);
		syscall(SYS_getsid, 0);
		usleep((useconds_t)(ms * 1000));
		syscall(SYS_getpgid, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		ms = (uint64_t)atoi(argv[1]);
	if (argc > 2)
		iters = atoi(argv[2]);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
