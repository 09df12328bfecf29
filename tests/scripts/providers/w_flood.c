/* w_flood.c - argv[1] (default 200000) getcpu() system calls as fast as
 * possible, then exit 0: more events than a small perf ring holds.
 * getcpu because nothing else here makes that system call (glibc uses
 * the vDSO), so every event in the rings is the workload's. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getcpu, NULL, NULL, NULL);
	return 0;
}
