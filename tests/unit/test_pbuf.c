// SPDX-License-Identifier: GPL-2.0
/* L0: the protobuf wire-format writer (base/pbuf.c), byte by byte against
 * the encodings of the protobuf encoding guide. */
#include <string.h>

#include "pbuf.h"
#include "tap.h"

#define BYTES(p, ...)							\
	do {								\
		static const uint8_t _w[] = { __VA_ARGS__ };		\
		CHECK(!(p)->err && (p)->len == sizeof(_w) &&		\
		      !memcmp((p)->b, _w, sizeof(_w)));			\
	} while (0)

TEST(varints)
{
	uint8_t b[64];
	struct pbuf p;

	pb_init(&p, b, sizeof(b));
	pb_varint(&p, 1, 150);		/* the guide's example: 08 96 01 */
	BYTES(&p, 0x08, 0x96, 0x01);
	pb_init(&p, b, sizeof(b));
	pb_varint(&p, 87, 1);		/* a two-byte tag: 87 << 3 = 696 */
	BYTES(&p, 0xb8, 0x05, 0x01);
	pb_init(&p, b, sizeof(b));
	pb_varint(&p, 4, (uint64_t)-2);	/* int64 -2: ten bytes */
	BYTES(&p, 0x20, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	      0xff, 0x01);
}

TEST(strings_fixed64_and_nesting)
{
	uint8_t b[64];
	struct pbuf p;
	size_t m;

	pb_init(&p, b, sizeof(b));
	pb_string(&p, 2, "testing");	/* 12 07 74 65 73 74 69 6e 67 */
	BYTES(&p, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');
	pb_init(&p, b, sizeof(b));
	pb_fixed64(&p, 47, 0x0102030405060708ULL);
	BYTES(&p, 0xf9, 0x02, 8, 7, 6, 5, 4, 3, 2, 1);
	/* nested: 1a <len as a 4-byte varint> 08 96 01 */
	pb_init(&p, b, sizeof(b));
	m = pb_begin(&p, 3);
	pb_varint(&p, 1, 150);
	pb_end(&p, m);
	BYTES(&p, 0x1a, 0x83, 0x80, 0x80, 0x00, 0x08, 0x96, 0x01);
}

TEST(out_of_room_is_an_error_and_writes_no_more)
{
	uint8_t b[8];
	struct pbuf p;
	size_t m;

	pb_init(&p, b, sizeof(b));
	pb_string(&p, 2, "far too long for eight bytes");
	CHECK(p.err && p.len == 0);
	pb_varint(&p, 1, 1);
	CHECK(p.err && p.len == 0);
	pb_init(&p, b, sizeof(b));
	m = pb_begin(&p, 3);
	pb_string(&p, 1, "xxxxxxxxxx");
	pb_end(&p, m);
	CHECK(p.err);
}

int main(void)
{
	RUN(varints);
	RUN(strings_fixed64_and_nesting);
	RUN(out_of_room_is_an_error_and_writes_no_more);
	return tap_done();
}
