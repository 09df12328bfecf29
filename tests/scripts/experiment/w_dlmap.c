/* w_dlmap.c - tst.maps.sh's workload: dlopen()s LIB, waits for a line on
 * the fifo GO1 (the test has seen the load in map.xml), dlclose()s it,
 * waits for a line on GO2 (the unload seen), exits.  With GO1 "-" the
 * dlclose() follows the dlopen() at once (within one tick).
 * usage: w_dlmap LIB GO1 GO2 */
#include <string.h>
#include <dlfcn.h>
#include <stdio.h>

static int wait_line(const char *fifo)
{
	char line[64];
	FILE *fp = fopen(fifo, "r");

	if (fp == NULL)
		return -1;
	(void)fgets(line, sizeof (line), fp);
	fclose(fp);
	return 0;
}

int main(int argc, char **argv)
{
	void *lib;

	if (argc != 4)
		return 2;
	if ((lib = dlopen(argv[1], RTLD_NOW)) == NULL) {
		fprintf(stderr, "w_dlmap: %s\n", dlerror());
		return 1;
	}
	if ((strcmp(argv[2], "-") != 0 && wait_line(argv[2]) != 0) ||
	    dlclose(lib) != 0 ||
	    wait_line(argv[3]) != 0)
		return 1;
	return 0;
}
