/*
 * prov_usdt.c - the usdt provider: the <sys/sdt.h> probes of running
 * processes as <provider><pid>:<module>:<function>:<name>
 * (python1234:libpython3.11.so:_PyEval_EvalFrameDefault:function-entry),
 * placed with uprobes (uprobe/uprobe.h) as root.
 *
 * A meta provider (ks_provider_register_meta): for each description whose
 * provider field names a process (python1234, as $target and -p make it)
 * or is a glob with a literal start (python*: every running process is
 * looked at), it reads /proc/PID/maps, the notes of each mapped object
 * (note.c, cached per file), and registers the provider <provider><pid>
 * with one probe per (module, function, name); "__" in a note's name is
 * "-" in the probe's, as dtrace spells them.  A probe with several notes
 * (a macro expanded twice) has several sites, each with its own operands.
 * Descriptions whose provider field is empty or starts with a glob (the
 * BEGIN of every script) look at no process: reading every process's
 * objects for them would cost every script.
 *
 * The descriptions seen are remembered (watch) and followed: a process
 * that execs later (a glob's), and every executable object a process
 * maps later (its libraries after the exec, a dlopen: perf's MMAP2
 * records) get their probes made for them, which the consumer matches
 * against its enablings (prov_probes_added, ks_enable_retained).  When a
 * process exits, its providers are unregistered (ks_provider_unregister)
 * and its probes' uprobes detached, so that a long -Z session does not
 * pile up the providers of processes long gone.
 *
 * Enabling a probe attaches a uprobe at each site with the note's
 * semaphore, which the kernel increments in the process while the probe
 * is enabled and decrements after (python fires nothing otherwise).
 * Arguments are evaluated at the hit from the sampled registers and, for
 * memory operands, the 512 bytes of stack sampled with it (else the live
 * process).
 */
#include <errno.h>
#include <dirent.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "providers.h"
#include "usdt_impl.h"
#include "uprobe.h"

typedef struct usite {
	uint64_t us_off, us_semaoff;	/* file offsets */
	uint64_t us_pc;			/* link-time address */
	int us_nargs;
	usdt_arg_t us_args[USDT_MAXARGS];
} usite_t;

typedef struct uprobe_p {
	struct uprobe_p *up_next;	/* usdt.probes (usdt.lk) */
	char *up_path;			/* the object, as maps shows it */
	int up_pid;
	dtrace_id_t up_id;
	int up_nsites;
	usite_t *up_sites;		/* fixed once provided */
	int up_mem;			/* an operand reads memory */
	prov_uprobe_t *up_att;		/* while enabled (usdt.lk) */
	unsigned up_wanted;		/* enabled, placed at GO: the order
					 * of its enabling, from 1 (usdt.lk) */
} usdtprobe_t;

typedef struct ufile {			/* notes of one object, by inode */
	struct ufile *uf_next;
	unsigned long uf_ino;
	char uf_dev[16];
	usdt_notes_t uf_notes;		/* un_n 0: none, or unreadable */
} ufile_t;

typedef struct upredict {		/* a -c command held before exec */
	struct upredict *ud_next;
	int ud_pid;
	int ud_n;
	char **ud_paths;		/* what it will map */
} upredict_t;

typedef struct uprov {			/* a registered <provider><pid> */
	struct uprov *uv_next;
	char uv_name[DTRACE_PROVNAMELEN];
	int uv_pid;
	ks_provider_id_t uv_id;
} uprov_t;

/* What the drain thread tells the watcher (a queue entry). */
enum { EV_EXEC, EV_MAP, EV_EXIT };
typedef struct uevent {
	int32_t ue_pid;
	int ue_kind;			/* EV_* */
	uint32_t ue_maj, ue_min;	/* EV_MAP: the object */
	uint64_t ue_ino;
	char ue_path[256];
} uevent_t;

#define QLEN 512

/* The provider's state.  Provide runs on the consumer's thread, enable
 * and disable too; firings (drain thread) read only a probe's immutable
 * fields. */
