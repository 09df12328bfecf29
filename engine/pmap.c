/*
 * pmap.c - the objects a process has mapped, over time.
 *
 * /proc/PID/maps is read into one entry per file: its lowest and highest
 * mapped address, the start of its offset-0 mapping (the object's base)
 * and the load bias (base minus the first PT_LOAD's page-aligned link
 * address; 0 for ET_EXEC).  Rereading keeps the objects still mapped at
 * the same base as they were, symbols included, so a caller can tell
 * what was loaded (po_gen == pm_gen) or unloaded (gone) since: that is
 * how dlopen and dlclose are followed.  /proc/PID/exe names the a.out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "elfsym.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

eng_pmap_t *eng_pmap_new(int pid)
{
	eng_pmap_t *pm = calloc(1, sizeof (*pm));

	if (pm != NULL)
		pm->pm_pid = pid;
	return pm;
}

static void objs_free(eng_pobj_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].po_path);
		eng_elf_put(v[i].po_elf);
	}
	free(v);
}

void eng_pmap_free(eng_pmap_t *pm)
{
	if (pm == NULL)
		return;
	objs_free(pm->pm_objs, pm->pm_nobjs);
	free(pm->pm_exe);
	for (size_t i = 0; i < pm->pm_ngone; i++)
		free(pm->pm_gone[i].pg_path);
	free(pm->pm_gone);
	free(pm);
}

/* The entry for path in v (added if new), or NULL when out of memory. */
static eng_pobj_t *entry(eng_pobj_t **v, size_t *n, const char *path)
{
	eng_pobj_t *nv;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].po_path, path) == 0)
			return &(*v)[i];
	if ((nv = realloc(*v, (*n + 1) * sizeof (*nv))) == NULL)
		return NULL;
	*v = nv;
	nv = &nv[*n];
	memset(nv, 0, sizeof (*nv));
	if ((nv->po_path = strdup(path)) == NULL)
		return NULL;
	nv->po_start = UINT64_MAX;
	(*n)++;
	return nv;
}

/* Parse the maps into a new vector; -1 if unreadable or empty. */
static int parse(int pid, eng_pobj_t **out, size_t *nout)
{
	char path[64], line[4096 + 128];
	eng_pobj_t *v = NULL;
	size_t n = 0;
	FILE *fp;

	snprintf(path, sizeof (path), "/proc/%d/maps", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof (line), fp) != NULL) {
		unsigned long long s, e, off;
		char perm[8], file[4096];
		eng_pobj_t *po;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &s,
		    &e, perm, &off, file) < 4 || file[0] != '/')
			continue;
		if ((po = entry(&v, &n, file)) == NULL)
			break;
		if (s < po->po_start)
			po->po_start = s;
		if (e > po->po_end)
			po->po_end = e;
		if (off == 0 && po->po_base == 0)
			po->po_base = s;
		po->po_exec |= perm[2] == 'x';
	}
	fclose(fp);
	if (n == 0) {
		free(v);
		return -1;
	}
	*out = v;
	*nout = n;
	return 0;
}

static void read_exe(eng_pmap_t *pm)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof (path), "/proc/%d/exe", pm->pm_pid);
	if ((n = readlink(path, buf, sizeof (buf) - 1)) <= 0)
		return;
	buf[n] = '\0';
	free(pm->pm_exe);
	pm->pm_exe = strdup(buf);
}

int eng_pmap_update(eng_pmap_t *pm)
{
	eng_pobj_t *v;
	size_t n;
	int changed;

	pm->pm_read = mono();
	if (parse(pm->pm_pid, &v, &n) != 0)
		return -1;
	changed = n != pm->pm_nobjs;
	for (size_t i = 0; i < n; i++) {
		eng_pobj_t *o = NULL;

		if (v[i].po_base == 0)
			v[i].po_base = v[i].po_start;
		for (size_t j = 0; j < pm->pm_nobjs && o == NULL; j++)
			if (pm->pm_objs[j].po_base == v[i].po_base &&
			    strcmp(pm->pm_objs[j].po_path, v[i].po_path) == 0)
				o = &pm->pm_objs[j];
		if (o == NULL) {
			v[i].po_gen = pm->pm_gen + 1;
			changed = 1;
			continue;
		}
		/* the same object where it was: keep what is known of it */
		v[i].po_gen = o->po_gen;
		v[i].po_elf = o->po_elf;
		v[i].po_tried = o->po_tried;
		v[i].po_bias = o->po_bias;
		o->po_elf = NULL;
	}
	if (changed) {
		pm->pm_gen++;
		read_exe(pm);
	}
	objs_free(pm->pm_objs, pm->pm_nobjs);
	pm->pm_objs = v;
	pm->pm_nobjs = n;
	return changed;
}

