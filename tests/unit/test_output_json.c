// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the NDJSON form of gpreempt-trace events, and the closing reports
 * (lost events, full maps, per-op counts) in both forms (output.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output_harness.h"

TEST(json_create)
{
	struct gp_event e = create_ev();

	CHECK_STR(json(&e),
		  "{\"type\":\"event\",\"op\":\"create\",\"ts_boot_ns\":"
		  "3723250000000,\"duration_ns\":41523,\"pid\":4242,"
		  "\"tid\":4243,"
		  "\"ns_pid\":7,\"cgroup_id\":5012,\"comm\":\"python3\","
		  "\"gpu_id\":51157,\"queue_id\":2,\"ret\":0,\"pasid\":0,"
		  "\"reduced\":false,\"kworker\":false,\"queue_type\":"
		  "\"compute_aql\",\"queue_type_raw\":2,\"priority\":7,"
		  "\"percentage\":100,\"ring_size_bytes\":4096,"
		  "\"doorbell_offset\":\"0x1800\"}\n");
}

TEST(json_failed_create_names_errno)
{
	struct gp_event e = create_ev();

	e.ret = -22;
	e.flags = GP_EVF_REDUCED;
	CHECK(strstr(json(&e), ",\"ret\":-22,\"errno_name\":\"EINVAL\","
		     "\"pasid\":0,\"reduced\":true,") != NULL);
	e.ret = -9999;
	CHECK(strstr(json(&e), "\"errno_name\":\"?9999\"") != NULL);
	e.ret = 0;
	CHECK(strstr(json(&e), "errno_name") == NULL);
}

TEST(json_queue_add_uses_kernel_type)
{
	struct gp_event e = ev(GP_OP_QUEUE_ADD);

	e.queue.type = 2;
	e.flags = GP_EVF_KWORKER;
	CHECK(strstr(json(&e), "\"kworker\":true,\"queue_type\":\"hiq\","
		     "\"queue_type_raw\":2,") != NULL);
}

TEST(json_per_op_fields)
{
	struct gp_event e;

	e = ev(GP_OP_RESTORE);
	e.evict.evicted_before = 1;
	e.evict.evicted_after = 0;
	e.evict.n_queues = 4;
	CHECK(strstr(json(&e), "\"kworker\":false,\"evicted_before\":1,"
		     "\"evicted_after\":0,\"n_queues\":4}\n") != NULL);
	e = ev(GP_OP_PROC_EVICT);
	e.evict.trigger = 2;
	CHECK(strstr(json(&e), ",\"trigger\":\"ttm\",\"trigger_raw\":2}\n")
	      != NULL);
	e.evict.trigger = 77;
	CHECK(strstr(json(&e), ",\"trigger\":\"?77\",\"trigger_raw\":77}\n")
	      != NULL);
	e = ev(GP_OP_DBG_TRAP);
	e.dbg.dbg_op = 7;
	e.dbg.debugger_pid = 4242;
	e.target_pid = 977;
	CHECK(strstr(json(&e), ",\"dbg_op\":\"resume_queues\","
		     "\"dbg_op_raw\":7,\"target_pid\":977,"
		     "\"debugger_pid\":4242}\n") != NULL);
	e = ev(GP_OP_SUSPEND);
	e.target_pid = 4242;
	e.susp.num_queues = 3;
	e.susp.done = 2;
	e.susp.grace_period = 100;
	e.susp.phase_ns[GP_PHASE_FENCE] = 40000;
	CHECK(strstr(json(&e), ",\"target_pid\":4242,\"queues_asked\":3,"
		     "\"queues_done\":2,\"grace_period_kcycles\":100,"
		     "\"phase_hw_unmap_ns\":0,\"phase_hw_fence_ns\":40000,"
		     "\"phase_mes_rm_ns\":0,\"phase_mes_add_ns\":0}\n")
	      != NULL);
	e.op = GP_OP_RESUME;
	CHECK(strstr(json(&e), ",\"queues_done\":2,\"phase_hw_unmap_ns\":0,")
	      != NULL);
	e = ev(GP_OP_HW_FENCE);
	e.hw.timeout_ms = 9000;
	CHECK(strstr(json(&e), ",\"target_pid\":0,\"timeout_ms\":9000}\n")
	      != NULL);
	e = ev(GP_OP_EXIT);
	e.evict.n_queues = 3;
	CHECK(strstr(json(&e), ",\"queues_dropped\":3}\n") != NULL);
	e = ev(200);
	CHECK(strstr(json(&e), "\"op\":\"?200\"") != NULL);
	CHECK(strstr(json(&e), "\"kworker\":false}\n") != NULL);
}

TEST(json_escapes_comm)
{
	struct gp_event e = create_ev();

	strcpy(e.comm, "a\"b\\c\n");
	CHECK(strstr(json(&e), "\"comm\":\"a\\\"b\\\\c\\n\"") != NULL);
}

TEST(json_escapes_bytes_that_are_not_utf8)
{
	struct gp_event e = create_ev();

	/* valid 2- and 3-byte sequences stay; a lone 0xff, a cut
	 * sequence, an overlong '/' (c0 af) and a surrogate do not */
	strcpy(e.comm, "\xc3\xa9\xe2\x82\xac\xff\xc3z\xc0\xaf\xed\xa0\x80");
	CHECK(strstr(json(&e), "\"comm\":\"\xc3\xa9\xe2\x82\xac\\u00ff\\u00c3z"
		     "\\u00c0\\u00af\\u00ed\\u00a0\\u0080\"") != NULL);
}

TEST(lost)
{
	struct gp_out_opts o = {};
	FILE *f = capture_open();

	gp_out_lost(f, 0, &o);
	CHECK_STR(capture_done(f), "");
	f = capture_open();
	gp_out_lost(f, 12, &o);
	CHECK_STR(capture_done(f), "12 events lost (ring buffer full)\n");
	o.json = true;
	f = capture_open();
	gp_out_lost(f, 0, &o);
	CHECK_STR(capture_done(f), "{\"type\":\"lost\",\"events\":0}\n");
}

TEST(full_maps_are_reported_only_when_something_dropped)
{
	struct gp_out_opts o = {};
	FILE *f = capture_open();

	gp_out_full(f, 0, 0, &o);
	CHECK_STR(capture_done(f), "");
	f = capture_open();
	gp_out_full(f, 5, 0, &o);
	CHECK_STR(capture_done(f),
		  "5 histogram samples dropped (gp_hists full)\n");
	o.json = true;
	f = capture_open();
	gp_out_full(f, 5, 2, &o);
	CHECK_STR(capture_done(f), "{\"type\":\"map_full\","
		  "\"hist_samples\":5,\"queues\":2}\n");
}

TEST(counts_table_and_json)
{
	struct gp_count c[GP_OP_MAX] = {};
	struct gp_out_opts o = {};
	FILE *f;

	c[GP_OP_CREATE] = (struct gp_count){ .count = 12, .failed = 2 };
	c[GP_OP_EXIT].count = 1;
	f = capture_open();
	gp_out_counts(f, c, &o);
	CHECK_STR(capture_done(f), "\nOP          COUNT   FAILED\n"
		  "create         12        2\n"
		  "exit            1        0\n");
	o.json = true;
	f = capture_open();
	gp_out_counts(f, c, &o);
	CHECK_STR(capture_done(f),
		  "{\"type\":\"count\",\"op\":\"create\",\"count\":12,"
		  "\"failed\":2}\n{\"type\":\"count\",\"op\":\"exit\","
		  "\"count\":1,\"failed\":0}\n");
	memset(c, 0, sizeof(c));
	o.json = false;
	f = capture_open();
	gp_out_counts(f, c, &o);
	CHECK_STR(capture_done(f), "\nNo KFD events counted.\n");
}

/* Every JSON form parses, with jq when the machine has it. */
TEST(json_parses_with_jq)
{
	char path[] = "/tmp/gp-test-output.XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	for (__u32 op = 0; op <= GP_OP_MAX; op++) {
		struct gp_event e = create_ev();

		e.op = op;
		e.ret = op & 1 ? -22 : 0;
		strcpy(e.comm, "q\"\\\t");
		gp_out_event_json(f, &e);
	}
	fclose(f);
	if (system("command -v jq >/dev/null 2>&1")) {
		printf("# jq not installed: JSON checked by string only\n");
	} else {
		char cmd[256];

		/* -e: fails on a parse error; count the objects too. */
		snprintf(cmd, sizeof(cmd), "jq -e -s 'length == %d and "
			 "all(.type == \"event\" and (.duration_ns|type) == "
			 "\"number\")' %s >/dev/null", GP_OP_MAX + 1, path);
		rc = system(cmd);
		CHECK(rc == 0);
	}
	unlink(path);
}

int main(void)
{
	RUN(json_create);
	RUN(json_failed_create_names_errno);
	RUN(json_queue_add_uses_kernel_type);
	RUN(json_per_op_fields);
	RUN(json_escapes_comm);
	RUN(json_escapes_bytes_that_are_not_utf8);
	RUN(lost);
	RUN(counts_table_and_json);
	RUN(full_maps_are_reported_only_when_something_dropped);
	RUN(json_parses_with_jq);
	free(capture_buf);
	return tap_done();
}
