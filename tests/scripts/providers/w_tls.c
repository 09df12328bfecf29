/* w_tls.c - system calls a known number of times, for thread-local
 * variables held in the kernel (tst.tls_kernel.sh).
 *   w_tls reads    read() of /dev/zero with sizes 1, 2, 4 ... 2048, 100
 *                  and 3000, each 5 times, in the main thread and in 3
 *                  threads at once (each the same): 4 * 5 * 14 reads
 *   w_tls threads  getppid() once in each of 50 threads, all alive at
 *                  once (50 thread-local variables that are never
 *                  cleared)
 */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NTHREADS 50

static pthread_barrier_t all_called;

static void *reads(void *arg)
{
	static const int extra[] = { 100, 3000 };
	char buf[4096];
	int fd = open("/dev/zero", O_RDONLY);

	(void)arg;
	if (fd < 0)
		return NULL;
	for (int r = 0; r < 5; r++) {
		for (int k = 0; k < 12; k++)
			if (read(fd, buf, (size_t)1 << k) < 0)
				break;
		for (int k = 0; k < 2; k++)
			if (read(fd, buf, (size_t)extra[k]) < 0)
				break;
	}
	close(fd);
	return NULL;
}

static void *one_call(void *arg)
{
	(void)arg;
	syscall(SYS_getppid);
	pthread_barrier_wait(&all_called);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	int n = 0;

	if (argc > 1 && strcmp(argv[1], "threads") == 0) {
		pthread_barrier_init(&all_called, NULL, NTHREADS);
		for (n = 0; n < NTHREADS; n++)
			if (pthread_create(&t[n], NULL, one_call, NULL) != 0)
				return 1;
	} else {
		for (n = 0; n < 3; n++)
			if (pthread_create(&t[n], NULL, reads, NULL) != 0)
				return 1;
		reads(NULL);
	}
	while (n > 0)
		pthread_join(t[--n], NULL);
	return 0;
}