static struct {
	pthread_mutex_t lk;
	ks_provider_id_t meta;		/* set at registration */
	usdtprobe_t *probes;		/* every probe made (lk) */
	ufile_t *files;			/* notes cache (lk) */
	uprov_t *provs;			/* registered providers (lk) */
	upredict_t *predicted;		/* -c commands not yet exec'd (lk) */
	dtrace_probedesc_t *watch;	/* glob descriptions seen (lk) */
	int nwatch;			/* (lk) */
	int wrun;			/* the watcher runs (lk) */
	pthread_t wthread;		/* it (lk) */
	pthread_mutex_t wlk;		/* guards what follows */
	pthread_cond_t wcv;		/* the watcher waits on it */
	uevent_t q[QLEN];		/* for the watcher (wlk) */
	int nq;				/* (wlk) */
	int lost;			/* events dropped: q was full (wlk) */
	int wstop;			/* the watcher must end (wlk) */
	int go;				/* tracing has started (lk) */
	unsigned wseq;			/* enablings waiting for GO (lk) */
	int added;			/* probes made since prov_probes_added
					 * was last asked (atomic) */
} usdt = { .lk = PTHREAD_MUTEX_INITIALIZER,
	.wlk = PTHREAD_MUTEX_INITIALIZER, .wcv = PTHREAD_COND_INITIALIZER };

/* Did the read fail for want of a resource now short (descriptors,
 * memory), rather than because the process or file is gone or is not
 * an object with notes?  Then it is said (shortage()), and nothing is
 * cached. */
static int short_of(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/* Processes left unread for want of a resource, not yet said (watcher
 * thread only), and when the last message was. */
static struct {
	int n;
	char first[192];
	struct timespec said;
} shorts;

/* Say the shortage now if none was said for a second, else count it:
 * a storm of execs while descriptors are out gives one message a
 * second, with how many processes it cost (watcher thread). */
static void shortage_say(void)
{
	if (shorts.n == 0)
		return;
	ks_provider_fault("usdt: %s: %d process%s not looked at, %s probes "
	    "not made", shorts.first, shorts.n, shorts.n == 1 ? "" : "es",
	    shorts.n == 1 ? "its" : "their");
	shorts.n = 0;
	clock_gettime(CLOCK_MONOTONIC, &shorts.said);
}

static void shortage(const char *what, int err)
{
	struct timespec now;

	if (shorts.n++ == 0)
		snprintf(shorts.first, sizeof(shorts.first), "%s: %s", what,
		    strerror(err));
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > shorts.said.tv_sec + 1 || (now.tv_sec ==
	    shorts.said.tv_sec + 1 && now.tv_nsec >= shorts.said.tv_nsec))
		shortage_say();
}

static int usdt_enable(void *parg, dtrace_id_t id, void *arg);
static void *watcher(void *arg);
static void on_exec(int32_t pid);
static void on_map(int32_t pid, uint32_t maj, uint32_t min, uint64_t ino,
    const char *path);
static void on_exit_(int32_t pid);
static int sweep(void);
static void watch(const dtrace_probedesc_t *desc);
static void usdt_disable(void *parg, dtrace_id_t id, void *arg);
static void usdt_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc);

static const ks_provider_ops_t proc_ops = {
	.kpo_enable = usdt_enable,
	.kpo_disable = usdt_disable,
	.kpo_getargdesc = usdt_getargdesc,
	.kpo_wants = KS_WANT_UARGS,	/* strings captured at the event */
};

/* The notes of the object with this device and inode (lk held); NULL
 * with errno set when memory or descriptors are short (not cached: the
 * next process mapping it tries again). */
static const usdt_notes_t *file_notes(const char *path, const char *dev,
    unsigned long ino)
{
	ufile_t *f;
	char err[256];

	for (f = usdt.files; f != NULL; f = f->uf_next)
		if (f->uf_ino == ino && strcmp(f->uf_dev, dev) == 0)
			return &f->uf_notes;
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	f->uf_ino = ino;
	snprintf(f->uf_dev, sizeof(f->uf_dev), "%s", dev);
	if (usdt_notes_file(path, &f->uf_notes, err, sizeof(err)) != 0) {
		if (short_of(errno)) {
			int e = errno;

			free(f);
			errno = e;
			return NULL;
		}
		memset(&f->uf_notes, 0, sizeof(f->uf_notes));
	}
	f->uf_next = usdt.files;
	usdt.files = f;
	return &f->uf_notes;
}

/* The id of provider name of process pid, registering it (lk held); 0
 * if impossible. */
