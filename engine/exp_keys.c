/*
 * exp_keys.c - the keyed answers of an experiment (exp.h): enabled-probe,
 * probe, format and aggregation descriptions, clause pieces, aggregation
 * names and symbol texts, found by (type, a, b, c).
 *
 * While recording, the table says what is written already (each key is
 * written once); while replaying, it holds what was read.  Open
 * addressing with linear probing, grown at half full; entries never go.
 */
#include <stdlib.h>
#include <string.h>
#include "exp.h"

struct exp_keys {
	struct exp_keyval *kt_v;	/* kt_cap slots, kv_type 0 = free */
	size_t kt_n, kt_cap;
};

static uint64_t hash(int type, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = (uint64_t)type * 0x9e3779b97f4a7c15ull;

	x ^= a + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
	x ^= b + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
	x ^= c + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
	return x ^ (x >> 29);
}

static size_t slot(const struct exp_keys *t, int type, uint64_t a,
    uint64_t b, uint64_t c)
{
	size_t i = hash(type, a, b, c) & (t->kt_cap - 1);

	for (;;) {
		const struct exp_keyval *kv = &t->kt_v[i];

		if (kv->kv_type == 0 || (kv->kv_type == type &&
		    kv->kv_key.k_a == a && kv->kv_key.k_b == b &&
		    kv->kv_key.k_c == c))
			return i;
		i = (i + 1) & (t->kt_cap - 1);
	}
}

const struct exp_keyval *eng_exp_keys_get(const struct exp_keys *t,
    int type, uint64_t a, uint64_t b, uint64_t c)
{
	if (t == NULL || t->kt_cap == 0)
		return NULL;
	const struct exp_keyval *kv = &t->kt_v[slot(t, type, a, b, c)];

	return kv->kv_type != 0 ? kv : NULL;
}

static int grow(struct exp_keys *t)
{
	size_t cap = t->kt_cap ? t->kt_cap * 2 : 256;
	struct exp_keyval *old = t->kt_v, *nv = calloc(cap, sizeof (*nv));
	size_t ocap = t->kt_cap;

	if (nv == NULL)
		return -1;
	t->kt_v = nv;
	t->kt_cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].kv_type != 0)
			nv[slot(t, old[i].kv_type, old[i].kv_key.k_a,
			    old[i].kv_key.k_b, old[i].kv_key.k_c)] = old[i];
	free(old);
	return 0;
}

int eng_exp_keys_put(struct exp_keys **tp, int type,
    const struct exp_key *k, const void *val, size_t len)
{
	struct exp_keys *t = *tp;
	struct exp_keyval *kv;

	if (t == NULL && (t = *tp = calloc(1, sizeof (*t))) == NULL)
		return -1;
	if ((t->kt_n + 1) * 2 > t->kt_cap && grow(t) != 0)
		return -1;
	kv = &t->kt_v[slot(t, type, k->k_a, k->k_b, k->k_c)];
	if (kv->kv_type != 0)
		return 0;			/* known: the first one stays */
	if ((kv->kv_val = malloc(len + 1)) == NULL)
		return -1;
	if (len > 0)
		memcpy(kv->kv_val, val, len);
	((char *)kv->kv_val)[len] = '\0';	/* strings end, always */
	kv->kv_len = len;
	kv->kv_key = *k;
	kv->kv_type = type;
	t->kt_n++;
	return 0;
}

void eng_exp_keys_free(struct exp_keys *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->kt_cap; i++)
		free(t->kt_v[i].kv_val);
	free(t->kt_v);
	free(t);
}
