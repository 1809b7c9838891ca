/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny NDJSON writer: one object per line, keys in call order.
 *	struct json j;
 *	json_begin(&j, stdout);
 *	json_str(&j, "type", "create"); json_u64(&j, "pid", 42);
 *	json_end(&j);		// writes "}\n" and flushes
 */
#ifndef GP_JSON_H
#define GP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	bool first;
};

void json_begin(struct json *j, FILE *f);
void json_end(struct json *j);
/* Same without the flush, for callers that flush once per batch (the
 * tracer's event stream: one write() per event cost ~2.5 us, bench/). */
void json_end_batched(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_s64(struct json *j, const char *key, int64_t val);
void json_hex(struct json *j, const char *key, uint64_t val); /* "0x.." */
void json_bool(struct json *j, const char *key, bool val);
/* Nested containers; key is NULL inside an array. */
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
/* Writes s as a JSON string literal (quotes included); bytes that are
 * not valid UTF-8 become \u00XX. */
void json_write_string(FILE *f, const char *s);

#endif
