/*
 * work.c - running a session: go, stop, status, sleep/wakeup, and the
 * consumption of principal buffers (eng_work).
 *
 * eng_work snapshots every CPU's principal buffer with BUFSNAP (under the
 * switch policy that swaps the CPU's buffer pair) into one reusable
 * buffer (grown on ENOSPC) and hands it to record.c.  Under the ring and
 * fill policies buffers are read once, when tracing has stopped, as
 * dtrace(1M) does.  eng_sleep waits on a pipe that eng_wakeup writes (safe in a
 * signal handler) until the nearest switchrate/aggrate/statusrate
 * deadline.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "consume.h"
#include "elfsym.h"
#include "providers.h"
#include "exp.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rate(eng_hdl_t *h, int opt)
{
	dtrace_optval_t v = eng_opt_get(h, opt);

	return v > 0 ? (uint64_t)v : 1000000000ull;
}

int eng_go(eng_hdl_t *h)
{
	EXP_SCOPE(h, EXP_M_GO);
	struct eng_consumer *c = h->eh_cons;
	uint32_t cpu = 0;
	uint64_t t = now_ns();

	if (h->eh_go)
		return eng_error(h, "tracing is already active");
	c->ec_faultseq = ks_fault_seq();	/* later ones are this session's */
	if (eng_ks_ioctl(h, DTRACEIOC_GO, &cpu) != 0)
		return eng_error(h, "could not enable tracing: %s",
		    ks_errmsg(h->eh_ks));
	h->eh_go = 1;
	prov_go();
	c->ec_beganon = cpu < (uint32_t)c->ec_ncpus ? (int)cpu : -1;
	c->ec_nexttouch = t + 20000000ull;
	c->ec_ntouch = 0;
	c->ec_nextswitch = t + rate(h, DTRACEOPT_SWITCHRATE);
	c->ec_nextagg = t + rate(h, DTRACEOPT_AGGRATE);
	/* status at once, as libdtrace's first dtrace_sleep: an exit() in
	 * BEGIN ends the session without waiting a statusrate */
	c->ec_nextstatus = t;
	return 0;
}

_Static_assert(ENG_SECCOMP_DATA == PROV_SECCOMP_DATA, "seccomp data");

int eng_target_syscalls(eng_hdl_t *h, int *nrs, int max)
{
	(void)h;
	return prov_target_syscalls(nrs, max);
}

int eng_target_add(eng_hdl_t *h, int pid)
{
	struct eng_consumer *c = h->eh_cons;
	int *t;

	if (pid <= 0)
		return eng_error(h, "invalid process ID %d", pid);
	if ((eng_proc_held(pid) ? prov_target_add_held(pid) :
	    prov_target_add(pid)) != 0)
		return eng_error(h, "failed to trace pid %d", pid);
	if ((t = realloc(c->ec_targets, (size_t)(c->ec_ntargets + 1) *
	    sizeof (*t))) == NULL)
		return eng_error(h, "out of memory");
	c->ec_targets = t;
	t[c->ec_ntargets++] = pid;
	return 0;
}

/*
 * The targets' mappings are read soon after GO (a -c command execs then)
 * and a few times more, so their symbols print after they exit, as
 * dtrace's grabbed processes do: at 20 ms, 100 ms, 400 ms, 1.6 s...
 */
static void touch_targets(eng_hdl_t *h, uint64_t t)
{
	struct eng_consumer *c = h->eh_cons;

	if (c->ec_ntargets == 0 || c->ec_nexttouch == 0 || t < c->ec_nexttouch)
		return;
	for (int i = 0; i < c->ec_ntargets; i++)
		eng_sym_touch(h, c->ec_targets[i], 1);
	c->ec_ntouch++;
	c->ec_nexttouch = c->ec_ntouch < 6 ? t + (20000000ull <<
	    (2 * c->ec_ntouch)) : 0;
}

