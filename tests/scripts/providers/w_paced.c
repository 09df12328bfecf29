/*
 * w_paced.c - getppid() calls that never run more than SLACK ahead of
 * the tracer: before each call, if SLACK calls have no line in the
 * tracer's output file yet, wait for the output to catch up.  With SLACK
 * between half and all of the tracer's buffer (in records), the buffer
 * can never overflow, and progress needs the tracer to switch buffers
 * when one passes half full: with switchrate at an hour it otherwise
 * never writes a line before the end.
 *   w_paced FILE N SLACK   exit 0; 1 if the output stalled for 30 s
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int out = -1;
static long lines;

/* Count the newlines appended to the output since the last call. */
static void catch_up(const char *path)
{
	char buf[4096];
	ssize_t n;

	if (out < 0 && (out = open(path, O_RDONLY)) < 0)
		return;
	while ((n = read(out, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	long n, slack;

	if (argc < 4)
		return 2;
	n = atol(argv[2]);
	slack = atol(argv[3]);
	for (long i = 0; i < n; i++) {
		int waited = 0;

		catch_up(argv[1]);
		while (i - lines >= slack) {
			if (++waited > 30000) {
				fprintf(stderr, "stalled at call %ld with %ld "
				    "lines out\n", i, lines);
				return 1;
			}
			nanosleep(&ms, NULL);
			catch_up(argv[1]);
		}
		(void)getppid();
	}
	return 0;
}