static ks_provider_id_t provider(const char *name, int pid)
{
	uprov_t *v;

	for (v = usdt.provs; v != NULL; v = v->uv_next)
		if (strcmp(v->uv_name, name) == 0)
			return v->uv_id;
	if ((v = calloc(1, sizeof(*v))) == NULL)
		return 0;
	snprintf(v->uv_name, sizeof(v->uv_name), "%s", name);
	v->uv_pid = pid;
	if (ks_provider_register(name, &proc_ops, NULL, &v->uv_id) != 0 &&
	    (errno != ENOMEM || sweep() == 0 ||	/* full: drop the gone */
	    ks_provider_register(name, &proc_ops, NULL, &v->uv_id) != 0)) {
		free(v);
		return 0;
	}
	v->uv_next = usdt.provs;
	usdt.provs = v;
	return v->uv_id;
}

/* Does pattern (a description field; empty: anything) allow v? */
static int allows(const char *pattern, const char *v)
{
	return pattern[0] == '\0' || fnmatch(pattern, v, 0) == 0;
}

/* "gc__start" as dtrace names it: "gc-start". */
static void probe_name(const char *note, char *out, size_t len)
{
	size_t n = 0;

	for (; *note != '\0' && n + 1 < len; note++) {
		if (note[0] == '_' && note[1] == '_')
			note++, out[n++] = '-';
		else
			out[n++] = *note;
	}
	out[n] = '\0';
}

static usdtprobe_t *probe_of(dtrace_id_t id)
{
	for (usdtprobe_t *p = usdt.probes; p != NULL; p = p->up_next)
		if (p->up_id == id)
			return p;
	return NULL;
}

/* Add note un of path to process pid's probes (lk held).  fresh: the
 * probes this pass made, which may take more sites; a probe that
 * existed before the pass is complete already. */
static void add_note(const dtrace_probedesc_t *desc, int pid,
    const char *path, const usdt_note_t *un, dtrace_id_t *fresh,
    int *nfresh, int maxfresh)
{
	char prov[DTRACE_PROVNAMELEN], name[DTRACE_NAMELEN];
	const char *mod = strrchr(path, '/') + 1;
	ks_provider_id_t pv;
	dtrace_id_t id;
	usdtprobe_t *p = NULL;
	usite_t *s;
	int i;

	if (snprintf(prov, sizeof(prov), "%s%d", un->un_prov, pid) >=
	    (int)sizeof(prov))
		return;
	probe_name(un->un_name, name, sizeof(name));
	if (!allows(desc->dtpd_provider, prov) ||
	    !allows(desc->dtpd_mod, mod) ||
	    !allows(desc->dtpd_func, un->un_func) ||
	    !allows(desc->dtpd_name, name) || (pv = provider(prov, pid)) == 0)
		return;
	id = ks_probe_lookup(pv, mod, un->un_func, name);
	for (i = 0; i < *nfresh && fresh[i] != id; i++)
		;
	if (id != DTRACE_IDNONE && i == *nfresh)
		return;				/* made by an earlier pass */
	if (id == DTRACE_IDNONE) {
		if (*nfresh == maxfresh || (p = calloc(1, sizeof(*p))) == NULL ||
		    (p->up_path = strdup(path)) == NULL) {
			free(p);
			return;
		}
		p->up_pid = pid;
		p->up_id = ks_probe_create(pv, mod, un->un_func, name, 0, p);
		if (p->up_id == DTRACE_IDNONE) {
			free(p->up_path);
			free(p);
			return;
		}
		p->up_next = usdt.probes;
		usdt.probes = p;
		fresh[(*nfresh)++] = p->up_id;
	} else if ((p = probe_of(id)) == NULL) {
		return;
	}
	s = realloc(p->up_sites, sizeof(*s) * (size_t)(p->up_nsites + 1));
	if (s == NULL)
		return;
	p->up_sites = s;
	s = &s[p->up_nsites++];
	s->us_off = un->un_off;
	s->us_semaoff = un->un_semaoff;
	s->us_pc = un->un_pc;
	s->us_nargs = un->un_nargs;
	if (un->un_nargs > 0)
		memcpy(s->us_args, un->un_args,
		    sizeof(usdt_arg_t) * (size_t)un->un_nargs);
	for (i = 0; i < un->un_nargs; i++)
		if (un->un_args[i].ua_kind == USDT_ARG_MEM ||
		    un->un_args[i].ua_kind == USDT_ARG_ABS)
			p->up_mem = 1;
}

#define MAXFRESH 4096

