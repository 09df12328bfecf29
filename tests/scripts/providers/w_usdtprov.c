/*
 * w_usdtprov.c - a program with its own provider (usdtprov.d through
 * dtrace -h and -G): waits until a tracer enables dtuitest:::tick (its
 * is-enabled probe turns true: a condition, not a duration) unless told
 * not to wait, and, given a FILE, until FILE exists too (a tracer's BEGIN
 * makes it: its session is active, where the semaphore rose at its
 * ENABLE, before GO, and firings before GO are not traced, as in
 * dtrace), then makes N rounds of: always(), and tick(i, 2i) when tick
 * is enabled.  Prints how many rounds found tick enabled.
 *   usdtprov N [wait [FILE]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "usdtprov.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	long enabled = 0;

	if (argc > 2)
		while (!DTUITEST_TICK_ENABLED())
			usleep(1000);
	if (argc > 3)
		while (access(argv[3], F_OK) != 0)
			usleep(1000);
	for (int i = 1; i <= n; i++) {
		DTUITEST_ALWAYS();
		if (DTUITEST_TICK_ENABLED()) {
			enabled++;
			DTUITEST_TICK(i, (long)i * 2);
		}
	}
	if (n < 0)
		DTUITEST_NEVER_FIRED(argv[0]);
	printf("enabled %ld\n", enabled);
	return 0;
}
