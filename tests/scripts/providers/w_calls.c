/* w_calls.c - exactly 1234 getppid() system calls, then exit 0 (after
 * 300 ms). */
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 1234; i++)
		syscall(SYS_getppid);
	usleep(300000);		/* see lib.sh: let the drain catch up */
	return 0;
}
