/*
 * exp_write.c - writing an experiment (exp.h): the directory, the data
 * files' blocks, overview entries, and the record options.
 *
 * Records are appended to their file's block buffer; a block is written
 * (one writev: header, then payload) when the next record would not fit
 * in EXP_BLOCK_FILL bytes, and every file's block is flushed when a
 * top-level consumer call returns (eng_exp_leave), so a reader is at
 * most one tick behind.  A record larger than a block goes out as a
 * block of its own.  Any write error (a full disk) stops recording with
 * a message for eng_record_error(); tracing goes on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "exp.h"
#include "consume.h"

#define EXP_BLOCK_FILL	(64u << 10)

static const char *const fname[EXP_NFILES] = {
	[EXP_F_DESCRIBE] = "descriptions", [EXP_F_SYMBOLS] = "archives/symbols",
	[EXP_F_PRINCIPAL] = "principal", [EXP_F_AGGREGATE] = "aggregations",
	[EXP_F_EVENTS] = "events",
};

const char *eng_exp_fname(int file)
{
	return file == EXP_F_OVERVIEW ? "overview" : file >= 0 &&
	    file < EXP_NFILES ? fname[file] : "?";
}

/* The file each record type goes to. */
int eng_exp_file_of(int type)
{
	switch (type) {
	case EXP_R_BUFSNAP: return EXP_F_PRINCIPAL;
	case EXP_R_AGGSNAP: return EXP_F_AGGREGATE;
	case EXP_R_SYM: case EXP_R_NORM: return EXP_F_SYMBOLS;
	case EXP_R_EPROBE: case EXP_R_PROBE: case EXP_R_FORMAT:
	case EXP_R_AGGDESC: case EXP_R_PIECE: case EXP_R_AGGNAME:
	case EXP_R_PRED:
		return EXP_F_DESCRIBE;
	default: return EXP_F_EVENTS;
	}
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int eng_exp_recording(const eng_hdl_t *h)
{
	return h->eh_exp != NULL && h->eh_exp->x_rec;
}

static void close_files(struct eng_exp *x)
{
	for (int i = 0; i < EXP_NFILES; i++) {
		if (x->x_out[i].xo_fd >= 0)
			close(x->x_out[i].xo_fd);
		x->x_out[i].xo_fd = -1;
		free(x->x_out[i].xo_buf);
		x->x_out[i].xo_buf = NULL;
		x->x_out[i].xo_len = x->x_out[i].xo_nrecs = 0;
	}
	if (x->x_ovfd >= 0)
		close(x->x_ovfd);
	x->x_ovfd = -1;
}

/* Stop recording after a failed write of what; tracing goes on. */
static int fail(struct eng_exp *x, const char *what, int err)
{
	if (x->x_failed)
		return -1;
	snprintf(x->x_err, sizeof (x->x_err), "recording stopped: %s/%s: %s",
	    x->x_dir, what, strerror(err ? err : EIO));
	x->x_failed = 1;
	x->x_rec = 0;
	close_files(x);
	if (x->x_log != NULL) {
		fprintf(x->x_log, "<event kind=\"recording-stopped\" t=\"%.9f\" "
		    "errno=\"%d\"/>\n</experiment>\n", (double)(clock_ns(
		    CLOCK_MONOTONIC) - x->x_t0) / 1e9, err);
		fclose(x->x_log);
		x->x_log = NULL;
	}
	return -1;
}

/* Write all of iov or fail. */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int flush_file(struct eng_exp *x, int f)
{
	struct exp_out *o = &x->x_out[f];
	struct exp_bhdr bh;
	struct iovec iov[2];

	if (o->xo_nrecs == 0 || o->xo_fd < 0)
		return 0;
	bh.bh_magic = EXP_BLOCK_MAGIC;
	bh.bh_len = (uint32_t)o->xo_len;
	bh.bh_seq = o->xo_seq;
	bh.bh_time = o->xo_time;
	bh.bh_nrecs = o->xo_nrecs;
	bh.bh_sum = eng_exp_sum(o->xo_buf, o->xo_len);
	iov[0] = (struct iovec){ &bh, sizeof (bh) };
	iov[1] = (struct iovec){ o->xo_buf, o->xo_len };
	o->xo_len = 0;
	o->xo_nrecs = 0;
	if (write_all(o->xo_fd, iov, 2) != 0)
		return fail(x, fname[f], errno);
	return 0;
}

void eng_exp_flush(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	for (int f = 0; x != NULL && x->x_rec && f < EXP_NFILES; f++)
		flush_file(x, f);
	if (x != NULL && x->x_log != NULL)
		fflush(x->x_log);
	if (x != NULL && x->x_map != NULL)
		fflush(x->x_map);
}

/* A record too large for a block: a block of its own, written from
 * where its parts are (no copy: snapshots are large). */
static int put_alone(struct eng_exp *x, int f, const struct exp_rhdr *rh,
    const void *b1, size_t n1, const void *b2, size_t n2)
{
	static const char zero[8];
	size_t pad = (8 - (n1 + n2) % 8) % 8;
	struct exp_bhdr bh;
	struct exp_sum st;
	struct iovec iov[5];

	eng_exp_sum_init(&st);
	eng_exp_sum_add(&st, rh, sizeof (*rh));
	eng_exp_sum_add(&st, b1, n1);
	eng_exp_sum_add(&st, b2, n2);
	eng_exp_sum_add(&st, zero, pad);
	bh.bh_magic = EXP_BLOCK_MAGIC;
	bh.bh_len = (uint32_t)(sizeof (*rh) + n1 + n2 + pad);
	bh.bh_seq = rh->rh_seq;
	bh.bh_time = rh->rh_time;
	bh.bh_nrecs = 1;
	bh.bh_sum = eng_exp_sum_end(&st);
	iov[0] = (struct iovec){ &bh, sizeof (bh) };
	iov[1] = (struct iovec){ (void *)rh, sizeof (*rh) };
	iov[2] = (struct iovec){ (void *)b1, n1 };
	iov[3] = (struct iovec){ (void *)b2, n2 };
	iov[4] = (struct iovec){ (void *)zero, pad };
	if (write_all(x->x_out[f].xo_fd, iov, 5) != 0)
		return fail(x, fname[f], errno);
	return 0;
}

int eng_exp_put(eng_hdl_t *h, int type, int depth, const void *b1,
    size_t n1, const void *b2, size_t n2)
{
	struct eng_exp *x = h->eh_exp;
	int f = eng_exp_file_of(type);
	struct exp_out *o;
	struct exp_rhdr rh;
	size_t need = sizeof (rh) + ((n1 + n2 + 7) & ~(size_t)7);

	if (x == NULL || !x->x_rec)
		return -1;
	if (n1 + n2 >= EXP_BLOCK_MAX - sizeof (rh) - 8)
		return fail(x, fname[f], EFBIG);
	o = &x->x_out[f];
	rh.rh_type = (uint16_t)type;
	rh.rh_depth = (uint16_t)depth;
	rh.rh_len = (uint32_t)(n1 + n2);
	rh.rh_seq = ++x->x_seq;
	rh.rh_time = clock_ns(CLOCK_MONOTONIC) - x->x_t0;
	if (o->xo_len > 0 && o->xo_len + need > EXP_BLOCK_FILL &&
	    flush_file(x, f) != 0)
		return -1;
	if (need > EXP_BLOCK_FILL)
		return put_alone(x, f, &rh, b1, n1, b2, n2);
	if (o->xo_cap < EXP_BLOCK_FILL) {
		char *nb = realloc(o->xo_buf, EXP_BLOCK_FILL);

		if (nb == NULL)
			return fail(x, fname[f], ENOMEM);
		o->xo_buf = nb;
		o->xo_cap = EXP_BLOCK_FILL;
	}
	if (o->xo_nrecs == 0) {
		o->xo_seq = rh.rh_seq;
		o->xo_time = rh.rh_time;
	}
	memcpy(o->xo_buf + o->xo_len, &rh, sizeof (rh));
	memcpy(o->xo_buf + o->xo_len + sizeof (rh), b1, n1);
	if (n2 > 0)
		memcpy(o->xo_buf + o->xo_len + sizeof (rh) + n1, b2, n2);
	memset(o->xo_buf + o->xo_len + sizeof (rh) + n1 + n2, 0,
	    need - sizeof (rh) - n1 - n2);
	o->xo_len += need;
	o->xo_nrecs++;
	return 0;
}

/* One overview entry: every CPU's buffer figures and the global drop
 * counters, after a work tick. */
void eng_exp_overview(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;
	int n = h->eh_cons->ec_ncpus;
	size_t len = sizeof (struct exp_ovhdr) + (size_t)n *
	    sizeof (struct exp_ovcpu);
	char *e;

	if (x == NULL || !x->x_rec || x->x_ovfd < 0 || (e = calloc(1, len)) ==
	    NULL)
		return;
	struct exp_ovhdr *oh = (struct exp_ovhdr *)e;
	struct exp_ovcpu *oc = (struct exp_ovcpu *)(oh + 1);

	oh->oh_time = clock_ns(CLOCK_MONOTONIC) - x->x_t0;
	oh->oh_seq = x->x_seq;
	oh->oh_status = h->eh_cons->ec_status;
	for (int i = 0; i < n; i++) {
		ks_bufstat_t bs;

		if (ks_bufstat(h->eh_ks, (unsigned)i, &bs) != 0)
			continue;
		oc[i] = (struct exp_ovcpu){ bs.kbs_size, bs.kbs_used,
		    bs.kbs_records, bs.kbs_bytes, bs.kbs_fires, bs.kbs_drops,
		    bs.kbs_aggdrops, bs.kbs_errors };
	}
	struct iovec iov = { e, len };

	if (write_all(x->x_ovfd, &iov, 1) != 0)
		fail(x, "overview", errno);
	free(e);
}

/* Open a data file in dir and write its header. */
static int open_in(struct eng_exp *x, const char *dir, const char *name,
    int kind, int ncpus, uint64_t entsize)
{
	char path[1400];
	struct exp_fhdr fh;
	struct iovec iov = { &fh, sizeof (fh) };
	int fd;

	snprintf(path, sizeof (path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		return -1;
	memset(&fh, 0, sizeof (fh));
	memcpy(fh.fh_magic, EXP_MAGIC, 8);
	fh.fh_version = EXP_VERSION;
	fh.fh_minor = EXP_MINOR;
	fh.fh_kind = (uint32_t)kind;
	fh.fh_wordsize = (uint32_t)(sizeof (void *) * 8);
	fh.fh_ncpus = (uint32_t)ncpus;
	fh.fh_wall = x->x_wall;
	fh.fh_entsize = entsize;
	if (write_all(fd, &iov, 1) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_file(struct eng_exp *x, const char *name, int kind,
    int ncpus, uint64_t entsize)
{
	return open_in(x, x->x_dir, name, kind, ncpus, entsize);
}

int eng_exp_blank_files(struct eng_exp *x, const char *dir, int ncpus)
{
	uint64_t ent = sizeof (struct exp_ovhdr) + (uint64_t)ncpus *
	    sizeof (struct exp_ovcpu);
	int fd;

	for (int f = 0; f < EXP_NFILES; f++) {
		if (f == EXP_F_SYMBOLS)		/* in archives/: none here */
			continue;
		if ((fd = open_in(x, dir, fname[f], f, ncpus, 0)) < 0)
			return -1;
		close(fd);
	}
	if ((fd = open_in(x, dir, "overview", EXP_F_OVERVIEW, ncpus,
	    ent)) < 0)
		return -1;
	close(fd);
	return 0;
}

/* The highest N of stem.N.er in stem's directory (0 if none). */
static int highest(const char *stem)
{
	char dir[1024];
	const char *base = strrchr(stem, '/');
	size_t bl;
	DIR *d;
	struct dirent *de;
	int max = 0;

	snprintf(dir, sizeof (dir), "%.*s", base != NULL ? (int)(base - stem) +
	    1 : 1, base != NULL ? stem : ".");
	base = base != NULL ? base + 1 : stem;
	bl = strlen(base);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long n;

		if (strncmp(de->d_name, base, bl) != 0 || de->d_name[bl] != '.')
			continue;
		n = strtol(de->d_name + bl + 1, &end, 10);
		if (end != de->d_name + bl + 1 && strcmp(end, ".er") == 0 &&
		    n > max && n < 1000000)
			max = (int)n;
	}
	closedir(d);
	return max;
}

/* Choose and make the directory: NAME as given when it ends in ".er",
 * else NAME.N.er (test.N.er when no name), N one past the highest there,
 * as the Analyzer's collect numbers its experiments. */
static int make_dir(struct eng_exp *x)
{
	const char *stem = x->x_name != NULL && *x->x_name ? x->x_name : "test";
	size_t sl = strlen(stem);

	if (sl > 3 && strcmp(stem + sl - 3, ".er") == 0) {
		snprintf(x->x_dir, sizeof (x->x_dir), "%s", stem);
		return mkdir(x->x_dir, 0755);
	}
	for (int n = highest(stem) + 1; n < 1000000; n++) {
		snprintf(x->x_dir, sizeof (x->x_dir), "%s.%d.er", stem, n);
		if (mkdir(x->x_dir, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int eng_exp_create(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;
	char sub[1200];
	int n = h->eh_cons->ec_ncpus;
	uint64_t ent = sizeof (struct exp_ovhdr) + (uint64_t)n *
	    sizeof (struct exp_ovcpu);

	if (x == NULL || !x->x_want || x->x_rec || x->x_failed)
		return 0;
	x->x_t0 = clock_ns(CLOCK_MONOTONIC);
	x->x_wall = clock_ns(CLOCK_REALTIME);
	if (make_dir(x) != 0) {
		x->x_want = 0;
		return eng_error(h, "failed to create experiment %s: %s",
		    x->x_dir, strerror(errno));
	}
	snprintf(sub, sizeof (sub), "%s/archives", x->x_dir);
	if (mkdir(sub, 0755) != 0)
		goto bad;
	for (int f = 0; f < EXP_NFILES; f++)
		if ((x->x_out[f].xo_fd = open_file(x, fname[f], f, n, 0)) < 0)
			goto bad;
	if ((x->x_ovfd = open_file(x, "overview", EXP_F_OVERVIEW, n,
	    ent)) < 0)
		goto bad;
	x->x_rec = 1;
	eng_exp_log_open(h);
	if (x->x_log == NULL || x->x_map == NULL) {
		x->x_rec = 0;
		goto bad;
	}
	return 0;
bad:
	snprintf(sub, sizeof (sub), "%s", strerror(errno));
	close_files(x);
	x->x_want = 0;
	return eng_error(h, "failed to create experiment %s: %s", x->x_dir,
	    sub);
}

void eng_exp_free(struct eng_exp *x)
{
	if (x == NULL)
		return;
	eng_exp_desc_free(x);		/* their events in log.xml first */
	eng_exp_close_log(x);
	close_files(x);
	for (int i = 0; i < EXP_NFILES; i++) {
		if (x->x_in[i].xi_fd >= 0)
			close(x->x_in[i].xi_fd);
		free(x->x_in[i].xi_blk);
	}
	while (x->x_pmaps != NULL) {
		struct exp_pmaps *p = x->x_pmaps;

		x->x_pmaps = p->pm_next;
		for (size_t i = 0; i < p->pm_n; i++)
			free(p->pm_lines[i]);
		free(p->pm_lines);
		free(p);
	}
	eng_exp_keys_free(x->x_keys);
	eng_exp_archive_free(x);
	free(x->x_zbuf);
	free(x->x_runs);
	free(x->x_name);
	free(x->x_note);
	free(x);
}