int eng_pmap_mapped(eng_pmap_t *pm, const char *path, uint64_t start,
    uint64_t end, uint64_t off)
{
	eng_pobj_t *po = entry(&pm->pm_objs, &pm->pm_nobjs, path);

	if (po == NULL)
		return -1;
	if (po->po_end == 0)		/* predicted, or new: mapped now */
		po->po_gen = pm->pm_gen + 1;
	if (start < po->po_start)
		po->po_start = start;
	if (end > po->po_end)
		po->po_end = end;
	if (off == 0 && po->po_base == 0)
		po->po_base = start;
	po->po_exec = 1;
	return 0;
}

eng_pobj_t *eng_pmap_find(eng_pmap_t *pm, uint64_t addr)
{
	for (size_t i = 0; i < pm->pm_nobjs; i++)
		if (addr >= pm->pm_objs[i].po_start &&
		    addr < pm->pm_objs[i].po_end)
			return &pm->pm_objs[i];
	return NULL;
}

eng_elfobj_t *eng_pmap_elf(eng_pmap_t *pm, eng_pobj_t *po)
{
	char err[256];

	(void)pm;
	if (!po->po_tried) {
		po->po_tried = 1;
		po->po_elf = eng_elf_get(po->po_path, err, sizeof (err));
		if (po->po_elf != NULL && po->po_elf->eo_dyn)
			po->po_bias = po->po_base - po->po_elf->eo_vbase;
	}
	return po->po_elf;
}

const char *eng_pmap_modname(const eng_pmap_t *pm, const eng_pobj_t *po)
{
	const char *s = strrchr(po->po_path, '/');

	if (pm->pm_exe != NULL && strcmp(pm->pm_exe, po->po_path) == 0)
		return "a.out";
	return s != NULL ? s + 1 : po->po_path;
}

/* ---- a process before its exec -------------------------------------- */

extern char **environ;

/* Add path (resolved) as an object without addresses. */
static void predicted(eng_pmap_t *pm, const char *path)
{
	char real[PATH_MAX];

	if (realpath(path, real) == NULL)
		return;
	(void)entry(&pm->pm_objs, &pm->pm_nobjs, real);
}

/* The dynamic linker's list of what exe loads at its start, as ldd
 * reads it ("interp --list exe": "libc.so.6 => /lib/.../libc.so.6
 * (0x...)", the linker itself by its path). */
static void list_needed(eng_pmap_t *pm, const char *interp, const char *exe)
{
	char *argv[] = { (char *)interp, (char *)"--list", (char *)exe, NULL };
	posix_spawn_file_actions_t fa;
	char line[PATH_MAX + 128];
	int out[2], st;
	pid_t pid;
	FILE *fp;

	if (pipe2(out, O_CLOEXEC) != 0)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	st = posix_spawn(&pid, interp, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	if (st != 0 || (fp = fdopen(out[0], "r")) == NULL) {
		close(out[0]);
		if (st == 0)
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
		return;
	}
	while (fgets(line, sizeof (line), fp) != NULL) {
		char *p = strstr(line, "=> "), *q;

		p = p != NULL ? p + 3 : line + strspn(line, " \t");
		if (*p != '/')
			continue;
		if ((q = strstr(p, " (0x")) != NULL)
			*q = '\0';
		p[strcspn(p, "\n")] = '\0';
		predicted(pm, p);
	}
	fclose(fp);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* A script's interpreter ("#!/bin/sh -e" -> /bin/sh) into buf; 0 or -1. */
static int shebang(const char *path, char *buf, size_t len)
{
	char line[PATH_MAX + 3];
	FILE *fp = fopen(path, "re");
	size_t n;

	if (fp == NULL)
		return -1;
	n = fread(line, 1, sizeof (line) - 1, fp);
	fclose(fp);
	line[n] = '\0';
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	n = 2 + strspn(line + 2, " \t");
	line[n + strcspn(line + n, " \t\n")] = '\0';
	if (line[n] != '/' || strlen(line + n) >= len)
		return -1;
	memcpy(buf, line + n, strlen(line + n) + 1);
	return 0;
}

int eng_pmap_predict(eng_pmap_t *pm, const char *exe)
{
	char real[PATH_MAX], interp[PATH_MAX], script[PATH_MAX];

	/* a script runs as its interpreter (one level, as execve does) */
	if (shebang(exe, script, sizeof (script)) == 0)
		exe = script;
	if (realpath(exe, real) == NULL)
		return -1;
	objs_free(pm->pm_objs, pm->pm_nobjs);
	pm->pm_objs = NULL;
	pm->pm_nobjs = 0;
	free(pm->pm_exe);
	if ((pm->pm_exe = strdup(real)) == NULL)
		return -1;
	predicted(pm, real);
	if (eng_elf_interp(real, interp, sizeof (interp)) == 0 &&
	    access(interp, X_OK) == 0)
		list_needed(pm, interp, real);
	pm->pm_gen++;
	return 0;
}
