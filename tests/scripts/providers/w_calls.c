/* w_calls.c - exactly 1234 getppid() system calls, then exit 0 at once
 * (the last ones are still in the perf rings when dtrace sees the exit). */
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 1234; i++)
		syscall(SYS_getppid);
	return 0;
}
