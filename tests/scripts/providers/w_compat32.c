/* w_compat32.c - 500 getpid() calls through the 32-bit entry (int $0x80,
 * i386 number 20, which is writev's number on x86_64), then 300 native
 * getppid() calls.  Exits 3 if the 32-bit entry does not work here. */
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 500; i++) {
		long r;

		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) :
		    "r8", "r9", "r10", "r11", "memory");
		if (r != (long)getpid())
			return 3;
	}
	for (int i = 0; i < 300; i++)
		syscall(SYS_getppid);
	return 0;
}