int prov_target_objects(int pid, const char *const *paths, int n)
{
	upredict_t *u = calloc(1, sizeof(*u));

	if (u == NULL || (u->ud_paths = calloc(n > 0 ? (size_t)n : 1,
	    sizeof(char *))) == NULL) {
		free(u);
		return -1;
	}
	u->ud_pid = pid;
	for (int i = 0; i < n; i++)
		if ((u->ud_paths[u->ud_n] = strdup(paths[i])) != NULL)
			u->ud_n++;
	pthread_mutex_lock(&usdt.lk);
	u->ud_next = usdt.predicted;
	usdt.predicted = u;
	pthread_mutex_unlock(&usdt.lk);
	return 0;
}

/* The objects a -c command held before its exec will map, if pid is one
 * (lk held): it still runs our own image, so its maps say nothing. */
static const upredict_t *predicted(int pid)
{
	char self[4096], exe[4096], link[64];
	ssize_t a, b;

	for (const upredict_t *u = usdt.predicted; u != NULL; u = u->ud_next) {
		if (u->ud_pid != pid)
			continue;
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		a = readlink("/proc/self/exe", self, sizeof(self) - 1);
		b = readlink(link, exe, sizeof(exe) - 1);
		if (a > 0 && a == b && memcmp(self, exe, (size_t)a) == 0)
			return u;
		return NULL;		/* it exec'd: its maps tell */
	}
	return NULL;
}

/* The notes of each object a held command will map (lk held). */
static int provide_predicted(const dtrace_probedesc_t *desc,
    const upredict_t *u, dtrace_id_t *fresh)
{
	const usdt_notes_t *ns;
	struct stat st;
	char dev[16];
	int nfresh = 0;

	for (int i = 0; i < u->ud_n; i++) {
		if (stat(u->ud_paths[i], &st) != 0)
			continue;
		/* the key /proc/PID/maps gives: "fe:00", inode */
		snprintf(dev, sizeof(dev), "%02x:%02x", major(st.st_dev),
		    minor(st.st_dev));
		if ((ns = file_notes(u->ud_paths[i], dev,
		    (unsigned long)st.st_ino)) == NULL)
			continue;
		for (int k = 0; k < ns->un_n; k++)
			add_note(desc, u->ud_pid, u->ud_paths[i],
			    &ns->un_notes[k], fresh, &nfresh, MAXFRESH);
	}
	return nfresh;
}

/* Every object process pid maps with code in it (lk held); the count
 * of probes made into fresh, or -1 (said with shortage()) when a
 * resource ran short. */
static int provide_pid(const dtrace_probedesc_t *desc, int pid,
    dtrace_id_t *fresh)
{
	char maps[64], line[4352], path[4096], dev[16], perm[8];
	const upredict_t *u = predicted(pid);
	unsigned long ino;
	const usdt_notes_t *ns;
	int nfresh = 0;
	FILE *fp;

	if (u != NULL)
		return provide_predicted(desc, u, fresh);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	if ((fp = fopen(maps, "r")) == NULL) {
		if (!short_of(errno))
			return 0;	/* gone */
		shortage(maps, errno);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%*s %7s %*s %15s %lu %4095s", perm, dev, &ino,
		    path) != 4 || path[0] != '/' || strchr(perm, 'x') == NULL ||
		    ino == 0)
			continue;
		if ((ns = file_notes(path, dev, ino)) == NULL) {
			if (!short_of(errno))
				continue;
			shortage(path, errno);
			fclose(fp);
			return -1;
		}
		for (int i = 0; i < ns->un_n; i++)
			add_note(desc, pid, path, &ns->un_notes[i], fresh,
			    &nfresh, MAXFRESH);
	}
	fclose(fp);
	return nfresh;
}

/* "python1234": the pid, and the provider part's length; -1 if the
 * name does not end in a number. */
static int split_pid(const char *prov, size_t *plen)
{
	size_t n = strlen(prov), k = n;

	while (k > 0 && prov[k - 1] >= '0' && prov[k - 1] <= '9')
		k--;
	if (k == n || k == 0 || n - k > 9)
		return -1;
	*plen = k;
	return atoi(prov + k);
}

