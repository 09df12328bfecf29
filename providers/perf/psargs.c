/*
 * psargs.c - the arguments a process was started with, for
 * curpsinfo->pr_psargs and pr_argc.
 *
 * A BPF program on syscalls:sys_enter_execve (bpf.c, prov_bpf_argv)
 * copies the argv pointers and the first strings while the old image
 * still holds them; the drain thread joins them into the process cache
 * entry of the exec'ing thread (prov_pcache_args), in event order, so the
 * exec-success firing and every later one of that process carry them
 * (kpc_psargs, kpc_argc), even after the process has exited.  Processes
 * already running when tracing started get theirs from /proc/PID/cmdline
 * when first seen (pcache.c).  The capture is on once a proc probe has
 * been enabled (tprows.c): its records share the event rings, where a
 * lost one would count as a probe drop, so sessions tracing only other
 * providers do without it (their processes' arguments come from /proc,
 * for processes still alive when first seen).
 * Limits: at most PROV_ARGV_STRS strings of
 * PROV_ARGV_LEN - 1 bytes reach pr_psargs, argc counts up to
 * PROV_ARGV_PTRS; an execve that then fails leaves the new arguments on
 * the old image; execveat is not followed.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "prov_impl.h"

static pthread_mutex_t argslk = PTHREAD_MUTEX_INITIALIZER;
static int args_on;		/* argslk: the execve program is attached */

/* Join the program's strings (RAW: argv pointers, then strings) into
 * out (outlen bytes); the argument count, at most PROV_ARGV_PTRS. */
uint32_t prov_psargs_join(const uint8_t *raw, uint32_t rawlen, char *out,
    size_t outlen)
{
	const uint8_t *strs = raw + 8 * PROV_ARGV_PTRS;
	uint32_t argc = 0;
	size_t used = 0;

	out[0] = '\0';
	if (rawlen < 8 * PROV_ARGV_PTRS + PROV_ARGV_STRS * PROV_ARGV_LEN)
		return 0;
	while (argc < PROV_ARGV_PTRS) {
		uint64_t ptr;

		memcpy(&ptr, raw + 8 * argc, 8);
		if (ptr == 0)
			break;
		argc++;
	}
	for (uint32_t i = 0; i < argc && i < PROV_ARGV_STRS; i++) {
		const char *s = (const char *)strs + i * PROV_ARGV_LEN;
		int n = snprintf(out + used, outlen - used, "%s%.*s",
		    i > 0 ? " " : "", PROV_ARGV_LEN - 1, s);

		if (n < 0 || (size_t)n >= outlen - used) {
			used = outlen - 1;
			break;
		}
		used += (size_t)n;
	}
	return argc;
}

static void on_argv(void *arg, const prov_perf_sample_t *s)
{
	char psargs[80];
	uint32_t argc;

	(void)arg;
	argc = prov_psargs_join(s->pps_raw, s->pps_rawlen, psargs,
	    sizeof(psargs));
	if (s->pps_tid > 0)
		prov_pcache_args(s->pps_tid, s->pps_pid, psargs, argc);
}

void prov_psargs_on(void)
{
	const prov_tf_format_t *fmt;
	int f;

	pthread_mutex_lock(&argslk);
	if (!args_on && prov_is_privileged()) {
		args_on = 1;		/* one try */
		fmt = prov_tp_format("syscalls", "sys_enter_execve");
		if (fmt != NULL && (f = prov_tracefs_field(fmt, "argv")) >= 0)
			(void)prov_bpf_argv(fmt->tff_id,
			    (int)fmt->tff_fields[f].tff_offset, on_argv, NULL);
	}
	pthread_mutex_unlock(&argslk);
}
