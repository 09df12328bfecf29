/* w_pidmix.c - 200000 getpid() and exactly 1234 getppid() system calls,
 * then exit 0: only the getppid() ones should stop a filtered target. */
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 200000; i++) {
		syscall(SYS_getpid);
		if (i % 162 == 0 && i / 162 < 1234)
			syscall(SYS_getppid);
	}
	return 0;
}
