/*
 * providers.c - registering every Linux provider, the route text, drop
 * counters and small helpers the providers share.
 *
 * prov_register_all() is idempotent: the first call registers profile
 * (always), then, when perf tracepoints are usable (root or CAP_PERFMON),
 * syscall, proc, sched and sdt on the perf route.  Otherwise (or when
 * DTUI_ROUTE=ptrace asks for it) syscall and proc come from the ptrace
 * route for -c/-p targets, and sched and sdt are not registered, so their
 * probes are not listed.  Notes such as "mounted
 * tracefs" are kept for prov_route(), because library code never prints.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "providers.h"
#include "prov_impl.h"
#include "uprobe.h"
#include "bpf_agg.h"

#define NOTES_LEN 256
#define MAX_DROP_CPUS 1024

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static int registered;
static char notes[NOTES_LEN];
static char route[NOTES_LEN + 64];
static uint64_t drops[MAX_DROP_CPUS];
static int use_ptrace;			/* the unprivileged route */

int prov_is_privileged(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	if (geteuid() == 0)
		return 1;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	/* CAP_PERFMON is 38 (second word), CAP_SYS_ADMIN 21. */
	return (data[1].effective & (1u << (38 - 32))) != 0 ||
	    (data[0].effective & (1u << 21)) != 0;
}

void prov_note(const char *fmt, ...)
{
	char line[128];
	va_list ap;
	size_t n = strlen(notes);

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(notes, line) != NULL)
		return;
	snprintf(notes + n, sizeof(notes) - n, "%s%s", n ? "; " : "", line);
}

void prov_drops_add(uint32_t cpu, uint64_t n)
{
	if (cpu < MAX_DROP_CPUS)
		__atomic_add_fetch(&drops[cpu], n, __ATOMIC_RELAXED);
	ks_provider_drops(cpu, n);
}

uint64_t prov_drops(int cpu)
{
	uint64_t sum = 0;

	if (cpu >= 0)
		return cpu < MAX_DROP_CPUS ?
		    __atomic_load_n(&drops[cpu], __ATOMIC_RELAXED) : 0;
	for (int i = 0; i < MAX_DROP_CPUS; i++)
		sum += __atomic_load_n(&drops[i], __ATOMIC_RELAXED);
	return sum;
}

static void (*fire_hook)(const ks_probe_ctx_t *ctx);

void prov_fire(const ks_probe_ctx_t *ctx)
{
	void (*fn)(const ks_probe_ctx_t *) = __atomic_load_n(&fire_hook,
	    __ATOMIC_ACQUIRE);

	if (fn != NULL)
		fn(ctx);
	else
		ks_probe_fire(ctx);
}

void prov_fire_n(const ks_probe_ctx_t *ctx, uint64_t n)
{
	void (*fn)(const ks_probe_ctx_t *) = __atomic_load_n(&fire_hook,
	    __ATOMIC_ACQUIRE);

	if (fn == NULL) {
		ks_probe_fire_n(ctx, n);
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		fn(ctx);
}

int prov_firings_count(void)
{
	return __atomic_load_n(&fire_hook, __ATOMIC_ACQUIRE) != NULL ||
	    ks_tracing();
}

void prov_set_fire_hook(void (*fn)(const ks_probe_ctx_t *ctx))
{
	__atomic_store_n(&fire_hook, fn, __ATOMIC_RELEASE);
}

int prov_is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

int prov_desc_allows(const char *field, const char *v)
{
	if (field == NULL || field[0] == '\0')
		return 1;
	return fnmatch(field, v, 0) == 0;
}

int prov_register_all(void)
{
	int rc = 0;

	pthread_mutex_lock(&reg_lock);
	if (registered) {
		pthread_mutex_unlock(&reg_lock);
		return 0;
	}
	registered = 1;
	if (prov_profile_register() != 0)
		rc = -1;
	use_ptrace = !prov_is_privileged() || prov_tracefs_root() == NULL ||
	    (getenv("DTUI_ROUTE") != NULL &&
	    strcmp(getenv("DTUI_ROUTE"), "ptrace") == 0);
	prov_vtime_init(use_ptrace);
	if (use_ptrace) {
		if (prov_ptrace_register() != 0)
			rc = -1;
		prov_note("syscall and proc only for -c/-p targets; sched and "
		    "sdt need root or CAP_PERFMON");
	} else if (prov_syscall_register() != 0 ||
	    prov_proc_register() != 0 || prov_sched_register() != 0 ||
	    prov_sdt_register() != 0) {
		rc = -1;
	}
	/* both routes: usdt probes are listed from the notes anywhere, and
	 * enabling one without privileges says why it cannot be */
	if (prov_usdt_register() != 0)
		rc = -1;
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

static int target_add(int pid, int held)
{
	prov_pcache_prime(pid);		/* its exec may not be seen */
	if (!use_ptrace && !prov_ptup_route())
		return 0;	/* perf sees every process; $target filters */
	return prov_ptrace_target_add(pid, held);  /* and pid/usdt breakpoints */
}

int prov_target_add(int pid)
{
	return target_add(pid, 0);
}

int prov_target_add_held(int pid)
{
	return target_add(pid, 1);
}

int prov_target_ptrace(void)
{
	return use_ptrace || prov_ptup_route();
}

int prov_target_evalhold(int pid, const prov_evalpt_t *ev)
{
	if (!use_ptrace && !prov_ptup_route())
		return 0;
	return prov_ptrace_evalhold(pid, ev);
}

int prov_target_evalheld(int pid)
{
	return prov_ptrace_evalheld(pid);
}

void prov_target_evalgo(int pid)
{
	prov_ptrace_evalgo(pid);
}

int prov_target_syscalls(int *nrs, int max)
{
	if (!use_ptrace)
		return -1;
	return prov_ptrace_syscalls(nrs, max);
}

const char *prov_user_stats(uint64_t *hits, uint64_t *ns)
{
	if (prov_ptup_route())
		return prov_ptup_stats(hits, ns);
	return prov_uprobe_stats(hits, ns);
}

const char *prov_route(void)
{
	const char *base = !use_ptrace ? "perf (root)" :
	    "ptrace (own processes)";

	snprintf(route, sizeof(route), "%s%s%s%s", base,
	    prov_ptup_route() ? ", pid/usdt by breakpoints" : "",
	    notes[0] ? ": " : "", notes);
	return route;
}

void prov_go(void)
{
	prov_usdt_go();
	prov_ptrace_go();
}

void prov_flush(void)
{
	uint64_t now = ks_gethrtime();

	prov_perf_flush();
	prov_bpf_agg_drain(1);		/* counts made in the kernel */
	prov_profile_flush(now);	/* idle CPUs' profile-N up to now */
	prov_ptrace_flush();
}

void prov_shutdown(void)
{
	prov_profile_shutdown();
	prov_ptrace_shutdown();
	prov_usdt_shutdown();
	prov_uprobe_shutdown();
	prov_bpf_shutdown();
	prov_perf_shutdown();
	prov_bpf_agg_shutdown();	/* no program or drain uses them */
}
