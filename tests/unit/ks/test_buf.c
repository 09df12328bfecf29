/*
 * test_buf.c - principal buffers under the three policies, with exact
 * accounting: fire N probes into a small buffer and check records kept +
 * drops == N; ring order; fill with the END reservation and its refusal;
 * switch snapshots; records larger than the buffer.
 */
#include <poll.h>
#include <unistd.h>
#include "ks_test.h"

#define REC	24	/* header 12, 8-byte value at 16 */

/* A state tracing arg0 on ktest:::p6 with bufsize and policy. */
static ks_state_t *setup(uint64_t bufsize, int policy, int end_traces,
    int rc_want, char *msg, size_t msglen)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[8];
	int i;

	kt_setup();
	dofb_option(b, DTRACEOPT_BUFSIZE, bufsize);
	dofb_option(b, DTRACEOPT_BUFPOLICY, (uint64_t)policy);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 6, DOF_SECIDX_NONE, a, 1);
	for (i = 0; i < end_traces; i++)
		a[i] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b, 99, 8), 0);
	if (end_traces > 0)
		dofb_ecb(b, dofb_probedesc(b, "dtrace", "", "", "END"),
		    DOF_SECIDX_NONE, dofb_actions(b, a, (uint32_t)end_traces), 2);
	assert_int_equal(kt_enable_msg(st, b, msg, msglen, NULL), rc_want);
	if (rc_want != 0) {
		ks_close(st);
		return NULL;
	}
	kt_go(st);
	return st;
}

/* Values of arg0 records in buf[0, n) (EPID 1 only), into out. */
static int values(const char *buf, uint64_t n, uint64_t *out, int max)
{
	uint64_t off = 0;
	int k = 0;

	while (off + REC <= n) {
		dtrace_epid_t epid;

		memcpy(&epid, buf + off, 4);
		if (epid != 1)
			break;
		if (k < max)
			memcpy(&out[k], buf + off + 16, 8);
		k++;
		off += REC;
	}
	return k;
}

static void switch_policy(void **state)
{
	ks_state_t *st = setup(256, DTRACEOPT_BUFPOLICY_SWITCH, 0, 0, NULL, 0);
	char buf[256];
	uint64_t v[64], drops, n;
	int i, k;

	(void)state;
	for (i = 0; i < 30; i++)
		kt_fire(6, 0, (uint64_t)i, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, &drops);
	k = values(buf, n, v, 64);
	assert_int_equal(k, 256 / REC);
	assert_int_equal((uint64_t)k + drops, 30);
	for (i = 0; i < k; i++)
		assert_int_equal(v[i], (uint64_t)i);
	/* the other half is now active and empty */
	for (i = 0; i < 5; i++)
		kt_fire(6, 0, 100 + (uint64_t)i, 0);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, &drops);
	assert_int_equal(values(buf, n, v, 64), 5);
	assert_int_equal(drops, 0);
	assert_int_equal(v[0], 100);
	/* nothing new: an empty snapshot */
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, &drops), 0);
	ks_close(st);
}

/* Is the state's high-water descriptor readable now?  Reads it if so. */
static int hiwat_signalled(ks_state_t *st)
{
	struct pollfd pfd = { .fd = ks_wakefd(st), .events = POLLIN };
	uint64_t n;

	assert_true(pfd.fd >= 0);
	if (poll(&pfd, 1, 0) != 1)
		return 0;
	assert_int_equal(read(pfd.fd, &n, sizeof(n)), (ssize_t)sizeof(n));
	return 1;
}

/*
 * The switch policy wakes the consumer when the active half passes half
 * full (so it can switch before it drops): once per half, again after
 * the swap, never for ring or fill.
 */
