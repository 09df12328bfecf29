/*
 * dlib.c - the D library every program is compiled against: what
 * dtrace's /usr/lib/dtrace gives scripts and Linux can fill.
 *
 * Types: curpsinfo and curlwpsinfo (psinfo_t, lwpsinfo_t, translated from
 * the built-ins), the same types translated from the struct ks_task a
 * provider offers for its lwpsinfo_t * and psinfo_t * arguments
 * (sema_xlate.c), cpuinfo_t (curcpu and sched's arguments, translated from
 * a CPU number in eng_dlib_topology) and the Solaris type names scripts use (uint,
 * u_longlong_t ...).  Constants: the fault codes an ERROR clause sees in
 * arg4 (DTRACEFLT_*, include/dtrace_abi.h's numbers), address families,
 * errno, signal and SIGCHLD code (CLD_*) numbers in Linux's numbering,
 * uregs[] indexes R_* in x86_64 struct pt_regs order (as DTrace for
 * Linux has them) and NULL.  compile.c compiles it once per handle,
 * before the first program; its declarations persist.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cc.h"

const char eng_dlib_text[] =
    "typedef unsigned int uint; typedef unsigned short ushort;\n"
    "typedef unsigned long ulong; typedef unsigned char u_char;\n"
    "typedef unsigned short u_short; typedef long long longlong_t;\n"
    "typedef unsigned long long u_longlong_t; typedef long long offset_t;\n"
    "typedef unsigned long long diskaddr_t; typedef char *caddr_t;\n"
    "typedef int taskid_t; typedef int projid_t; typedef int poolid_t;\n"
    "typedef int psetid_t; typedef int lgrp_id_t; typedef int chipid_t;\n"
    "typedef short pri_t; typedef int ctid_t;\n"
    "inline uintptr_t NULL = 0;\n"
    "typedef struct psinfo {\n"
    "	int pr_flag; int pr_nlwp;\n"
    "	int pr_pid; int pr_ppid; int pr_pgid; int pr_sid;\n"
    "	uid_t pr_uid; uid_t pr_euid; gid_t pr_gid; gid_t pr_egid;\n"
    "	uintptr_t pr_addr; dev_t pr_ttydev;\n"
    "	string pr_fname; string pr_psargs; int pr_wstat; int pr_argc;\n"
    "	uintptr_t pr_argv; uintptr_t pr_envp;\n"
    "	char pr_dmodel; taskid_t pr_taskid; projid_t pr_projid;\n"
    "	int pr_nzomb; poolid_t pr_poolid; zoneid_t pr_zoneid;\n"
    "	ctid_t pr_contract;\n"
    "} psinfo_t;\n"
    "typedef struct lwpsinfo {\n"
    "	int pr_flag; int pr_lwpid; uintptr_t pr_addr; uintptr_t pr_wchan;\n"
    "	char pr_stype; char pr_state; char pr_sname; char pr_nice;\n"
    "	short pr_syscall; int pr_pri; string pr_clname; string pr_name;\n"
    "	processorid_t pr_onpro; processorid_t pr_bindpro;\n"
    "	psetid_t pr_bindpset; lgrp_id_t pr_lgrp;\n"
    "} lwpsinfo_t;\n"
    "translator psinfo_t < uintptr_t T > {\n"
    "	pr_flag = 0; pr_nlwp = 1;\n"
    "	pr_pid = pid; pr_ppid = ppid; pr_pgid = pid; pr_sid = pid;\n"
    "	pr_uid = uid; pr_euid = uid; pr_gid = gid; pr_egid = gid;\n"
    "	pr_addr = T; pr_ttydev = (dev_t)-1;\n"
    "	pr_fname = execname; pr_psargs = __psargs; pr_wstat = 0;\n"
    "	pr_argc = __argc; pr_argv = 0; pr_envp = 0;\n"
    "	pr_dmodel = 2; pr_taskid = 0; pr_projid = 0;\n"
    "	pr_nzomb = 0; pr_poolid = 0; pr_zoneid = 0; pr_contract = 0;\n"
    "};\n"
    "translator lwpsinfo_t < uintptr_t T > {\n"
    "	pr_flag = 0; pr_lwpid = tid; pr_addr = T; pr_wchan = 0;\n"
    "	pr_stype = 0; pr_state = 0; pr_sname = 'O'; pr_nice = 0;\n"
    "	pr_syscall = 0; pr_pri = 0; pr_clname = \"TS\"; pr_name = execname;\n"
    "	pr_onpro = cpu; pr_bindpro = -1; pr_bindpset = -1; pr_lgrp = 0;\n"
    "};\n"
    "struct ks_task {\n"		/* include/ks_provider.h's ks_task_t */
    "	int kt_tid; int kt_pid; int kt_ppid; uint32_t kt_uid;\n"
    "	uint32_t kt_gid; uint32_t kt_argc; int kt_pri; int kt_cpu;\n"
    "	char kt_sname; char kt_comm[16]; char kt_psargs[80];\n"
    "	int kt_pgid; int kt_sid; uint64_t kt_ttydev; uint64_t kt_argv;\n"
    "	uint64_t kt_envp;\n"
    "};\n"
    "translator psinfo_t < struct ks_task *T > {\n"
    "	pr_flag = 0; pr_nlwp = 1;\n"
    "	pr_pid = T->kt_pid; pr_ppid = T->kt_ppid;\n"
    "	pr_pgid = T->kt_pgid != 0 ? T->kt_pgid : T->kt_pid;\n"
    "	pr_sid = T->kt_sid != 0 ? T->kt_sid : T->kt_pid;\n"
    "	pr_uid = T->kt_uid; pr_euid = T->kt_uid;\n"
    "	pr_gid = T->kt_gid; pr_egid = T->kt_gid; pr_addr = (uintptr_t)T;\n"
    "	pr_ttydev = T->kt_ttydev;\n"
    "	pr_fname = T->kt_comm; pr_psargs = T->kt_psargs; pr_wstat = 0;\n"
    "	pr_argc = T->kt_argc; pr_argv = T->kt_argv; pr_envp = T->kt_envp;\n"
    "	pr_dmodel = 2; pr_taskid = 0;\n"
    "	pr_projid = 0; pr_nzomb = 0; pr_poolid = 0; pr_zoneid = 0;\n"
    "	pr_contract = 0;\n"
    "};\n"
    "translator lwpsinfo_t < struct ks_task *T > {\n"
    "	pr_flag = 0; pr_lwpid = T->kt_tid; pr_addr = (uintptr_t)T;\n"
    "	pr_wchan = 0; pr_stype = 0;\n"
    "	pr_state = T->kt_sname == 'S' ? 1 : T->kt_sname == 'R' ? 2 :\n"
    "	    T->kt_sname == 'O' ? 6 : 0;\n"
    "	pr_sname = T->kt_sname; pr_nice = 0; pr_syscall = 0;\n"
    "	pr_pri = T->kt_pri; pr_clname = \"TS\"; pr_name = T->kt_comm;\n"
    "	pr_onpro = T->kt_cpu; pr_bindpro = -1; pr_bindpset = -1;\n"
    "	pr_lgrp = 0;\n"
    "};\n"
    "typedef struct siginfo {\n"	/* what Linux's signal_deliver says */
    "	int si_signo; int si_code; int si_errno;\n"
    "} siginfo_t;\n"
    "typedef struct cpuinfo {\n"
    "	processorid_t cpu_id; psetid_t cpu_pset; chipid_t cpu_chip;\n"
    "	lgrp_id_t cpu_lgrp;\n"
    "} cpuinfo_t;\n"
    "inline psinfo_t *curpsinfo = xlate<psinfo_t *>(curthread);\n"
    "inline lwpsinfo_t *curlwpsinfo = xlate<lwpsinfo_t *>(curthread);\n"
    "inline int DTRACEFLT_UNKNOWN = 0; inline int DTRACEFLT_BADADDR = 1;\n"
    "inline int DTRACEFLT_BADALIGN = 2; inline int DTRACEFLT_ILLOP = 3;\n"
    "inline int DTRACEFLT_DIVZERO = 4; inline int DTRACEFLT_NOSCRATCH = 5;\n"
    "inline int DTRACEFLT_KPRIV = 6; inline int DTRACEFLT_UPRIV = 7;\n"
    "inline int DTRACEFLT_TUPOFLOW = 8; inline int DTRACEFLT_BADSTACK = 9;\n"
    "inline int DTRACEFLT_BADSIZE = 10; inline int DTRACEFLT_BADINDEX = 11;\n"
    "inline int DTRACEFLT_LIBRARY = 1000;\n"
    "inline int AF_INET = 2; inline int AF_INET6 = 10;\n"
    "inline int ARPHRD_ETHER = 1; inline int ARPHRD_INFINIBAND = 32;\n"
    "inline int EPERM = 1; inline int ENOENT = 2; inline int ESRCH = 3;\n"
    "inline int EINTR = 4; inline int EIO = 5; inline int ENXIO = 6;\n"
    "inline int E2BIG = 7; inline int ENOEXEC = 8; inline int EBADF = 9;\n"
    "inline int ECHILD = 10;\n"
    "inline int EAGAIN = 11; inline int ENOMEM = 12; inline int EACCES = 13;\n"
    "inline int EFAULT = 14; inline int EBUSY = 16; inline int EEXIST = 17;\n"
    "inline int ENOTDIR = 20; inline int EISDIR = 21; inline int EINVAL = 22;\n"
    "inline int ENFILE = 23; inline int EMFILE = 24; inline int ENOSPC = 28;\n"
    "inline int EPIPE = 32; inline int ERANGE = 34; inline int ENOSYS = 38;\n"
    "inline int ETIMEDOUT = 110;\n"
    "inline int SIGHUP = 1; inline int SIGINT = 2; inline int SIGQUIT = 3;\n"
    "inline int SIGILL = 4; inline int SIGTRAP = 5; inline int SIGABRT = 6;\n"
    "inline int SIGBUS = 7; inline int SIGFPE = 8;\n"
    "inline int SIGKILL = 9; inline int SIGUSR1 = 10; inline int SIGSEGV = 11;\n"
    "inline int SIGUSR2 = 12; inline int SIGPIPE = 13; inline int SIGALRM = 14;\n"
    "inline int SIGTERM = 15; inline int SIGCHLD = 17; inline int SIGCONT = 18;\n"
    "inline int SIGSTOP = 19; inline int SIGTSTP = 20; inline int SIGTTIN = 21;\n"
    "inline int SIGTTOU = 22; inline int SIGURG = 23; inline int SIGXCPU = 24;\n"
    "inline int SIGXFSZ = 25; inline int SIGVTALRM = 26; inline int SIGPROF = 27;\n"
    "inline int SIGWINCH = 28; inline int SIGIO = 29; inline int SIGPOLL = 29;\n"
    "inline int SIGPWR = 30; inline int SIGSYS = 31;\n"
    "inline int CLD_EXITED = 1; inline int CLD_KILLED = 2;\n"
    "inline int CLD_DUMPED = 3; inline int CLD_TRAPPED = 4;\n"
    "inline int CLD_STOPPED = 5; inline int CLD_CONTINUED = 6;\n"
    "inline int R_R15 = 0; inline int R_R14 = 1; inline int R_R13 = 2;\n"
    "inline int R_R12 = 3; inline int R_RBP = 4; inline int R_RBX = 5;\n"
    "inline int R_R11 = 6; inline int R_R10 = 7; inline int R_R9 = 8;\n"
    "inline int R_R8 = 9; inline int R_RAX = 10; inline int R_RCX = 11;\n"
    "inline int R_RDX = 12; inline int R_RSI = 13; inline int R_RDI = 14;\n"
    "inline int R_ERR = 15; inline int R_RIP = 16; inline int R_CS = 17;\n"
    "inline int R_RFL = 18; inline int R_RSP = 19; inline int R_SS = 20;\n"
    "inline int R_PC = 16; inline int R_SP = 19; inline int R_FP = 4;\n"
    "inline int R_PS = 18; inline int R_R0 = 10; inline int R_R1 = 12;\n";

