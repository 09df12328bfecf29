/*
 * buf.c - principal (and speculation) buffers of one CPU and the three
 * buffering policies of the DTrace guide ("Buffers and Buffering").
 *
 * Records are whole ECB records (dtrace_rechdr_t + data), 8-byte aligned,
 * sizes multiples of 8, never split.
 *   switch  two halves; probes trace into the active one; BUFSNAP swaps
 *           them under the fire lock and copies the now inactive one, so a
 *           snapshot is self-consistent and tracing never pauses.  A record
 *           that does not fit is dropped.
 *   fill    one buffer; the first record that does not fit (leaving the
 *           END reservation free) marks it filled and nothing more is
 *           traced into it; END itself may use the reservation.
 *   ring    one buffer [0, size).  Data is [oldest, offset) or, once
 *           wrapped, [oldest, lim) followed by [0, offset).  A new record
 *           evicts whole records from oldest on (their size comes from the
 *           state's EPID table); BUFSNAP linearises oldest to newest.
 *   spec    (speculations) one linear buffer; full means dropped.
 * Under every policy a record larger than the buffer is dropped.  Drops
 * count in kb_drops (since the last snapshot) and kb_totdrops.  Ring and
 * fill buffers are read only once tracing has stopped (as in DTrace):
 * before STOP their snapshots are empty; after it they copy the whole
 * buffer each time.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ks_impl.h"

int ks_buf_init(ks_buf_t *b, uint64_t size, int policy)
{
	memset(b, 0, sizeof(*b));
	b->kb_size = size;
	b->kb_policy = policy;
	b->kb_data[0] = ks_malloc(size);
	if (b->kb_data[0] == NULL)
		return -1;
	if (policy == DTRACEOPT_BUFPOLICY_SWITCH &&
	    (b->kb_data[1] = ks_malloc(size)) == NULL) {
		free(b->kb_data[0]);
		b->kb_data[0] = NULL;
		return -1;
	}
	return 0;
}

void ks_buf_fini(ks_buf_t *b)
{
	free(b->kb_data[0]);
	free(b->kb_data[1]);
	b->kb_data[0] = b->kb_data[1] = NULL;
}

void ks_buf_reset(ks_buf_t *b)
{
	b->kb_offset = b->kb_oldest = b->kb_lim = 0;
	b->kb_wrapped = 0;
	b->kb_filled = 0;
}

uint64_t ks_buf_used(const ks_buf_t *b)
{
	if (b->kb_policy == DTRACEOPT_BUFPOLICY_RING && b->kb_wrapped)
		return (b->kb_lim - b->kb_oldest) + b->kb_offset;
	return b->kb_offset - b->kb_oldest;
}

static void drop(ks_buf_t *b)
{
	b->kb_drops++;
	b->kb_totdrops++;
}

/*
 * The active half of a switch buffer passed half full: wake the consumer
 * (ks_wakefd) so it swaps before the half fills and records drop.  Once
 * per half: the flag is cleared when BUFSNAP swaps.
 */
static void hiwat(struct ks_state *st, ks_buf_t *b)
{
	uint64_t one = 1;

	b->kb_hiwat = 1;
	b->kb_hiwats++;
	if (st != NULL && st->st_wakefd >= 0)
		(void)!write(st->st_wakefd, &one, sizeof(one));
}

/* Evict the record at oldest; 0 if it cannot be sized (then all goes). */
static int evict_one(struct ks_state *st, ks_buf_t *b)
{
	uint64_t end = b->kb_wrapped ? b->kb_lim : b->kb_offset;
	dtrace_epid_t epid;
	uint32_t n;

	memcpy(&epid, b->kb_data[0] + b->kb_oldest, sizeof(epid));
	n = ks_state_recsize(st, epid);
	if (n == 0 || b->kb_oldest + n > end)
		return 0;
	b->kb_oldest += n;
	return 1;
}

/* Ring: make [offset, offset + n) free, evicting whole records. */
static char *ring_reserve(struct ks_state *st, ks_buf_t *b, uint64_t n)
{
	for (;;) {
		if (!b->kb_wrapped) {
			if (b->kb_offset + n <= b->kb_size)
				break;
			b->kb_lim = b->kb_offset;
			b->kb_offset = 0;
			b->kb_wrapped = 1;
			continue;
		}
		if (b->kb_offset + n <= b->kb_oldest)
			break;
		if (b->kb_oldest >= b->kb_lim || !evict_one(st, b)) {
			/* the older part is gone: [0, offset) is all */
			b->kb_oldest = 0;
			b->kb_wrapped = 0;
			b->kb_lim = 0;
			if (b->kb_offset + n > b->kb_size) {
				b->kb_lim = b->kb_offset;
				b->kb_offset = 0;
				b->kb_wrapped = 1;
			}
			continue;
		}
		if (b->kb_oldest >= b->kb_lim) {
			b->kb_oldest = 0;
			b->kb_wrapped = 0;
			b->kb_lim = 0;
		}
	}
	return b->kb_data[0] + b->kb_offset;
}

