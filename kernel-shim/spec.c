/*
 * spec.c - speculations (DTrace guide, "Speculative Tracing").
 *
 * A state has nspec speculations, each with one specsize buffer per CPU,
 * allocated at GO.  Ids are 1..nspec.  States:
 *   INACTIVE    free; speculation() may hand it out (ACTIVE).
 *   ACTIVE      speculate(id) appends whole ECB records to the buffer of
 *               the firing CPU (full: dtst_specdrops).
 *   COMMITTING  commit(id) has copied every CPU's records into that CPU's
 *   DISCARDING  principal buffer (or dropped them); speculate(id) now
 *               counts dtst_specdrops_busy.  It is cleaned back to
 *               INACTIVE once a cleanrate interval has passed since (as
 *               DTrace's cleaner cyclic would have by then): looked at
 *               lazily when speculation() or speculate() meets it, and
 *               unconditionally by ks_spec_clean (STATUS).
 * speculation() with none INACTIVE returns 0 and counts
 * dtst_specdrops_busy if one is still being cleaned, else
 * dtst_specdrops_unavail.  Everything runs under the fire lock.
 */
#include <stdlib.h>
#include <string.h>
#include "ks_impl.h"

int ks_spec_alloc(struct ks_state *st)
{
	uint64_t size = (uint64_t)ks_state_opt(st, DTRACEOPT_SPECSIZE);
	uint32_t n = (uint32_t)ks_state_opt(st, DTRACEOPT_NSPEC), i;
	unsigned c;

	st->st_specs = ks_calloc(n ? n : 1, sizeof(*st->st_specs));
	if (st->st_specs == NULL)
		return -1;
	st->st_nspec = n;
	for (i = 0; i < n; i++) {
		ks_spec_t *sp = &st->st_specs[i];

		sp->ksp_bufs = ks_calloc(st->st_ncpus, sizeof(ks_buf_t));
		if (sp->ksp_bufs == NULL)
			return -1;
		for (c = 0; c < st->st_ncpus; c++)
			if (ks_buf_init(&sp->ksp_bufs[c], size, KS_BUF_SPEC))
				return -1;
	}
	return 0;
}

void ks_spec_free(struct ks_state *st)
{
	uint32_t i;
	unsigned c;

	if (st->st_specs == NULL)
		return;
	for (i = 0; i < st->st_nspec; i++) {
		ks_spec_t *sp = &st->st_specs[i];

		if (sp->ksp_bufs == NULL)
			continue;
		for (c = 0; c < st->st_ncpus; c++)
			ks_buf_fini(&sp->ksp_bufs[c]);
		free(sp->ksp_bufs);
	}
	free(st->st_specs);
	st->st_specs = NULL;
	st->st_nspec = 0;
}

static int cleaning(const ks_spec_t *sp)
{
	return sp->ksp_state == KS_SPEC_COMMITTING ||
	    sp->ksp_state == KS_SPEC_DISCARDING;
}

/* Clean sp if a cleanrate interval has passed since commit/discard. */
static void clean_due(struct ks_state *st, ks_spec_t *sp, uint64_t now)
{
	dtrace_optval_t rate = ks_state_opt(st, DTRACEOPT_CLEANRATE);

	if (cleaning(sp) && (rate <= 0 || now - sp->ksp_done >=
	    (uint64_t)rate))
		sp->ksp_state = KS_SPEC_INACTIVE;
}

int ks_spec_new(struct ks_state *st)
{
	uint64_t now = ks_gethrtime();
	int busy = 0;
	uint32_t i;

	for (i = 0; i < st->st_nspec; i++) {
		ks_spec_t *sp = &st->st_specs[i];

		clean_due(st, sp, now);
		if (sp->ksp_state == KS_SPEC_INACTIVE) {
			sp->ksp_state = KS_SPEC_ACTIVE;
			return (int)i + 1;
		}
		busy |= cleaning(sp);
	}
	if (busy)
		st->st_status.dtst_specdrops_busy++;
	else
		st->st_status.dtst_specdrops_unavail++;
	return 0;
}

static ks_spec_t *spec_get(struct ks_state *st, uint64_t id)
{
	return id >= 1 && id <= st->st_nspec ? &st->st_specs[id - 1] : NULL;
}

/* Where speculate(id) records go on cpu; NULL (counted) if nowhere. */
ks_buf_t *ks_spec_buffer(struct ks_state *st, uint64_t id, unsigned cpu)
{
	ks_spec_t *sp = spec_get(st, id);

	if (sp != NULL && cleaning(sp))	/* only then is the clock needed */
		clean_due(st, sp, ks_gethrtime());
	if (sp == NULL || sp->ksp_state == KS_SPEC_INACTIVE)
		return NULL;
	if (sp->ksp_state != KS_SPEC_ACTIVE) {
		st->st_status.dtst_specdrops_busy++;
		return NULL;
	}
	return &sp->ksp_bufs[cpu];
}

/* Append the records of one speculation buffer to a principal buffer. */
static void copy_records(struct ks_state *st, ks_buf_t *from, ks_buf_t *to)
{
	uint64_t off = 0;

	while (off < from->kb_offset) {
		dtrace_epid_t epid;
		uint32_t n;
		char *p;

		memcpy(&epid, from->kb_data[0] + off, sizeof(epid));
		n = ks_state_recsize(st, epid);
		if (n == 0 || off + n > from->kb_offset)
			break;
		p = ks_buf_reserve(st, to, n, st->st_endreserve);
		if (p != NULL)
			memcpy(p, from->kb_data[0] + off, n);
		off += n;
	}
}

void ks_spec_commit(struct ks_state *st, uint64_t id, unsigned cpu)
{
	ks_spec_t *sp = spec_get(st, id);
	unsigned c;

	if (sp == NULL || sp->ksp_state != KS_SPEC_ACTIVE)
		return;
	for (c = 0; c < st->st_ncpus; c++) {
		copy_records(st, &sp->ksp_bufs[c], &st->st_bufs[c]);
		ks_buf_reset(&sp->ksp_bufs[c]);
	}
	sp->ksp_state = KS_SPEC_COMMITTING;
	sp->ksp_done = ks_gethrtime();
}

void ks_spec_discard(struct ks_state *st, uint64_t id)
{
	ks_spec_t *sp = spec_get(st, id);
	unsigned c;

	if (sp == NULL || sp->ksp_state != KS_SPEC_ACTIVE)
		return;
	for (c = 0; c < st->st_ncpus; c++)
		ks_buf_reset(&sp->ksp_bufs[c]);
	sp->ksp_state = KS_SPEC_DISCARDING;
	sp->ksp_done = ks_gethrtime();
}

void ks_spec_clean(struct ks_state *st)
{
	uint32_t i;

	for (i = 0; i < st->st_nspec; i++) {
		ks_spec_t *sp = &st->st_specs[i];

		if (sp->ksp_state == KS_SPEC_COMMITTING ||
		    sp->ksp_state == KS_SPEC_DISCARDING)
			sp->ksp_state = KS_SPEC_INACTIVE;
	}
}
