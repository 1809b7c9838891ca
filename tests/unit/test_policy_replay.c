// SPDX-License-Identifier: GPL-2.0
/*
 * L0: replay of online activity traces through the policy; exact output
 * on the fixed traces of tests/unit/fixtures/replay (run from the repo
 * top, as scripts/run-tests.sh does). The expected figures of simple.ndjson
 * are worked out by hand in the comments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "replay.h"

#define DIR "tests/unit/fixtures/replay/"
#define MS 1000000ULL

static struct gp_replay_cfg cfg(int n_off)
{
	struct gp_replay_cfg c = { .suspend_cost_ns = 100000,
				   .resume_cost_ns = 100000,
				   .n_offline = n_off };

	gp_policy_cfg_default(&c.pol);
	return c;
}

/* Replays a file; returns its printed text (static) or NULL. */
static char *replay(const char *file, const struct gp_replay_cfg *c,
		    bool json, struct gp_replay_result *r, char *err)
{
	static char *buf;
	size_t len;
	FILE *in = fopen(file, "r"), *out;
	int ret;

	if (!in) {
		printf("# cannot open %s (run from the repo top)\n", file);
		return NULL;
	}
	ret = gp_replay_run(in, strrchr(file, '/') + 1, c, r, err, 256);
	fclose(in);
	if (ret)
		return NULL;
	free(buf);
	out = open_memstream(&buf, &len);
	gp_replay_print(out, strrchr(file, '/') + 1, c, r, json);
	fclose(out);
	return buf;
}

static int replay_str(const char *text, const struct gp_replay_cfg *c,
		      struct gp_replay_result *r, char *err)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret = gp_replay_run(in, "t", c, r, err, 256);

	fclose(in);
	return ret;
}

/*
 * simple.ndjson, 1 offline, 100 us per op, resume-after 2 ms:
 * busy 0 -> S [0,0.1]; idle 10, busy 11: resume avoided; idle 20 ->
 * R at 22 [22,22.1]; busy 50 -> S [50,50.1]; idle 60 -> R at 62.
 * Offline down [0,22.1] + [50,62.1] = 34.2 of 100 ms: 65.8%. Online busy
 * 10 + 9 + 10 = 29 ms; it waits for the two suspends: 2 x 100 us.
 */
TEST(simple_text_exact)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256] = "";

	CHECK_STR(replay(DIR "simple.ndjson", &c, false, &r, err),
"replay simple.ndjson: 7 events over 100.000 ms (0 lines skipped, 0 unmatched idle)\n"
"policy: resume-after 2.000 ms, min-offline-share 0%, window 1.000 s, max-hold none\n"
"costs: suspend 100.0 us, resume 100.0 us; 1 offline process\n"
"online busy:    29.0% in 3 busy periods\n"
"offline share:  65.8%\n"
"toggles:        2 suspends, 2 resumes (0 budget, 0 max-hold); 1 resumes avoided by --resume-after\n"
"KFD ioctls:     4 (2 suspend, 2 resume)\n"
"online wait:    200.0 us in total, 66.7 us per busy period on average, 100.0 us at most\n"
"\n"
"online wait per busy period:\n"
"     usecs               : count    distribution\n"
"         0 -> 1          : 1        |********************                    |\n"
"         2 -> 3          : 0        |                                        |\n"
"         4 -> 7          : 0        |                                        |\n"
"         8 -> 15         : 0        |                                        |\n"
"        16 -> 31         : 0        |                                        |\n"
"        32 -> 63         : 0        |                                        |\n"
"        64 -> 127        : 2        |****************************************|\n");
	CHECK_STR(err, "");
}

TEST(simple_resume_after_zero_toggles_more)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256];

	c.pol.resume_after_ns = 0;
	CHECK(replay(DIR "simple.ndjson", &c, false, &r, err) != NULL);
	CHECK(r.suspend_toggles == 3 && r.resume_toggles == 3);
	CHECK(r.cancelled_resumes == 0);
	/* down [0,10.1] [11,20.1] [50,60.1]: 29.3 ms */
	CHECK(r.offline_share_ppm == 707000);
	CHECK(r.wait_total_ns == 300000);
}

