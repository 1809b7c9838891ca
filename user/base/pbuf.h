/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A protobuf wire-format writer, just what gpreempt's Perfetto trace needs
 * (Debian has no Perfetto SDK, and libprotobuf-c would need generated
 * code for a schema we do not ship): varints, fixed64, length-delimited
 * bytes and strings, and nested messages. Wire format as in the protobuf
 * encoding guide: a tag is (field << 3 | wire type), wire types 0 varint,
 * 1 fixed64, 2 length-delimited.
 *
 * Writes into a caller's buffer; a message that does not fit sets ->err
 * and writes nothing more (the caller drops it and counts). A nested
 * message's length is a 4-byte varint patched at pb_end: protobuf parsers
 * accept a non-minimal varint, and Perfetto's own writer (protozero) does
 * the same, so no second pass is needed. Pure, no I/O: L0-tested
 * (tests/unit/test_pbuf.c).
 *
 *	struct pbuf p;
 *	size_t m;
 *	pb_init(&p, buf, sizeof(buf));
 *	m = pb_begin(&p, 60);		// TracePacket.track_descriptor
 *	pb_varint(&p, 1, uuid);
 *	pb_string(&p, 2, "gpreempt: GPU 1");
 *	pb_end(&p, m);
 */
#ifndef GP_PBUF_H
#define GP_PBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nested messages are at most 2^28 - 1 bytes (a 4-byte varint). */
#define PB_NESTED_MAX ((1U << 28) - 1)

struct pbuf {
	uint8_t *b;
	size_t len;
	size_t cap;
	bool err;	/* out of room, or a nested message too long */
};

void pb_init(struct pbuf *p, uint8_t *mem, size_t cap);
/* A varint field; a negative int64 is passed as (uint64_t)v (10 bytes). */
void pb_varint(struct pbuf *p, uint32_t field, uint64_t v);
void pb_fixed64(struct pbuf *p, uint32_t field, uint64_t v);
void pb_bytes(struct pbuf *p, uint32_t field, const void *d, size_t n);
void pb_string(struct pbuf *p, uint32_t field, const char *s);
/* Open a nested message; returns the mark pb_end needs. */
size_t pb_begin(struct pbuf *p, uint32_t field);
void pb_end(struct pbuf *p, size_t mark);
/* Encode v as a varint at out (10 bytes room); returns the bytes used. */
size_t pb_put_varint(uint8_t *out, uint64_t v);

#endif
