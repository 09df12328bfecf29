/*
 * exp_crc.c - CRC-32 (the IEEE polynomial, reflected, as zlib's crc32)
 * of experiment blocks: a block whose payload does not check was cut
 * short or damaged, and the reader stops before it.
 */
#include "exp.h"

static uint32_t table[256];
static int table_made;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	__atomic_store_n(&table_made, 1, __ATOMIC_RELEASE);
}

/* Continue crc (0 to start) over n bytes at p. */
uint32_t eng_exp_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *s = p;

	if (!__atomic_load_n(&table_made, __ATOMIC_ACQUIRE))
		make_table();
	crc = ~crc;
	while (n-- > 0)
		crc = table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

_Static_assert(sizeof (struct exp_fhdr) == 64, "file header layout");
_Static_assert(sizeof (struct exp_bhdr) == 32, "block header layout");
_Static_assert(sizeof (struct exp_rhdr) == 24, "record header layout");
