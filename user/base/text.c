// SPDX-License-Identifier: GPL-2.0
/* UTF-8 checks and the safe copy of process-written text (text.h). */
#include "text.h"

size_t gp_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range rules out overlongs (e0, f0),
	 * surrogates (ed) and code points above U+10FFFF (f4). */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Length of the UTF-8 sequence at s[0..left), 0 if it is not one or
 * does not fit (a comm cut by the kernel at 15 bytes may end inside). */
static size_t seq_len(const char *s, size_t left)
{
	char b[4] = { 0 };
	size_t i;

	for (i = 0; i < left && i < 4 && s[i]; i++)
		b[i] = s[i];
	return gp_utf8_len(b);
}

char *gp_text_safe(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t i = 0, o = 0;

	if (!len)
		return dst;
	while (o + 1 < len && i < srclen && src[i]) {
		unsigned char c = src[i];
		size_t n = seq_len(src + i, srclen - i);

		if (n == 2 && c == 0xc2 && (unsigned char)src[i + 1] <= 0x9f)
			n = 0, i++;	/* C1: one '?' for its two bytes */
		if (!n || c < 0x20 || c == 0x7f) {
			dst[o++] = '?';
			i++;
			continue;
		}
		if (o + n >= len)
			break;	/* never half a character */
		for (size_t k = 0; k < n; k++)
			dst[o++] = src[i++];
	}
	dst[o] = '\0';
	return dst;
}