/* 20% of each 100 ms window: suspended 80 ms (+ the resume's 100 us). */
TEST(continuous_budget_json_exact)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256];

	c.pol.min_offline_share = 20;
	c.pol.window_ns = 100 * MS;
	CHECK_STR(replay(DIR "continuous.ndjson", &c, true, &r, err),
"{\"type\":\"replay\",\"file\":\"continuous.ndjson\",\"lines\":3,\"events\":2,"
"\"skipped\":0,\"unmatched_idle\":0,\"duration_ns\":1000000000,"
"\"resume_after_ns\":2000000,\"min_offline_share\":20,\"window_ns\":100000000,"
"\"max_hold_ns\":0,\"suspend_cost_ns\":100000,\"resume_cost_ns\":100000,"
"\"offline_processes\":1,\"online_busy_ns\":1000000000,\"busy_periods\":1,"
"\"offline_run_ns\":199000000,\"offline_share_ppm\":199000,"
"\"suspend_toggles\":11,\"resume_toggles\":10,\"budget_resumes\":10,"
"\"max_hold_resumes\":0,\"cancelled_resumes\":0,\"suspend_ioctls\":11,"
"\"resume_ioctls\":10,\"online_wait_ns\":2000000,"
"\"online_wait_max_ns\":2000000,\"online_wait_hist\":{\"unit\":\"usecs\","
"\"buckets\":[{\"low\":1024,\"high\":2047,\"count\":1}]}}\n");
}

TEST(continuous_no_share_one_toggle)
{
	struct gp_replay_cfg c = cfg(4);
	struct gp_replay_result r;
	char err[256];

	CHECK(replay(DIR "continuous.ndjson", &c, false, &r, err) != NULL);
	CHECK(r.suspend_toggles == 1 && r.resume_toggles == 0);
	CHECK(r.suspend_ops == 4);
	/* four suspends one after the other: online waits 400 us */
	CHECK(r.wait_total_ns == 400000);
	CHECK(r.offline_share_ppm == 0);
}

TEST(continuous_max_hold)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256];

	c.pol.max_hold_ns = 300 * MS;
	c.pol.window_ns = 500 * MS;
	CHECK(replay(DIR "continuous.ndjson", &c, false, &r, err) != NULL);
	/* S 0, R 300 (max-hold), S 500 (window), R 800, S 1000 (window) */
	CHECK(r.max_hold_resumes == 2 && r.budget_resumes == 0);
	CHECK(r.suspend_toggles == 3 && r.resume_toggles == 2);
}

/* gpreempt-trace -j lines: busy/idle/exit events replay, others skip. */
TEST(mixed_trace_objects)
{
	struct gp_replay_cfg c = cfg(2);
	struct gp_replay_result r;
	char err[256];

	CHECK(replay(DIR "mixed-trace.ndjson", &c, false, &r, err) != NULL);
	CHECK(r.lines == 5 && r.events == 3 && r.skipped == 2);
	CHECK(r.duration_ns == 30 * MS);
	CHECK(r.busy_ns == 20 * MS);
	CHECK(r.suspend_ops == 2 && r.resume_ops == 2);
	/* each down [10,32.2] of 30 ms (ops stall both) */
	CHECK(r.offline_share_ppm == 260000);
}

TEST(bursty_fixture)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256];

	CHECK(replay(DIR "bursty.ndjson", &c, false, &r, err) != NULL);
	CHECK(r.duration_ns == 1000 * MS);
	CHECK(r.busy_periods == 24);
	CHECK(r.suspend_toggles == 11 && r.cancelled_resumes == 13);
	CHECK(r.offline_share_ppm == 780807);
}

