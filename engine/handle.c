/*
 * handle.c - the engine handle: eng_open, eng_close, error messages.
 *
 * eng_hdl_t (eng_impl.h) ties together the shim state, the compiler's
 * state (made lazily by the compiler, freed here through eh_cc_free) and
 * the consumer's state (struct eng_consumer, consume.h), which eng_open
 * makes whole: CPU count, wakeup pipe, per-CPU drop counters.  Every
 * option starts at dtrace's default (opt.c).  Handles share the
 * process-wide providers: the last one closed shuts their event sources
 * down (prov_shutdown).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "consume.h"
#include "providers.h"
#include "cc.h"
#include "exp.h"

static unsigned nprovhdl;		/* open handles using providers */

static struct eng_consumer *cons_new(void)
{
	struct eng_consumer *c = calloc(1, sizeof (*c));
	unsigned n = ks_ncpus();

	if (c == NULL)
		return NULL;
	c->ec_ncpus = (int)(n > 0 ? n : 1);
	c->ec_wakefd[0] = c->ec_wakefd[1] = -1;
	c->ec_beganon = c->ec_endedon = -1;
	c->ec_stdoutfd = -1;
	c->ec_drops = calloc((size_t)c->ec_ncpus, sizeof (uint64_t));
	c->ec_aggdrops = calloc((size_t)c->ec_ncpus, sizeof (uint64_t));
	c->ec_errors = calloc((size_t)c->ec_ncpus, sizeof (uint64_t));
	c->ec_aggseen = calloc((size_t)c->ec_ncpus, sizeof (uint64_t));
	if (c->ec_drops == NULL || c->ec_aggdrops == NULL ||
	    c->ec_errors == NULL || c->ec_aggseen == NULL || pipe2(c->ec_wakefd,
	    O_CLOEXEC | O_NONBLOCK) != 0) {
		eng_cons_free(c);
		return NULL;
	}
	return c;
}

void eng_cons_free(struct eng_consumer *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->ec_nep; i++)
		free(c->ec_ep[i].ep_desc);
	free(c->ec_ep);
	for (size_t i = 0; i < c->ec_nfmt; i++)
		free(c->ec_fmt[i]);
	free(c->ec_fmt);
	free(c->ec_buf);
	free(c->ec_drops);
	free(c->ec_aggdrops);
	free(c->ec_errors);
	free(c->ec_aggseen);
	free(c->ec_targets);
	eng_agg_free(c->ec_agg);
	eng_sym_free(c->ec_sym);
	eng_export_free(c->ec_export);
	free(c->ec_ecbst);
	free(c->ec_ecbraw);
	if (c->ec_stdoutfd >= 0)
		close(c->ec_stdoutfd);
	for (int i = 0; i < 2; i++)
		if (c->ec_wakefd[i] >= 0)
			close(c->ec_wakefd[i]);
	free(c);
}

/* Copy a message into errbuf as eng_open's caller wants it. */
static eng_hdl_t *open_fail(eng_hdl_t *h, char *errbuf, size_t errlen,
    const char *msg)
{
	if (errbuf != NULL && errlen > 0)
		snprintf(errbuf, errlen, "%s", msg);
	eng_close(h);
	return NULL;
}

eng_hdl_t *eng_open(int flags, char *errbuf, size_t errlen)
{
	eng_hdl_t *h = calloc(1, sizeof (*h));

	if (h == NULL)
		return open_fail(NULL, errbuf, errlen, strerror(ENOMEM));
	h->eh_flags = flags | ENG_O_NOPROVIDERS;	/* until counted */
	eng_opt_defaults(h);
	if ((h->eh_cons = cons_new()) == NULL)
		return open_fail(h, errbuf, errlen, strerror(ENOMEM));
	if (!(flags & ENG_O_NOPROVIDERS)) {
		__atomic_add_fetch(&nprovhdl, 1, __ATOMIC_ACQ_REL);
		h->eh_flags = flags;
		if (prov_register_all() != 0)
			return open_fail(h, errbuf, errlen,
			    "failed to initialize providers");
	}
	if ((h->eh_ks = ks_open()) == NULL) {
		char msg[256];

		snprintf(msg, sizeof (msg), "failed to open the DTrace "
		    "state: %s", strerror(errno));
		return open_fail(h, errbuf, errlen, msg);
	}
	return h;
}

void eng_close(eng_hdl_t *h)
{
	if (h == NULL)
		return;
	eng_exp_free(h->eh_exp);	/* an experiment ends whole */
	h->eh_exp = NULL;
	if (h->eh_ks != NULL)
		ks_close(h->eh_ks);
	/* The last handle using providers releases their event sources
	 * (BPF programs, perf rings, threads); they restart on demand. */
	if (!(h->eh_flags & ENG_O_NOPROVIDERS) &&
	    __atomic_sub_fetch(&nprovhdl, 1, __ATOMIC_ACQ_REL) == 0)
		prov_shutdown();
	eng_cc_free(h);
	eng_pid_free(h);
	eng_cons_free(h->eh_cons);
	eng_optstr_free(h);
	free(h);
}

const char *eng_route(eng_hdl_t *h)
{
	if (h == NULL || (h->eh_flags & ENG_O_NOPROVIDERS))
		return "no providers";
	return prov_route();
}

const char *eng_user_route(eng_hdl_t *h, uint64_t *hits, double *nsperhit)
{
	uint64_t ns = 0;
	const char *r;

	*hits = 0;
	*nsperhit = 0;
	if (h == NULL || (h->eh_flags & ENG_O_NOPROVIDERS))
		return NULL;
	r = prov_user_stats(hits, &ns);
	if (*hits > 0)
		*nsperhit = (double)ns / (double)*hits;
	return r;
}

const char *eng_errmsg(const eng_hdl_t *h)
{
	return h != NULL ? h->eh_errmsg : "no handle";
}

int eng_error(eng_hdl_t *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->eh_errmsg, sizeof (h->eh_errmsg), fmt, ap);
	va_end(ap);
	return -1;
}
