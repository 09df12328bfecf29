/* w_restart.c - a system call interrupted and restarted: a thread blocks
 * in read(2) of one byte on an empty pipe; main interrupts it 20 times
 * with SIGUSR1 (handler with SA_RESTART: the kernel restarts the read
 * after each handler), each time only once the reader is seen blocked in
 * read (its /proc syscall file), then writes the byte.  Prints "read 1"
 * and "hits 20".  Each restart is a new entry to the kernel: 21 entries,
 * 20 returns of -1 (errno ERESTARTSYS, 512) and one of 1. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NSIG_SENT 20

static volatile int hits, rtid;
static int fds[2];

static void handler(int sig)
{
	(void)sig;
	__atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST);
}

static void *reader(void *arg)
{
	char c;
	long n;

	rtid = (int)syscall(SYS_gettid);
	n = read(fds[0], &c, 1);
	printf("read %ld\n", n);
	return arg;
}

/* Is the reader blocked in read(2)?  Its syscall file starts "0 ". */
static int in_read(void)
{
	char path[64], buf[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", rtid);
	if (rtid == 0 || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strncmp(buf, "0 ", 2) == 0;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(fds) != 0)
		return 1;
	pthread_create(&t, NULL, reader, NULL);
	for (int i = 0; i < NSIG_SENT; i++) {
		while (!in_read())
			usleep(1000);
		pthread_kill(t, SIGUSR1);
		while (hits <= i)
			usleep(1000);
	}
	while (!in_read())
		usleep(1000);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("hits %d\n", hits);
	return 0;
}
