/* w_spin.c [ms] - one thread per CPU, each pinned to its CPU, spinning
 * for ms milliseconds (default 600) of its own CPU time (on a loaded
 * machine a thread may get a small share of its CPU: the samples come
 * with the time it runs) in dtui_spin_leaf() called from
 * dtui_spin_outer(). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

static volatile uint64_t sink;
static uint64_t spin_ms = 600;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

__attribute__((noinline)) void dtui_spin_leaf(void)
{
	for (int i = 0; i < 1000000; i++)
		sink++;
}

__attribute__((noinline)) void dtui_spin_outer(void)
{
	uint64_t until = now_ms() + spin_ms;

	while (now_ms() < until)
		dtui_spin_leaf();
}

static void *spin(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(intptr_t)arg, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	dtui_spin_outer();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t[256];

	if (argc > 1)
		spin_ms = (uint64_t)atoi(argv[1]);

	for (long i = 0; i < n && i < 256; i++)
		pthread_create(&t[i], NULL, spin, (void *)(intptr_t)i);
	for (long i = 0; i < n && i < 256; i++)
		pthread_join(t[i], NULL);
	return 0;
}