/* The physical package (chip) or NUMA node (lgrp) of CPU c, from sysfs;
 * 0 when Linux does not say. */
static int cpu_place(int c, int node)
{
	char path[128];
	int v = 0;

	if (node) {
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", c);
		if ((d = opendir(path)) == NULL)
			return 0;
		while ((e = readdir(d)) != NULL)
			if (sscanf(e->d_name, "node%d", &v) == 1)
				break;
		closedir(d);
		return e != NULL && v >= 0 ? v : 0;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
	    "topology/physical_package_id", c);
	FILE *f = fopen(path, "r");

	if (f != NULL) {
		if (fscanf(f, "%d", &v) != 1 || v < 0)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * "v0 + (var >= c) * (v[c] - v[c - 1]) + ...", the chip or node of CPU
 * var, a term where the value changes from one CPU to the next: a flat
 * sum, which needs neither deep nesting nor many registers on big
 * machines.
 */
static void place_expr(FILE *fp, const char *var, int ncpus, int node)
{
	int v[512];

	for (int c = 0; c < ncpus; c++)
		v[c] = cpu_place(c, node);
	fprintf(fp, "%d", v[0]);
	for (int c = 1; c < ncpus; c++)
		if (v[c] != v[c - 1])
			fprintf(fp, " + (%s >= %d) * (%d)", var, c,
			    v[c] - v[c - 1]);
}

static void place_inline(FILE *fp, const char *type, const char *name,
    int ncpus, int node)
{
	fprintf(fp, "inline %s %s = ", type, name);
	place_expr(fp, "cpu", ncpus, node);
	fprintf(fp, ";\n");
}

char *eng_dlib_topology(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int ncpus = n < 1 ? 1 : n > 512 ? 512 : (int)n;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (fp == NULL)
		return NULL;
	place_inline(fp, "chipid_t", "chip", ncpus, 0);
	place_inline(fp, "lgrp_id_t", "lgrp", ncpus, 1);
	fprintf(fp, "inline psetid_t pset = 0;\n");
	/* curcpu and the cpuinfo_t * arguments of sched:::enqueue and
	 * dequeue, from a CPU number */
	fprintf(fp, "translator cpuinfo_t < processorid_t C > {\n"
	    "	cpu_id = C; cpu_pset = 0; cpu_chip = ");
	place_expr(fp, "C", ncpus, 0);
	fprintf(fp, ";\n	cpu_lgrp = ");
	place_expr(fp, "C", ncpus, 1);
	fprintf(fp, ";\n};\n"
	    "inline cpuinfo_t *curcpu = xlate<cpuinfo_t *>(cpu);\n");
	if (fclose(fp) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
