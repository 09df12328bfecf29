/*
 * dtrace.c - the dtrace command: dtrace(1M)'s command line on the dtui
 * engine.
 *
 * Options are read as dtrace reads them: getopt over the whole line, and
 * words that are not options become macro arguments ($1...).  Programs
 * (-s, -n, -P, -m, -f, -i) compile in command-line order; -l lists the
 * probes they match (or every probe); -e stops after compiling; -h
 * writes the script's provider header instead of tracing (hdr.c); then
 * run.c enables and runs them.  Exit status: 0 success, 1 failure, 2 bad
 * usage, or the value given to exit().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dtc.h"

struct dtc dtc;

#define OPTSTR "+3:6:aAb:c:CD:eFf:GhHi:I:lL:m:n:o:p:P:qr:s:SU:vVwx:X:Z"

static void usage(FILE *fp)
{
	fprintf(fp, "Usage: dtrace [-aCeFGhHlqSvVwZ] [-b bufsz] [-c cmd] "
	    "[-D name[=def]]\n"
	    "\t[-I path] [-L path] [-o output] [-p pid] [-s script] "
	    "[-U name]\n"
	    "\t[-x opt[=val]] [-X a|c|s|t]\n\n"
	    "\t[-P provider [[ predicate ] action ]]\n"
	    "\t[-m [ provider: ] module [[ predicate ] action ]]\n"
	    "\t[-f [[ provider: ] module: ] func [[ predicate ] action ]]\n"
	    "\t[-n [[[ provider: ] module: ] func: ] name [[ predicate ] "
	    "action ]]\n"
	    "\t[-i probe-id [[ predicate ] action ]] [ args ... ]\n\n"
	    "\tpredicate -> '/' D-expression '/'\n"
	    "\t   action -> '{' D-statements '}'\n\n"
	    "\t-b  set trace buffer size\n"
	    "\t-c  run specified command and exit upon its completion\n"
	    "\t-C  run cpp(1) preprocessor on script files\n"
	    "\t-D  define symbol when invoking preprocessor\n"
	    "\t-e  exit after compiling request but prior to enabling "
	    "probes\n"
	    "\t-f  enable or list probes matching the specified function "
	    "name\n"
	    "\t-F  coalesce trace output by function\n"
	    "\t-G  generate an ELF file containing embedded dtrace "
	    "program\n"
	    "\t-h  generate a header file with definitions for static "
	    "probes\n"
	    "\t-H  print included files when invoking preprocessor\n"
	    "\t-i  enable or list probes matching the specified probe id\n"
	    "\t-I  add include directory to preprocessor search path\n"
	    "\t-l  list probes matching specified criteria\n"
	    "\t-L  add library directory to library search path\n"
	    "\t-m  enable or list probes matching the specified module name\n"
	    "\t-n  enable or list probes matching the specified probe name\n"
	    "\t-o  set output file\n"
	    "\t-p  grab specified process-ID and cache its symbol tables\n"
	    "\t-P  enable or list probes matching the specified provider "
	    "name\n"
	    "\t-q  set quiet mode (only output explicitly traced data)\n"
	    "\t-r  replay the output of a recorded experiment (-x record)\n"
	    "\t-s  enable or list probes for the specified D program\n"
	    "\t-S  print D compiler intermediate code\n"
	    "\t-U  undefine symbol when invoking preprocessor\n"
	    "\t-v  set verbose mode (report stability attributes, "
	    "arguments)\n"
	    "\t-V  report DTrace API version\n"
	    "\t-w  permit destructive actions\n"
	    "\t-x  enable or modify compiler and tracing options\n"
	    "\t-X  specify ISO C conformance settings for preprocessor\n"
	    "\t-Z  permit probe descriptions that match zero probes\n");
}

static void vmsg(const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);

	fflush(dtc.out != NULL ? dtc.out : stdout);
	fputs("dtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (n == 0 || fmt[n - 1] != '\n')
		fputc('\n', stderr);
}

void dtc_notice(const char *fmt, ...)
{
	va_list ap;

	if (dtc.quiet)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void dtc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

_Noreturn void dtc_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	if (dtc.h != NULL)
		eng_close(dtc.h);
	dtc_run_release();
	exit(1);
}

static void add_prog(int kind, const char *text)
{
	struct dtc_prog *p = realloc(dtc.progs,
	    (size_t)(dtc.nprogs + 1) * sizeof (*p));

	if (p == NULL)
		dtc_fatal("failed to allocate memory");
	dtc.progs = p;
	p[dtc.nprogs].dp_kind = kind;
	p[dtc.nprogs].dp_text = text;
	p[dtc.nprogs].dp_prog = NULL;
	dtc.nprogs++;
}

/* -x name[=value] */
static void setopt(const char *arg)
{
	char *name = strdup(arg), *val;

	if (name == NULL)
		dtc_fatal("failed to allocate memory");
	if ((val = strchr(name, '=')) != NULL)
		*val++ = '\0';
	if (eng_setopt(dtc.h, name, val) != 0)
		dtc_fatal("failed to set -x %s: %s", name, eng_errmsg(dtc.h));
	free(name);
}

