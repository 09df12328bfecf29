/*
 * fuzz_compile.c - libFuzzer target for the D compiler: bytes ->
 * eng_compile_str() on a handle with only the dtrace provider.  The first
 * byte picks the compile flags (probe-specifier mode, -Z, -l); the rest is
 * the program text.  Nothing is enabled.  Any crash, hang, leak or
 * sanitizer report is a bug: the compiler must refuse bad input with a
 * message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

static eng_hdl_t *hdl;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const argv[] = { "fuzz", "1", "two", NULL };
	eng_cargs_t args = { 3, argv, NULL, ENG_SPEC_NAME, 0 };
	unsigned flags = ENG_C_ARGREF;
	eng_prog_t *p;
	char err[256], *src;

	if (hdl == NULL && (hdl = eng_open(ENG_O_NOPROVIDERS, err,
	    sizeof(err))) == NULL)
		abort();
	if (size > 0) {
		flags |= (data[0] & 1 ? ENG_C_PROBESPEC : 0) |
		    (data[0] & 2 ? ENG_C_ZDEFS : 0) |
		    (data[0] & 4 ? ENG_C_LIST : 0);
		data++;
		size--;
	}
	src = malloc(size + 1);
	if (src == NULL)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';
	p = eng_compile_str(hdl, src, (flags & ENG_C_PROBESPEC) ? NULL :
	    "fuzz.d", flags, &args);
	if (p != NULL) {
		FILE *fp = fopen("/dev/null", "w");

		if (fp != NULL) {
			eng_prog_dis(hdl, p, fp);
			fclose(fp);
		}
		eng_prog_free(p);
	} else if (eng_errmsg(hdl)[0] == '\0') {
		abort();	/* a refusal must say why */
	}
	free(src);
	return 0;
}
