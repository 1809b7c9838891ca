/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol's own lexing helpers, shared by its parsers (proto.c for
 * requests, proto_reply.c for replies). Not an API: include proto.h.
 */
#ifndef GP_PROTO_INT_H
#define GP_PROTO_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

/* Indexed by enum proto_verb; [PROTO_NONE] is NULL. */
extern const char *const proto_verb_names[PROTO_STATUS + 1];
#define N_VERBS (PROTO_STATUS + 1)

/* t[0..n) == s */
bool proto_tok_is(const char *t, size_t n, const char *s);
/* An optional '-' then plain decimal; for op's ret (a count or -errno). */
int proto_dec_int(const char *t, size_t n, int *out);
/* First byte outside printable ASCII, or len. */
size_t proto_bad_byte(const char *s, size_t len);
/*
 * The next space-separated field of [*p, end): single spaces, no empty
 * field. 1 with the field, 0 at the end, -1 on an empty field.
 */
int proto_next_field(const char **p, const char *end, const char **f,
		     size_t *n);
/* Split "key=value" at the first '='. -1 if none or an empty side. */
int proto_split_kv(const char *f, size_t n, const char **k, size_t *kl,
		   const char **v, size_t *vl);

#endif