int eng_stop(eng_hdl_t *h)
{
	EXP_SCOPE(h, EXP_M_STOP);
	uint32_t cpu = 0;

	if (!h->eh_go)
		return eng_error(h, "tracing is not active");
	if (h->eh_stopped)
		return 0;
	/* Events that happened before now, still in the providers' rings,
	 * are fired while the state is active (an exiting -c target's). */
	if (!(h->eh_flags & ENG_O_NOPROVIDERS))
		prov_flush();
	if (eng_ks_ioctl(h, DTRACEIOC_STOP, &cpu) != 0)
		return eng_error(h, "couldn't stop tracing: %s",
		    ks_errmsg(h->eh_ks));
	h->eh_stopped = 1;
	if (cpu < (uint32_t)h->eh_cons->ec_ncpus)
		h->eh_cons->ec_endedon = (int)cpu;
	eng_drops_faults(h);		/* a source that failed at the end */
	return 0;
}

enum eng_status eng_status(eng_hdl_t *h)
{
	EXP_SCOPE(h, EXP_M_STATUS);
	struct eng_consumer *c = h->eh_cons;
	dtrace_status_t st;

	if (!h->eh_go)
		return ENG_STATUS_NONE;
	memset(&st, 0, sizeof (st));
	if (eng_ks_ioctl(h, DTRACEIOC_STATUS, &st) != 0) {
		eng_error(h, "couldn't get status: %s", ks_errmsg(h->eh_ks));
		return ENG_STATUS_NONE;
	}
	eng_drops_status(h, &st);
	eng_drops_faults(h);
	c->ec_status = st;
	c->ec_nextstatus = now_ns() + rate(h, DTRACEOPT_STATUSRATE);
	/* As libdtrace: exit() or a filled buffer stops tracing (END). */
	if (st.dtst_exiting || st.dtst_killed || c->ec_exited) {
		eng_stop(h);
		return ENG_STATUS_EXITED;
	}
	if (st.dtst_filled) {
		eng_stop(h);
		return ENG_STATUS_FILLED;
	}
	if (h->eh_stopped)
		return ENG_STATUS_STOPPED;
	return ENG_STATUS_OKAY;
}

int eng_exit_status(const eng_hdl_t *h)
{
	return h->eh_cons->ec_exitstatus;
}

void eng_sleep(eng_hdl_t *h)
{
	struct eng_consumer *c = h->eh_cons;
	uint64_t t = now_ns(), next = c->ec_nextswitch;
	struct pollfd pfd[2] = {
		{ .fd = c->ec_wakefd[0], .events = POLLIN },
		/* a buffer passed its high-water mark: switch before it drops */
		{ .fd = eng_wakefd(h), .events = POLLIN },
	};
	char junk[64];

	if (c->ec_nextagg < next)
		next = c->ec_nextagg;
	if (c->ec_nextstatus < next)
		next = c->ec_nextstatus;
	if (c->ec_ntargets > 0 && c->ec_nexttouch != 0 &&
	    c->ec_nexttouch < next)
		next = c->ec_nexttouch;
	if (next > t) {
		uint64_t ms = (next - t + 999999) / 1000000;

		if (poll(pfd, 2, ms > 60000 ? 60000 : (int)ms) < 0 &&
		    errno != EINTR)
			return;
	}
	while (read(c->ec_wakefd[0], junk, sizeof (junk)) > 0)
		continue;
	touch_targets(h, now_ns());
}

int eng_wakefd(eng_hdl_t *h)
{
	return h->eh_go && !h->eh_stopped ? ks_wakefd(h->eh_ks) : -1;
}

void eng_wakeup(eng_hdl_t *h)
{
	int saved = errno;

	if (h != NULL && h->eh_cons != NULL && h->eh_cons->ec_wakefd[1] >= 0)
		(void)!write(h->eh_cons->ec_wakefd[1], "", 1);
	errno = saved;
}

