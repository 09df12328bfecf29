/*
 * test_bpf_slots.c - bpf.c's attachment slots are reused (root only):
 * thousands of enable/disable cycles of a probe leave it on the BPF route
 * counting exactly; a record an old owner left in a ring, and the old
 * owner's stub that stays attached until its deferred close, never reach
 * the slot's next owner.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "live.h"
#include "bpf_filter.h"

#define NCYCLES 5000
#define NCALLS 300

typedef struct seen {
	pid_t se_pid;			/* count this process's records */
	int se_nr[2];			/* of these system call numbers */
	int se_n[2];
	int se_other;
	int se_block;			/* first record: wait for go */
} seen_t;

static pthread_mutex_t blk = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bcv = PTHREAD_COND_INITIALIZER;
static int blocked, go;

/* Drain thread: count the record (syscalls:sys_enter_*: the number at
 * offset 8); the first may block the drain thread until go. */
static void on_rec(void *arg, const prov_perf_sample_t *s)
{
	seen_t *se = arg;
	int32_t nr;

	if (s->pps_pid != __atomic_load_n(&se->se_pid, __ATOMIC_ACQUIRE) ||
	    s->pps_rawlen < 12)
		return;
	memcpy(&nr, s->pps_raw + 8, 4);
	if (nr == se->se_nr[0])
		se->se_n[0]++;
	else if (nr == se->se_nr[1])
		se->se_n[1]++;
	else
		se->se_other++;
	pthread_mutex_lock(&blk);
	if (se->se_block) {
		se->se_block = 0;
		blocked = 1;
		pthread_cond_broadcast(&bcv);
		while (!go)
			pthread_cond_wait(&bcv, &blk);
	}
	pthread_mutex_unlock(&blk);
}

static void getppids(void)
{
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
}

static void getppids_getpgids(void)
{
	getppids();
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_getpgid, 0);
}

/* A child that waits for a byte on *gofd, then runs fn. */
static pid_t child(void (*fn)(void), int *gofd)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(99);
		fn();
		_exit(0);
	}
	close(p[0]);
	*gofd = p[1];
	return pid;
}

static void child_go(pid_t pid, int gofd)
{
	assert_int_equal(write(gofd, "g", 1), 1);
	close(gofd);
	waitpid(pid, NULL, 0);
}

static int tpid(const char *event)
{
	const prov_tf_format_t *fmt = prov_tp_format("syscalls", event);

	if (fmt == NULL) {
		print_message("no syscalls:%s\n", event);
		skip();
	}
	return (int)fmt->tff_id;
}

/* Slot 0 only: A on sys_enter_getppid; its records queue behind a
 * drain thread blocked in A's callback; A is released and B gets slot 0,
 * on sys_enter_getpgid (A's stub, kept idle, is closed for it) or, same,
 * on sys_enter_getppid too (A's stub is taken over).  A's queued records
 * must reach nobody, nor the hits of A's closed stub (attached until
 * its close in the background); B then sees exactly its own. */
static void old_owner(int same)
{
	seen_t a = { .se_nr = { SYS_getppid, SYS_getpgid }, .se_block = 1 };
	seen_t b = { .se_nr = { SYS_getppid, SYS_getpgid } };
	int sa, sb, gofd = -1, mine = same ? 0 : 1;
	uint64_t reused = prov_bpf_slots_reused();
	pid_t pid;

	live_require();
	blocked = go = 0;
	prov_bpf_set_maxslots(1);
	pid = child(getppids, &gofd);
	a.se_pid = b.se_pid = pid;
	sa = prov_bpf_copy(tpid("sys_enter_getppid"), 16, 0, on_rec, &a);
	if (sa < 0) {
		prov_bpf_set_maxslots(0);
		print_message("no BPF route here\n");
		skip();
	}
	child_go(pid, gofd);
	pthread_mutex_lock(&blk);
	while (!blocked)
		pthread_cond_wait(&bcv, &blk);
	pthread_mutex_unlock(&blk);
	prov_bpf_release(sa);
	sb = prov_bpf_copy(tpid(same ? "sys_enter_getppid" :
	    "sys_enter_getpgid"), 16, 0, on_rec, &b);
	assert_int_equal(sb, sa);	/* the same slot, a new owner */
	pthread_mutex_lock(&blk);
	go = 1;
	pthread_cond_broadcast(&bcv);
	pthread_mutex_unlock(&blk);
	usleep(200000);
	prov_flush();
	print_message("A saw %d, B saw %d of A's\n", a.se_n[0],
	    b.se_n[0] + b.se_n[1] + b.se_other);
	assert_int_equal(a.se_n[0], 1);		/* the blocking one */
	assert_int_equal(b.se_n[0] + b.se_n[1] + b.se_other, 0);
	pid = child(getppids_getpgids, &gofd);
	__atomic_store_n(&b.se_pid, pid, __ATOMIC_RELEASE);
	child_go(pid, gofd);
	usleep(200000);
	prov_flush();
	print_message("B saw %d getppid, %d getpgid, %d other\n", b.se_n[0],
	    b.se_n[1], b.se_other);
	prov_bpf_release(sb);
	prov_bpf_set_maxslots(0);
	assert_int_equal(b.se_n[mine], NCALLS);
	assert_int_equal(b.se_n[1 - mine], 0);
	assert_int_equal(b.se_other, 0);
	assert_true(prov_bpf_slots_reused() > reused);
}

