/*
 * fuzz_x86_insn.c - libFuzzer target for the x86-64 instruction decoder
 * (providers/x86/x86_insn.c): the bytes are walked as code, instruction
 * after instruction, as engine/pid.c walks a function.  The decoder may
 * refuse bytes but must never read past n, claim more than 15 bytes or
 * more than it was given, or report a length that disagrees with its
 * own second reading of the same bytes.
 *
 * Seeds: corpus/ holds the first bytes of a few libc functions (prefixes,
 * VEX/EVEX, SIB and RIP-relative operands, jumps and returns).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "providers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		prov_x86_insn_t a, b;
		/* a copy of just what remains: reads past it are caught */
		uint8_t *buf = malloc(size - off);
		int len;

		if (buf == NULL)
			return 0;
		memcpy(buf, data + off, size - off);
		len = prov_x86_decode(buf, size - off, &a);
		if (len > 0 && (len > PROV_X86_MAXLEN ||
		    (size_t)len > size - off || a.pxi_len != len ||
		    prov_x86_decode(buf, (size_t)len, &b) != len))
			abort();
		free(buf);
		off += len > 0 ? (size_t)len : 1;
	}
	return 0;
}
