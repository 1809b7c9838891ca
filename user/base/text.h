/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text a process wrote (comm, cmdline: any bytes) made safe for our
 * outputs: one reading of UTF-8 for the JSON writer, the metrics labels
 * and every text output.
 */
#ifndef GP_TEXT_H
#define GP_TEXT_H

#include <stddef.h>

/*
 * Length (2..4) of the well-formed multi-byte UTF-8 sequence at s (RFC
 * 3629: no overlong forms, no surrogates, at most U+10FFFF), 1 for an
 * ASCII byte, 0 when the bytes at s are not UTF-8. Reads past s[0] only
 * while the bytes continue the sequence, so a NUL stops it.
 */
size_t gp_utf8_len(const char *s);

/*
 * Copy a string that came from a process for a log line or a terminal:
 * every control character (C0 < 0x20, DEL 0x7f and the C1 code points
 * U+0080..U+009F, which some terminals obey) and every byte that is not
 * part of valid UTF-8 becomes one '?', so a comm cannot move the cursor,
 * change colours or make a line invalid UTF-8. Valid sequences are
 * copied whole or not at all: the copy is valid UTF-8 and never longer
 * than src. At most len - 1 bytes from src[0..srclen); returns dst.
 */
char *gp_text_safe(char *dst, size_t len, const char *src, size_t srclen);

#endif