static void usdt_provide(void *parg, const dtrace_probedesc_t *desc)
{
	const char *pr = desc != NULL ? desc->dtpd_provider : "";
	dtrace_id_t *fresh;
	struct dirent *de;
	size_t plen;
	DIR *d;
	int pid;

	if (pr[0] == '\0' || strchr("*?[\\", pr[0]) != NULL)
		return;
	if (!prov_is_glob(pr) && split_pid(pr, &plen) < 0)
		return;
	if ((fresh = malloc(sizeof(*fresh) * MAXFRESH)) == NULL)
		return;
	pthread_mutex_lock(&usdt.lk);
	watch(desc);	/* objects mapped later, processes started later */
	if (!prov_is_glob(pr)) {
		provide_pid(desc, split_pid(pr, &plen), fresh);
	} else {
		if ((d = opendir("/proc")) != NULL) {
			while ((de = readdir(d)) != NULL) {
				pid = atoi(de->d_name);
				if (pid > 0 && pid != (int)getpid())
					provide_pid(desc, pid, fresh);
			}
			closedir(d);
		}
	}
	pthread_mutex_unlock(&usdt.lk);
	free(fresh);
}

/* ---- listing every process's probes ---- */

/* The usdt probes of process pid, by its maps (lk held): cb for each
 * note of each object mapped with code, without making probes. */
static void list_pid(int pid, prov_usdt_list_f *cb, void *arg)
{
	char maps[64], line[4352], path[4096], dev[16], perm[8];
	char prov[DTRACE_PROVNAMELEN], name[DTRACE_NAMELEN];
	unsigned long ino, seen[64];
	const usdt_notes_t *ns;
	int nseen = 0, dup;
	FILE *fp;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	if ((fp = fopen(maps, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%*s %7s %*s %15s %lu %4095s", perm, dev, &ino,
		    path) != 4 || path[0] != '/' || strchr(perm, 'x') == NULL ||
		    ino == 0)
			continue;
		dup = 0;
		for (int i = 0; i < nseen; i++)
			dup |= seen[i] == ino;
		if (dup || (ns = file_notes(path, dev, ino)) == NULL)
			continue;
		if (nseen < 64)
			seen[nseen++] = ino;
		for (int i = 0; i < ns->un_n; i++) {
			const usdt_note_t *un = &ns->un_notes[i];

			if (snprintf(prov, sizeof(prov), "%s%d", un->un_prov,
			    pid) >= (int)sizeof(prov))
				continue;
			probe_name(un->un_name, name, sizeof(name));
			cb(arg, prov, strrchr(path, '/') + 1, un->un_func,
			    name);
		}
	}
	fclose(fp);
}

void prov_usdt_list(prov_usdt_list_f *cb, void *arg)
{
	struct dirent *de;
	DIR *d;
	int pid;

	if ((d = opendir("/proc")) == NULL)
		return;
	pthread_mutex_lock(&usdt.lk);
	while ((de = readdir(d)) != NULL)
		if ((pid = atoi(de->d_name)) > 0 && pid != (int)getpid())
			list_pid(pid, cb, arg);
	pthread_mutex_unlock(&usdt.lk);
	closedir(d);
}

/* ---- processes that start later ---- */

/* Remember a description (lk held): each process that execs from now
 * on, and each object a process maps, is matched against it (on_exec,
 * on_map, watcher). */
static void watch(const dtrace_probedesc_t *desc)
{
	dtrace_probedesc_t *v;

	for (int i = 0; i < usdt.nwatch; i++)
		if (memcmp(&usdt.watch[i], desc, sizeof(*desc)) == 0)
			return;
	v = realloc(usdt.watch, sizeof(*v) * (size_t)(usdt.nwatch + 1));
	if (v == NULL)
		return;
	usdt.watch = v;
	usdt.watch[usdt.nwatch++] = *desc;
	if (!usdt.wrun && prov_perf_start() == 0 &&
	    pthread_create(&usdt.wthread, NULL, watcher, NULL) == 0) {
		usdt.wrun = 1;
		prov_pcache_exec_watch(on_exec);	/* execs from now on */
		prov_pcache_map_watch(on_map);
		prov_pcache_exit_watch(on_exit_);
	}
}

/* Drain thread: queue ev for the watcher (dropped when the queue is
 * full, a burst of process starts: the watcher then sweeps, see
 * resync). */
static void post(const uevent_t *ev)
{
	if (ev->ue_pid == (int32_t)getpid())
		return;
	pthread_mutex_lock(&usdt.wlk);
	if (usdt.nq < QLEN)
		usdt.q[usdt.nq++] = *ev;
	else
		usdt.lost = 1;
	pthread_cond_signal(&usdt.wcv);
	pthread_mutex_unlock(&usdt.wlk);
}

/* Drain thread: a process exec'd; the watcher reads it. */
static void on_exec(int32_t pid)
{
	uevent_t ev = { .ue_pid = pid, .ue_kind = EV_EXEC };

	post(&ev);
}

