/* w_pidthreads.c - a multithreaded workload for the pid provider's
 * breakpoints: 4 threads each call mt_add(i, 1) 2000 times (its first
 * instruction is not one the ptrace route emulates, so each hit is
 * single-stepped while the other threads are held) and mt_push() 500
 * times (it starts with a push, emulated; it calls mt_add too: 2500
 * mt_add calls a thread).  Without arguments one round, and main prints
 * "total 25499000"; with a file name, rounds until that file exists
 * (for a tracer that comes and goes), then "ok ROUNDS" if every thread's
 * sum is right for its rounds (else "bad"), and "code XX": the first
 * byte of mt_add as the process sees it then (0x48, not an int3 0xcc,
 * once a tracer is gone). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NTHREADS 4
#define ROUND 6374750L			/* one thread's sum for one round */

static const char *stopfile;

struct job {
	long sum, rounds;
};

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
	struct job *j = arg;

	do {
		for (long i = 0; i < 2000; i++)
			j->sum += mt_add(i, 1);
		for (long i = 0; i < 500; i++)
			j->sum += mt_push(i);
		j->rounds++;
	} while (stopfile != NULL && access(stopfile, F_OK) != 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	struct job jobs[NTHREADS] = { { 0, 0 } };
	long total = 0, rounds = 0;
	int ok = 1;

	stopfile = argc > 1 ? argv[1] : NULL;
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, work, &jobs[i]);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		total += jobs[i].sum;
		rounds += jobs[i].rounds;
		ok &= jobs[i].sum == jobs[i].rounds * ROUND;
	}
	if (stopfile == NULL)
		printf("total %ld\n", total);
	else
		printf("%s %ld\ncode %02x\n", ok ? "ok" : "bad", rounds,
		    *(volatile unsigned char *)(void *)mt_add);
	return 0;
}
