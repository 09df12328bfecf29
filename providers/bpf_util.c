/*
 * bpf_util.c - bpf(2), program loading and map creation shared by the
 * providers' BPF files (see bpf_util.h).
 */
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "bpf_util.h"

long prov_bpf_call(int cmd, union bpf_attr *at)
{
	return syscall(SYS_bpf, cmd, at, sizeof(*at));
}

int prov_bpf_prog_load(const struct bpf_insn *p, int n)
{
	union bpf_attr at;

	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	at.insns = (uint64_t)(uintptr_t)p;
	at.insn_cnt = (uint32_t)n;
	at.license = (uint64_t)(uintptr_t)"GPL";
	return (int)prov_bpf_call(BPF_PROG_LOAD, &at);
}

int prov_bpf_map_create(uint32_t type, uint32_t key_size,
    uint32_t value_size, uint32_t max_entries, uint32_t flags)
{
	union bpf_attr at;

	memset(&at, 0, sizeof(at));
	at.map_type = type;
	at.key_size = key_size;
	at.value_size = value_size;
	at.max_entries = max_entries;
	at.map_flags = flags;
	return (int)prov_bpf_call(BPF_MAP_CREATE, &at);
}