/* Drain thread: pid mapped an executable object. */
static void on_map(int32_t pid, uint32_t maj, uint32_t min, uint64_t ino,
    const char *path)
{
	uevent_t ev = { .ue_pid = pid, .ue_kind = EV_MAP, .ue_maj = maj,
	    .ue_min = min, .ue_ino = ino };

	if (path[0] != '/' || strlen(path) >= sizeof(ev.ue_path))
		return;
	strcpy(ev.ue_path, path);
	post(&ev);
}

/* Drain thread: a process exited. */
static void on_exit_(int32_t pid)
{
	uevent_t ev = { .ue_pid = pid, .ue_kind = EV_EXIT };

	post(&ev);
}

/* The probes that a remembered description names in a process that
 * exec'd (ev->ue_path empty: all it maps) or in the object it mapped,
 * made for the consumer to match against its enablings
 * (prov_probes_added, ks_enable_retained).  lk held. */
static void provide_new(const uevent_t *ev, dtrace_id_t *fresh)
{
	const usdt_notes_t *ns = NULL;
	char dev[16];
	int n = 0;

	if (ev->ue_kind == EV_MAP) {
		/* the key /proc/PID/maps gives: "fe:00", inode */
		snprintf(dev, sizeof(dev), "%02x:%02x", ev->ue_maj, ev->ue_min);
		ns = file_notes(ev->ue_path, dev, (unsigned long)ev->ue_ino);
		if (ns == NULL && short_of(errno))
			shortage(ev->ue_path, errno);
		if (ns == NULL || ns->un_n == 0)
			return;
	}
	for (int i = 0; i < usdt.nwatch; i++) {
		const char *pr = usdt.watch[i].dtpd_provider;
		size_t plen;
		int nfresh = 0;

		if (!prov_is_glob(pr) && split_pid(pr, &plen) != ev->ue_pid)
			continue;	/* another process's */
		if (ns == NULL) {
			if ((nfresh = provide_pid(&usdt.watch[i], ev->ue_pid,
			    fresh)) < 0)
				break;	/* said once for the process */
			n += nfresh;
			continue;
		}
		for (int k = 0; k < ns->un_n; k++)
			add_note(&usdt.watch[i], ev->ue_pid, ev->ue_path,
			    &ns->un_notes[k], fresh, &nfresh, MAXFRESH);
		n += nfresh;
	}
	if (n > 0)
		__atomic_store_n(&usdt.added, 1, __ATOMIC_RELEASE);
}

/* A process exited (lk held): unregister its providers and detach its
 * probes' uprobes.  The probes stay allocated: the shim may still
 * disable them (usdt_disable then finds nothing attached). */
static void forget(int32_t pid)
{
	uprov_t **vp = &usdt.provs, *v;
	int any = 0;

	while ((v = *vp) != NULL) {
		if (v->uv_pid != pid) {
			vp = &v->uv_next;
			continue;
		}
		*vp = v->uv_next;
		(void)ks_provider_unregister(v->uv_id);
		free(v);
		any = 1;
	}
	if (!any)
		return;
	for (usdtprobe_t *p = usdt.probes; p != NULL; p = p->up_next)
		if (p->up_pid == pid && p->up_att != NULL) {
			prov_uprobe_detach(p->up_att);
			p->up_att = NULL;
		}
}

/* Forget the providers of processes gone whose exit was not seen (lk
 * held); how many processes. */
static int sweep(void)
{
	int n = 0;
	uprov_t *v = usdt.provs;

	while (v != NULL) {
		if (v->uv_pid > 0 && kill(v->uv_pid, 0) != 0 &&
		    errno == ESRCH) {
			forget(v->uv_pid);	/* frees v, maybe others */
			n++;
			v = usdt.provs;
		} else {
			v = v->uv_next;
		}
	}
	return n;
}

/* After events were dropped (lk held): forget the processes gone, and
 * look at every process again for what the descriptions name. */
static void resync(dtrace_id_t *fresh)
{
	uevent_t ev = { .ue_kind = EV_EXEC };
	struct dirent *de;
	DIR *d;

	(void)sweep();
	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if ((ev.ue_pid = atoi(de->d_name)) > 0 &&
		    ev.ue_pid != (int32_t)getpid())
			provide_new(&ev, fresh);
	closedir(d);
}