/* BUFSNAP one CPU into the consumer's buffer; *sizep gets the bytes. */
static int snap(eng_hdl_t *h, int cpu, size_t *sizep)
{
	struct eng_consumer *c = h->eh_cons;
	dtrace_bufdesc_t bd;

	for (;;) {
		memset(&bd, 0, sizeof (bd));
		bd.dtbd_cpu = (uint32_t)cpu;
		bd.dtbd_size = c->ec_bufsize;
		bd.dtbd_data = c->ec_buf;
		if (eng_ks_ioctl(h, DTRACEIOC_BUFSNAP, &bd) == 0)
			break;
		if (errno == ENOENT) {
			*sizep = 0;
			return 0;
		}
		if (errno != ENOSPC || c->ec_bufsize >= ((size_t)1 << 32))
			return eng_error(h, "failed to snapshot the buffer of "
			    "CPU %d: %s", cpu, ks_errmsg(h->eh_ks));
		char *nb = realloc(c->ec_buf, c->ec_bufsize * 2);
		if (nb == NULL)
			return eng_error(h, "out of memory");
		c->ec_buf = nb;
		c->ec_bufsize *= 2;
	}
	if (bd.dtbd_drops > 0)
		eng_drops_cpu(h, cpu, DTRACEDROP_PRINCIPAL, bd.dtbd_drops);
	eng_export_time(h, bd.dtbd_timestamp);
	*sizep = bd.dtbd_size <= c->ec_bufsize ? bd.dtbd_size : 0;
	return 0;
}

/*
 * Did the output take what was written?  A closed pipe (EPIPE, SIGPIPE
 * being ignored) or a full disk ends processing, as libdtrace's
 * dtrace_work fails when its fprintf does: the caller says "processing
 * aborted: Broken pipe" instead of tracing into nothing.
 */
static int out_check(eng_hdl_t *h, FILE *fp)
{
	int err;

	errno = 0;
	if (fflush(fp) == 0 && !ferror(fp))
		return 0;
	err = errno != 0 ? errno : EIO;
	return eng_error(h, "%s", strerror(err));
}

/* Snapshot one CPU's principal buffer and format its records. */
static int consume_cpu(eng_hdl_t *h, FILE *fp, int cpu)
{
	size_t n;

	if (snap(h, cpu, &n) != 0)
		return -1;
	if (n > 0 && eng_rec_consume(h, fp, cpu, h->eh_cons->ec_buf, n) != 0)
		return -1;
	if (fp != NULL && out_check(h, fp) != 0)
		return -1;
	return 0;
}

/* The buffers are about to be switched: the high-water signal is met. */
static void clear_hiwat(eng_hdl_t *h)
{
	uint64_t n;
	int fd = ks_wakefd(h->eh_ks);

	if (fd >= 0)
		(void)!read(fd, &n, sizeof (n));
}

