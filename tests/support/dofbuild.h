/*
 * dofbuild.h - build DOF images by hand, for tests (shim unit tests, the
 * fuzzer's seed corpus, compiler tests that want a reference image).
 *
 * A builder collects sections; section 0 is always a shared string table
 * (probe descriptions, formats) filled in by dofb_finish().  Every
 * function returns a section index usable in links.  dofb_finish() lays
 * the image out as the clause protocol expects (header, section headers,
 * then each section's data at its alignment) and returns a malloc'd copy
 * the caller frees.  Helpers at the end poke at a finished image so tests
 * can break one rule at a time.  Allocation failure aborts: tests only.
 */
#ifndef DOFBUILD_H
#define DOFBUILD_H

#include <stddef.h>
#include <stdint.h>
#include "dtrace_abi.h"

typedef struct dofb dofb_t;

dofb_t *dofb_new(void);
void dofb_free(dofb_t *b);

/* A raw section (data copied); returns its index. */
uint32_t dofb_sect(dofb_t *b, uint32_t type, uint32_t align,
    uint32_t entsize, const void *data, uint64_t size);
/* Offset of s in the shared string table (section 0). */
uint32_t dofb_str(dofb_t *b, const char *s);
#define DOFB_STRTAB	0

/* A DIF object: code, optional integer/string/variable tables. */
uint32_t dofb_difo(dofb_t *b, const dif_instr_t *code, uint32_t n,
    const uint64_t *ints, uint32_t nints, const char *strs,
    uint32_t strslen, const dtrace_difv_t *vars, uint32_t nvars,
    dtrace_diftype_t rtype);
/* Common DIF objects: a constant integer of size bytes; argument n
 * (8 bytes); a constant string; "arg n == value" predicate. */
uint32_t dofb_difo_int(dofb_t *b, uint64_t value, uint32_t size);
uint32_t dofb_difo_arg(dofb_t *b, unsigned n);
uint32_t dofb_difo_str(dofb_t *b, const char *s);
uint32_t dofb_difo_argeq(dofb_t *b, unsigned n, uint64_t value);

uint32_t dofb_probedesc(dofb_t *b, const char *prov, const char *mod,
    const char *func, const char *name);
/* An action description (append with dofb_act, then dofb_actions). */
dof_actdesc_t dofb_act(uint32_t kind, uint32_t difo, uint64_t arg);
uint32_t dofb_actions(dofb_t *b, const dof_actdesc_t *acts, uint32_t n);
uint32_t dofb_ecb(dofb_t *b, uint32_t probes, uint32_t pred,
    uint32_t actions, uint64_t uarg);
/* Options, written as one OPTDESC section at finish. */
void dofb_option(dofb_t *b, uint32_t opt, uint64_t value);

/* The image (malloc'd; caller frees) and its size. */
void *dofb_finish(dofb_t *b, size_t *sizep);

/* Poke at a finished image. */
dof_hdr_t *dofb_hdr(void *img);
dof_sec_t *dofb_sechdr(void *img, uint32_t idx);
void *dofb_secdata(void *img, uint32_t idx);

#endif /* DOFBUILD_H */
