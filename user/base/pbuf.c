// SPDX-License-Identifier: GPL-2.0
/* The protobuf wire-format writer: see pbuf.h. */
#include <string.h>

#include "pbuf.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

void pb_init(struct pbuf *p, uint8_t *mem, size_t cap)
{
	p->b = mem;
	p->len = 0;
	p->cap = cap;
	p->err = false;
}

size_t pb_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

/* Room for n more bytes? Sets ->err once it is out. */
static bool room(struct pbuf *p, size_t n)
{
	if (p->err || p->cap - p->len < n) {
		p->err = true;
		return false;
	}
	return true;
}

static void put_tag(struct pbuf *p, uint32_t field, unsigned int type)
{
	p->len += pb_put_varint(p->b + p->len, (uint64_t)field << 3 | type);
}

void pb_varint(struct pbuf *p, uint32_t field, uint64_t v)
{
	if (!room(p, 20))
		return;
	put_tag(p, field, PB_VARINT);
	p->len += pb_put_varint(p->b + p->len, v);
}

void pb_fixed64(struct pbuf *p, uint32_t field, uint64_t v)
{
	if (!room(p, 10 + 8))
		return;
	put_tag(p, field, PB_FIXED64);
	for (int i = 0; i < 8; i++)	/* little-endian, whatever the host */
		p->b[p->len++] = (uint8_t)(v >> (8 * i));
}

void pb_bytes(struct pbuf *p, uint32_t field, const void *d, size_t n)
{
	if (!room(p, 20 + n))
		return;
	put_tag(p, field, PB_LEN);
	p->len += pb_put_varint(p->b + p->len, n);
	memcpy(p->b + p->len, d, n);
	p->len += n;
}

void pb_string(struct pbuf *p, uint32_t field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

size_t pb_begin(struct pbuf *p, uint32_t field)
{
	size_t mark;

	if (!room(p, 10 + 4))
		return 0;
	put_tag(p, field, PB_LEN);
	mark = p->len;
	p->len += 4;		/* the length, patched by pb_end */
	return mark;
}

void pb_end(struct pbuf *p, size_t mark)
{
	size_t n;

	if (p->err)
		return;
	n = p->len - mark - 4;
	if (n > PB_NESTED_MAX) {
		p->err = true;
		return;
	}
	/* a 4-byte varint: continuation bits on the first three */
	p->b[mark] = (uint8_t)(n | 0x80);
	p->b[mark + 1] = (uint8_t)(n >> 7 | 0x80);
	p->b[mark + 2] = (uint8_t)(n >> 14 | 0x80);
	p->b[mark + 3] = (uint8_t)(n >> 21);
}
