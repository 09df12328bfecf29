/* w_openstr.c - openat() of known paths a known number of times, for
 * string keys counted in the kernel (tst.agg_copyinstr.sh): short paths,
 * paths around the kernel key's string size (126, 127 and 128 bytes),
 * one longer than the default strsize (300 bytes), a NULL path and a
 * bad one (the read at the event fails: the firing goes through the
 * shim, which faults).  Paths are in written buffers, so their pages are
 * in memory when the tracer reads them.  Every open fails or is
 * closed. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void opens(const char *path, int times)
{
	for (int i = 0; i < times; i++) {
		int fd = openat(AT_FDCWD, path, O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
}

/* "/nonexistent/" then 'a' + k up to len bytes (without the NUL). */
static void longpath(char *buf, int len, int k)
{
	memset(buf, 'a' + k, (size_t)len);
	memcpy(buf, "/nonexistent/", 13);
	buf[len] = '\0';
}

int main(void)
{
	static char buf[6][512];

	strcpy(buf[4], "/dev/null");
	opens(buf[4], 300);
	strcpy(buf[5], "/nonexistent/dtui-kstr-b");
	opens(buf[5], 200);
	longpath(buf[0], 126, 0);
	opens(buf[0], 30);
	longpath(buf[1], 127, 1);
	opens(buf[1], 31);
	longpath(buf[2], 128, 2);
	opens(buf[2], 32);
	longpath(buf[3], 300, 3);
	opens(buf[3], 20);
	opens(NULL, 7);
	opens((const char *)8, 3);
	return 0;
}
