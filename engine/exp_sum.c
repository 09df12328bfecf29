/*
 * exp_sum.c - the checksum of an experiment block's payload, and the
 * zero-run coding of snapshot data (exp.h): a block
 * whose payload does not check was cut short or damaged, and the reader
 * stops before it.
 *
 * Recording copies every principal-buffer byte the consumer reads, so the
 * sum must cost little per byte (CRC-32 byte by byte cost more than the
 * formatting it accompanies): four independent lanes of 8-byte words,
 * each multiplied and folded (a multiply-xorshift mix), combined at the
 * end.  Payloads are whole records padded to 8 bytes, so n is a multiple
 * of 8; a tail, if any, is mixed in zero-padded.  Not a defence against
 * tampering, only against truncation and damage.
 */
#include <string.h>
#include "exp.h"

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xff51afd7ed558ccdull

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * K2;
	return h ^ (h >> 29);
}

void eng_exp_sum_init(struct exp_sum *st)
{
	for (int j = 0; j < 4; j++)
		st->su_lane[j] = K1 ^ (uint64_t)j;
	st->su_n = 0;
	st->su_ntail = 0;
}

static void chunk(struct exp_sum *st, const unsigned char *s)
{
	uint64_t w[4];

	memcpy(w, s, 32);
	for (int j = 0; j < 4; j++)
		st->su_lane[j] = mix(st->su_lane[j], w[j]);
}

/* Add n bytes at p: the result is the sum of everything added, in
 * order, whatever the pieces. */
void eng_exp_sum_add(struct exp_sum *st, const void *p, size_t n)
{
	const unsigned char *s = p;

	st->su_n += n;
	if (st->su_ntail > 0) {
		size_t k = 32 - st->su_ntail < n ? 32 - st->su_ntail : n;

		memcpy(st->su_tail + st->su_ntail, s, k);
		st->su_ntail += k;
		s += k;
		n -= k;
		if (st->su_ntail < 32)
			return;
		chunk(st, st->su_tail);
		st->su_ntail = 0;
	}
	for (; n >= 32; s += 32, n -= 32)
		chunk(st, s);
	memcpy(st->su_tail, s, n);
	st->su_ntail = n;
}

uint32_t eng_exp_sum_end(struct exp_sum *st)
{
	uint64_t h;

	for (size_t i = 0, j = 0; i < st->su_ntail; i += 8, j++) {
		uint64_t t = 0;

		memcpy(&t, st->su_tail + i, st->su_ntail - i < 8 ?
		    st->su_ntail - i : 8);
		st->su_lane[j] = mix(st->su_lane[j], t);
	}
	h = mix(mix(mix(mix(st->su_n, st->su_lane[0]), st->su_lane[1]),
	    st->su_lane[2]), st->su_lane[3]);
	return (uint32_t)(h ^ (h >> 32));
}

uint32_t eng_exp_sum(const void *p, size_t n)
{
	struct exp_sum st;

	eng_exp_sum_init(&st);
	eng_exp_sum_add(&st, p, n);
	return eng_exp_sum_end(&st);
}

static uint64_t word(const char *p, size_t i)
{
	uint64_t w;

	memcpy(&w, p + i * 8, 8);
	return w;
}

static void token(char *out, size_t o, uint32_t t)
{
	memcpy(out + o, &t, 4);
}

/*
 * One pass over the words: a zero run is skipped four words (a 32-byte
 * line) at a time, a literal run copied as it is scanned, its token
 * written once its length is known.  The coding is the same as a word at
 * a time would give.
 */
size_t eng_exp_zrle(const char *p, size_t n, char *out)
{
	const size_t max = 0x7fffffff;
	size_t o = 0, words = n / 8, i = 0;

	while (i < words) {
		size_t j = i;

		if (word(p, i) == 0) {
			while (j + 4 <= words && j - i <= max - 4 &&
			    (word(p, j) | word(p, j + 1) | word(p, j + 2) |
			    word(p, j + 3)) == 0)
				j += 4;
			while (j < words && j - i < max && word(p, j) == 0)
				j++;
			token(out, o, (uint32_t)(j - i) | EXP_ZRUN);
			o += 4;
		} else {
			size_t t = o;
			uint64_t w;

			o += 4;
			while (j < words && j - i < max &&
			    (w = word(p, j)) != 0) {
				memcpy(out + o, &w, 8);
				o += 8;
				j++;
			}
			token(out, t, (uint32_t)(j - i));
		}
		i = j;
	}
	return o;
}

int eng_exp_unzrle(const char *in, size_t n, char *out, size_t size)
{
	size_t i = 0, o = 0;

	while (i < n) {
		uint32_t t;
		size_t w;

		if (n - i < 4)
			return -1;
		memcpy(&t, in + i, 4);
		i += 4;
		w = t & ~EXP_ZRUN;
		if (w == 0 || w > (size - o) / 8)
			return -1;
		if (t & EXP_ZRUN) {
			memset(out + o, 0, w * 8);
		} else {
			if (w * 8 > n - i)
				return -1;
			memcpy(out + o, in + i, w * 8);
			i += w * 8;
		}
		o += w * 8;
	}
	return o == size ? 0 : -1;
}

_Static_assert(sizeof (struct exp_fhdr) == 64, "file header layout");
_Static_assert(sizeof (struct exp_bhdr) == 32, "block header layout");
_Static_assert(sizeof (struct exp_rhdr) == 24, "record header layout");
