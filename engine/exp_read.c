/*
 * exp_read.c - reading an experiment's data files (exp.h), for replay.
 *
 * Opening checks that the directory is an experiment (log.xml and every
 * data file present, each with our magic, version, kind and word size)
 * and refuses it otherwise with a message naming the file and offset.
 * Reading goes block by block: a block is taken only whole (header in
 * bounds, payload present, checksum right, every record inside it); at the
 * first that is not, the file ends there with a warning (x_warn) that
 * names the file and offset, and replay goes on with what came before.
 * Records are handed out across files in sequence order; a sequence
 * number out of order ends the experiment the same way.  Nothing here
 * trusts a length it has not checked against what was read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "exp.h"

#define FUZZ_NOSUM 0
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#undef FUZZ_NOSUM
#define FUZZ_NOSUM 1			/* let the fuzzer reach the records */
#endif

/* Stop reading file f with a warning (the first one is kept). */
static void cut(struct eng_exp *x, struct exp_in *in, uint64_t off,
    const char *why)
{
	if (x->x_warn[0] == '\0')
		snprintf(x->x_warn, sizeof (x->x_warn), "%s/%s: %s at offset "
		    "%llu; replayed up to the last whole block", x->x_dir,
		    in->xi_name, why, (unsigned long long)off);
	in->xi_end = 1;
	in->xi_has = 0;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
		    (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Check every record of the block just read lies inside it. */
static int block_ok(const char *p, size_t len, uint32_t nrecs,
    uint64_t seq)
{
	size_t pos = 0;

	for (uint32_t i = 0; i < nrecs; i++) {
		struct exp_rhdr rh;

		if (len - pos < sizeof (rh))
			return 0;
		memcpy(&rh, p + pos, sizeof (rh));
		if (rh.rh_len > len - pos - sizeof (rh) ||
		    (i == 0 && rh.rh_seq != seq) || rh.rh_type == 0)
			return 0;
		pos += sizeof (rh) + (((size_t)rh.rh_len + 7) & ~(size_t)7);
		if (pos > len)
			return 0;
	}
	return pos == len;
}

/* Read the next block of in; 0 if there is one, else the file ended. */
static int next_block(struct eng_exp *x, struct exp_in *in)
{
	struct exp_bhdr bh;
	struct stat sb;
	uint64_t off = in->xi_next;

	if (fstat(in->xi_fd, &sb) == 0)
		in->xi_size = (uint64_t)sb.st_size;
	if (off >= in->xi_size)
		return -1;			/* the end, cleanly */
	if (in->xi_size - off < sizeof (bh) ||
	    read_at(in->xi_fd, &bh, sizeof (bh), off) != 0) {
		if (x->x_replay < 2)		/* following: being written */
			cut(x, in, off, "block header cut short");
		return -1;
	}
	if (bh.bh_magic != EXP_BLOCK_MAGIC || bh.bh_len > EXP_BLOCK_MAX ||
	    bh.bh_nrecs == 0) {
		cut(x, in, off, "not a block");
		return -1;
	}
	if (bh.bh_len > in->xi_size - off - sizeof (bh)) {
		if (x->x_replay < 2)
			cut(x, in, off, "block cut short");
		return -1;
	}
	if (bh.bh_len > in->xi_blkcap) {
		char *nb = realloc(in->xi_blk, bh.bh_len);

		if (nb == NULL) {
			cut(x, in, off, "block too large for memory");
			return -1;
		}
		in->xi_blk = nb;
		in->xi_blkcap = bh.bh_len;
	}
	if (read_at(in->xi_fd, in->xi_blk, bh.bh_len, off + sizeof (bh)) != 0) {
		cut(x, in, off, "block cut short");
		return -1;
	}
	if (!FUZZ_NOSUM && eng_exp_sum(in->xi_blk, bh.bh_len) != bh.bh_sum) {
		cut(x, in, off, "block damaged (checksum)");
		return -1;
	}
	if (!block_ok(in->xi_blk, bh.bh_len, bh.bh_nrecs, bh.bh_seq)) {
		cut(x, in, off, "block with malformed records");
		return -1;
	}
	in->xi_blkoff = off;
	in->xi_blklen = bh.bh_len;
	in->xi_pos = 0;
	in->xi_left = bh.bh_nrecs;
	in->xi_next = off + sizeof (bh) + bh.bh_len;
	return 0;
}

/* Make in->xi_cur the next record of the file, if there is one. */
static void fill(struct eng_exp *x, struct exp_in *in)
{
	if (in->xi_has || in->xi_end)
		return;
	if (in->xi_left == 0 && next_block(x, in) != 0) {
		in->xi_end = in->xi_end || x->x_replay < 2;
		return;
	}
	memcpy(&in->xi_cur, in->xi_blk + in->xi_pos, sizeof (in->xi_cur));
	in->xi_body = in->xi_blk + in->xi_pos + sizeof (in->xi_cur);
	in->xi_curoff = in->xi_blkoff + sizeof (struct exp_bhdr) + in->xi_pos;
	in->xi_pos += sizeof (in->xi_cur) + (((size_t)in->xi_cur.rh_len + 7) &
	    ~(size_t)7);
	in->xi_left--;
	in->xi_has = 1;
}

/*
 * The next record of the experiment in sequence order, not taken: its
 * file in *filep; NULL at the end (x_warn says why if early).
 */
const struct exp_rhdr *eng_exp_peek(eng_hdl_t *h, const char **bodyp,
    int *filep)
{
	struct eng_exp *x = h->eh_exp;
	struct exp_in *best = NULL;
	int bf = -1;

	for (int f = 0; f < EXP_NFILES; f++) {
		struct exp_in *in = &x->x_in[f];

		fill(x, in);
		if (in->xi_has && (best == NULL || in->xi_cur.rh_seq <
		    best->xi_cur.rh_seq)) {
			best = in;
			bf = f;
		}
	}
	if (best == NULL)
		return NULL;
	if (eng_exp_unknown(best->xi_cur.rh_type) && x->x_minor <= EXP_MINOR) {
		/* only a newer minor may have kinds this build does not know */
		cut(x, best, best->xi_curoff, "record of an unknown kind");
		for (int f = 0; f < EXP_NFILES; f++)
			x->x_in[f].xi_end = 1, x->x_in[f].xi_has = 0;
		return NULL;
	}
	if (best->xi_cur.rh_seq <= x->x_lastseq ||
	    (!eng_exp_unknown(best->xi_cur.rh_type) &&
	    eng_exp_file_of(best->xi_cur.rh_type) != bf)) {
		cut(x, best, best->xi_curoff, "record out of order");
		for (int f = 0; f < EXP_NFILES; f++)
			x->x_in[f].xi_end = 1, x->x_in[f].xi_has = 0;
		return NULL;
	}
	*bodyp = best->xi_body;
	if (filep != NULL)
		*filep = bf;
	return &best->xi_cur;
}

/* Take the record eng_exp_peek gave (its body stays valid until the next
 * peek of that file). */
void eng_exp_take(eng_hdl_t *h, int file)
{
	struct eng_exp *x = h->eh_exp;

	x->x_lastseq = x->x_in[file].xi_cur.rh_seq;
	x->x_in[file].xi_has = 0;
}

int eng_exp_unknown(int type)
{
	return type >= EXP_R_NTYPES;
}

/* Take a record of a kind this build does not know: a newer minor
 * format's, which older readers may skip by the format's rule (exp.h). */
void eng_exp_skip(eng_hdl_t *h, int file)
{
	struct eng_exp *x = h->eh_exp;

	if (x->x_nskip++ == 0) {
		x->x_skiptype = x->x_in[file].xi_cur.rh_type;
		snprintf(x->x_skipfile, sizeof (x->x_skipfile), "%s",
		    x->x_in[file].xi_name);
	}
	snprintf(x->x_skipnote, sizeof (x->x_skipnote), "%.900s: written in "
	    "experiment format 1.%u, newer than this build's 1.%d: skipped "
	    "%llu record%s of kinds it does not know (the first of kind %u in "
	    "%s)", x->x_dir, x->x_minor, EXP_MINOR,
	    (unsigned long long)x->x_nskip, x->x_nskip == 1 ? "" : "s",
	    x->x_skiptype, x->x_skipfile);
	eng_exp_take(h, file);
}

const char *eng_replay_note(eng_hdl_t *h)
{
	struct eng_exp *x = h->eh_exp;

	return x != NULL && x->x_skipnote[0] != '\0' ? x->x_skipnote : NULL;
}

/* Where the next record of file is, for messages: "dir/name at offset N". */
void eng_exp_where(eng_hdl_t *h, int file, char *buf, size_t len)
{
	struct eng_exp *x = h->eh_exp;
	const struct exp_in *in = &x->x_in[file];

	snprintf(buf, len, "%s/%s at offset %llu", x->x_dir, in->xi_name,
	    (unsigned long long)(in->xi_has ? in->xi_curoff : in->xi_next));
}

/* The format's version in a file header or log.xml: 0, or -1 with a
 * message if this build cannot read it (a newer major). */
static int version_ok(eng_hdl_t *h, const char *path, uint32_t major,
    uint32_t minor, const char *where)
{
	struct eng_exp *x = h->eh_exp;

	if (major > EXP_VERSION)
		return eng_error(h, "%s: experiment format version %u.%u "
		    "is newer than this build reads (%d.%d): open it with a "
		    "newer dtrace (%s)", path, major, minor, EXP_VERSION,
		    EXP_MINOR, where);
	if (major != EXP_VERSION)
		return eng_error(h, "%s: experiment format version %u is "
		    "not one this build knows (%d.%d) (%s)", path, major,
		    EXP_VERSION, EXP_MINOR, where);
	if (minor > x->x_minor)
		x->x_minor = minor;
	return 0;
}

/* log.xml's <experiment version="M.N">: checked like the files'. */
static int log_version(eng_hdl_t *h, const char *path)
{
	char head[512];
	const char *v;
	unsigned major = 0, minor = 0;
	FILE *fp = fopen(path, "r");
	size_t n;

	if (fp == NULL)
		return eng_error(h, "%s: %s", path, strerror(errno));
	n = fread(head, 1, sizeof (head) - 1, fp);
	fclose(fp);
	head[n] = '\0';
	if ((v = strstr(head, "<experiment version=\"")) == NULL)
		return 0;	/* being written: the files' headers decide */
	if (sscanf(v + 21, "%u.%u", &major, &minor) < 1)
		return eng_error(h, "%s: unreadable experiment version (offset "
		    "%ld)", path, (long)(v + 21 - head));
	return version_ok(h, path, major, minor, "<experiment version>");
}

static int open_in(eng_hdl_t *h, int f, const char *name, uint32_t *ncpus)
{
	struct eng_exp *x = h->eh_exp;
	struct exp_in *in = &x->x_in[f];
	struct exp_fhdr fh;
	char path[1200];

	snprintf(in->xi_name, sizeof (in->xi_name), "%s", name);
	snprintf(path, sizeof (path), "%s/%s", x->x_dir, name);
	if ((in->xi_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		/* a descendant's sub-experiment has no archives/ (the seed:
		 * all archiving is in the founder's): no symbols to read */
		if (f == EXP_F_SYMBOLS && errno == ENOENT) {
			in->xi_end = 1;
			return 0;
		}
		return eng_error(h, "%s: %s", path, strerror(errno));
	}
	if (read_at(in->xi_fd, &fh, sizeof (fh), 0) != 0)
		return eng_error(h, "%s: file header cut short at offset 0",
		    path);
	if (memcmp(fh.fh_magic, EXP_MAGIC, 8) != 0)
		return eng_error(h, "%s: not an experiment file (bad magic at "
		    "offset 0)", path);
	if (version_ok(h, path, fh.fh_version, fh.fh_minor, "offset 8") != 0)
		return -1;
	if (fh.fh_kind != (uint32_t)f)
		return eng_error(h, "%s: wrong kind of file %u (offset 12)",
		    path, fh.fh_kind);
	if (fh.fh_wordsize != 64)
		return eng_error(h, "%s: word size %u not supported (offset "
		    "16)", path, fh.fh_wordsize);
	if (fh.fh_ncpus == 0 || fh.fh_ncpus > 65536 || (*ncpus != 0 &&
	    fh.fh_ncpus != *ncpus))
		return eng_error(h, "%s: bad CPU count %u (offset 20)", path,
		    fh.fh_ncpus);
	*ncpus = fh.fh_ncpus;
	in->xi_next = sizeof (fh);
	return 0;
}

/* Open the experiment at dir for reading: 0, or -1 with a message. */
int eng_exp_read_open(eng_hdl_t *h, const char *dir)
{
	struct eng_exp *x = h->eh_exp;
	struct stat sb;
	char path[1200];
	uint32_t ncpus = 0;

	snprintf(x->x_dir, sizeof (x->x_dir), "%s", dir);
	if (stat(dir, &sb) != 0)
		return eng_error(h, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return eng_error(h, "%s: not an experiment (not a directory)",
		    dir);
	snprintf(path, sizeof (path), "%s/log.xml", dir);
	if (access(path, R_OK) != 0)
		return eng_error(h, "%s: not an experiment (%s: %s)", dir,
		    path, strerror(errno));
	if (log_version(h, path) != 0)
		return -1;
	for (int f = 0; f < EXP_NFILES; f++)
		if (open_in(h, f, eng_exp_fname(f), &ncpus) != 0)
			return -1;
	x->x_ncpus = (int)ncpus;
	return 0;
}
