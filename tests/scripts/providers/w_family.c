/* w_family.c - start and join one thread, fork a child that waits for a
 * signal, send it SIGUSR2 (which kills it), reap it and exit 0: one of
 * each of proc's lwp-create, create, signal-send and exit. */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void *noop(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t t;
	pid_t kid;

	if (pthread_create(&t, NULL, noop, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	if ((kid = fork()) == 0) {
		for (;;)
			pause();
	}
	if (kid < 0 || kill(kid, SIGUSR2) != 0)
		return 1;
	waitpid(kid, NULL, 0);
	return 0;
}
