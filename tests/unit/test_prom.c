// SPDX-License-Identifier: GPL-2.0
/* L0: the Prometheus text exposition writer (user/metrics/prom.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"
#include "tap.h"

static const char *text(struct prom_buf *b)
{
	return b->p ? b->p : "";
}

TEST(family_and_samples)
{
	struct prom_buf b = {0};
	char lab[128];

	prom_family(&b, "gpreempt_sessions_held", "gauge",
		    "Targets with a debug session.\nSecond \\ line.");
	prom_sample(&b, "gpreempt_sessions_held", NULL, 3);
	prom_sample(&b, "gpreempt_x_seconds_total",
		    prom_labels(lab, sizeof(lab), "pid", "42", "comm", "py", NULL),
		    0.25);
	prom_sample(&b, "gpreempt_big_total", "", 12345678901234.0);
	prom_sample(&b, "gpreempt_nan", NULL, NAN);
	CHECK_STR(text(&b),
		  "# HELP gpreempt_sessions_held Targets with a debug session.\\n"
		  "Second \\\\ line.\n"
		  "# TYPE gpreempt_sessions_held gauge\n"
		  "gpreempt_sessions_held 3\n"
		  "gpreempt_x_seconds_total{pid=\"42\",comm=\"py\"} 0.25\n"
		  "gpreempt_big_total 12345678901234\n"
		  "gpreempt_nan NaN\n");
	CHECK(!b.oom);
	prom_free(&b);
	CHECK(b.p == NULL && b.len == 0);
}

TEST(label_escaping_and_overflow)
{
	char lab[64];

	CHECK_STR(prom_labels(lab, sizeof(lab), "comm", "a\"b\\c\nd", NULL),
		  "comm=\"a\\\"b\\\\c\\nd\"");
	CHECK(prom_labels(lab, 12, "comm", "0123456789", NULL) == NULL);
	CHECK_STR(lab, "");
	CHECK_STR(prom_labels(lab, sizeof(lab), NULL), "");
}

/* promtool's verdict on text (exit status), -1 when it is not installed. */
static int promtool(const char *text)
{
	FILE *f;

	if (system("command -v promtool >/dev/null 2>&1"))
		return -1;
	f = popen("promtool check metrics >/dev/null 2>&1", "w");
	if (!f)
		return -1;
	fputs(text, f);
	return pclose(f);
}

/*
 * A comm is any bytes: one that is not UTF-8 made every scrape
 * unparsable (issue 24, item 8). Invalid bytes and control characters
 * become the text \xNN; valid multi-byte characters pass.
 */
TEST(label_values_are_utf8)
{
	struct prom_buf b = {0};
	char lab[128];
	int r;

	CHECK_STR(prom_labels(lab, sizeof(lab), "comm", "a\xff\xc3(\tz", NULL),
		  "comm=\"a\\\\xff\\\\xc3(\\\\x09z\"");
	/* é, 中, U+1F600; an overlong '/' and a surrogate are not UTF-8 */
	CHECK_STR(prom_labels(lab, sizeof(lab), "c", "\xc3\xa9\xe4\xb8\xad"
			      "\xf0\x9f\x98\x80", NULL),
		  "c=\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"");
	CHECK_STR(prom_labels(lab, sizeof(lab), "c", "\xc0\xaf\xed\xa0\x80",
			      NULL),
		  "c=\"\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\"");
	prom_family(&b, "gpreempt_x_total", "counter", "x");
	prom_sample(&b, "gpreempt_x_total",
		    prom_labels(lab, sizeof(lab), "pid", "7", "comm",
				"tr\xe9in\xff\x1b[2J", NULL), 1);
	r = promtool(text(&b));
	if (r < 0)
		printf("# promtool not installed: its check skipped\n");
	else
		CHECK(r == 0);
	prom_free(&b);
}

TEST(histogram_is_cumulative_with_sum_and_count)
{
	struct prom_buf b = {0};
	const double bounds[] = { 1e-06, 0.001, 1 };
	const uint64_t counts[] = { 2, 0, 3, 1 };

	prom_histogram(&b, "gpreempt_suspend_duration_seconds", "gpu_id=\"1\"",
		       bounds, counts, 3, 4.5);
	CHECK_STR(text(&b),
		  "gpreempt_suspend_duration_seconds_bucket{gpu_id=\"1\",le=\"1e-06\"} 2\n"
		  "gpreempt_suspend_duration_seconds_bucket{gpu_id=\"1\",le=\"0.001\"} 2\n"
		  "gpreempt_suspend_duration_seconds_bucket{gpu_id=\"1\",le=\"1\"} 5\n"
		  "gpreempt_suspend_duration_seconds_bucket{gpu_id=\"1\",le=\"+Inf\"} 6\n"
		  "gpreempt_suspend_duration_seconds_sum{gpu_id=\"1\"} 4.5\n"
		  "gpreempt_suspend_duration_seconds_count{gpu_id=\"1\"} 6\n");
	prom_free(&b);
	prom_histogram(&b, "h", NULL, bounds, counts, 0, 0);
	CHECK_STR(text(&b), "h_bucket{le=\"+Inf\"} 2\nh_sum 0\nh_count 2\n");
	prom_free(&b);
}

TEST(grows_past_the_first_block)
{
	struct prom_buf b = {0};
	char name[32];

	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "gpreempt_m%d", i);
		prom_sample(&b, name, NULL, i);
	}
	CHECK(!b.oom && b.len > 4096 && b.len < b.cap);
	CHECK(strstr(text(&b), "gpreempt_m1999 1999\n") != NULL);
	CHECK(strlen(text(&b)) == b.len);
	prom_free(&b);
}

int main(void)
{
	RUN(family_and_samples);
	RUN(label_escaping_and_overflow);
	RUN(label_values_are_utf8);
	RUN(histogram_is_cumulative_with_sum_and_count);
	RUN(grows_past_the_first_block);
	return tap_done();
}
