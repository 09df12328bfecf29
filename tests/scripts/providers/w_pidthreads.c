/* w_pidthreads.c - a multithreaded workload for the pid provider's
 * breakpoints: 4 threads each call mt_add(i, 1) 2000 times (its first
 * instruction is not one the ptrace route emulates, so each hit is
 * single-stepped while the other threads are held) and mt_push() 500
 * times (it starts with a push, emulated; it calls mt_add too: 2500
 * mt_add calls a thread); main prints the sum, which must come out right
 * whatever the tracer did: 25499000. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4

__attribute__((noinline)) long mt_add(long a, long b)
{
	return a * 3 + b;
}

__attribute__((noinline)) long mt_push(long a)
{
	return mt_add(a, 2) + 1;	/* not a leaf: starts with push %rbp */
}

static void *work(void *arg)
{
	long t = 0;

	for (long i = 0; i < 2000; i++)
		t += mt_add(i, 1);
	for (long i = 0; i < 500; i++)
		t += mt_push(i);
	*(long *)arg = t;
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];
	long sums[NTHREADS], total = 0;

	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, work, &sums[i]);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		total += sums[i];
	}
	printf("total %ld\n", total);
	return 0;
}