char *ks_buf_reserve(struct ks_state *st, ks_buf_t *b, uint64_t n,
    uint64_t resv)
{
	char *p;

	if (n > b->kb_size) {
		drop(b);
		return NULL;
	}
	switch (b->kb_policy) {
	case DTRACEOPT_BUFPOLICY_RING:
		p = ring_reserve(st, b, n);
		break;
	case DTRACEOPT_BUFPOLICY_FILL:
		if (resv == KS_BUF_END) {	/* END may use the reservation */
			if (b->kb_offset + n > b->kb_size) {
				drop(b);
				return NULL;
			}
		} else if (b->kb_filled || resv > b->kb_size ||
		    b->kb_offset + n > b->kb_size - resv) {
			if (!b->kb_filled) {
				b->kb_filled = 1;
				st->st_status.dtst_filled++;
			}
			drop(b);
			return NULL;
		}
		p = b->kb_data[0] + b->kb_offset;
		break;
	default:	/* switch, spec */
		if (b->kb_offset + n > b->kb_size) {
			drop(b);
			return NULL;
		}
		p = b->kb_data[b->kb_active] + b->kb_offset;
		break;
	}
	b->kb_offset += n;
	b->kb_records++;
	b->kb_bytes += n;
	if (b->kb_policy == DTRACEOPT_BUFPOLICY_SWITCH && !b->kb_hiwat &&
	    b->kb_offset >= b->kb_size / 2)
		hiwat(st, b);
	return p;
}

/* Copy out [oldest, end) (+ the wrapped part); fire lock held. */
static void copy_linear(const ks_buf_t *b, char *dst)
{
	if (b->kb_wrapped) {
		uint64_t first = b->kb_lim - b->kb_oldest;

		memcpy(dst, b->kb_data[0] + b->kb_oldest, first);
		memcpy(dst + first, b->kb_data[0], b->kb_offset);
		return;
	}
	memcpy(dst, b->kb_data[0] + b->kb_oldest, b->kb_offset - b->kb_oldest);
}

static void snap_fill_desc(ks_buf_t *b, dtrace_bufdesc_t *d, uint64_t n)
{
	d->dtbd_size = n;
	d->dtbd_drops = b->kb_drops;
	d->dtbd_errors = (uint32_t)b->kb_errors;
	d->dtbd_oldest = 0;
	d->dtbd_timestamp = ks_gethrtime();
	b->kb_drops = 0;
}

int ks_buf_snap(struct ks_state *st, ks_buf_t *b, dtrace_bufdesc_t *d)
{
	uint64_t n, cap = d->dtbd_size;
	const char *src;

	pthread_mutex_lock(&ks_fire_lock);
	if (b->kb_policy != DTRACEOPT_BUFPOLICY_SWITCH &&
	    st->st_activity != KS_ST_STOPPED) {
		/* ring and fill are read once, after STOP (DTrace answers
		 * EBUSY before; an empty snapshot needs no special case) */
		snap_fill_desc(b, d, 0);
		pthread_mutex_unlock(&ks_fire_lock);
		return 0;
	}
	n = ks_buf_used(b);
	if (n > cap || (n > 0 && d->dtbd_data == NULL)) {
		pthread_mutex_unlock(&ks_fire_lock);
		return -1;
	}
	if (b->kb_policy != DTRACEOPT_BUFPOLICY_SWITCH) {
		copy_linear(b, d->dtbd_data);
		snap_fill_desc(b, d, n);
		pthread_mutex_unlock(&ks_fire_lock);
		return 0;
	}
	src = b->kb_data[b->kb_active];
	b->kb_active ^= 1;
	b->kb_offset = 0;
	b->kb_hiwat = 0;
	snap_fill_desc(b, d, n);
	pthread_mutex_unlock(&ks_fire_lock);
	/* the inactive half is ours until the next BUFSNAP of this CPU */
	memcpy(d->dtbd_data, src, n);
	return 0;
}
