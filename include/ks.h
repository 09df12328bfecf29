/*
 * ks.h - the kernel shim's consumer interface: the part of the DTrace kernel
 * module's role that a consumer (the engine) may touch.
 *
 * A consumer opens a state (dtrace_state_t's role), hands it a DOF image
 * with DTRACEIOC_ENABLE, starts it with DTRACEIOC_GO, and from then on only
 * snapshots buffers and reads status through ks_ioctl().  Every structure
 * exchanged is defined in include/dtrace_abi.h.
 *
 * Contract:
 *   - ks_ioctl() returns 0 on success and -1 on failure with errno set
 *     (EINVAL bad argument, ENOENT no such id, EBUSY wrong state, ENOMEM,
 *     ENOSPC buffer too small, E2BIG/EINVAL for refused DOF); ks_errmsg()
 *     then says why in words.  It never prints and never aborts.
 *   - Calls on one state come from one consumer thread.  Probes fire from
 *     provider threads concurrently; the shim serialises what must be.
 *   - Options come from the DOF's OPTDESC section at ENABLE; options given
 *     in several ENABLEs must agree for buffer sizes (set before GO).
 */
#ifndef KS_H
#define KS_H

#include "dtrace_abi.h"

typedef struct ks_state ks_state_t;

/*
 * Open a consumer state.  Registers the built-in providers on first use.
 * Returns NULL with errno set on failure.  The state owns all buffers.
 */
ks_state_t *ks_open(void);

/* Stop tracing if needed, disable every ECB and free everything. */
void ks_close(ks_state_t *st);

/*
 * The ioctl-like entry point.  cmd is a DTRACEIOC_* value; arg points at:
 *   ENABLE      dtrace_enable_arg_t (may be called again while tracing:
 *               new ECBs start firing at once, existing data is kept)
 *   GO          uint32_t * (out: CPU on which BEGIN fired)
 *   STOP        uint32_t * (out: CPU on which END fired)
 *   BUFSNAP     dtrace_bufdesc_t (in: dtbd_cpu, dtbd_size, dtbd_data)
 *               switch: swaps the CPU's active/inactive pair and copies
 *               the inactive one; fill/ring: empty until STOP, then
 *               copies what is there (ring: linearised oldest to newest,
 *               dtbd_oldest = 0), as often as asked.
 *               dtbd_drops: principal drops on that CPU since the last
 *               BUFSNAP of it.
 *   AGGSNAP     dtrace_bufdesc_t: copies the CPU's aggregation records
 *               (each dtagd_size bytes, in arrival order; not consumed);
 *               dtbd_drops: aggregation drops on that CPU since GO.
 *               Both snapshots fail with ENOSPC, copying nothing, when
 *               dtbd_size is smaller than the data.
 *   STATUS      dtrace_status_t
 *   EPROBE      dtrace_eprobedesc_t (in: dtepd_epid, dtepd_nrecs = room)
 *   AGGDESC     dtrace_aggdesc_t (in: dtagd_id, dtagd_nrecs = room)
 *   PROBES      dtrace_probedesc_t (in: dtpd_id; out: first probe >= id)
 *   PROBEMATCH  dtrace_probedesc_t (in: globs and dtpd_id; out: next match)
 *               Both fail with ESRCH past the last probe; providers are
 *               asked to provide when dtpd_id <= 1 (start of a walk).
 *   PROBEARG    dtrace_argdesc_t
 *   FORMAT      dtrace_fmtdesc_t
 *   DISABLE     uint32_t * (an ENABLE's dtea_enabling): its ECBs stop
 *               firing at once; their descriptions (EPROBE, AGGDESC)
 *               and the data already recorded stay valid.  ENOENT if
 *               no such enabling or it is already disabled.
 *   CONF        dtrace_conf_t
 */
int ks_ioctl(ks_state_t *st, int cmd, void *arg);

/* Retained enablings: probes created since the enablings were made (a
 * pid provider's probes in an object loaded later) get the ECBs of every
 * enabling still on whose descriptions match them.  *nnew: ECBs made.
 * 0, or -1 with ks_errmsg. */
int ks_enable_retained(ks_state_t *st, uint32_t *nnew);

/* Words for the last failure on this state ("" if none).  Borrowed. */
const char *ks_errmsg(const ks_state_t *st);

/* The value of an option in force (after ENABLE), DTRACEOPT_UNSET if not. */
dtrace_optval_t ks_getopt(const ks_state_t *st, int option);

/* Per-CPU buffer state for live displays (cheap; no snapshot taken). */
typedef struct ks_bufstat {
	uint64_t kbs_size;		/* principal buffer size */
	uint64_t kbs_used;		/* bytes in the active buffer */
	uint64_t kbs_records;		/* records written since GO */
	uint64_t kbs_fires;		/* ECBs run since GO (events) */
	uint64_t kbs_bytes;		/* bytes written since GO */
	uint64_t kbs_drops;		/* principal drops since GO */
	uint64_t kbs_aggdrops;		/* aggregation drops since GO */
	uint64_t kbs_errors;		/* errors on this CPU since GO */
	int kbs_policy;			/* DTRACEOPT_BUFPOLICY_* */
	int kbs_filled;			/* fill policy: this buffer filled */
	uint64_t kbs_hiwats;		/* switch policy: times the active
					 * buffer passed half full since GO */
} ks_bufstat_t;
int ks_bufstat(ks_state_t *st, unsigned cpu, ks_bufstat_t *out);

/*
 * A descriptor (an eventfd) that becomes readable when, under the switch
 * policy, a CPU's active principal buffer passes half full: the consumer
 * should BUFSNAP that CPU now rather than at the next switchrate tick, so
 * that it switches before it drops.  Signalled once per buffer half; the
 * consumer reads the 8-byte count to clear it.  -1 if none could be made
 * (then only switchrate applies).  Owned by the state.
 */
int ks_wakefd(const ks_state_t *st);

/* Number of CPU slots (max possible cpu id + 1). */
unsigned ks_ncpus(void);

/*
 * Provider faults (ks_provider_fault, ks_provider.h): a source that
 * failed after tracing began.  ks_fault_seq: how many so far (a new
 * reader's cursor); ks_fault_next: the next message after *seq into buf
 * (1), or 0 when none; *missed counts those overwritten (a ring of 16)
 * before this reader got to them.
 */
uint64_t ks_fault_seq(void);
int ks_fault_next(uint64_t *seq, char *buf, size_t len, uint64_t *missed);

#endif /* KS_H */
