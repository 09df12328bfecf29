/*
 * fuzz_experiment.c - libFuzzer target for the experiment reader and
 * replay (engine/exp_read.c, exp_replay.c): bytes -> an experiment
 * directory -> eng_replay_open + eng_replay_run, output thrown away.
 * Whatever the bytes, the replay refuses, warns or replays; it never
 * crashes, hangs or leaks.
 *
 * Input: sections, each one byte naming a data file (0 descriptions,
 * 1 archives/symbols, 2 principal, 3 aggregations, 4 events; the order
 * of enum exp_file), a 32-bit little-endian length and that many bytes.
 * Files not named are empty.  corpus/ holds real experiments packed so
 * (tests/fuzz/experiment/pack.sh).  libFuzzer builds define
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which skips block checksums
 * so that mutations reach the records.
 */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
	"descriptions", "archives/symbols", "principal", "aggregations",
	"events",
};
#define NFILES (sizeof (files) / sizeof (files[0]))

static char dir[64];

static int remove_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	(void)remove(path);
	return 0;
}

/* Every run (a corpus replay in make check is one) leaves no directory. */
static void remove_dir(void)
{
	(void)nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int setup(void)
{
	char path[128];

	if (dir[0] != '\0')
		return 0;
	snprintf(dir, sizeof (dir), "/tmp/fuzz_experiment.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	atexit(remove_dir);
	snprintf(path, sizeof (path), "%s/archives", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof (path), "%s/log.xml", dir);
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		return -1;
	fputs("<experiment version=\"1\">\n</experiment>\n", fp);
	fclose(fp);
	return 0;
}

/* Write the sections of data into the directory's files. */
static void unpack(const uint8_t *data, size_t size)
{
	FILE *fp[NFILES];
	char path[128];

	for (size_t i = 0; i < NFILES; i++) {
		snprintf(path, sizeof (path), "%s/%s", dir, files[i]);
		fp[i] = fopen(path, "w");
	}
	while (size >= 5) {
		uint32_t len = (uint32_t)data[1] | (uint32_t)data[2] << 8 |
		    (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
		unsigned f = data[0] % NFILES;

		data += 5;
		size -= 5;
		if (len > size)
			len = (uint32_t)size;
		if (fp[f] != NULL)
			fwrite(data, 1, len, fp[f]);
		data += len;
		size -= len;
	}
	for (size_t i = 0; i < NFILES; i++)
		if (fp[i] != NULL)
			fclose(fp[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	eng_hdl_t *h;
	FILE *out;

	if (setup() != 0)
		abort();
	unpack(data, size);
	if ((h = eng_open(ENG_O_NOPROVIDERS, err, sizeof (err))) == NULL)
		abort();
	if ((out = fopen("/dev/null", "w")) == NULL)
		abort();
	if (eng_replay_open(h, dir) == 0)
		(void)eng_replay_run(h, out);
	fclose(out);
	eng_close(h);
	return 0;
}
