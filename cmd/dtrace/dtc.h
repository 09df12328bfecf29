/*
 * dtc.h - what the files of the dtrace command share.
 *
 * dtrace.c parses the command line (dtrace(1M)'s options), compiles the
 * programs and lists probes; run.c runs the session (processes for -c/-p,
 * signals, the consume loop, printing at exit).  Global state lives in
 * struct dtc, one instance in dtrace.c.
 */
#ifndef DTC_H
#define DTC_H

#include <stdio.h>
#include <sys/types.h>
#include "engine.h"

#define DTC_SPEC_ID	100	/* dp_kind of -i */

/* One program on the command line, in order. */
struct dtc_prog {
	int dp_kind;			/* 's' script or enum eng_spec */
	const char *dp_text;		/* path or probe specifier */
	eng_prog_t *dp_prog;
};

struct dtc {
	eng_hdl_t *h;
	FILE *out;			/* stdout or -o file */
	struct dtc_prog *progs;
	int nprogs;
	char **argv;			/* macro arguments, argv[0] is $0 */
	int argc;
	unsigned cflags;
	int quiet, list, verbose, exit_after, dis, destructive;
	const char *cmd;		/* -c */
	struct dtc_proc {
		eng_proc_t *dp_proc;
		int dp_gone;		/* its exit has been reported */
	} *procs;			/* -p processes and the -c child */
	int nprocs;
	eng_proc_t *child;		/* the -c process, NULL if none */
	int header;			/* -h */
	int gobject;			/* -G */
	const char *ofile;		/* -o path, NULL for stdout */
	const char *replay;		/* -r experiment, NULL if none */
};

extern struct dtc dtc;

/* Messages on stderr as dtrace prints them ("dtrace: ..."). */
void dtc_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dtc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void dtc_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* hdr.c: -h, write the header of the script's providers; exit status */
int dtc_header(void);
/* hdr.c: -G, write the object a program with those probes links */
int dtc_gobject(void);

/* run.c */
pid_t dtc_run_create(const char *cmd);	/* create the -c process, held */
void dtc_run_grab(pid_t pid);		/* -p: grab the process */
int dtc_run(void);			/* go, loop, print; exit status */
int dtc_replay(void);			/* -r: print what was recorded */
void dtc_run_release(void);		/* let go (the -c process is killed) */

#endif /* DTC_H */
