// SPDX-License-Identifier: GPL-2.0
/* L0: names and text lines of gpreempt-trace events (output.c). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output_harness.h"

TEST(op_names_cover_every_op_and_fit_the_column)
{
	for (__u32 op = 0; op < GP_OP_MAX; op++) {
		const char *n = gp_op_name(op);

		CHECK(n != NULL);
		CHECK(n && strlen(n) <= 8);
		for (__u32 o2 = 0; n && o2 < op; o2++)
			CHECK(strcmp(n, gp_op_name(o2)) != 0);
	}
	CHECK(gp_op_name(GP_OP_MAX) == NULL);
	CHECK(gp_op_name(0xffffffffu) == NULL);
	CHECK_STR(gp_op_name(GP_OP_SUSPEND), "suspend");
	CHECK_STR(gp_op_name(GP_OP_PROC_EVICT), "p_evict");
}

TEST(uapi_and_kernel_names)
{
	/* KFD_IOC_QUEUE_TYPE_* and enum kfd_queue_type differ from 2 on. */
	CHECK_STR(names_ioc_queue_type(0), "compute");
	CHECK_STR(names_ioc_queue_type(2), "compute_aql");
	CHECK_STR(names_ioc_queue_type(3), "sdma_xgmi");
	CHECK_STR(names_ioc_queue_type(4), "sdma_by_eng_id");
	CHECK(names_ioc_queue_type(5) == NULL);
	CHECK_STR(gp_kq_type_name(2), "hiq");
	CHECK_STR(gp_kq_type_name(3), "diq");
	CHECK_STR(gp_kq_type_name(4), "sdma_xgmi");
	CHECK_STR(gp_kq_type_name(5), "sdma_by_eng_id");
	CHECK(gp_kq_type_name(6) == NULL);
	CHECK_STR(gp_dbg_op_name(0), "enable");
	CHECK_STR(gp_dbg_op_name(6), "suspend_queues");
	CHECK_STR(gp_dbg_op_name(7), "resume_queues");
	CHECK_STR(gp_dbg_op_name(14), "get_device_snapshot");
	CHECK(gp_dbg_op_name(15) == NULL);
	CHECK_STR(gp_trigger_name(2), "ttm");
	CHECK_STR(gp_trigger_name(5), "criu_restore");
	CHECK(gp_trigger_name(6) == NULL);
	CHECK_STR(gp_qstate_name(GP_QS_EVICTED_SUSPENDED),
		  "evicted_suspended");
	CHECK(gp_qstate_name(4) == NULL);
}

TEST(errno_names)
{
	CHECK_STR(gp_errno_name(-22), "EINVAL");
	CHECK_STR(gp_errno_name(22), "EINVAL");
	CHECK_STR(gp_errno_name(-3), "ESRCH");
	CHECK_STR(gp_errno_name(-1), "EPERM");
	CHECK(gp_errno_name(0) == NULL);
	CHECK(gp_errno_name(-9999) == NULL);
}

TEST(units)
{
	CHECK(gp_unit_ns(GP_UNIT_USEC) == 1000);
	CHECK(gp_unit_ns(GP_UNIT_MSEC) == 1000000);
	CHECK(gp_unit_ns(GP_UNIT_NSEC) == 1);
	CHECK_STR(gp_unit_label(GP_UNIT_USEC), "usecs");
	CHECK_STR(gp_unit_label(GP_UNIT_MSEC), "msecs");
	CHECK_STR(gp_unit_short(GP_UNIT_NSEC), "ns");
}

TEST(sizes)
{
	char b[24];

	CHECK_STR(gp_fmt_size(b, sizeof(b), 4096), "4K");
	CHECK_STR(gp_fmt_size(b, sizeof(b), 1 << 20), "1M");
	CHECK_STR(gp_fmt_size(b, sizeof(b), 3 << 20), "3M");
	CHECK_STR(gp_fmt_size(b, sizeof(b), 1000), "1000");
	CHECK_STR(gp_fmt_size(b, sizeof(b), 0), "0");
}

TEST(header)
{
	struct gp_out_opts o = { .unit = GP_UNIT_USEC };
	FILE *f = capture_open();

	gp_out_header(f, &o);
	CHECK_STR(capture_done(f),
		  "OP       PID     NSPID   CGROUP  COMM                   GP"
		  "U  QID RET     LAT(us) DETAIL\n");
	o.timestamp = true;
	o.unit = GP_UNIT_MSEC;
	f = capture_open();
	gp_out_header(f, &o);
	CHECK_STR(capture_done(f),
		  "TIME     OP       PID     NSPID   CGROUP  COMM            "
		  "       GPU  QID RET     LAT(ms) DETAIL\n");
	o.json = true;
	f = capture_open();
	gp_out_header(f, &o);
	CHECK_STR(capture_done(f), "");
}