static void *watcher(void *arg)
{
	static uevent_t q[QLEN];	/* this thread's copy */
	dtrace_id_t *fresh = malloc(sizeof(*fresh) * MAXFRESH);
	int n, lost;

	pthread_mutex_lock(&usdt.wlk);
	while (!usdt.wstop) {
		if (usdt.nq == 0 && shorts.n > 0) {
			/* a shortage not said yet: say it within a second
			 * even if no other process execs */
			struct timespec t;

			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_sec++;
			if (pthread_cond_timedwait(&usdt.wcv, &usdt.wlk,
			    &t) == ETIMEDOUT)
				shortage_say();
			continue;
		}
		if (usdt.nq == 0) {
			pthread_cond_wait(&usdt.wcv, &usdt.wlk);
			continue;
		}
		n = usdt.nq;
		memcpy(q, usdt.q, sizeof(q[0]) * (size_t)n);
		usdt.nq = 0;
		lost = usdt.lost;
		usdt.lost = 0;
		pthread_mutex_unlock(&usdt.wlk);
		pthread_mutex_lock(&usdt.lk);
		for (int i = 0; i < n && fresh != NULL; i++) {
			if (q[i].ue_kind == EV_EXIT)
				forget(q[i].ue_pid);
			else
				provide_new(&q[i], fresh);
		}
		if (lost && fresh != NULL)
			resync(fresh);
		pthread_mutex_unlock(&usdt.lk);
		pthread_mutex_lock(&usdt.wlk);
	}
	pthread_mutex_unlock(&usdt.wlk);
	free(fresh);
	return NULL;
}

int prov_probes_added(void)
{
	return __atomic_exchange_n(&usdt.added, 0, __ATOMIC_ACQ_REL);
}

void prov_usdt_shutdown(void)
{
	pthread_mutex_lock(&usdt.lk);
	if (!usdt.wrun) {
		pthread_mutex_unlock(&usdt.lk);
		return;
	}
	usdt.wrun = 0;
	pthread_mutex_unlock(&usdt.lk);
	prov_pcache_exec_watch(NULL);
	prov_pcache_map_watch(NULL);
	prov_pcache_exit_watch(NULL);
	pthread_mutex_lock(&usdt.wlk);
	usdt.wstop = 1;
	pthread_cond_signal(&usdt.wcv);
	pthread_mutex_unlock(&usdt.wlk);
	pthread_join(usdt.wthread, NULL);
	usdt.wstop = 0;
}

/* ---- firing ---- */

static void usdt_fire(void *arg, uint64_t cookie, const prov_perf_sample_t *s)
{
	const usdtprobe_t *p = arg;
	const usite_t *site;
	ks_probe_ctx_t ctx;
	uint64_t bias;

	if (cookie >= (uint64_t)p->up_nsites)
		return;
	site = &p->up_sites[cookie];
	prov_uprobe_ctx(&ctx, p->up_id, s);
	bias = s->pps_ip - site->us_pc;
	for (int i = 0; i < site->us_nargs && i < DTRACE_MAXARGS; i++)
		ctx.kpc_args[i] = usdt_arg_value(&site->us_args[i], s, bias);
	prov_fire(&ctx);
}

/* Place p's uprobes (usdt.lk held): 0, or -1 with ks_provider_error. */
static int usdt_attach(usdtprobe_t *p)
{
	unsigned caps = prov_uprobe_capargs(p->up_id);
	prov_uprobe_site_t *sites;
	int flags, n;

	if ((sites = calloc((size_t)p->up_nsites, sizeof(*sites))) == NULL) {
		ks_provider_error("usdt: out of memory");
		return -1;
	}
	for (int i = 0; i < p->up_nsites; i++) {
		sites[i].pus_offset = p->up_sites[i].us_off;
		sites[i].pus_refctr = p->up_sites[i].us_semaoff;
		sites[i].pus_cookie = (uint64_t)i;
		/* each hit fires the probe once: its predicates and
		 * aggregations may run in the kernel (placed at GO, when
		 * they are final: see usdt_enable) */
		sites[i].pus_probe = p->up_id;
		usdt_site_fill(p->up_sites[i].us_args, p->up_sites[i].us_nargs,
		    caps, &sites[i]);
	}
	usdt_sites_agree(sites, p->up_nsites);
	flags = prov_perf_wants_stack(p->up_id) | (p->up_mem ?
	    PROV_SAMPLE_USTACK : 0);
	p->up_att = prov_uprobe_attach(p->up_path, sites, p->up_nsites,
	    p->up_pid, flags, usdt_fire, p);
	free(sites);
	if (p->up_att == NULL)
		return -1;
	if ((n = prov_uprobe_refused(p->up_att)) > 0)
		prov_note("usdt provider: %d probe site%s at instructions "
		    "uprobes cannot probe", n, n == 1 ? "" : "s");
	return 0;
}

