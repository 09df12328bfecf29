/* w_filt.c - argv[1] getppid() system calls (0: forever), pausing 1 ms
 * after every argv[2] of them if given (so the drain thread keeps up),
 * then exit 0 at once. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long every = argc > 2 ? atol(argv[2]) : 0;

	for (long i = 0; n == 0 || i < n; i++) {
		syscall(SYS_getppid);
		if (every > 0 && i % every == every - 1)
			usleep(1000);
	}
	return 0;
}
