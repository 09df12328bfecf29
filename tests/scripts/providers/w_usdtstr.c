/* w_usdtstr.c - USDT string arguments read after the process has gone:
 * probe ustrtest:::name("str-<i>", i) N times (default 50) from a reused
 * buffer, and ustrtest:::pair("left", "right") once (volatile locals: operands in memory), then exits at once.
 * Built at -O0 too, where sys/sdt.h's operands are on the stack
 * (8@-24(%rbp)) rather than in registers. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	const char *volatile l = "left", *volatile r = "right";
	char buf[32];

	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "str-%d", i);
		DTRACE_PROBE2(ustrtest, name, buf, i);
	}
	/* volatile: operands read from the stack (8@-16(%rbp)) */
	DTRACE_PROBE2(ustrtest, pair, l, r);
	return 0;
}