/*
 * Uprobes are placed at GO (prov_usdt_go), not during the ENABLE: a
 * placed site raises its semaphore, and a program waiting for it would
 * fire before the shim is active (lost: tst.usdt_own.sh -p counted 939 of
 * 2000 under load), and while the ENABLE still loads the predicates'
 * and aggregations' programs.  Probes enabled once tracing runs are
 * placed at once.  The ptrace route plants its breakpoints at GO itself.
 */
static int usdt_enable(void *parg, dtrace_id_t id, void *arg)
{
	usdtprobe_t *p = arg;
	int rc = 0;

	(void)parg;
	(void)id;
	if (!prov_uprobe_available()) {
		ks_provider_error("usdt probes need root or CAP_PERFMON "
		    "(uprobes); without them, no route places them");
		return -1;
	}
	pthread_mutex_lock(&usdt.lk);
	if (p->up_att == NULL && !usdt.go && !prov_ptup_route())
		p->up_wanted = ++usdt.wseq;
	else if (p->up_att == NULL)
		rc = usdt_attach(p);
	pthread_mutex_unlock(&usdt.lk);
	return rc;
}

/* Does some site of p have a semaphore (a program may wait on it)? */
static int has_sema(const usdtprobe_t *p)
{
	for (int i = 0; i < p->up_nsites; i++)
		if (p->up_sites[i].us_semaoff != 0)
			return 1;
	return 0;
}

/* qsort: probes without a semaphore first, then in enabling order. */
static int go_order(const void *a, const void *b)
{
	const usdtprobe_t *p = *(usdtprobe_t *const *)a;
	const usdtprobe_t *q = *(usdtprobe_t *const *)b;
	int sp = has_sema(p), sq = has_sema(q);

	if (sp != sq)
		return sp - sq;
	return p->up_wanted < q->up_wanted ? -1 : p->up_wanted > q->up_wanted;
}

/* A program waiting for a semaphore (is-enabled) starts firing the
 * other probes as soon as it rises: those without one go first, then
 * the rest in the order the ENABLE enabled them (its clauses' order),
 * as they were placed when the ENABLE placed them. */
void prov_usdt_go(void)
{
	usdtprobe_t **v = NULL;
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&usdt.lk);
	usdt.go = 1;
	for (usdtprobe_t *p = usdt.probes; p != NULL; p = p->up_next) {
		usdtprobe_t **nv;

		if (!p->up_wanted)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				break;
			v = nv;
		}
		v[n++] = p;
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), go_order);
	for (size_t i = 0; i < n; i++) {
		v[i]->up_wanted = 0;
		if (v[i]->up_att == NULL && usdt_attach(v[i]) != 0)
			ks_provider_fault("usdt: %s", ks_provider_errmsg());
	}
	usdt.wseq = 0;
	pthread_mutex_unlock(&usdt.lk);
	free(v);
	if (n > 0)
		prov_uprobe_settle();
}

static void usdt_disable(void *parg, dtrace_id_t id, void *arg)
{
	usdtprobe_t *p = arg;
	prov_uprobe_t *att;

	pthread_mutex_lock(&usdt.lk);
	att = p->up_att;
	p->up_att = NULL;
	p->up_wanted = 0;
	pthread_mutex_unlock(&usdt.lk);
	prov_uprobe_detach(att);
}

static void usdt_getargdesc(void *parg, dtrace_id_t id, void *arg,
    dtrace_argdesc_t *desc)
{
	const usdtprobe_t *p = arg;

	if (p->up_nsites == 0 || desc->dtargd_ndx < 0 ||
	    desc->dtargd_ndx >= p->up_sites[0].us_nargs) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	snprintf(desc->dtargd_native, sizeof(desc->dtargd_native), "%s",
	    usdt_arg_type(&p->up_sites[0].us_args[desc->dtargd_ndx]));
	desc->dtargd_mapping = desc->dtargd_ndx;
}

int prov_usdt_register(void)
{
	static const ks_provider_ops_t meta_ops = {
		.kpo_provide = usdt_provide,
	};

	if (usdt.meta != 0)
		return 0;
	return ks_provider_register_meta("usdt", &meta_ops, NULL, &usdt.meta);
}
