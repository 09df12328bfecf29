/* w_pimutex.c - ten times: hold a priority-inheritance mutex while a
 * real-time (SCHED_FIFO, so root only) thread blocks on it, so the
 * holder's priority is raised when the waiter arrives and restored when
 * it leaves (sched_pi_setprio, sched's change-pri), then release it and
 * join the waiter.  The holder releases only once the kernel says the
 * waiter is blocked (its /proc state S). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock;

static volatile pid_t waiter_tid;

static void *waiter(void *arg)
{
	waiter_tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

/* Is thread tid of this process asleep (state S in its stat)? */
static int asleep(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL)
		r = p[1] == ' ' && p[2] == 'S';
	fclose(f);
	return r;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_attr_t ta;
	struct sched_param sp = { .sched_priority = 1 };

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&lock, &a);
	pthread_attr_init(&ta);
	pthread_attr_setinheritsched(&ta, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&ta, SCHED_FIFO);
	pthread_attr_setschedparam(&ta, &sp);
	for (int i = 0; i < 10; i++) {
		pthread_t t;

		pthread_mutex_lock(&lock);
		waiter_tid = 0;
		if (pthread_create(&t, &ta, waiter, NULL) != 0)
			return 1;
		while (waiter_tid == 0 || !asleep(waiter_tid))
			usleep(1000);	/* polls a condition */
		pthread_mutex_unlock(&lock);
		pthread_join(t, NULL);
	}
	return 0;
}