/* An option letter that is a -x option ("failed to set -b 1q", and
 * "failed to set -H" for one without a value, as dtrace says). */
static void setopt2(const char *name, const char *val, char flag)
{
	if (eng_setopt(dtc.h, name, val) != 0)
		dtc_fatal("failed to set -%c%s%s: %s", flag, val ? " " : "",
		    val ? val : "", eng_errmsg(dtc.h));
}

/* First pass: options that must be known before the engine opens. */
static int prescan(int argc, char **argv)
{
	int c;

	opterr = 0;
	for (optind = 1; optind < argc; optind++) {
		while ((c = getopt(argc, argv, OPTSTR)) != -1) {
			if (c == 'V') {
				printf("dtrace: %s\n", ENG_VERSION_STRING);
				exit(0);
			}
			if (c == 'q')
				dtc.quiet = 1;
			if (c == 'r')
				dtc.replay = optarg;
			if (c == '?' || c == ':')
				return -1;
		}
		if (optind >= argc)
			break;
	}
	return 0;
}

static void option(int c, const char *arg)
{
	switch (c) {
	case 'b': setopt2("bufsize", arg, 'b'); break;
	case 'c': dtc.cmd = arg; break;
	case 'C': dtc.cflags |= ENG_C_CPP; break;
	case 'D': setopt2("define", arg, 'D'); break;
	case 'U': setopt2("undef", arg, 'U'); break;
	case 'I': setopt2("incdir", arg, 'I'); break;
	case 'L': setopt2("libdir", arg, 'L'); break;
	case 'X': setopt2("stdc", arg, 'X'); break;
	case 'H': setopt2("cpphdrs", NULL, 'H'); break;
	case 'e': dtc.exit_after = 1; break;
	case 'h': dtc.header = 1; break;
	case 'G': dtc.gobject = 1; break;
	case 'F': setopt2("flowindent", NULL, 'F'); break;
	case 'f': add_prog(ENG_SPEC_FUNC, arg); break;
	case 'i': add_prog(DTC_SPEC_ID, arg); break;
	case 'l': dtc.list = 1; break;
	case 'm': add_prog(ENG_SPEC_MODULE, arg); break;
	case 'n': add_prog(ENG_SPEC_NAME, arg); break;
	case 'P': add_prog(ENG_SPEC_PROVIDER, arg); break;
	case 's': add_prog('s', arg); break;
	case 'o':
		dtc.ofile = arg;
		if ((dtc.out = fopen(arg, "a")) == NULL)
			dtc_fatal("failed to open output file '%s': %s", arg,
			    strerror(errno));
		break;
	case 'p': {
		char *end;
		long pid = strtol(arg, &end, 10);

		if (*end != '\0' || pid <= 0)
			dtc_fatal("invalid process ID: %s", arg);
		dtc_run_grab((pid_t)pid);
		break;
	}
	case 'q': setopt2("quiet", NULL, 'q'); break;
	case 'r': break;		/* prescan: dtc.replay */
	case 'S': dtc.dis = 1; break;
	case 'v': dtc.verbose = 1; break;
	case 'w': setopt2("destructive", NULL, 'w'); dtc.destructive = 1;
		break;
	case 'x': setopt(arg); break;
	case 'Z': dtc.cflags |= ENG_C_ZDEFS; break;
	case '6':			/* -64: the only data model here */
		if (strcmp(arg, "4") != 0)
			dtc_fatal("unknown option -6%s", arg);
		break;
	case '3':
		if (strcmp(arg, "2") != 0)
			dtc_fatal("unknown option -3%s", arg);
		dtc_fatal("option -32 is not supported on this system");
	case 'a': case 'A':
		dtc_fatal("option -%c is not supported on this system", c);
	default:
		usage(stderr);
		exit(2);
	}
}

/* Second pass: options in order; other words are macro arguments. */
static void parse(int argc, char **argv)
{
	int c;

	dtc.argv = calloc((size_t)argc + 1, sizeof (char *));
	if (dtc.argv == NULL)
		dtc_fatal("failed to allocate memory");
	dtc.argv[dtc.argc++] = argv[0];
	opterr = 0;
	for (optind = 1; optind < argc; optind++) {
		while ((c = getopt(argc, argv, OPTSTR)) != -1)
			option(c, optarg);
		if (optind < argc)
			dtc.argv[dtc.argc++] = argv[optind];
	}
}

/* dtrace -l output: one probe per line (and -v details). */
static int list_probe(const dtrace_probedesc_t *pd, void *arg)
{
	FILE *fp = arg;
	eng_probeinfo_t pi;

	fprintf(fp, "%5u %10s %17s %33s %s\n", pd->dtpd_id, pd->dtpd_provider,
	    pd->dtpd_mod, pd->dtpd_func, pd->dtpd_name);
	if (!dtc.verbose)
		return 0;
	const char *st = strcmp(pd->dtpd_provider, "dtrace") == 0 ?
	    "Stable" : "Evolving";
	for (int i = 0; i < 2; i++)
		fprintf(fp, "\n\t%s\n\t\tIdentifier Names: %s\n\t\tData "
		    "Semantics:   %s\n\t\tDependency Class: Common\n", i == 0 ?
		    "Probe Description Attributes" : "Argument Attributes",
		    st, st);
	fprintf(fp, "\n\tArgument Types\n");
	if (eng_probe_info(dtc.h, pd->dtpd_id, &pi) == 0 && pi.epi_nargs > 0)
		for (int i = 0; i < pi.epi_nargs; i++)
			fprintf(fp, "\t\targs[%d]: %s\n", i, pi.epi_argtypes[i]);
	else
		fprintf(fp, "\t\tNone\n");
	fputc('\n', fp);
	return 0;
}

