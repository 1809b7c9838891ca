/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read every entry of a BPF hash map at once: bpf_map_lookup_batch where
 * the kernel has it (5.6+; a few syscalls for the whole map, and a
 * consistent walk), else bpf_map_get_next_key + lookup per key (which
 * restarts from the first key when the current one is deleted under it,
 * so it may return an entry twice: callers sort and deduplicate).
 */
#ifndef GP_MAPDUMP_H
#define GP_MAPDUMP_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Keys and values into malloc'd arrays (*keys, *vals; caller frees both,
 * also on error). Returns the number of entries or -errno. batch false
 * forces the per-key walk (tests; kernels without batch ops get it
 * anyway).
 */
int gp_map_dump(int fd, size_t ksz, size_t vsz, bool batch, void **keys,
		void **vals);

#endif
