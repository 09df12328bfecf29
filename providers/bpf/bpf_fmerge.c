/*
 * bpf_fmerge.c - one kernel filter for an attachment several probes share
 * (prov_bpf_filter_merge, see bpf_filter.h).
 *
 * Each probe's filter (an OR of ANDs from the shim) is rewritten into the
 * terms of the attachment's program, which sees only the task the event
 * runs in and the record:
 *   - pid, cpu, uid, gid, tid, execname the probe takes from the task
 *     stay as they are; those it does not are dropped (the term loosens);
 *   - a tid the probe takes from a record field becomes an argument atom
 *     on that field; an execname from a record field keeps its variable
 *     with kfa_arg = the field's offset;
 *   - argN becomes an argument atom on the record field the probe's map
 *     names, in the merged map (fields shared by probes share a slot);
 *   - with pbp_idle, execname == "sched" and execname != "swapper..." are
 *     dropped: the probe calls thread 0 "sched", the kernel "swapper/N".
 * A term left without atoms is "always true", and so is the whole filter;
 * so are more terms than KS_FILTER_MAXTERMS.  Dropping atoms only makes
 * the filter accept more: it never rejects an event some probe's clauses
 * would have used.
 */
#include <string.h>
#include "bpf_filter.h"

/* The merged-map slot of record field (off, size, sign), or -1. */
static int am_slot(prov_bpf_argmap_t *am, int off, int size, int sign)
{
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		if (am->pba_off[i] == off && am->pba_size[i] == size &&
		    am->pba_signed[i] == sign)
			return i;
		if (am->pba_off[i] < 0) {
			am->pba_off[i] = (int16_t)off;
			am->pba_size[i] = (uint8_t)size;
			am->pba_signed[i] = (uint8_t)sign;
			return i;
		}
	}
	return -1;
}

/* Is this execname comparison unsafe for a probe that renames idle? */
static int idle_unsafe(const ks_filter_atom_t *a)
{
	if (a->kfa_op == KS_FOP_EQ)
		return strcmp(a->kfa_str, "sched") == 0;
	return strncmp(a->kfa_str, "swapper", 7) == 0;
}

/* Rewrite atom a of probe p into *o; 0 if it must be dropped. */
static int rewrite(const prov_bpf_fprobe_t *p, const ks_filter_atom_t *a,
    ks_filter_atom_t *o, prov_bpf_argmap_t *am)
{
	int slot;

	*o = *a;
	switch (a->kfa_var) {
	case KS_FV_TID:
		if (p->pbp_tid_off <= 0)
			break;
		if ((slot = am_slot(am, p->pbp_tid_off, 4, 1)) < 0)
			return 0;
		o->kfa_var = KS_FV_ARG;
		o->kfa_arg = (uint8_t)slot;
		return 1;
	case KS_FV_EXECNAME:
		if (p->pbp_idle && idle_unsafe(a))
			return 0;
		o->kfa_arg = 0;
		if (p->pbp_comm_off <= 0)
			break;
		if (p->pbp_comm_off % 8 != 0 || p->pbp_comm_off > 255)
			return 0;
		o->kfa_arg = (uint8_t)p->pbp_comm_off;
		return 1;
	case KS_FV_ARG:
		if (!(p->pbp_vars & PROV_FV(KS_FV_ARG)) || !p->pbp_hasam ||
		    a->kfa_arg >= DTRACE_MAXARGS ||
		    p->pbp_am.pba_off[a->kfa_arg] < 8)
			return 0;
		slot = am_slot(am, p->pbp_am.pba_off[a->kfa_arg],
		    p->pbp_am.pba_size[a->kfa_arg],
		    p->pbp_am.pba_signed[a->kfa_arg]);
		if (slot < 0)
			return 0;
		o->kfa_arg = (uint8_t)slot;
		return 1;
	default:
		break;
	}
	return a->kfa_var >= KS_FV_PID && a->kfa_var <= KS_FV_EXECNAME &&
	    (p->pbp_vars & PROV_FV(a->kfa_var)) != 0;
}

/* Append probe p's filter f to out; -1 if that makes it "always". */
static int merge_one(const prov_bpf_fprobe_t *p, const ks_filter_t *f,
    ks_filter_t *out, prov_bpf_argmap_t *am)
{
	if (f->kf_always || f->kf_nterms < 0)
		return -1;
	for (int t = 0; t < f->kf_nterms; t++) {
		const ks_filter_term_t *in = &f->kf_terms[t];
		ks_filter_term_t *o;

		if (out->kf_nterms >= KS_FILTER_MAXTERMS)
			return -1;
		o = &out->kf_terms[out->kf_nterms];
		o->kft_natoms = 0;
		for (int i = 0; i < in->kft_natoms && i < KS_FILTER_MAXATOMS;
		    i++)
			if (rewrite(p, &in->kft_atoms[i],
			    &o->kft_atoms[o->kft_natoms], am))
				o->kft_natoms++;
		if (o->kft_natoms == 0)
			return -1;
		out->kf_nterms++;
	}
	return 0;
}

int prov_bpf_filter_merge(const prov_bpf_fprobe_t *p, const ks_filter_t *f,
    int n, ks_filter_t *out, prov_bpf_argmap_t *am)
{
	memset(out, 0, sizeof(*out));
	memset(am, 0, sizeof(*am));
	for (int i = 0; i < DTRACE_MAXARGS; i++) {
		am->pba_off[i] = -1;
		am->pba_size[i] = 0;
		am->pba_signed[i] = 0;
	}
	if (n <= 0 || n > PROV_BPF_MAXFP)
		goto always;
	for (int i = 0; i < n; i++)
		if (merge_one(&p[i], &f[i], out, am) != 0)
			goto always;
	return 0;
always:
	memset(out, 0, sizeof(*out));
	out->kf_always = 1;
	return -1;
}
