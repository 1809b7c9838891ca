// SPDX-License-Identifier: GPL-2.0
/*
 * L0: gp_text_safe() with hostile process names: C0, DEL and C1 control
 * characters, bytes that are not UTF-8, overlongs, surrogates, a
 * sequence cut by the buffer's end. The copy must be valid UTF-8 with no
 * control character, whatever the input.
 */
#include <stdbool.h>
#include <string.h>

#include "tap.h"
#include "text.h"

static const char *safe(const char *s)
{
	static char out[64];

	return gp_text_safe(out, sizeof(out), s, strlen(s));
}

/* Valid UTF-8 and no code point below U+0020, U+007F..U+009F. */
static bool clean(const char *s)
{
	while (*s) {
		size_t n = gp_utf8_len(s);
		unsigned char c = *s;

		if (!n || c < 0x20 || c == 0x7f ||
		    (n == 2 && c == 0xc2 && (unsigned char)s[1] <= 0x9f))
			return false;
		s += n;
	}
	return true;
}

TEST(ascii_and_utf8_kept)
{
	CHECK_STR(safe("python3"), "python3");
	CHECK_STR(safe("caf\xc3\xa9"), "caf\xc3\xa9");		/* é */
	CHECK_STR(safe("\xe2\x82\xac" "1"), "\xe2\x82\xac" "1");	/* € */
	CHECK_STR(safe("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");	/* U+1F600 */
	CHECK_STR(safe("\xc2\xa0"), "\xc2\xa0");	/* U+00A0: not C1 */
}

TEST(controls_become_question_marks)
{
	CHECK_STR(safe("a\x1b[31mb"), "a?[31mb");
	CHECK_STR(safe("x\x7fy\n"), "x?y?");
	/* C1: U+009B is CSI on terminals that obey C1; U+0085 is NEL. */
	CHECK_STR(safe("a\xc2\x9b" "2Jb"), "a?2Jb");
	CHECK_STR(safe("\xc2\x80\xc2\x85\xc2\x9f"), "???");
}

TEST(invalid_utf8_becomes_question_marks)
{
	CHECK_STR(safe("\xff\xfe"), "??");
	CHECK_STR(safe("a\x9b" "b"), "a?b");		/* a bare C1 byte */
	CHECK_STR(safe("\xc0\xaf"), "??");		/* overlong '/' */
	CHECK_STR(safe("\xe0\x80\xaf"), "???");		/* overlong */
	CHECK_STR(safe("\xed\xa0\x80"), "???");		/* surrogate */
	CHECK_STR(safe("\xf4\x90\x80\x80"), "????");	/* > U+10FFFF */
	CHECK_STR(safe("\xe2\x82"), "??");		/* truncated € */
	CHECK_STR(safe("\xc3" "A"), "?A");
}

TEST(never_half_a_character)
{
	char out[5];

	/* 3 bytes fit, then the € (3 bytes) would not: dropped whole. */
	gp_text_safe(out, sizeof(out), "abc\xe2\x82\xac", 6);
	CHECK_STR(out, "abc");
	/* srclen ends inside a sequence: the kernel's 15-byte comm. */
	gp_text_safe(out, sizeof(out), "\xe2\x82\xac", 2);
	CHECK_STR(out, "??");
	gp_text_safe(out, 0, "x", 1);	/* no room: untouched, no crash */
	gp_text_safe(out, 1, "x", 1);
	CHECK_STR(out, "");
}

TEST(never_longer_than_the_input)
{
	const char *hostile[] = {
		"\xc2\x9b\xc2\x9b\xc2\x9b\xc2\x9b\xc2\x9b\xc2\x9b\xc2\x9b",
		"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
		"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82",
		"\x1b]0;owned\x07\xf0\x9f\x98",
	};
	char out[16];

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		gp_text_safe(out, sizeof(out), hostile[i], 15);
		CHECK(strlen(out) <= 15 && clean(out));
	}
}

TEST(every_two_byte_input_is_clean)
{
	char in[3] = { 0 }, out[8];

	for (int a = 1; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			gp_text_safe(out, sizeof(out), in, 2);
			if (!clean(out)) {
				CHECK(clean(out));
				return;
			}
		}
}

int main(void)
{
	RUN(ascii_and_utf8_kept);
	RUN(controls_become_question_marks);
	RUN(invalid_utf8_becomes_question_marks);
	RUN(never_half_a_character);
	RUN(never_longer_than_the_input);
	RUN(every_two_byte_input_is_clean);
	return tap_done();
}