TEST(errors_name_line_and_change_nothing)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256];

	CHECK(replay_str("{\"t_ms\":1,\"ev\":\"busy\"}\nnot json\n", &c, &r,
			 err) == -EINVAL);
	CHECK_STR(err, "t:2: not a JSON object");
	CHECK(replay_str("{\"t_ms\":5,\"ev\":\"busy\"}\n"
			 "{\"t_ms\":4,\"ev\":\"idle\"}\n", &c, &r, err) ==
	      -EINVAL);
	CHECK_STR(err, "t:2: time goes back (4000000 ns after 5000000 ns)");
	CHECK(replay_str("{\"t_ms\":1,\"ev\":\"bsy\"}\n", &c, &r, err) ==
	      -EINVAL);
	CHECK_STR(err, "t:1: unknown \"ev\" \"bsy\": use busy, idle, close, "
		  "exit, mark or queue");
	CHECK(replay_str("{\"ev\":\"busy\"}\n", &c, &r, err) == -EINVAL);
	CHECK_STR(err, "t:1: no time: give \"t_ns\", \"t_us\", \"t_ms\" or "
		  "\"ts_boot_ns\"");
	CHECK(replay_str("{\"t_us\":1.5,\"ev\":\"busy\"}\n", &c, &r, err) ==
	      -EINVAL);
	CHECK_STR(err, "t:1: \"t_us\" is not an unsigned integer (in range)");
	CHECK(replay_str("{\"t_us\":1,\"t_ms\":1,\"ev\":\"busy\"}\n", &c, &r,
			 err) == -EINVAL);
	CHECK(replay_str("{\"t_us\":1,\"ev\":\"busy\",\"pid\":-3}\n", &c, &r,
			 err) == -EINVAL);
	CHECK_STR(err, "t:1: \"pid\" is not a pid");
	CHECK(replay_str("{\"t_us\":1,\"ev\":\"busy\"} x\n", &c, &r, err) ==
	      -EINVAL);
	CHECK_STR(err, "t:1: text after the object");
	CHECK(replay_str("{\"t_us\":1 \"ev\":\"busy\"}\n", &c, &r, err) ==
	      -EINVAL);
	CHECK(replay_str("# only a comment\n\n", &c, &r, err) == -EINVAL);
	CHECK_STR(err, "t: no busy/idle events");
	c.n_offline = 0;
	CHECK(replay_str("{\"t_us\":1,\"ev\":\"busy\"}\n", &c, &r, err) ==
	      -EINVAL);
}

TEST(unmatched_idle_counted)
{
	struct gp_replay_cfg c = cfg(1);
	struct gp_replay_result r;
	char err[256];

	CHECK(replay_str("{\"t_ms\":0,\"ev\":\"idle\",\"src\":3}\n"
			 "{\"t_ms\":1,\"ev\":\"busy\",\"src\":3}\n"
			 "{\"t_ms\":2,\"ev\":\"idle\",\"src\":4}\n"
			 "{\"t_ms\":9,\"ev\":\"close\",\"src\":3}\n"
			 "{\"t_ms\":20,\"ev\":\"mark\"}\n", &c, &r, err) == 0);
	CHECK(r.unmatched == 2);
	CHECK(r.busy_ns == 8 * MS);		/* close ends the busy */
	CHECK(r.resume_ops == 1);
}

TEST(parse_line_nested_and_escapes)
{
	struct gp_replay_ev ev;
	char err[256];

	CHECK(gp_replay_parse_line("{\"x\":{\"a\":[1,{\"b\":\"}\"}]},"
				   "\"s\":\"q\\\"\\u00e9\",\"t_ns\":7,"
				   "\"ev\":\"busy\",\"src\":2,\"pid\":9,"
				   "\"f\":-1.5e3,\"n\":null}", &ev, err,
				   sizeof(err)) == 1);
	CHECK(ev.t_ns == 7 && ev.src == 2 && ev.pid == 9);
	CHECK(ev.ev == GP_REV_BUSY);
	CHECK(gp_replay_parse_line("   # c", &ev, err, sizeof(err)) == 0);
	CHECK(gp_replay_parse_line("{\"type\":\"hist\"}", &ev, err,
				   sizeof(err)) == 0);
	CHECK(gp_replay_parse_line("{\"t_ms\":18446744073710,\"ev\":\"busy\"}",
				   &ev, err, sizeof(err)) == -EINVAL);
}

int main(void)
{
	RUN(simple_text_exact);
	RUN(simple_resume_after_zero_toggles_more);
	RUN(continuous_budget_json_exact);
	RUN(continuous_no_share_one_toggle);
	RUN(continuous_max_hold);
	RUN(mixed_trace_objects);
	RUN(bursty_fixture);
	RUN(errors_name_line_and_change_nothing);
	RUN(unmatched_idle_counted);
	RUN(parse_line_nested_and_escapes);
	return tap_done();
}
