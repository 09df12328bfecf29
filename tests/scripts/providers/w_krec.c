/*
 * w_krec.c - known system calls for tst.rec_kernel.sh: N (argv[1], 100 by
 * default) calls each of getppid(), umask(022) and lseek(-1, -5, SEEK_SET)
 * (which fails with EBADF), from one thread.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;

	for (long i = 0; i < n; i++) {
		syscall(SYS_getppid);
		syscall(SYS_umask, 022);
		syscall(SYS_lseek, -1, -5L, 0);
	}
	return 0;
}
