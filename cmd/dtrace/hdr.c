/*
 * hdr.c - dtrace -h: write a C header with macros for the static probes
 * of the provider definitions in a D script (engine: eng_prog_header),
 * then exit without tracing, as -e does.
 *
 * As dtrace(1M): the programs must be -s scripts; the header goes to the
 * -o file (truncated) or else to the script's name with ".d" replaced by
 * ".h", which needs exactly one script whose name ends in ".d".  The
 * include guard comes from the header file's name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dtc.h"

/* The header's file name: -o, or the script's with .d replaced by .h. */
static char *header_name(const char *script)
{
	size_t n = strlen(script);
	char *s;

	if (dtc.ofile != NULL)
		return strdup(dtc.ofile);
	if (n < 3 || strcmp(script + n - 2, ".d") != 0 ||
	    script[n - 3] == '/')
		dtc_fatal("-h requires an output file (-o) if the script name "
		    "does not end in .d");
	if ((s = strdup(script)) != NULL)
		s[n - 1] = 'h';
	return s;
}

int dtc_header(void)
{
	const char *err = NULL;
	char *name;
	FILE *fp;

	for (int i = 0; i < dtc.nprogs; i++)
		if (dtc.progs[i].dp_kind != 's')
			dtc_fatal("-h requires a D script (-s); probe "
			    "specifiers (-P -m -f -n -i) define no providers");
	if (dtc.nprogs != 1)
		dtc_fatal("-h writes the header of one script; %d scripts "
		    "given", dtc.nprogs);
	if ((name = header_name(dtc.progs[0].dp_text)) == NULL)
		dtc_fatal("failed to allocate memory");
	if (dtc.ofile != NULL && dtc.out != stdout) {
		fclose(dtc.out);	/* opened for appending: reopened */
		dtc.out = stdout;
	}
	if ((fp = fopen(name, "w")) == NULL)
		dtc_fatal("failed to open header file '%s': %s", name,
		    strerror(errno));
	if (eng_prog_header(dtc.h, dtc.progs[0].dp_prog, name, fp) != 0)
		err = eng_errmsg(dtc.h);
	if (fclose(fp) == EOF && err == NULL)
		err = strerror(errno);
	if (err != NULL) {
		dtc_warn("failed to create header file %s: %s", name, err);
		remove(name);
	}
	free(name);
	eng_close(dtc.h);
	dtc.h = NULL;
	dtc_run_release();
	return err != NULL ? 1 : 0;
}
