// SPDX-License-Identifier: GPL-2.0
/* L0: configuration file -> argv-style options (user/base/config.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tap.h"

static const struct config_opt opts[] = {
	{ "socket", true },
	{ "max-hold", true },
	{ "group", true },
	{ "verbose", false },
	{ NULL, false },
};

static int parse(const char *text, struct config *c, struct config_err *e)
{
	return config_parse(text, strlen(text), opts, c, e);
}

TEST(options_comments_blanks)
{
	struct config c;
	struct config_err e;

	CHECK(parse("# gpreempt\n\n  max-hold 10s\n"
		    "socket = /run/x.sock  # local\n"
		    "\tverbose\n"
		    "group=gp\n"
		    "--max-hold 2s\n"
		    "   # indented comment\n", &c, &e) == 0);
	CHECK(c.n == 5);
	CHECK_STR(c.argv[0], "--max-hold=10s");
	CHECK(c.line[0] == 3);
	CHECK_STR(c.argv[1], "--socket=/run/x.sock");
	CHECK(c.line[1] == 4);
	CHECK_STR(c.argv[2], "--verbose");
	CHECK_STR(c.argv[3], "--group=gp");
	CHECK_STR(c.argv[4], "--max-hold=2s");
	CHECK(c.line[4] == 7);
	config_free(&c);
	CHECK(c.n == 0);
}

TEST(no_final_newline_crlf_quotes_hash_in_word)
{
	struct config c;
	struct config_err e;

	CHECK(parse("socket \"/tmp/a b#c.sock\"\r\nmax-hold 1s", &c, &e) == 0);
	CHECK(c.n == 2);
	CHECK_STR(c.argv[0], "--socket=/tmp/a b#c.sock");
	CHECK_STR(c.argv[1], "--max-hold=1s");
	config_free(&c);
}

TEST(empty_and_comment_only)
{
	struct config c;
	struct config_err e;

	CHECK(parse("", &c, &e) == 0 && c.n == 0);
	CHECK(parse("# nothing\n\n   \n", &c, &e) == 0 && c.n == 0);
}

/* Every error: -EINVAL, the line, a message naming what is wrong, and
 * nothing left allocated (c.n == 0). */
#define BAD(text, want_line, want_msg)					\
	do {								\
		struct config c = { .n = 7 };				\
		struct config_err e;					\
		CHECK(parse(text, &c, &e) == -EINVAL);			\
		CHECK(e.line == (want_line));				\
		if (!strstr(e.msg, want_msg))				\
			printf("# msg: %s\n", e.msg);			\
		CHECK(strstr(e.msg, want_msg) != NULL);			\
		CHECK(c.n == 0);					\
	} while (0)

TEST(errors_name_their_line)
{
	BAD("verbose\nmax-hold\n", 2, "'max-hold' needs a value");
	BAD("verbose\n\n# c\nmaxhold 1s\n", 4, "unknown option 'maxhold'");
	BAD("verbose yes\n", 1, "'verbose' takes no value");
	BAD("max-hold 1s\n= 3\n", 2, "expected an option name");
	BAD("max.hold 1s\n", 1, "bad character '.'");
	BAD("config /etc/other\n", 1, "unknown option 'config'");
	BAD("socket =\n", 1, "'socket' needs a value");
}

TEST(errors_after_good_lines_free_them)
{
	/* Three good options, then a bad one: all three are released. */
	BAD("verbose\nmax-hold 1s\nsocket /x\nbogus\n", 4, "unknown option 'bogus'");
}

TEST(limits)
{
	char *big = malloc(CONFIG_MAX_BYTES + 2), *line = malloc(CONFIG_MAX_LINE + 20);
	struct config c;
	struct config_err e;

	memset(big, '#', CONFIG_MAX_BYTES + 1);
	big[CONFIG_MAX_BYTES + 1] = '\0';
	BAD(big, 0, "larger than");
	memcpy(line, "verbose\nsocket ", 15);
	memset(line + 15, 'a', CONFIG_MAX_LINE + 1);
	line[CONFIG_MAX_LINE + 16] = '\0';
	BAD(line, 2, "line longer than");
	CHECK(config_parse("verbose\nsock\0et x\n", 18, opts, &c, &e) == -EINVAL);
	CHECK(e.line == 2 && strstr(e.msg, "NUL"));
	free(big);
	free(line);
}

TEST(too_many_options)
{
	size_t n = (CONFIG_MAX_OPTS + 1) * 8 + 1;
	char *t = malloc(n), *p = t;

	for (int i = 0; i <= CONFIG_MAX_OPTS; i++)
		p += sprintf(p, "verbose\n");
	BAD(t, CONFIG_MAX_OPTS + 1, "more than");
	free(t);
}

int main(void)
{
	RUN(options_comments_blanks);
	RUN(no_final_newline_crlf_quotes_hash_in_word);
	RUN(empty_and_comment_only);
	RUN(errors_name_their_line);
	RUN(errors_after_good_lines_free_them);
	RUN(limits);
	RUN(too_many_options);
	return tap_done();
}