static void switch_high_water(void **state)
{
	ks_state_t *st = setup(240, DTRACEOPT_BUFPOLICY_SWITCH, 0, 0, NULL, 0);
	char buf[256];
	uint64_t drops;
	ks_bufstat_t bs;
	int i;

	(void)state;
	for (i = 0; i < 4; i++)		/* 96 of 240 bytes: below half */
		kt_fire(6, 0, (uint64_t)i, 0);
	assert_false(hiwat_signalled(st));
	kt_fire(6, 0, 4, 0);		/* 120: half */
	assert_true(hiwat_signalled(st));
	for (i = 0; i < 20; i++)	/* full and dropping: no second signal */
		kt_fire(6, 0, 5, 0);
	assert_false(hiwat_signalled(st));
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, &drops), 240);
	for (i = 0; i < 5; i++)		/* the other half, once more */
		kt_fire(6, 0, 6, 0);
	assert_true(hiwat_signalled(st));
	assert_int_equal(ks_bufstat(st, 0, &bs), 0);
	assert_int_equal(bs.kbs_hiwats, 2);
	ks_close(st);

	st = setup(240, DTRACEOPT_BUFPOLICY_RING, 0, 0, NULL, 0);
	for (i = 0; i < 30; i++)
		kt_fire(6, 0, (uint64_t)i, 0);
	assert_false(hiwat_signalled(st));
	ks_close(st);
}

static void snapshot_needs_room(void **state)
{
	ks_state_t *st = setup(256, DTRACEOPT_BUFPOLICY_SWITCH, 0, 0, NULL, 0);
	dtrace_bufdesc_t d;
	char small[16];

	(void)state;
	kt_fire(6, 0, 1, 0);
	memset(&d, 0, sizeof(d));
	d.dtbd_size = sizeof(small);
	d.dtbd_data = small;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_BUFSNAP, &d), -1);
	d.dtbd_cpu = 100000;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_BUFSNAP, &d), -1);
	ks_close(st);
}

static void stop(ks_state_t *st)
{
	uint32_t cpu;

	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &cpu), 0);
}

static void fill_policy(void **state)
{
	ks_state_t *st = setup(256, DTRACEOPT_BUFPOLICY_FILL, 0, 0, NULL, 0);
	char buf[256];
	uint64_t v[64], drops, drops2, n;
	ks_bufstat_t bs;
	int i, k;

	(void)state;
	for (i = 0; i < 30; i++)
		kt_fire(6, 0, (uint64_t)i, 0);
	assert_int_equal(ks_bufstat(st, 0, &bs), 0);
	assert_int_equal(bs.kbs_filled, 1);
	assert_int_equal(bs.kbs_records, 256 / REC);
	assert_int_equal(kt_status(st).dtst_filled, 1);
	/* read only after STOP, as in DTrace */
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, &drops), 0);
	stop(st);
	n = kt_snap(st, 0, buf, sizeof(buf), 0, &drops2);
	k = values(buf, n, v, 64);
	assert_int_equal(k, 256 / REC);
	assert_int_equal((uint64_t)k + drops + drops2, 30);
	assert_int_equal(v[k - 1], (uint64_t)k - 1);
	ks_close(st);
}

static void fill_end_reservation(void **state)
{
	ks_state_t *st = setup(256, DTRACEOPT_BUFPOLICY_FILL, 1, 0, NULL, 0);
	char buf[256];
	uint64_t drops, n, v[64], endval;
	uint32_t cpu;
	dtrace_epid_t epid;
	int i, k;

	(void)state;
	for (i = 0; i < 30; i++)
		kt_fire(6, 0, (uint64_t)i, 0);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_STOP, &cpu), 0);
	n = kt_snap(st, cpu, buf, sizeof(buf), 0, &drops);
	k = values(buf, n, v, 64);
	if (cpu == 0) {
		/* (256 - 24 reserved) / 24 records, then END's */
		assert_int_equal(k, (256 - REC) / REC);
		assert_int_equal((uint64_t)k + drops, 30);
		assert_int_equal(n, (uint64_t)(k + 1) * REC);
		memcpy(&epid, buf + k * REC, 4);
		assert_int_equal(epid, 2);
		memcpy(&endval, buf + k * REC + 16, 8);
		assert_int_equal(endval, 99);
	} else {
		assert_int_equal(n, REC);
	}
	ks_close(st);
}

static void fill_end_refused(void **state)
{
	char msg[256];

	(void)state;
	/* END records 12 + 5 * 8 -> 56 bytes > 48 */
	assert_null(setup(48, DTRACEOPT_BUFPOLICY_FILL, 5, -1, msg,
	    sizeof(msg)));
	assert_string_equal(msg,
	    "END enablings exceed size of principal buffer");
}

