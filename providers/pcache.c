/*
 * pcache.c - what a perf sample does not carry about its thread: parent
 * pid, uid, gid and comm, read from /proc/PID/task/TID/status once per
 * thread and cached.
 *
 * The cache is direct-mapped by tid and used by the drain thread only.
 * Fork seeds the child from its parent (PERF_RECORD_FORK: comm and
 * credentials are inherited), exec and prctl(PR_SET_NAME) update comm
 * through PERF_RECORD_COMM, exit forgets the thread through
 * PERF_RECORD_EXIT; the drain thread merges all rings by timestamp, so
 * these arrive in event order with the samples.  Known limits: a thread
 * first seen after it exited has no /proc entry (comm comes from the
 * tracepoint if it has one, else stays empty); uid/gid changes after the
 * first sighting (setuid) are not followed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "prov_impl.h"

#define SLOTS 8192

static prov_pinfo_t cache[SLOTS];

static void read_status(prov_pinfo_t *p, int32_t tid, int32_t pid)
{
	char path[64], buf[2048], *line, *save = NULL;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status",
	    pid > 0 ? pid : tid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Name:\t", 6) == 0)
			snprintf(p->ppi_comm, sizeof(p->ppi_comm), "%s",
			    line + 6);
		else if (strncmp(line, "Tgid:\t", 6) == 0)
			p->ppi_pid = atoi(line + 6);
		else if (strncmp(line, "PPid:\t", 6) == 0)
			p->ppi_ppid = atoi(line + 6);
		else if (strncmp(line, "Uid:\t", 5) == 0)
			p->ppi_uid = (uint32_t)strtoul(line + 5, NULL, 10);
		else if (strncmp(line, "Gid:\t", 5) == 0)
			p->ppi_gid = (uint32_t)strtoul(line + 5, NULL, 10);
	}
}

const prov_pinfo_t *prov_pcache_get(int32_t tid, int32_t pid)
{
	prov_pinfo_t *p;

	if (tid <= 0) {			/* the idle task */
		static const prov_pinfo_t idle = { .ppi_comm = "sched" };

		return &idle;
	}
	p = &cache[(uint32_t)tid % SLOTS];
	if (p->ppi_tid == tid)
		return p;
	memset(p, 0, sizeof(*p));
	p->ppi_tid = tid;
	p->ppi_pid = pid;
	read_status(p, tid, pid);
	return p;
}

void prov_pcache_comm(int32_t tid, int32_t pid, const char *comm)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];

	if (p->ppi_tid != tid) {
		prov_pcache_get(tid, pid);
		if (p->ppi_tid != tid)
			return;
	}
	snprintf(p->ppi_comm, sizeof(p->ppi_comm), "%s", comm);
}

void prov_pcache_fork(int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];
	const prov_pinfo_t *parent = prov_pcache_get(ptid, ppid);
	prov_pinfo_t copy = *parent;

	if (parent->ppi_tid != ptid)
		return;			/* the parent is unknown too */
	*p = copy;
	p->ppi_tid = tid;
	p->ppi_pid = pid;
	if (pid != ppid)		/* a new process, not a thread */
		p->ppi_ppid = ppid;
}

void prov_pcache_forget(int32_t tid)
{
	prov_pinfo_t *p = &cache[(uint32_t)tid % SLOTS];

	if (p->ppi_tid == tid)
		p->ppi_tid = 0;
}