TEST(text_create)
{
	struct gp_event e = create_ev();

	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "create   4242    7       5012    python3              5115"
		  "7    2 0          41.5 aql p7 4K\n");
	CHECK_STR(text(&e, GP_UNIT_MSEC, false),
		  "create   4242    7       5012    python3              5115"
		  "7    2 0         0.042 aql p7 4K\n");
	CHECK_STR(text(&e, GP_UNIT_NSEC, false),
		  "create   4242    7       5012    python3              5115"
		  "7    2 0         41523 aql p7 4K\n");
	e.ret = -22;
	e.queue.type = 9;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "create   4242    7       5012    python3              5115"
		  "7    2 EINVAL     41.5 ?9 p7 4K\n");
}

TEST(text_timestamp_is_wall_clock_of_boot_ts)
{
	struct gp_event e = create_ev();

	setenv("TZ", "UTC", 1);
	tzset();
	CHECK_STR(text(&e, GP_UNIT_USEC, true),
		  "23:15:23 create   4242    7       5012    python3         "
		  "     51157    2 0          41.5 aql p7 4K\n");
}

TEST(text_other_ops)
{
	struct gp_event e;

	e = ev(GP_OP_DESTROY);		/* no DETAIL, no trailing blank */
	e.queue_id = 3;
	e.ret = -22;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "destroy  4242    7       5012    python3              5115"
		  "7    3 EINVAL     41.5\n");
	e = ev(GP_OP_QUEUE_ADD);
	e.queue.type = 4;		/* kernel SDMA_XGMI */
	e.queue.priority = 15;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "q_add    4242    7       5012    python3              5115"
		  "7    2 0             - xgmi p15\n");
	e = ev(GP_OP_EVICT);
	e.evict.evicted_before = 0;
	e.evict.evicted_after = 1;
	e.duration_ns = 2500000;
	CHECK_STR(text(&e, GP_UNIT_MSEC, false),
		  "evict    4242    7       5012    python3              5115"
		  "7    2 0         2.500 evicted 0->1\n");
	e = ev(GP_OP_PROC_EVICT);
	e.evict.trigger = 4;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "p_evict  4242    7       5012    python3              5115"
		  "7    2 0          41.5 criu_ckpt\n");
	e = ev(GP_OP_DBG_TRAP);
	e.gpu_id = e.queue_id = 0;
	e.dbg.dbg_op = 6;
	e.target_pid = 977;
	e.ret = -1;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "dbg_trap 4242    7       5012    python3                  "
		  "0    0 EPERM      41.5 suspend >977\n");
	e = ev(GP_OP_SUSPEND);
	e.susp.num_queues = 3;
	e.susp.done = 2;
	e.susp.grace_period = 0;
	e.ret = 2;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "suspend  4242    7       5012    python3              5115"
		  "7    2 2          41.5 2/3 g0\n");
	e.op = GP_OP_RESUME;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "resume   4242    7       5012    python3              5115"
		  "7    2 2          41.5 2/3\n");
	e = ev(GP_OP_HW_UNMAP);
	e.hw.filter = 2;
	e.hw.filter_param = 0;
	e.hw.reset = 1;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "hw_unmap 4242    7       5012    python3              5115"
		  "7    2 0          41.5 f2 0 reset\n");
	e = ev(GP_OP_EXIT);
	e.evict.n_queues = 3;
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "exit     4242    7       5012    python3              5115"
		  "7    2 0             - 3 rows\n");
	e = ev(99);
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "?99      4242    7       5012    python3              5115"
		  "7    2 0          41.5\n");
}

TEST(text_comm_without_nul_is_cut_not_overrun)
{
	struct gp_event e = create_ev();

	memcpy(e.comm, "0123456789abcdefXXXX", GP_COMM_LEN);
	CHECK_STR(text(&e, GP_UNIT_USEC, false),
		  "create   4242    7       5012    0123456789abcde      5115"
		  "7    2 0          41.5 aql p7 4K\n");
	CHECK(strstr(json(&e), "\"comm\":\"0123456789abcdef\",") != NULL);
}

/*
 * The widest values (10-digit GPU ids: the gpu_id of a CREATE_QUEUE is
 * whatever the caller passed; 15-character comms) keep every column in
 * place, and a line stays within 100 columns, 109 with -T.
 */
