/* w_paths.c - open 200 different missing files through one buffer that
 * is rewritten at once (so only event-time capture reads them right),
 * then open /dev/null once successfully. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char path[64];
	int fd;

	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/nonexistent/dtui-w-%03d", i);
		open(path, O_RDONLY);
		memset(path, 'x', sizeof(path) - 1);
	}
	fd = open("/dev/null", O_RDONLY);
	return fd >= 0 ? 0 : 1;
}
