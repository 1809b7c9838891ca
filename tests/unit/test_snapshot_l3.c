// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the co-location kit's analysis (tests/kit/l3an*.c, the logic of
 * tests/kit/l3-analyze) on the fixture tests/unit/fixtures/l3/demo
 * (synthetic data in the kit's recorded formats; gen.sh there), and the
 * verdicts flipping exactly at their thresholds.
 *
 * The kit is not part of libgp (it runs on the user's GPU host, built by
 * scripts/l3-colocate.sh), so its sources are compiled into this test.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "fixture.h"
#include "tap.h"
#include "../kit/l3an.h"
#include "../kit/l3an.c"
#include "../kit/l3an_out.c"

static char demo[PATH_MAX];

static int find_fixture(void)
{
	return fixture_path("l3/demo", demo, sizeof(demo));
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

TEST(percentile_nearest_rank)
{
	double s[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	CHECK(near(l3_pct(s, 10, 0.5), 5));
	CHECK(near(l3_pct(s, 10, 0.99), 10));
	CHECK(near(l3_pct(s, 10, 0.1), 1));
	CHECK(near(l3_pct(s, 10, 0.11), 2));
	CHECK(near(l3_pct(s, 1, 0.999), 1));
}

TEST(json_fields)
{
	const char *l = "{\"type\":\"event\",\"op\":\"suspend\",\"ret\":-16,"
			"\"comm\":\"a\\\"b\",\"n\":42}";
	char buf[16];
	uint64_t v;

	CHECK(!l3_json_u64(l, "n", &v) && v == 42);
	CHECK(l3_json_u64(l, "ret", &v) == -1);	/* negative: not a u64 */
	CHECK(l3_json_u64(l, "missing", &v) == -1);
	CHECK(!l3_json_str(l, "op", buf, sizeof(buf)));
	CHECK_STR(buf, "suspend");
	CHECK(!l3_json_str(l, "comm", buf, sizeof(buf)));
	CHECK_STR(buf, "a\"b");
}

/* A run whose every value sits at (value) for each measured quantity. */
static void fake_run(struct l3_run *r, double lat, double thr, double op,
		     size_t cycles, size_t failures)
{
	static double l[1], s[1], q[1];

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "both-notify");
	r->present = true;
	l[0] = lat, s[0] = op, q[0] = op;
	r->lat_ms = l, r->nlat = 1;
	r->have_thr = thr >= 0, r->thr = thr;
	r->susp_ms = s, r->nsusp = cycles;
	r->res_ms = q, r->nres = cycles;
	r->failures = failures;
}

TEST(verdicts_flip_at_thresholds)
{
	struct l3_opts o;
	struct l3_run r, off = { .present = true, .have_thr = true,
				 .thr = 1000 };
	struct l3_verdict v[5];

	l3_opts_default(&o);
	/* just under every threshold: pass (nsusp 1 so pct reads [0]) */
	fake_run(&r, 49.999, 800.01, 9.999, 1, 0);
	o.min_cycles = 1;
	CHECK(l3_verdicts(&r, &off, &o, v) == 5);
	CHECK(v[0].result == L3_PASS && v[0].ideal_result == L3_FAIL);
	CHECK(v[1].result == L3_PASS && v[1].ideal_result == L3_FAIL);
	CHECK(v[2].result == L3_PASS && v[3].result == L3_PASS);
	CHECK(v[4].result == L3_PASS);
	/* exactly at: fail ("<") */
	fake_run(&r, 50.0, 800.0, 10.0, 1, 0);
	l3_verdicts(&r, &off, &o, v);
	CHECK(v[0].result == L3_FAIL && near(v[0].value, 50));
	CHECK(v[1].result == L3_FAIL && near(v[1].value, 20));
	CHECK(v[2].result == L3_FAIL && v[3].result == L3_FAIL);
	/* ideal targets */
	fake_run(&r, 9.999, 950.01, 1, 1, 0);
	l3_verdicts(&r, &off, &o, v);
	CHECK(v[0].ideal_result == L3_PASS && v[1].ideal_result == L3_PASS);
	fake_run(&r, 10.0, 950.0, 1, 1, 0);
	l3_verdicts(&r, &off, &o, v);
	CHECK(v[0].ideal_result == L3_FAIL && v[1].ideal_result == L3_FAIL);
	/* cycles: one short, then enough with one failure */
	o.min_cycles = 100;
	fake_run(&r, 1, 990, 1, 99, 0);
	l3_verdicts(&r, &off, &o, v);
	CHECK(v[4].result == L3_FAIL);
	fake_run(&r, 1, 990, 1, 100, 0);
	l3_verdicts(&r, &off, &o, v);
	CHECK(v[4].result == L3_PASS);
	fake_run(&r, 1, 990, 1, 100, 1);
	l3_verdicts(&r, &off, &o, v);
	CHECK(v[4].result == L3_FAIL);
	/* no data: n/a, never pass */
	fake_run(&r, 1, -1, 1, 0, 0);
	r.nlat = 0;
	l3_verdicts(&r, NULL, &o, v);
	for (int i = 0; i < 5; i++)
		CHECK(v[i].result == L3_NA);
}

TEST(demo_fixture_numbers)
{
	struct l3_run r, off;

	CHECK(!l3_load_run(demo, "offline-alone", &off));
	CHECK(off.present && off.have_thr && off.nlat == 0);
	CHECK(!l3_load_run(demo, "both-queues", &r));
	CHECK(r.nlat == 300 && r.nsusp == 120 && r.nres == 120);
	CHECK(r.failures == 2);		/* the EBUSY resume: event + ioctl */
	CHECK(r.bad_lines == 0);
	CHECK(r.nsi == 120);		/* suspended intervals */
	CHECK(!strcmp(r.susp_ph[0].name, "kernel") ||
	      !strcmp(r.susp_ph[1].name, "kernel"));
	/* the suspend latency is the DBG_TRAP ioctl's, phases inside it */
	CHECK(r.susp_ms[r.nsusp - 1] >= r.susp_ph[0].ms[r.susp_ph[0].n - 1]);
	l3_run_free(&r);
	l3_run_free(&off);
	CHECK(!l3_load_run(demo, "no-such-run", &r) && !r.present);
}

TEST(demo_fixture_report)
{
	struct l3_opts o;
	const char *t, *j;
	FILE *f, *g;
	char *jbuf = NULL;
	size_t jlen = 0;
	int rc;

	l3_opts_default(&o);
	g = open_memstream(&jbuf, &jlen);
	f = capture_open();
	rc = l3_analyze(demo, &o, f, g, false);
	t = capture_done(f);
	fclose(g);
	j = jbuf;
	CHECK(rc == 1);		/* both-queues fails some verdicts */
	CHECK(strstr(t, "both-notify      300    4.67    7.98    9.69      "
		      "424.0   14.4     7.53"));
	CHECK(strstr(t, "VERDICTS both-notify\n"
		      "  online p99 < 50 ms                 7.98  PASS  "
		      "(ideal < 10: PASS)\n"
		      "  offline loss < 20 %               14.44  PASS  "
		      "(ideal < 5: FAIL)\n"));
	CHECK(strstr(t, "  offline loss < 20 %               22.33  FAIL"));
	CHECK(strstr(t, "  >= 100 cycles, 0 failures           120  FAIL  (2 failed)"));
	for (const char *p = t; *p; ) {
		size_t n = strcspn(p, "\n");

		CHECK(n < 80);
		p += n + (p[n] == '\n');
	}
	CHECK(strstr(j, "{\"type\":\"verdict\",\"run\":\"both-notify\","
		      "\"name\":\"cycles\",\"value\":120.000,\"target\":100,"
		      "\"result\":\"PASS\",\"failures\":0}"));
	CHECK(strstr(j, "\"name\":\"offline_loss\",\"value\":22.333,"));
	CHECK(strstr(j, "{\"type\":\"phase\",\"run\":\"both-notify\",\"op\":"
		      "\"suspend\",\"phase\":\"hw_unmap\",\"count\":120,"));
	free(jbuf);
	/* with a stricter loss target both-notify fails too, looser passes */
	o.loss_pct = 14.4;
	o.min_cycles = 121;
	f = capture_open();
	l3_analyze(demo, &o, f, NULL, false);
	t = capture_done(f);
	CHECK(strstr(t, "offline loss < 14.4 %             14.44  FAIL"));
	CHECK(strstr(t, ">= 121 cycles, 0 failures           120  FAIL"));
}

TEST(plots_written)
{
	char tmp[] = "/tmp/gp-l3.XXXXXX", path[PATH_MAX * 2], runs[PATH_MAX];
	struct l3_opts o;
	struct stat st;

	l3_opts_default(&o);
	CHECK(mkdtemp(tmp));
	CHECK(realpath(demo, runs));
	strcat(runs, "/runs");
	snprintf(path, sizeof(path), "%s/runs", tmp);
	CHECK(!symlink(runs, path));
	CHECK(l3_analyze(tmp, &o, NULL, NULL, true) == 1);
	snprintf(path, sizeof(path), "%s/plots/both-notify-cdf.dat", tmp);
	CHECK(!stat(path, &st) && st.st_size > 300 * 10);
	snprintf(path, sizeof(path), "%s/plots/both-notify-timeline.dat", tmp);
	CHECK(!stat(path, &st) && st.st_size > 0);
	snprintf(path, sizeof(path), "%s/plots/both-queues-suspend-cdf.dat",
		 tmp);
	CHECK(!stat(path, &st) && st.st_size > 120 * 10);
	snprintf(path, sizeof(path), "%s/plots/online-alone-suspend-cdf.dat",
		 tmp);
	CHECK(stat(path, &st) && errno == ENOENT);	/* no data, no file */
	snprintf(path, sizeof(path), "%s/plots/plots.gp", tmp);
	CHECK(!stat(path, &st) && st.st_size > 0);
	snprintf(path, sizeof(path), "grep -q \"suspend-resume-cdf.png\" "
		 "%s/plots/plots.gp", tmp);
	CHECK(system(path) == 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	CHECK(system(path) == 0);
}

TEST(empty_dir_nothing_to_judge)
{
	char tmp[] = "/tmp/gp-l3e.XXXXXX";
	struct l3_opts o;

	l3_opts_default(&o);
	CHECK(mkdtemp(tmp));
	CHECK(l3_analyze(tmp, &o, NULL, NULL, false) == 2);
	rmdir(tmp);
}

int main(void)
{
	if (find_fixture()) {
		printf("1..0 # SKIP fixture not found\n");
		return 0;
	}
	RUN(percentile_nearest_rank);
	RUN(json_fields);
	RUN(verdicts_flip_at_thresholds);
	RUN(demo_fixture_numbers);
	RUN(demo_fixture_report);
	RUN(plots_written);
	RUN(empty_dir_nothing_to_judge);
	return tap_done();
}
