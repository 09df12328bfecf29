/* w_pidcalls.c - user functions with known call counts for the pid
 * provider: pc_add(i, 2 * i) 1000 times (returns the sum), pc_leaf() 7
 * times (returns 42), pc_str("pid-provider-arg") once, then, when given
 * a library path, dlopen()s it, waits (at most 10 s) until a tracer has
 * put a breakpoint (int3) on pc_lib's first instruction, as a tracer
 * that follows dlopen does, and calls pc_lib(5) 3 times; last
 * pc_done(), and with "wait" first it then pauses until killed, so that
 * the tracer can still read its memory and mappings (a -c process is
 * killed when dtrace lets go of it). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) long pc_add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

__attribute__((noinline)) int pc_leaf(void)
{
	__asm__ volatile("" ::: "memory");
	return 42;
}

__attribute__((noinline)) size_t pc_str(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

__attribute__((noinline)) void pc_done(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long t = 0;
	int wait = argc > 1 && strcmp(argv[1], "wait") == 0;

	if (wait) {
		argc--;
		argv++;
	}

	for (long i = 0; i < 1000; i++)
		t += pc_add(i, 2 * i);
	for (int i = 0; i < 7; i++)
		t += pc_leaf();
	t += (long)pc_str("pid-provider-arg");
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		int (*f)(int) = h != NULL ? (int (*)(int))dlsym(h, "pc_lib") :
		    NULL;

		if (f == NULL) {
			fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
			return 1;
		}
		/* a uprobe shows in the process as int3 at the site */
		for (int i = 0; i < 10000 &&
		    *(volatile unsigned char *)(void *)f != 0xcc; i++)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		for (int i = 0; i < 3; i++)
			t += f(5);
	}
	pc_done();
	while (wait)
		pause();
	return t == 0;
}
