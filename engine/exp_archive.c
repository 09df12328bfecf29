/*
 * exp_archive.c - archives/: one file per load object map.xml names, with
 * its symbol table (the er_archive role, seed analyzer-experiment-format:
 * "binary files describing each load object referenced in the map.xml
 * file"), so that the objects of an experiment can be read after they
 * changed or on another machine.  Written when map.xml first loads the
 * object (a library may be gone by the end of the recording), once per
 * path.
 *
 * The file is archives/NAME.HASH (the object's basename and a hash of its
 * path: two libfoo.so in different directories do not collide), text:
 *   # dtui archive 1
 *   path PATH
 *   type dyn|exec vbase 0x... symbols N
 *   0xVALUE 0xSIZE F|O NAME         one per symbol, by address
 * F for functions (and PLT entries), O for other objects.  A file that
 * is not ELF (a locale mapped by a process) is not archived.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exp.h"
#include "elfsym.h"

static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;		/* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int archived(struct eng_exp *x, const char *path)
{
	char **v;

	for (size_t i = 0; i < x->x_narch; i++)
		if (strcmp(x->x_arch[i], path) == 0)
			return 1;
	if ((v = realloc(x->x_arch, (x->x_narch + 1) * sizeof (*v))) == NULL)
		return 1;		/* out of memory: not archived */
	x->x_arch = v;
	if ((v[x->x_narch] = strdup(path)) == NULL)
		return 1;
	x->x_narch++;
	return 0;
}

static void write_syms(FILE *fp, const eng_elfobj_t *o)
{
	fprintf(fp, "type %s vbase 0x%llx symbols %zu\n", o->eo_dyn ? "dyn" :
	    "exec", (unsigned long long)o->eo_vbase, o->eo_nsyms);
	for (size_t i = 0; i < o->eo_nsyms; i++) {
		const eng_elfsym_t *s = &o->eo_syms[i];

		fprintf(fp, "0x%llx 0x%llx %c %s\n",
		    (unsigned long long)s->es_value,
		    (unsigned long long)s->es_size, s->es_func ? 'F' : 'O',
		    s->es_name);
	}
}

void eng_exp_archive(struct eng_exp *x, const char *path)
{
	const char *base = strrchr(path, '/');
	char file[1400], err[256];
	eng_elfobj_t *o;
	FILE *fp;

	if (path[0] != '/' || archived(x, path))
		return;
	base = base != NULL ? base + 1 : path;
	snprintf(file, sizeof (file), "%s/archives/%.200s.%08x", x->x_dir,
	    base, path_hash(path));
	/* data files mapped (locales, caches) are no load objects */
	if ((o = eng_elf_get(path, err, sizeof (err))) == NULL)
		return;
	if ((fp = fopen(file, "w")) != NULL) {
		fprintf(fp, "# dtui archive 1\npath %s\n", path);
		write_syms(fp, o);
		fclose(fp);
	}
	eng_elf_put(o);
}

void eng_exp_archive_free(struct eng_exp *x)
{
	for (size_t i = 0; i < x->x_narch; i++)
		free(x->x_arch[i]);
	free(x->x_arch);
	x->x_arch = NULL;
	x->x_narch = 0;
}
