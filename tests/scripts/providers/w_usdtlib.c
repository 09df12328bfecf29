/* w_usdtlib.c - a shared library with its own usdt probe for the usdt
 * provider's following of objects mapped later: dtuilib:::tick(i, 2i)
 * with a semaphore (<sys/sdt.h>, no dtrace -G).  ul_run(n) waits (at
 * most 20 s) until a tracer has enabled tick (the kernel raised the
 * semaphore: a condition, not a duration), then fires it n times and
 * returns how many rounds found it enabled, or -1 if it never was;
 * ul_run(0) returns at once (a process that only maps the library).
 * -DUL_PROV=name names the provider otherwise (tests that run at the
 * same time must not enable each other's probes: a glob on dtuilib*
 * raises the semaphore of every process that has the probe). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <unistd.h>

#ifndef UL_PROV
#define UL_PROV dtuilib
#endif
#define UL_CAT(a, b) a##b
#define UL_SEMA(p) UL_CAT(p, _tick_semaphore)
#define dtuilib_tick_semaphore UL_SEMA(UL_PROV)

__extension__ unsigned short dtuilib_tick_semaphore
    __attribute__((unused, section(".probes")));

int ul_run(int n);

int ul_run(int n)
{
	int enabled = 0;

	if (n == 0)
		return 0;
	for (int i = 0; i < 20000 && !dtuilib_tick_semaphore; i++)
		usleep(1000);
	if (!dtuilib_tick_semaphore)
		return -1;
	for (int i = 1; i <= n; i++)
		if (dtuilib_tick_semaphore) {
			enabled++;
			STAP_PROBE2(UL_PROV, tick, i, (long)i * 2);
		}
	return enabled;
}
