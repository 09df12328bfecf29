/*
 * hdr.c - dtrace -h: write a C header with macros for the static probes
 * of the provider definitions in a D script (engine: eng_prog_header),
 * then exit without tracing, as -e does; dtrace -G: write the object a
 * program built with that header links (eng_prog_semaphores, compiled
 * with $CC or cc).
 *
 * As dtrace(1M): the programs must be -s scripts; the header goes to the
 * -o file (truncated) or else to the script's name with ".d" replaced by
 * ".h", which needs exactly one script whose name ends in ".d".  The
 * include guard comes from the header file's name.  -G's object goes to
 * the -o file, else to the script's name with ".d" replaced by ".o", else
 * to d.out.  Object files named after the script (dtrace -G -s p.d a.o
 * b.o) already hold their probes' notes and are left as they are, but
 * must be there to be read ("failed to link script p.d: failed to open
 * a.o: ...", as dtrace's linker says).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
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

/* -h and -G read exactly one -s script; the -o file is rewritten. */
static void one_script(int opt)
{
	for (int i = 0; i < dtc.nprogs; i++)
		if (dtc.progs[i].dp_kind != 's')
			dtc_fatal("-%c requires a D script (-s); probe "
			    "specifiers (-P -m -f -n -i) define no providers",
			    opt);
	if (dtc.nprogs != 1)
		dtc_fatal("-%c writes the %s of one script; %d scripts "
		    "given", opt, opt == 'h' ? "header" : "object",
		    dtc.nprogs);
	if (dtc.ofile != NULL && dtc.out != stdout) {
		fclose(dtc.out);	/* opened for appending: reopened */
		dtc.out = stdout;
	}
}

int dtc_header(void)
{
	const char *err = NULL;
	char *name;
	FILE *fp;

	one_script('h');
	if ((name = header_name(dtc.progs[0].dp_text)) == NULL)
		dtc_fatal("failed to allocate memory");
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

/* The object's file name: -o, script.d as script.o, else d.out. */
static char *object_name(const char *script)
{
	size_t n = strlen(script);
	const char *base = strrchr(script, '/');
	char *s;

	if (dtc.ofile != NULL)
		return strdup(dtc.ofile);
	base = base != NULL ? base + 1 : script;
	n = strlen(base);
	if (n < 3 || strcmp(base + n - 2, ".d") != 0)
		return strdup("d.out");
	if ((s = strdup(base)) != NULL)
		s[n - 1] = 'o';
	return s;
}

/* Compile src into the object out with $CC (else cc); 0 or -1. */
static int compile(const char *src, const char *out)
{
	const char *cc = getenv("CC") != NULL && *getenv("CC") != '\0' ?
	    getenv("CC") : "cc";
	int status;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		execlp(cc, cc, "-c", "-fPIC", "-x", "c", "-o", out, src,
		    (char *)NULL);
		fprintf(stderr, "dtrace: failed to run %s: %s\n", cc,
		    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int dtc_gobject(void)
{
	char src[] = "/tmp/dtrace-G-XXXXXX";
	const char *err = NULL;
	char *name;
	FILE *fp;
	int fd;

	one_script('G');
	for (int i = 1; i < dtc.argc; i++)
		if (access(dtc.argv[i], R_OK) != 0)
			dtc_fatal("failed to link script %s: failed to open "
			    "%s: %s", dtc.progs[0].dp_text, dtc.argv[i],
			    strerror(errno));
	if ((name = object_name(dtc.progs[0].dp_text)) == NULL)
		dtc_fatal("failed to allocate memory");
	if ((fd = mkstemp(src)) < 0 || (fp = fdopen(fd, "w")) == NULL)
		dtc_fatal("failed to create a temporary file: %s",
		    strerror(errno));
	if (eng_prog_semaphores(dtc.h, dtc.progs[0].dp_prog, fp) != 0)
		err = eng_errmsg(dtc.h);
	if (fclose(fp) == EOF && err == NULL)
		err = strerror(errno);
	if (err == NULL && compile(src, name) != 0)
		err = "the C compiler failed";
	remove(src);
	if (err != NULL) {
		dtc_warn("failed to create object file %s: %s", name, err);
		remove(name);		/* -o made it empty, or cc half */
	}
	free(name);
	eng_close(dtc.h);
	dtc.h = NULL;
	dtc_run_release();
	return err != NULL ? 1 : 0;
}