int eng_work(eng_hdl_t *h, FILE *fp)
{
	EXP_SCOPE(h, EXP_M_WORK);
	struct eng_consumer *c = h->eh_cons;
	uint64_t t = now_ns();

	if (!h->eh_go)
		return eng_error(h, "tracing is not active");
	if (c->ec_buf == NULL) {
		dtrace_optval_t sz = eng_opt_get(h, DTRACEOPT_BUFSIZE);

		c->ec_bufsize = sz > 0 && sz <= (1 << 28) ? (size_t)sz : 4 << 20;
		if ((c->ec_buf = malloc(c->ec_bufsize)) == NULL)
			return eng_error(h, "out of memory");
	}
	c->ec_nextswitch = t + rate(h, DTRACEOPT_SWITCHRATE);
	clear_hiwat(h);
	(void)eng_ecb_poll(h);		/* the enablings pane's counters */
	eng_pid_follow(h);		/* objects the targets loaded since */
	if (eng_exp_recording(h)) {	/* and map.xml, each tick, and */
		for (int i = 0; i < c->ec_ntargets; i++)	/* what the */
			eng_exp_note_maps(h, c->ec_targets[i]);	/* targets' */
		eng_exp_desc_poll(h->eh_exp);	/* descendants did */
	}
	if (prov_probes_added() && h->eh_ks != NULL)	/* usdt: processes */
		(void)ks_enable_retained(h->eh_ks, NULL);	/* started since */
	if (t >= c->ec_nextagg)
		c->ec_nextagg = t + rate(h, DTRACEOPT_AGGRATE);
	/* As dtrace_work: a fresh aggregation snapshot for printa(),
	 * clear() and trunc() met in the records. */
	if (eng_agg_snap(h) != 0)
		return -1;
	/* Ring and fill buffers hold their records until STOP and are read
	 * once then (before, snapshots are empty but report drops). */
	int once = eng_opt_get(h, DTRACEOPT_BUFPOLICY) !=
	    DTRACEOPT_BUFPOLICY_SWITCH && h->eh_stopped;
	if (once && c->ec_finalread)
		return 0;
	c->ec_finalread = once;
	/* As dtrace_consume: the CPU that ran BEGIN first (the first time),
	 * the one that ran END last once stopped, the others in order. */
	int first = c->ec_beganon, last = h->eh_stopped ? c->ec_endedon : -1;

	c->ec_beganon = -1;
	if (first >= 0 && consume_cpu(h, fp, first) != 0)
		return -1;
	for (int cpu = 0; cpu < c->ec_ncpus; cpu++)
		if (cpu != first && cpu != last &&
		    consume_cpu(h, fp, cpu) != 0)
			return -1;
	if (last >= 0 && last != first && consume_cpu(h, fp, last) != 0)
		return -1;
	eng_export_tick(h, fp);		/* chrome: counters */
	return 0;
}

int eng_handle_buffered(eng_hdl_t *h, eng_buffered_f *cb, void *arg)
{
	h->eh_cons->ec_buffered = cb;
	h->eh_cons->ec_buffered_arg = arg;
	return 0;
}

int eng_handle_drop(eng_hdl_t *h, eng_drop_f *cb, void *arg)
{
	h->eh_cons->ec_drop = cb;
	h->eh_cons->ec_drop_arg = arg;
	return 0;
}

int eng_handle_err(eng_hdl_t *h, eng_err_f *cb, void *arg)
{
	h->eh_cons->ec_err = cb;
	h->eh_cons->ec_err_arg = arg;
	return 0;
}

int eng_ncpus(eng_hdl_t *h)
{
	return h->eh_cons->ec_ncpus;
}

int eng_cpustat(eng_hdl_t *h, int cpu, eng_cpustat_t *out)
{
	ks_bufstat_t bs;

	if (cpu < 0 || cpu >= h->eh_cons->ec_ncpus)
		return eng_error(h, "no CPU %d", cpu);
	if (ks_bufstat(h->eh_ks, (unsigned)cpu, &bs) != 0)
		return eng_error(h, "no buffer state for CPU %d: %s", cpu,
		    ks_errmsg(h->eh_ks));
	memset(out, 0, sizeof (*out));
	out->ecs_cpu = cpu;
	out->ecs_policy = bs.kbs_policy;
	out->ecs_size = bs.kbs_size;
	out->ecs_used = bs.kbs_used;
	out->ecs_records = bs.kbs_records;
	out->ecs_fires = bs.kbs_fires;
	out->ecs_bytes = bs.kbs_bytes;
	out->ecs_drops = bs.kbs_drops;
	out->ecs_aggdrops = bs.kbs_aggdrops;
	out->ecs_errors = bs.kbs_errors;
	out->ecs_filled = bs.kbs_filled;
	out->ecs_hiwats = bs.kbs_hiwats;
	return 0;
}

int eng_globalstat(eng_hdl_t *h, dtrace_status_t *out)
{
	*out = h->eh_cons->ec_status;
	return 0;
}
