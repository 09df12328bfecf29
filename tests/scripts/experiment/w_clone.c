/* w_clone.c - tst.descendants_clone.sh's workload: a thread fork()s a
 * child that clone(2)s a child of its own with CLONE_FS (not a fork),
 * which exits at once, then execs TRUE, and the thread ends; a CLONE_FS
 * child of the process itself exits at once; a vfork()ed child execs
 * TRUE.  Each is waited for, so the order of the events is fixed.
 * usage: w_clone TRUE */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *true_path;
static char stack[64 * 1024];

static int cloned(void *arg)
{
	(void)arg;
	_exit(0);
}

static void *forker(void *arg)
{
	pid_t c = fork();

	(void)arg;
	if (c == 0) {
		pid_t g = clone(cloned, stack + sizeof (stack),
		    CLONE_FS | SIGCHLD, NULL);

		if (g > 0)
			waitpid(g, NULL, 0);
		execl(true_path, true_path, (char *)NULL);
		_exit(127);
	}
	waitpid(c, NULL, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t c;

	if (argc != 2)
		return 2;
	true_path = argv[1];
	if (pthread_create(&t, NULL, forker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	c = clone(cloned, stack + sizeof (stack), CLONE_FS | SIGCHLD, NULL);
	if (c < 0)
		return 1;
	waitpid(c, NULL, 0);
	if ((c = vfork()) == 0) {
		execl(true_path, true_path, (char *)NULL);
		_exit(127);
	}
	waitpid(c, NULL, 0);
	return 0;
}
