/*
 * fuzz_usdt_notes.c - libFuzzer target for the usdt provider's readers:
 * bytes as an ELF image -> usdt_notes_read (ELF and program headers,
 * .note.stapsdt notes, .stapsdt.base, symbol tables), and the same bytes
 * as an operand list -> usdt_args_parse.  Neither may crash, hang or leak
 * whatever the input.
 *
 * Seeds: corpus/ holds a small shared object with a stapsdt note and a
 * semaphore (a C file with DTRACE_PROBE2 of <sys/sdt.h>, built with
 * cc -O1 -shared -fPIC -nostdlib), the object dtrace -G makes, and an
 * operand list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "usdt_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	usdt_arg_t args[USDT_MAXARGS];
	usdt_notes_t n;
	char err[256], *spec;

	if (usdt_notes_read(data, size, &n, err, sizeof(err)) == 0)
		usdt_notes_free(&n);
	if ((spec = malloc(size + 1)) == NULL)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	(void)usdt_args_parse(spec, args, USDT_MAXARGS, NULL, NULL, err,
	    sizeof(err));
	free(spec);
	return 0;
}