static void old_owner_other_tp(void **state)
{
	(void)state;
	old_owner(0);
}

static void old_owner_same_tp(void **state)
{
	(void)state;
	old_owner(1);
}

static void after(void)
{
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_sched_get_priority_max, 12345);
}

/* More cycles than there are slots: the last enabling is still on the
 * BPF route and counts exactly. */
static void many_cycles(void **state)
{
	uint64_t reused = prov_bpf_slots_reused();
	dtrace_id_t id = DTRACE_IDNONE;
	pid_t pid;

	(void)state;
	live_require();
	for (int i = 0; i < NCYCLES; i++) {
		id = live_enable("syscall", "", "sched_get_priority_max",
		    "entry");
		if (i == 0 && prov_bpf_filter_find(id) < 0) {
			live_disable(id);
			print_message("no BPF route for syscall probes\n");
			skip();
		}
		live_disable(id);
	}
	id = live_enable("syscall", "", "sched_get_priority_max", "entry");
	assert_true(prov_bpf_filter_find(id) >= 0);
	live_reset();
	pid = live_run(after);
	print_message("%d cycles: %llu slots reused, %d of %d counted\n",
	    NCYCLES, (unsigned long long)(prov_bpf_slots_reused() - reused),
	    live_count(id, pid), NCALLS);
	assert_int_equal(live_count(id, pid), NCALLS);
	live_disable(id);
	assert_true(prov_bpf_slots_reused() - reused > 0);
}

/* Few slots, many probes on their own tracepoints enabled and disabled
 * in turn: freed slots go to other tracepoints (idle stubs closed, slots
 * rested) and every enabling still counts exactly on the BPF route. */
static const char *const calls[] = { "getppid", "getpgid", "getuid",
	"geteuid", "getgid" };
#define NPROBES (int)(sizeof(calls) / sizeof(calls[0]))

static void all_calls(void)
{
	for (int i = 0; i < NCALLS; i++) {
		syscall(SYS_getppid);
		syscall(SYS_getpgid, 0);
		syscall(SYS_getuid);
		syscall(SYS_geteuid);
		syscall(SYS_getgid);
	}
}

static void few_slots_many_probes(void **state)
{
	uint64_t reused = prov_bpf_slots_reused();
	dtrace_id_t id;
	pid_t pid;
	int bad = 0;

	(void)state;
	live_require();
	prov_bpf_set_maxslots(2);
	for (int round = 0; round < 3; round++)
		for (int k = 0; k < NPROBES; k++) {
			id = live_enable("syscall", "", calls[k], "entry");
			if (prov_bpf_filter_find(id) < 0)
				bad++;
			live_reset();
			pid = live_run(all_calls);
			if (live_count(id, pid) != NCALLS) {
				print_message("%s: %d of %d\n", calls[k],
				    live_count(id, pid), NCALLS);
				bad++;
			}
			live_disable(id);
		}
	prov_bpf_set_maxslots(0);
	print_message("%llu slots reused\n", (unsigned long long)
	    (prov_bpf_slots_reused() - reused));
	assert_int_equal(bad, 0);
	assert_true(prov_bpf_slots_reused() - reused >= 3 * NPROBES - 2);
}

/* The events closed in the background (bpf.c) hold a kernel-wide mutex
 * ~60 ms each: let them go before the next test binary attaches. */
static int teardown(void **state)
{
	int rc = live_teardown(state);

	sleep(3);
	return rc;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(old_owner_other_tp),
		cmocka_unit_test(old_owner_same_tp),
		cmocka_unit_test(many_cycles),
		cmocka_unit_test(few_slots_many_probes),
	};
	return cmocka_run_group_tests_name("prov_bpf_slots", tests,
	    live_setup, teardown);
}
