/*
 * ptrace_impl.h - what the two halves of the ptrace route share (see
 * ptrace.c): the message the helper process writes per stop, the page
 * both processes see, and the helper's entry point (ptrace_helper.c).
 */
#ifndef PROV_PTRACE_IMPL_H
#define PROV_PTRACE_IMPL_H

#include <stdint.h>
#include <sys/types.h>

#define PT_NSYS 512
#if defined(__x86_64__)
#define PT_NREGS 21			/* user_regs_struct up to ss: the
					 * R_* (pt_regs) order of uregs[] */
#else
#define PT_NREGS 1
#endif

enum { PM_ENTRY, PM_RETURN, PM_CREATE, PM_LWP_CREATE, PM_EXEC_SUCCESS,
	PM_EXIT, PM_LWP_EXIT, PM_NKINDS, PM_NOTE = PM_NKINDS };

typedef struct prov_ptmsg {
	uint32_t pm_kind, pm_cpu;
	int32_t pm_pid, pm_tid, pm_ppid;
	uint32_t pm_nr;
	uint64_t pm_time;
	uint64_t pm_args[6];
	int64_t pm_ret;
	char pm_comm[16];
	uint32_t pm_sync;		/* the helper waits for an ack */
	uint64_t pm_saddr;		/* captured string: its address */
	uint32_t pm_slen;		/* and length incl. NUL (0: none) */
	char pm_str[256];
	uint64_t pm_vtime;		/* thread CPU ns at the stop */
	uint32_t pm_nregs;		/* user registers at the stop, */
	uint64_t pm_regs[PT_NREGS];	/* uregs[] order (0: none) */
} prov_ptmsg_t;

typedef struct prov_ptshared {
	uint8_t sh_entry[PT_NSYS], sh_return[PT_NSYS];
	uint8_t sh_proc[PM_NKINDS];
	uint32_t sh_nsys;		/* enabled syscall probes */
	uint64_t sh_sent;		/* messages the helper wrote */
	uint32_t sh_attached;		/* attach requests handled */
	uint8_t sh_filt[PT_NSYS];		/* calls a seccomp filter traps */
	uint32_t sh_passive;		/* the helper stays after release */
	uint8_t sh_vtime;		/* send CPU time (vtimestamp) */
	uint8_t sh_uregs;		/* send user registers (uregs[]) */
	int32_t sh_atterr;		/* last attach: 0, or errno (set
					 * before sh_attached counts it) */
} prov_ptshared_t;

/* On the command pipe instead of a pid: syscall probes were just
 * enabled (none were): stop every tracee once, so that one resumed with
 * PTRACE_CONT before is resumed with PTRACE_SYSCALL. */
#define PT_CMD_RESTOP (-1)

/* Fork the helper over page sh, with its ends of the pipes: cmd (pids to
 * attach, or PT_CMD_RESTOP; EOF: release), ev (messages out), ack (one
 * byte per pm_sync message).  Returns the helper's pid here (-1: fork failed); in the
 * helper it never returns. */
pid_t prov_pt_helper_fork(prov_ptshared_t *sh, int cmd, int ev, int ack);

#endif /* PROV_PTRACE_IMPL_H */
