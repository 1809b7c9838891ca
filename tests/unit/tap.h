/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for the L0/L1 C tests. Every suite prints TAP and
 * scripts/run-tests.sh sums "ok"/"not ok" lines across suites.
 *	TEST(name) { CHECK(x == 1); CHECK_STR(a, b); }
 *	int main(void) { RUN(name); return tap_done(); }
 */
#ifndef GP_TAP_H
#define GP_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed, tap_cur_failed;

#define TEST(name) static void test_##name(void)
#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("# %s:%d: CHECK(%s) failed\n",		\
			       __FILE__, __LINE__, #cond);		\
			tap_cur_failed = 1;				\
		}							\
	} while (0)
#define CHECK_STR(a, b)							\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || !_b || strcmp(_a, _b)) {			\
			printf("# %s:%d: got\n#   \"%s\"\n# want\n"	\
			       "#   \"%s\"\n", __FILE__, __LINE__,	\
			       _a ? _a : "(null)", _b ? _b : "(null)"); \
			tap_cur_failed = 1;				\
		}							\
	} while (0)
#define RUN(name)							\
	do {								\
		tap_cur_failed = 0;					\
		test_##name();						\
		tap_n++;						\
		if (tap_cur_failed)					\
			tap_failed++;					\
		printf("%sok %d - %s\n", tap_cur_failed ? "not " : "",	\
		       tap_n, #name);					\
		fflush(stdout);						\
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
