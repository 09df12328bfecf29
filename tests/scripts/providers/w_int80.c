/* w_int80.c - i386 system calls from a 64-bit process (int $0x80): 321
 * write()s of 13 bytes to /dev/null and 77 getppid(), then a socketcall
 * (no x86_64 probe), then exit 0.  The buffer lies below 4 GB. */
#include <fcntl.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#define I386_WRITE 4
#define I386_GETPPID 64
#define I386_SOCKETCALL 102

static long i386_call(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b),
	    "d"(c) : "memory", "r8", "r9", "r10", "r11");
	return r;
}

int main(void)
{
	char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	int fd = open("/dev/null", O_WRONLY);

	if (buf == MAP_FAILED || fd < 0)
		return 2;
	memcpy(buf, "hello, i386!\n", 13);
	for (int i = 0; i < 321; i++)
		if (i386_call(I386_WRITE, fd, (long)(unsigned long)buf, 13) != 13)
			return 3;
	for (int i = 0; i < 77; i++)
		i386_call(I386_GETPPID, 0, 0, 0);
	i386_call(I386_SOCKETCALL, 0, 0, 0);
	return 0;
}
