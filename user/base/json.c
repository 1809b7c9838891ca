// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "json.h"
#include "text.h"

void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		/*
		 * comm and cmdline are whatever a process wrote: a byte that
		 * is not part of valid UTF-8 is written as \u00XX (its
		 * Latin-1 reading), so every line stays valid JSON.
		 */
		if (*p >= 0x80) {
			int n = gp_utf8_len((const char *)p);

			if (n) {
				fwrite(p, 1, n, f);
				p += n - 1;
			} else {
				fprintf(f, "\\u%04x", *p);
			}
			continue;
		}
		switch (*p) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Separator and key for the next member. */
static void json_key(struct json *j, const char *key)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = false;
	if (key) {
		json_write_string(j->f, key);
		fputc(':', j->f);
	}
}

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->first = true;
	fputc('{', f);
}

void json_end_batched(struct json *j)
{
	fputs("}\n", j->f);
}

void json_end(struct json *j)
{
	json_end_batched(j);
	fflush(j->f);
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_write_string(j->f, val);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_s64(struct json *j, const char *key, int64_t val)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_hex(struct json *j, const char *key, uint64_t val)
{
	json_key(j, key);
	fprintf(j->f, "\"0x%" PRIx64 "\"", val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	j->first = true;
}

static void json_close(struct json *j, char c)
{
	fputc(c, j->f);
	j->first = false;
}

void json_obj_open(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_obj_close(struct json *j)
{
	json_close(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_arr_close(struct json *j)
{
	json_close(j, ']');
}
