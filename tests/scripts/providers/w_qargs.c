/* w_qargs.c - many distinct argument values for quantize of an argument
 * (tst.agg_qarg.sh): qa_val(v) for 3000 distinct positive values, their
 * negatives, and the edges (0, 1, -1, the extremes, lquantize's range
 * edges); then 600 reads of /dev/zero of 0..599 bytes (600 distinct
 * return values); last qa_done(). */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

__attribute__((noinline)) long qa_val(long v)
{
	__asm__ volatile("" ::: "memory");
	return v;
}

__attribute__((noinline)) void qa_done(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	static const long edge[] = { 0, 1, -1, 2, 3, INT64_MAX, INT64_MIN,
	    INT64_MIN + 1, (long)1 << 62, -((long)1 << 40), 999, 1000, 1001,
	    -101, -100, -99, 49, 50, 10, 100, 999999, 1000000, 1000001 };
	static char buf[600];
	int fd;

	for (long i = 1; i <= 3000; i++) {
		qa_val(i * i * 37);
		qa_val(-i * i * 37);
	}
	for (unsigned k = 0; k < sizeof(edge) / sizeof(edge[0]); k++)
		qa_val(edge[k]);
	if ((fd = open("/dev/zero", O_RDONLY)) >= 0) {
		for (int n = 0; n < 600; n++)
			if (read(fd, buf, (size_t)n) != n)
				return 1;
		close(fd);
	}
	qa_done();
	return 0;
}
