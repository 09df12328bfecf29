/* w_usdtdl.c - loads a library with usdt probes (w_usdtlib.c) with
 * dlopen() once started (its probes are in no object mapped at exec),
 * or, with "linked", calls the copy it was linked with; then
 * ul_run(N), which waits until its probe is enabled.  Prints
 * "enabled K".
 *   usdtdl N LIB         (dlopen LIB)
 *   usdtdl N linked      (built with -DLINKED against the library) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LINKED
int ul_run(int n);
#endif

int main(int argc, char **argv)
{
	int (*run)(int);
	void *h;

	if (argc < 3)
		return 2;
#ifdef LINKED
	run = ul_run;
#else
	if ((h = dlopen(argv[2], RTLD_NOW)) == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	run = (int (*)(int))dlsym(h, "ul_run");
	if (run == NULL)
		return 1;
#endif
	printf("enabled %d\n", run(atoi(argv[1])));
	return 0;
}
