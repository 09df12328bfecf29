/* w_evaltime.c - a program with an initializer, for -x evaltime: a
 * constructor calls ev_ctor() once, main calls ev_main() once; prints
 * "ctor 1 main 1".  The dynamic linker opens libc.so.6 before either. */
#include <stdio.h>

static int nctor, nmain;

__attribute__((noinline)) void ev_ctor(void)
{
	__asm__ volatile("" ::: "memory");
	nctor++;
}

__attribute__((noinline)) void ev_main(void)
{
	__asm__ volatile("" ::: "memory");
	nmain++;
}

__attribute__((constructor)) static void init(void)
{
	ev_ctor();
}

int main(void)
{
	ev_main();
	printf("ctor %d main %d\n", nctor, nmain);
	return 0;
}