/* -l of one description: its probes, or dtrace's "failed to match". */
static int list_desc(const dtrace_probedesc_t *pd, void *arg)
{
	(void)arg;
	if (eng_probe_iter_desc(dtc.h, pd, list_probe, dtc.out) == 0)
		dtc_warn("failed to match %s:%s:%s:%s: No probe matches "
		    "description", pd->dtpd_provider, pd->dtpd_mod,
		    pd->dtpd_func, pd->dtpd_name);
	return 0;
}

static void list(void)
{
	fprintf(dtc.out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
	    "FUNCTION", "NAME");
	if (dtc.nprogs == 0)
		eng_probe_iter(dtc.h, NULL, list_probe, dtc.out);
	for (int i = 0; i < dtc.nprogs; i++)
		eng_prog_desc_iter(dtc.progs[i].dp_prog, list_desc, NULL);
}

/* -S, or -x verbose (dtrace's DTRACE_C_DIFV) or -x disasm: list the DIF
 * of each program compiled to stderr. */
static int listing(void)
{
	int64_t v = 0, d = 0;

	return dtc.dis || (eng_getopt(dtc.h, "verbose", &v) == 0 && v > 0) ||
	    (eng_getopt(dtc.h, "disasm", &d) == 0 && d > 0);
}

static void compile_all(pid_t target)
{
	eng_cargs_t ca;

	memset(&ca, 0, sizeof (ca));
	/* dtrace -G: the words after the options are object files */
	ca.argc = dtc.gobject ? 1 : dtc.argc;
	ca.argv = dtc.argv;
	ca.target_pid = (int)target;
	for (int i = 0; i < dtc.nprogs; i++) {
		struct dtc_prog *p = &dtc.progs[i];
		unsigned fl = dtc.cflags | (dtc.list ? ENG_C_LIST |
		    ENG_C_ZDEFS : 0) | (dtc.header || dtc.gobject ?
		    ENG_C_ZDEFS : 0);

		if (p->dp_kind == 's') {
			FILE *fp = strcmp(p->dp_text, "-") == 0 ? stdin :
			    fopen(p->dp_text, "r");

			if (fp == NULL)
				dtc_fatal("failed to open %s: %s", p->dp_text,
				    strerror(errno));
			dtc.argv[0] = (char *)p->dp_text;
			p->dp_prog = eng_compile_file(dtc.h, fp, p->dp_text,
			    fl, &ca);
			if (fp != stdin)
				fclose(fp);
		} else {
			/* -i is -n: an integer names a probe by id */
			ca.spec_kind = p->dp_kind == DTC_SPEC_ID ?
			    ENG_SPEC_NAME : p->dp_kind;
			p->dp_prog = eng_compile_str(dtc.h, p->dp_text, NULL,
			    fl | ENG_C_PROBESPEC, &ca);
		}
		if (p->dp_prog == NULL)
			dtc_fatal("%s", eng_errmsg(dtc.h));
		if (listing())
			eng_prog_dis(dtc.h, p->dp_prog, stderr);
	}
}

int main(int argc, char **argv)
{
	char err[512];
	pid_t target = 0;

	dtc.out = stdout;
	if (argc <= 1 || prescan(argc, argv) != 0) {
		usage(stderr);
		return 2;
	}
	if ((dtc.h = eng_open(dtc.replay != NULL ? ENG_O_NOPROVIDERS : 0, err,
	    sizeof (err))) == NULL)
		dtc_fatal("failed to initialize dtrace: %s", err);
	if (dtc.replay != NULL && eng_replay_open(dtc.h, dtc.replay) != 0)
		dtc_fatal("failed to open experiment: %s", eng_errmsg(dtc.h));
	parse(argc, argv);
	if (dtc.replay != NULL)
		return dtc_replay();
	if (dtc.nprogs == 0 && !dtc.list && !dtc.exit_after)
		dtc_fatal("no probes specified");
	if (dtc.cmd != NULL)
		target = dtc_run_create(dtc.cmd);
	else if (dtc.nprocs > 0)
		target = (pid_t)eng_proc_pid(dtc.procs[0].dp_proc);
	compile_all(target);
	if (dtc.header)
		return dtc_header();
	if (dtc.gobject)
		return dtc_gobject();
	if (dtc.list) {
		list();
		eng_close(dtc.h);
		dtc_run_release();
		return 0;
	}
	if (dtc.exit_after) {
		eng_close(dtc.h);
		dtc_run_release();
		return 0;
	}
	return dtc_run();
}
