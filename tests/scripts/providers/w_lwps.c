/*
 * w_lwps.c [n] [file] - threads created in quick succession, each making
 * a known number of system calls, for exact counts through the ptrace
 * route.  Thread i (0 <= i < n) first calls getpgid(1000000 + i) (a
 * marker: no such process), then getppid() 1 + i % 5 times, and exits;
 * the main thread starts them all before joining any, so threads exit
 * while others are being created.  Every eighth thread also forks a
 * child process that calls getpgid(2000000 + i), then getppid() twice,
 * and exits (the thread waits for it).  Expected: marker i once per
 * thread, getppid 1 + i % 5 times under marker i, 2 under marker
 * 1000000 + i for each child.  With a file name (for dtrace -p) the program
 * first calls getpgid(3000000) every 20 ms until that file exists (up to
 * 20 s): the tracer says when it sees those calls.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void *work(void *arg)
{
	long i = (long)arg;

	syscall(SYS_getpgid, 1000000 + i);
	for (long k = 0; k < 1 + i % 5; k++)
		syscall(SYS_getppid);
	if (i % 8 == 7) {
		pid_t c = fork();

		if (c == 0) {
			syscall(SYS_getpgid, 2000000 + i);
			syscall(SYS_getppid);
			syscall(SYS_getppid);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40;
	pthread_t *t;

	if (n <= 0 || (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 1;
	for (int i = 0; argc > 2 && i < 1000 && access(argv[2], F_OK) != 0;
	    i++) {
		syscall(SYS_getpgid, 3000000);
		usleep(20000);
	}
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
