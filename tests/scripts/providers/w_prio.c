/* w_prio.c - getpriority(PRIO_PROCESS, who) system calls of processes that
 * do not exist (each fails at once with ESRCH), then exit 0: without an
 * argument exactly 600 calls, who cycling through 900000000, 900000001,
 * 900000002; with N, N calls with who = 900000000 + i, all different. */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 600;

	for (int i = 0; i < n; i++)
		syscall(SYS_getpriority, PRIO_PROCESS,
		    900000000 + (argc > 1 ? i : i % 3));
	return 0;
}
