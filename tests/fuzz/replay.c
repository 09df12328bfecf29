/*
 * replay.c - the main() that replays fuzz corpora without libFuzzer: each
 * argument is a file or a directory of files, each file is handed once to
 * the target's LLVMFuzzerTestOneInput.  Built by the normal compiler
 * beside every tests/fuzz/<target>/fuzz_<target>.c, so that `make check`
 * runs every corpus (and every regression input a fuzzer found) through
 * its target as a quick regression.  A crash or an abort() of the target
 * is the failure; otherwise it prints how many inputs it ran.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (fp == NULL) {
		fprintf(stderr, "replay: %s: cannot open\n", path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (nb == NULL) {
				free(buf);
				fclose(fp);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	/* as libFuzzer: the exact size, so reads past the end are caught
	 * by the sanitizers in check-asan */
	uint8_t *exact = malloc(len ? len : 1);

	if (exact != NULL) {
		memcpy(exact, buf, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	free(buf);
	return exact != NULL ? 0 : -1;
}

static int namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order; the count or -1. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0;
	long done = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char **nn;

		if (e->d_name[0] == '.')
			continue;
		if ((nn = realloc(names, (n + 1) * sizeof (*nn))) == NULL)
			break;
		names = nn;
		if ((names[n] = strdup(e->d_name)) != NULL)
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof (*names), namecmp);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		snprintf(path, sizeof (path), "%s/%s", dir, names[i]);
		if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    run_file(path) == 0)
			done++;
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	long total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;
		long n;

		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: %s: no such file\n", argv[i]);
			return 2;
		}
		n = S_ISDIR(sb.st_mode) ? run_dir(argv[i]) :
		    run_file(argv[i]) == 0;
		if (n < 0) {
			fprintf(stderr, "replay: %s: cannot read\n", argv[i]);
			return 2;
		}
		total += n;
	}
	printf("replayed %ld inputs\n", total);
	return 0;
}
