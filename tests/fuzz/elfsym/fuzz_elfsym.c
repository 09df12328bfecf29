/*
 * fuzz_elfsym.c - libFuzzer target for the ELF symbol reader (elfsym.c)
 * that the pid provider and ustack() trust with any file a process maps:
 * bytes -> eng_elf_parse, then lookups at every symbol's address, just
 * past it and at the ends of the address space.  A refusal must come
 * with a message; nothing may crash, hang or read out of bounds.
 *
 * Seeds: corpus/ holds small objects built with cc (with and without
 * .symtab, with a PLT).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	/* libelf may keep pointers into the image: give it its own copy */
	void *copy = malloc(size ? size : 1);
	eng_elfobj_t *o;

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	o = eng_elf_parse(copy, size, "fuzz", err, sizeof (err));
	if (o == NULL) {
		if (err[0] == '\0')
			abort();		/* refused without a word */
	} else {
		for (size_t i = 0; i < o->eo_nsyms; i++) {
			const eng_elfsym_t *s = &o->eo_syms[i];

			if (eng_elf_lookup(o, s->es_value) == NULL ||
			    strlen(s->es_name) == 0)
				abort();
			(void)eng_elf_lookup(o, s->es_value + s->es_size);
		}
		(void)eng_elf_lookup(o, 0);
		(void)eng_elf_lookup(o, UINT64_MAX);
		eng_elf_free(o);
	}
	free(copy);
	return 0;
}
