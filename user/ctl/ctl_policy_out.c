// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl policy`'s printer: the daemon's reply lines (arb_proto
 * key=value records) as text or as NDJSON. Pure formatting; the request
 * and the replay live in ctl_policy.c.
 */
#include <stdlib.h>
#include <string.h>

#include "arb_proto.h"
#include "ctl_policy.h"
#include "hist.h"
#include "json.h"
#include "qfeed.h"
#include "util.h"

/* A decimal ns value of the reply as "2.000 ms"; as it came if not one. */
static void dur_text(char *buf, size_t len, const char *ns)
{
	uint64_t v;

	if (ns && !parse_dec(ns, strlen(ns), UINT64_MAX, &v))
		fmt_ns(buf, len, v);
	else
		snprintf(buf, len, "%s ns", ns ? ns : "?");
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static void print_hist_text(FILE *f, const struct arb_kv *kv)
{
	__u64 slots[GP_MAX_SLOTS] = { 0 }, us[GP_MAX_SLOTS] = { 0 };
	const char *s = arb_kv_get(kv, "slots"), *cnt = arb_kv_get(kv, "count");
	char *end;
	int i = 0, j;

	if (!s || !cnt || !strcmp(cnt, "0"))
		return;
	for (; *s && i < GP_MAX_SLOTS; i++) {
		slots[i] = strtoull(s, &end, 10);
		s = *end ? end + 1 : end;
	}
	/* ns slots -> us rows: slot i holds [2^i, 2^(i+1)) ns. */
	for (j = 0; j < GP_MAX_SLOTS; j++)
		us[j >= 10 ? j - 10 : 0] += slots[j];
	fprintf(f, "\n%s (usecs, from ns log2 slots):\n",
		arb_kv_get(kv, "name"));
	gp_print_log2_hist(f, us, GP_MAX_SLOTS, "usecs");
}

/* "3,0,1": log2 ns slots as a JSON array of counts. */
static void json_slots(struct json *j, const char *s)
{
	char *end;

	json_arr_open(j, "slots_ns_log2");
	while (*s) {
		json_u64(j, NULL, strtoull(s, &end, 10));
		s = *end ? end + 1 : end;
	}
	json_arr_close(j);
}

void pol_line(void *ctx, const char *l)
{
	struct pol_print *pp = ctx;
	struct arb_kv kv;
	struct json j;
	int i;

	if (arb_kv_parse(l, strlen(l), &kv))
		return;
	if (pp->json) {
		json_begin(&j, pp->f);
		json_str(&j, "type", kv.kind);
		for (i = 0; i < kv.n; i++)
			if (!strcmp(kv.key[i], "slots"))
				json_slots(&j, kv.val[i]);
			else if (all_digits(kv.val[i]) &&
				 strlen(kv.val[i]) < 20)
				json_u64(&j, kv.key[i],
					 strtoull(kv.val[i], NULL, 10));
			else
				json_str(&j, kv.key[i], kv.val[i]);
		json_end(&j);
		return;
	}
	if (!strcmp(kv.kind, "arbiter")) {
		char ra[32], win[32];

		dur_text(ra, sizeof(ra), arb_kv_get(&kv, "resume_after_ns"));
		dur_text(win, sizeof(win), arb_kv_get(&kv, "window_ns"));
		fprintf(pp->f, "arbiter: %s (online %s; detect %s); "
			"resume-after %s, "
			"min-offline-share %s%%, window %s\n"
			"since start: %s busy periods, %s suspends, %s resumes, "
			"%s budget resumes, %s max-hold resumes, %s resumes "
			"avoided, %s failures\n\nPID      CLASS    UID    "
			"STATE\n", arb_kv_get(&kv, "state"),
			!strcmp(arb_kv_get(&kv, "online_busy"), "1") ? "busy" :
			"idle", arb_kv_get(&kv, "detect"),
			ra, arb_kv_get(&kv, "min_offline_share"), win,
			arb_kv_get(&kv, "busy_periods"),
			arb_kv_get(&kv, "suspends"), arb_kv_get(&kv, "resumes"),
			arb_kv_get(&kv, "budget_resumes"),
			arb_kv_get(&kv, "max_hold_resumes"),
			arb_kv_get(&kv, "cancelled_resumes"),
			arb_kv_get(&kv, "failures"));
	} else if (!strcmp(kv.kind, "proc")) {
		const char *cls = arb_kv_get(&kv, "class");

		if (cls && !strcmp(cls, "online")) {
			const char *kq = arb_kv_get(&kv, "kfd_queues");
			char q[64];

			/* kfd_queues=-1: no KFD process (yet) */
			if (kq && strcmp(kq, "-1"))
				snprintf(q, sizeof(q), "%s in KFD", kq);
			else
				snprintf(q, sizeof(q), "no KFD process");
			fprintf(pp->f, "%-8s online   %-6s busy x%s; queues: "
				"%s, %s watched\n",
				arb_kv_get(&kv, "pid"), arb_kv_get(&kv, "uid"),
				arb_kv_get(&kv, "busy"), q,
				arb_kv_get(&kv, "watched"));
		} else {
			double s = strtod(arb_kv_get(&kv, "suspended_ns") ? :
					  "0", NULL);
			double t = strtod(arb_kv_get(&kv, "attached_ns") ? :
					  "0", NULL);

			fprintf(pp->f, "%-8s offline  %-6s %s, suspended "
				"%.1f%% of %.3f s (%s suspends, %s failures); "
				"backend %s, GPUs %s\n",
				arb_kv_get(&kv, "pid"), arb_kv_get(&kv, "uid"),
				!strcmp(arb_kv_get(&kv, "suspended") ? : "",
					"1") ? "suspended" : "running",
				t > 0 ? 100 * s / t : 0, t / 1e9,
				arb_kv_get(&kv, "suspends"),
				arb_kv_get(&kv, "failures"),
				arb_kv_get(&kv, "backend") ? : "-",
				arb_kv_get(&kv, "gpus") ? : "-");
		}
	} else if (!strcmp(kv.kind, "watch")) {
		fprintf(pp->f, "%-8s queues   %s watched, %s, %s of %s polls "
			"busy%s%s\n", arb_kv_get(&kv, "pid"),
			arb_kv_get(&kv, "queues"),
			!strcmp(arb_kv_get(&kv, "busy") ? : "", "1") ? "busy" :
			"idle", arb_kv_get(&kv, "busy_polls"),
			arb_kv_get(&kv, "polls"),
			strcmp(arb_kv_get(&kv, "err") ? : "0", "0") ?
			", last read failed: errno " : "",
			strcmp(arb_kv_get(&kv, "err") ? : "0", "0") ?
			arb_kv_get(&kv, "err") : "");
	} else if (!strcmp(kv.kind, "tracer")) {
		const char *on = arb_kv_get(&kv, "state") ? : "off";

		fprintf(pp->f, "%-8s tracer   %s (%s, %s hooks)%s%s; creates "
			"%s (%s watched, %s failed), destroys %s, seeded %s+%s "
			"(capture+MQD)\n", "-", on, arb_kv_get(&kv, "mode") ? :
			"-", arb_kv_get(&kv, "hooks") ? : "0",
			strcmp(arb_kv_get(&kv, "feeding") ? : "0", "1") ?
			": not feeding, " : "",
			strcmp(arb_kv_get(&kv, "feeding") ? : "0", "1") ?
			arb_kv_get(&kv, "why") ? : "" : "",
			arb_kv_get(&kv, "creates"), arb_kv_get(&kv, "added"),
			arb_kv_get(&kv, "create_failed"),
			arb_kv_get(&kv, "destroys"),
			arb_kv_get(&kv, "seeded_capture"),
			arb_kv_get(&kv, "seeded_mqd"));
	} else if (!strcmp(kv.kind, "unwatched") &&
		   !arb_kv_get(&kv, "queue")) {
		/* a whole process (its memory read stuck, ...) */
		fprintf(pp->f, "%-8s not watched: %s\n",
			arb_kv_get(&kv, "pid") ? : "?",
			arb_kv_get(&kv, "reason") ? : "?");
	} else if (!strcmp(kv.kind, "unclassified")) {
		fprintf(pp->f, "%-8s unclassified: %s\n",
			arb_kv_get(&kv, "pid") ? : "?",
			arb_kv_get(&kv, "reason") ? : "?");
	} else if (!strcmp(kv.kind, "unwatched")) {
		const char *why = arb_kv_get(&kv, "reason") ? : "";
		int w;

		for (w = 0; w < GP_QF_WHY_MAX; w++)
			if (!strcmp(gp_qf_why_name(w), why))
				break;
		fprintf(pp->f, "%-8s queue %s not watched: %s\n",
			arb_kv_get(&kv, "pid"), arb_kv_get(&kv, "queue"),
			w < GP_QF_WHY_MAX ? gp_qf_why_text(w) : why);
	} else if (!strcmp(kv.kind, "scope")) {
		fprintf(pp->f, "%-8s scope %s, gang %s\n", "-",
			arb_kv_get(&kv, "scope") ? : "?",
			arb_kv_get(&kv, "gang") ? : "?");
	} else if (!strcmp(kv.kind, "gpu")) {
		fprintf(pp->f, "gpu %-8s %s (online %s), %s offline unit(s), "
			"%s busy periods, %s suspends, %s resumes, %s budget "
			"resumes\n", arb_kv_get(&kv, "gpu_id"),
			arb_kv_get(&kv, "state"),
			!strcmp(arb_kv_get(&kv, "online_busy") ? : "", "1") ?
			"busy" : "idle", arb_kv_get(&kv, "offline_units"),
			arb_kv_get(&kv, "busy_periods"),
			arb_kv_get(&kv, "suspends"), arb_kv_get(&kv, "resumes"),
			arb_kv_get(&kv, "budget_resumes"));
	} else if (!strcmp(kv.kind, "gang")) {
		fprintf(pp->f, "gang %-7s %s processes held as one job (key "
			"%s)\n", arb_kv_get(&kv, "id"),
			arb_kv_get(&kv, "members"), arb_kv_get(&kv, "key"));
	} else if (!strcmp(kv.kind, "gproc")) {
		fprintf(pp->f, "%-8s on GPUs %s: %s of %s queues suspended%s "
			"(unit %s)\n", arb_kv_get(&kv, "pid"),
			arb_kv_get(&kv, "gpus"),
			arb_kv_get(&kv, "suspended_queues"),
			arb_kv_get(&kv, "queues"),
			!strcmp(arb_kv_get(&kv, "whole") ? : "", "1") ?
			", held whole" : "", arb_kv_get(&kv, "unit"));
	} else if (!strcmp(kv.kind, "hist")) {
		print_hist_text(pp->f, &kv);
	}
}
