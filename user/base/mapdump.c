// SPDX-License-Identifier: GPL-2.0
/* Whole-map reads; see mapdump.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "mapdump.h"

/* Per-key walk, bounded: a busy map cannot keep us here. */
static int dump_walk(int fd, size_t ksz, size_t vsz, size_t cap, char *k,
		     char *v)
{
	char prev[64], *p = NULL;
	size_t n = 0;
	int err;

	if (ksz > sizeof(prev))
		return -EINVAL;
	while (n < cap) {
		err = bpf_map_get_next_key(fd, p, k + n * ksz);
		if (err == -ENOENT)
			break;
		if (err)
			return err;
		memcpy(prev, k + n * ksz, ksz);
		p = prev;
		/* Deleted since listed (BPF keeps the map current): skip. */
		if (bpf_map_lookup_elem(fd, k + n * ksz, v + n * vsz))
			continue;
		n++;
	}
	return n;
}

static int dump_batch(int fd, size_t ksz, size_t vsz, size_t cap, char *k,
		      char *v)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u64 in = 0, out = 0;	/* hash maps: a u32 bucket cursor */
	size_t n = 0;
	bool first = true;

	while (n < cap) {
		__u32 count = cap - n;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &in, &out,
					       k + n * ksz, v + n * vsz, &count,
					       &o);

		n += count;
		if (err == -ENOENT)
			break;		/* that was the last bucket */
		if (err)
			return first ? -EOPNOTSUPP : err;
		first = false;
		in = out;
	}
	return n;
}

int gp_map_dump(int fd, size_t ksz, size_t vsz, bool batch, void **keys,
		void **vals)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	size_t cap;
	int n = -EOPNOTSUPP, err;

	*keys = *vals = NULL;
	err = bpf_map_get_info_by_fd(fd, &info, &len);
	if (err)
		return err;
	/* The walk may see an entry twice: room for some repeats. */
	cap = (size_t)info.max_entries * 2 + 16;
	*keys = malloc(cap * ksz);
	*vals = malloc(cap * vsz);
	if (!*keys || !*vals)
		return -ENOMEM;
	if (batch)
		n = dump_batch(fd, ksz, vsz, info.max_entries, *keys, *vals);
	if (n == -EOPNOTSUPP)
		n = dump_walk(fd, ksz, vsz, cap, *keys, *vals);
	return n;
}