static void ring_policy(void **state)
{
	ks_state_t *st = setup(256, DTRACEOPT_BUFPOLICY_RING, 0, 0, NULL, 0);
	char buf[256];
	uint64_t v[64], drops, n;
	int i, k, again;

	(void)state;
	for (i = 0; i < 7 + 13; i++)
		kt_fire(6, 0, (uint64_t)i, 0);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 0);
	stop(st);
	for (again = 0; again < 2; again++) {	/* not consumed */
		n = kt_snap(st, 0, buf, sizeof(buf), 0, &drops);
		k = values(buf, n, v, 64);
		assert_int_equal(n, (uint64_t)k * REC);
		assert_int_equal(drops, 0);
		assert_true(k >= 256 / REC - 1 && k <= 256 / REC);
		/* oldest to newest, ending with the last one fired */
		for (i = 0; i < k; i++)
			assert_int_equal(v[i], (uint64_t)(20 - k + i));
	}
	ks_close(st);
}

static void ring_keeps_newest(void **state)
{
	ks_state_t *st = setup(256, DTRACEOPT_BUFPOLICY_RING, 0, 0, NULL, 0);
	char buf[256];
	uint64_t v[64], n;
	int i, k, total;

	(void)state;
	for (total = 1; total < 40; total++) {
		ks_close(st);
		st = setup(256, DTRACEOPT_BUFPOLICY_RING, 0, 0, NULL, 0);
		for (i = 0; i < total; i++)
			kt_fire(6, 0, (uint64_t)i, 0);
		stop(st);
		n = kt_snap(st, 0, buf, sizeof(buf), 0, NULL);
		k = values(buf, n, v, 64);
		assert_int_equal(n, (uint64_t)k * REC);
		assert_true(k == total || (total > 256 / REC &&
		    k >= 256 / REC - 1 && k <= 256 / REC));
		for (i = 0; i < k; i++)
			assert_int_equal(v[i], (uint64_t)(total - k + i));
	}
	kt_fire(6, 0, 0, 0);	/* stopped: not traced */
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), n);
	ks_close(st);
}

static void too_large_dropped(void **state)
{
	static const int pol[3] = { DTRACEOPT_BUFPOLICY_SWITCH,
	    DTRACEOPT_BUFPOLICY_FILL, DTRACEOPT_BUFPOLICY_RING };
	int p;

	(void)state;
	for (p = 0; p < 3; p++) {
		ks_state_t *st = setup(16, pol[p], 0, 0, NULL, 0);
		char buf[16];
		uint64_t drops;
		int i;

		for (i = 0; i < 4; i++)
			kt_fire(6, 0, 1, 0);
		assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, &drops),
		    0);
		assert_int_equal(drops, 4);
		ks_close(st);
	}
}

static void per_cpu(void **state)
{
	ks_state_t *st;
	char buf[256];
	uint64_t drops, v[16];

	(void)state;
	if (ks_ncpus() < 2) {
		print_message("one CPU here: no second CPU's buffer to keep "
		    "apart\n");
		skip();
	}
	st = setup(256, DTRACEOPT_BUFPOLICY_SWITCH, 0, 0, NULL, 0);
	kt_fire(6, 1, 11, 0);
	kt_fire(6, 0, 10, 0);
	assert_int_equal(values(buf, kt_snap(st, 1, buf, sizeof(buf), 0,
	    &drops), v, 16), 1);
	assert_int_equal(v[0], 11);
	assert_int_equal(values(buf, kt_snap(st, 0, buf, sizeof(buf), 0,
	    &drops), v, 16), 1);
	assert_int_equal(v[0], 10);
	ks_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(switch_policy),
		cmocka_unit_test(switch_high_water),
		cmocka_unit_test(snapshot_needs_room),
		cmocka_unit_test(fill_policy),
		cmocka_unit_test(fill_end_reservation),
		cmocka_unit_test(fill_end_refused),
		cmocka_unit_test(ring_policy),
		cmocka_unit_test(ring_keeps_newest),
		cmocka_unit_test(too_large_dropped),
		cmocka_unit_test(per_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
