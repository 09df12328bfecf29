/*
 * w_lwps.c [n] [wait] - threads created in quick succession, each making
 * a known number of system calls, for exact counts through the ptrace
 * route.  Thread i (0 <= i < n) first calls getpgid(1000000 + i) (a
 * marker: no such process), then getppid() 1 + i % 5 times, and exits;
 * the main thread starts them all before joining any, so threads exit
 * while others are being created.  Every eighth thread also forks a
 * child process that calls getpgid(2000000 + i), then getppid() twice,
 * and exits (the thread waits for it).  Expected: marker i once per
 * thread, getppid 1 + i % 5 times under marker i, 2 under marker
 * 1000 + i for each child.  With wait = 1 the program first waits (up to
 * 10 s) until a tracer holds it, then 300 ms more (for dtrace -p).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int traced(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/self/status", "r");
	size_t n;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "TracerPid:");
	return p != NULL && atoi(p + 10) != 0;
}

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
	if (argc > 2 && atoi(argv[2]) == 1) {
		for (int i = 0; i < 1000 && !traced(); i++)
			usleep(10000);
		usleep(300000);
	}
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