TEST(text_widest_values_stay_aligned_and_under_100_columns)
{
	static const __u32 ops[] = {
		GP_OP_CREATE, GP_OP_DESTROY, GP_OP_QUEUE_ADD, GP_OP_QUEUE_DEL,
		GP_OP_EVICT, GP_OP_RESTORE, GP_OP_PROC_EVICT, GP_OP_DBG_TRAP,
		GP_OP_SUSPEND, GP_OP_RESUME, GP_OP_HW_UNMAP, GP_OP_HW_FENCE,
		GP_OP_MES_REMOVE, GP_OP_MES_ADD, GP_OP_EXIT,
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct gp_event e = create_ev();
		const char *s;

		e.op = ops[i];
		e.pid = 999999;
		e.ns_pid = 99999;
		e.cgroup_id = 999999;
		strcpy(e.comm, "kfd-exerciser-1");
		e.gpu_id = 4294967295u;
		e.queue_id = 1023;
		e.duration_ns = 9999999;	/* 9999.9 us */
		e.ret = -22;
		e.target_pid = 999999;
		switch (e.op) {
		case GP_OP_EVICT:
		case GP_OP_RESTORE:
			e.evict.evicted_before = 10;
			e.evict.evicted_after = 11;
			break;
		case GP_OP_PROC_EVICT:
			e.evict.trigger = 4;	/* longest name */
			break;
		case GP_OP_DBG_TRAP:
			e.dbg.dbg_op = 13;
			break;
		case GP_OP_SUSPEND:
		case GP_OP_RESUME:
			e.susp.num_queues = 128;
			e.susp.done = 128;
			e.susp.grace_period = 1000;
			/* phases (real GPUs only) may take it past 80 */
			memset(e.susp.phase_ns, 0, sizeof(e.susp.phase_ns));
			break;
		case GP_OP_HW_UNMAP:
			e.hw.filter = 2;
			e.hw.filter_param = 65535;	/* a pasid */
			e.hw.reset = 1;
			break;
		case GP_OP_HW_FENCE:
			e.hw.timeout_ms = 9000;
			break;
		case GP_OP_EXIT:
			e.evict.n_queues = 1024;
			break;
		default:
			e.queue.ring_size = 1 << 20;
			e.queue.priority = 15;
		}
		s = text(&e, GP_UNIT_USEC, false);
		if (strlen(s) > 101)	/* 100 + '\n' */
			printf("# %zu columns: %s", strlen(s) - 1, s);
		CHECK(strlen(s) <= 101);
		/* RET starts at one column for every op */
		CHECK(strstr(s, " EINVAL ") - s == 64);
		s = text(&e, GP_UNIT_USEC, true);
		CHECK(strlen(s) <= 110);
		CHECK(strstr(s, " EINVAL ") - s == 73);
	}
}

TEST(text_suspend_shows_its_phases_in_the_lat_unit)
{
	struct gp_event e = ev(GP_OP_SUSPEND);

	e.susp.num_queues = 3;
	e.susp.done = 2;
	e.susp.grace_period = 100;
	memset(e.susp.phase_ns, 0, sizeof(e.susp.phase_ns));
	CHECK(strstr(text(&e, GP_UNIT_USEC, false), " 2/3 g100\n") != NULL);
	e.susp.phase_ns[GP_PHASE_UNMAP] = 12300;
	e.susp.phase_ns[GP_PHASE_FENCE] = 40000;
	CHECK(strstr(text(&e, GP_UNIT_USEC, false),
		     " 2/3 g100 hw_unmap 12.3 hw_fence 40.0\n") != NULL);
	e.op = GP_OP_RESUME;
	e.susp.phase_ns[GP_PHASE_UNMAP] = 0;
	e.susp.phase_ns[GP_PHASE_MES_ADD] = 2000000;
	CHECK(strstr(text(&e, GP_UNIT_MSEC, false),
		     " 2/3 hw_fence 0.040 mes_add 2.000\n") != NULL);
}

TEST(text_never_writes_control_characters_from_comm)
{
	struct gp_event e = create_ev();
	const char *line;

	strcpy(e.comm, "\x1b[2Jpw\x07n\r\x7f");
	line = text(&e, GP_UNIT_USEC, false);
	for (const char *c = line; *c; c++)
		CHECK(*c == '\n' || ((unsigned char)*c >= 0x20 && *c != 0x7f));
	CHECK(strstr(line, "?[2Jpw?n??") != NULL);
}

TEST(text_hides_debug_trap_protocol_calls_unless_asked)
{
	struct gp_out_opts o = {};
	struct gp_event e = ev(GP_OP_DBG_TRAP);

	for (__u32 op = 0; op <= 15; op++) {
		bool shown;

		e.dbg.dbg_op = op;
		o.json = false;
		o.all_dbg = false;
		shown = gp_out_wanted(&e, &o);
		/* SUSPEND_QUEUES (6), RESUME_QUEUES (7) only */
		CHECK(shown == (op == 6 || op == 7));
		o.all_dbg = true;
		CHECK(gp_out_wanted(&e, &o));
		o.all_dbg = false;
		o.json = true;		/* JSON: everything, always */
		CHECK(gp_out_wanted(&e, &o));
	}
	e = ev(GP_OP_CREATE);
	o.json = false;
	CHECK(gp_out_wanted(&e, &o));
}

int main(void)
{
	RUN(op_names_cover_every_op_and_fit_the_column);
	RUN(uapi_and_kernel_names);
	RUN(errno_names);
	RUN(units);
	RUN(sizes);
	RUN(header);
	RUN(text_create);
	RUN(text_timestamp_is_wall_clock_of_boot_ts);
	RUN(text_other_ops);
	RUN(text_comm_without_nul_is_cut_not_overrun);
	RUN(text_widest_values_stay_aligned_and_under_100_columns);
	RUN(text_suspend_shows_its_phases_in_the_lat_unit);
	RUN(text_never_writes_control_characters_from_comm);
	RUN(text_hides_debug_trap_protocol_calls_unless_asked);
	free(capture_buf);
	return tap_done();
}
