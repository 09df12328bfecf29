/*
 * w_threads.c - start and join N short-lived threads (N = argv[1]), one
 * after the other; each sleeps 1 ms, so it switches off CPU at least
 * twice: once to sleep, once for good in do_exit.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;

	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, sleeper, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}
