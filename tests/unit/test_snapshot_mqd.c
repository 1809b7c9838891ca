// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the debugfs MQD/HQD parsers (user/kfd/mqd.c) on fixtures in the
 * kernel's exact text format (tests/unit/fixtures/mqd/gen.sh says how
 * they are built): field decoding per layout, raw for unknown layouts
 * and truncated dumps, 6.1 / 6.12 / 7.x header variants, HQD matching,
 * unambiguous queue ids, and the arbiter's gp_mqd_read_addrs.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "tap.h"
#include "mqd.h"

static char fx[PATH_MAX];

static int find_fixtures(void)
{
	return fixture_path("", fx, sizeof(fx));
}

static char *load(const char *name)
{
	char path[PATH_MAX + 64];
	char *t = NULL;

	snprintf(path, sizeof(path), "%s/mqd/%s", fx, name);
	if (gp_mqd_slurp(path, &t))
		return NULL;
	return t;
}

static const uint32_t ids[] = { 0x4a3c, 0x5b4d, 0x1b2c, 0x77aa };
static const uint32_t gfx[] = { 90010, 110000, 110000, 100300 };

TEST(layout_table)
{
	CHECK(gp_mqd_layout_for_gfx(90010) == GP_MQD_V9);	/* MI210 */
	CHECK(gp_mqd_layout_for_gfx(90402) == GP_MQD_V9);	/* MI300 */
	CHECK(gp_mqd_layout_for_gfx(110000) == GP_MQD_V11);
	CHECK(gp_mqd_layout_for_gfx(120001) == GP_MQD_V12);
	CHECK(gp_mqd_layout_for_gfx(120100) == GP_MQD_RAW);	/* v12_1 */
	CHECK(gp_mqd_layout_for_gfx(100300) == GP_MQD_RAW);	/* v10 */
	CHECK(gp_mqd_layout_for_gfx(80003) == GP_MQD_RAW);
	CHECK(gp_mqd_layout_for_gfx(0) == GP_MQD_RAW);
}

TEST(mqds_612_gfx90a)
{
	char *t = load("mqds-6.12-gfx90a.txt");
	struct gp_mqd_dump d;
	const struct gp_mqd_queue *q;

	CHECK(t);
	if (!t)
		return;
	CHECK(gp_mqds_parse(t, &d) == 0);
	CHECK(d.unknown_lines == 0);
	CHECK(d.nprocs == 3);
	CHECK(d.nq == 4);
	CHECK(d.procs[0].pid == 4242 && d.procs[0].nq == 2);
	CHECK_STR(d.procs[0].pasid, "0x8001");
	CHECK(d.procs[2].pid == 4400 && d.procs[2].nq == 0);
	CHECK(gp_mqd_apply_layouts(&d, ids, gfx, 4) == 3);
	q = &d.q[0];
	CHECK(q->kind == GP_MQD_COMPUTE && q->gpu_id == 0x4a3c);
	CHECK(q->ndw == 512 && q->decoded && q->layout == GP_MQD_V9);
	CHECK(q->f.active && q->f.vmid == 8);
	CHECK(q->f.pipe_priority == 1 && q->f.queue_priority == 7);
	CHECK(q->f.quantum == 0x511);
	CHECK(q->f.mqd_addr == 0x8000a01000ull);
	CHECK(q->f.ring_base == 0x7f1200000000ull);
	CHECK(q->f.ring_size == 65536);
	CHECK(q->f.rptr == 0x140 && q->f.wptr == 0x50);
	CHECK(q->f.rptr_report_addr == 0x7f1234560080ull);
	CHECK(q->f.wptr_poll_addr == 0x7f1234560038ull);
	CHECK(q->f.doorbell_offset == 0x1002 && q->f.doorbell_en);
	/* a QUEUE_SIZE out of range gives 0, not a shift past the type */
	{
		uint32_t w[512] = { 0 };
		struct gp_mqd_fields f;

		w[145] = 0x3f;
		CHECK(gp_mqd_decode(w, 512, GP_MQD_V9, &f) == 0 && !f.ring_size);
		w[145] = 0x1d;	/* 2^30 dwords: 4 GiB */
		CHECK(gp_mqd_decode(w, 512, GP_MQD_V9, &f) == 0 &&
		      f.ring_size == 4ull << 30);
		CHECK(gp_mqd_decode(w, 511, GP_MQD_V9, &f) == -EINVAL);
		CHECK(gp_mqd_decode(w, 512, GP_MQD_RAW, &f) == -EINVAL);
	}
	q = &d.q[1];		/* SDMA: raw, 512 bytes */
	CHECK(q->kind == GP_MQD_SDMA && q->ndw == 128 && !q->decoded);
	CHECK(q->layout == GP_MQD_RAW && q->dw[0] == 1 && q->dw[1] == 2);
	/* process 4300: newest first, the older one inactive */
	CHECK(d.q[2].pid == 4300 && d.q[2].index == 0 && !d.q[2].f.active);
	CHECK(d.q[3].index == 1 && d.q[3].f.active && d.q[3].f.vmid == 9);
	CHECK(d.q[3].f.ring_size == 16384);
	gp_mqd_dump_free(&d);
	free(t);
}

TEST(mqds_7x_unknown_layout_raw)
{
	char *t = load("mqds-7.x-gfx1100.txt");
	struct gp_mqd_dump d;

	CHECK(t);
	if (!t)
		return;
	CHECK(gp_mqds_parse(t, &d) == 0);
	CHECK(d.unknown_lines == 0);
	CHECK(d.nprocs == 1 && d.procs[0].pid == 5151);
	CHECK_STR(d.procs[0].pasid, "5151");	/* 7.x prints "%d" */
	CHECK(d.nq == 3);
	CHECK(gp_mqd_apply_layouts(&d, ids, gfx, 4) == 1);
	CHECK(d.q[0].decoded && d.q[0].layout == GP_MQD_V11);
	CHECK(d.q[0].f.wptr_poll_addr == 0x7f1234560038ull);
	/* gfx1030: v10_compute_mqd was not verified: raw, never guessed */
	CHECK(!d.q[1].decoded && d.q[1].layout == GP_MQD_RAW);
	CHECK(d.q[1].ndw == 512);
	CHECK(d.q[2].kind == GP_MQD_BAD && d.q[2].bad_type == 9);
	CHECK(d.q[2].ndw == 0);
	/* without topology nothing is decoded */
	CHECK(gp_mqd_apply_layouts(&d, NULL, NULL, 0) == 0);
	CHECK(!d.q[0].decoded);
	gp_mqd_dump_free(&d);
	free(t);
}

TEST(mqds_truncated_stays_raw)
{
	char *t = load("mqds-truncated.txt");
	struct gp_mqd_dump d;

	CHECK(t);
	if (!t)
		return;
	CHECK(gp_mqds_parse(t, &d) == 0);
	CHECK(d.nq == 1 && d.q[0].ndw == 40 * 8);
	CHECK(gp_mqd_apply_layouts(&d, ids, gfx, 4) == 0);
	CHECK(!d.q[0].decoded);
	gp_mqd_dump_free(&d);
	free(t);
}

TEST(mqds_vm_noqueues)
{
	char *t = load("mqds-vm-noqueues.txt");
	struct gp_mqd_dump d;

	CHECK(t);
	if (!t)
		return;
	CHECK(gp_mqds_parse(t, &d) == 0);
	CHECK(d.nprocs == 2 && d.nq == 0);
	CHECK(d.procs[0].pid == 301 && d.procs[1].pid == 288);
	CHECK_STR(d.procs[1].pasid, "0x0");
	gp_mqd_dump_free(&d);
	free(t);
}

TEST(mqds_garbage_counted_not_fatal)
{
	struct gp_mqd_dump d;
	const char *t =
		"hello\n"
		"Process 7 PASID 0x1:\n"
		"  Compute queue on device 10\n"
		"    00000000: 00000001 00000002\n"
		"    00000040: 00000003\n"		/* gap: not taken */
		"    00000008: 0000000g\n"		/* bad hex */
		"    00000008: -0000001\n"		/* a sign */
		"    00000008:   000001\n"		/* blanks */
		"  Weird: Queue node with neither kernel nor user queue\n";

	CHECK(gp_mqds_parse(t, &d) == 0);
	CHECK(d.nprocs == 1 && d.nq == 1 && d.q[0].ndw == 2);
	CHECK(d.unknown_lines == 6 && d.first_unknown == 1);
	gp_mqd_dump_free(&d);
	CHECK(gp_mqds_parse("", &d) == 0 && d.nprocs == 0);
	gp_mqd_dump_free(&d);
}

static void check_hqds(const char *name, int inst)
{
	char *t = load(name);
	struct gp_hqd_dump h;
	struct gp_mqd_dump m;
	char *mt = load("mqds-6.12-gfx90a.txt");
	size_t i;

	CHECK(t && mt);
	if (!t || !mt)
		return;
	CHECK(gp_hqds_parse(t, &h) == 0);
	CHECK(h.unknown_lines == 0);
	CHECK(h.nodes[0].node == 1 && h.nodes[0].gpu_id == 0x4a3c);
	CHECK(h.h[0].kind == GP_HQD_HIQ && h.h[0].mec == 2);
	CHECK(h.h[0].pipe == 1 && h.h[0].queue == 0 && h.h[0].inst == inst);
	for (i = 0; i < h.n; i++)
		if (h.h[i].kind != GP_HQD_SDMA)
			CHECK(h.h[i].nregs == 56);
	gp_hqd_apply_layouts(&h, ids, gfx, 4);
	CHECK(gp_mqds_parse(mt, &m) == 0);
	gp_mqd_apply_layouts(&m, ids, gfx, 4);
	CHECK(gp_mqd_match_hqds(&m, &h) == 1);
	CHECK(m.q[0].on_hqd && m.q[0].hqd_pipe == 1 && m.q[0].hqd_queue == 2);
	CHECK(m.q[0].hqd_inst == inst);
	CHECK(!m.q[3].on_hqd);	/* active in its MQD, but in no slot */
	gp_mqd_dump_free(&m);
	gp_hqd_dump_free(&h);
	free(t);
	free(mt);
}

TEST(hqds_612)
{
	char *t = load("hqds-6.12.txt");
	struct gp_hqd_dump h;

	check_hqds("hqds-6.12.txt", 0);
	CHECK(t && gp_hqds_parse(t, &h) == 0);
	CHECK(h.nnodes == 2 && h.nodes[1].stopped && !h.nodes[0].stopped);
	CHECK(h.n == 4);
	CHECK(h.h[3].kind == GP_HQD_SDMA && h.h[3].nregs == 19);
	gp_hqd_apply_layouts(&h, ids, gfx, 4);
	CHECK(!h.h[3].decoded && h.h[2].decoded && !h.h[1].f.active);
	CHECK(h.h[2].f.rptr_report_addr == 0x7f1234560080ull);
	CHECK(h.h[2].f.doorbell_offset == 0x1002);
	CHECK(h.h[2].f.wptr == 0x50);
	gp_hqd_dump_free(&h);
	free(t);
}

TEST(hqds_61)
{
	check_hqds("hqds-6.1.txt", -1);
}

TEST(assign_ids_only_when_unambiguous)
{
	char *t = load("mqds-6.12-gfx90a.txt");
	struct gp_mqd_dump d;
	const int pids[] = { 4242, 4242, 4300, 4300 };
	const uint32_t gpus[] = { 0x4a3c, 0x4a3c, 0x4a3c, 0x4a3c };
	const uint32_t qids[] = { 3, 5, 0, 1 };
	const uint32_t types[] = { 0, 1, 0, 0 };

	CHECK(t && gp_mqds_parse(t, &d) == 0);
	CHECK(gp_mqd_assign_ids(&d, pids, gpus, qids, types, 4) == 2);
	CHECK(d.q[0].queue_id == 3);	/* one compute each side */
	CHECK(d.q[1].queue_id == 5);	/* one SDMA each side */
	CHECK(d.q[2].queue_id == -1 && d.q[3].queue_id == -1);
	/* a sysfs row on another GPU does not count */
	CHECK(gp_mqd_assign_ids(&d, pids, (const uint32_t[]){ 1, 1, 1, 1 },
				qids, types, 4) == 0);
	gp_mqd_dump_free(&d);
	free(t);
}

TEST(read_addrs_on_fixture_root)
{
	char m[PATH_MAX + 64], h[PATH_MAX + 64], topo[PATH_MAX + 64];
	char proc[PATH_MAX + 64];
	struct gp_mqd_paths p = { m, h, topo, proc };
	struct gp_mqd_addr *a = NULL;
	int n, und = -1;

	snprintf(m, sizeof(m), "%s/snapshot_root/sys/kernel/debug/kfd/mqds",
		 fx);
	snprintf(h, sizeof(h), "%s/snapshot_root/sys/kernel/debug/kfd/hqds",
		 fx);
	snprintf(topo, sizeof(topo),
		 "%s/snapshot_root/sys/class/kfd/kfd/topology", fx);
	snprintf(proc, sizeof(proc),
		 "%s/snapshot_root/sys/class/kfd/kfd/proc", fx);
	n = gp_mqd_read_addrs(&p, &a, &und);
	CHECK(n == 3 && und == 0);
	if (n == 3) {
		CHECK(a[0].pid == 4242 && a[0].queue_id == 0);
		CHECK(a[0].rptr_report_addr == 0x7f1234560080ull);
		CHECK(a[0].wptr_poll_addr == 0x7f1234560038ull);
		CHECK(a[0].on_hqd && a[0].active);
		CHECK(a[1].pid == 4300 && a[1].queue_id == -1);
		CHECK(!a[1].active && !a[1].on_hqd);
	}
	free(a);
	p.mqds = "/nonexistent/mqds";
	CHECK(gp_mqd_read_addrs(&p, &a, NULL) == -ENOENT);
	free(a);
}

/* Mutated dumps (flipped bytes, cut lines): never a crash, and the
 * result stays consistent. Run under ASan/UBSan by hand:
 * make OUTPUT=/tmp/asan CC="cc -fsanitize=address,undefined" ... */
TEST(mutated_input_is_safe)
{
	char *base[2] = { load("mqds-6.12-gfx90a.txt"), load("hqds-6.12.txt") };
	const char alphabet[] = " \n:0123456789abcdefxPS\t";
	unsigned int x = 12345;
	int bad = 0;

	CHECK(base[0] && base[1]);
	if (!base[0] || !base[1])
		return;
	for (int round = 0; round < 400; round++) {
		for (int which = 0; which < 2; which++) {
			char *t = strdup(base[which]);
			size_t len = strlen(t);

			for (int k = 0; k < 1 + round % 16; k++) {
				x = x * 1103515245u + 12345u;
				t[(x >> 8) % len] =
					alphabet[(x >> 20) % (sizeof(alphabet) - 1)];
			}
			x = x * 1103515245u + 12345u;
			if (round % 3 == 0)
				t[(x >> 8) % len] = 0;	/* cut short */
			if (which == 0) {
				struct gp_mqd_dump d;

				bad |= gp_mqds_parse(t, &d) != 0;
				for (size_t i = 0; i < d.nprocs; i++)
					bad |= d.procs[i].first + d.procs[i].nq >
					       d.nq;
				gp_mqd_apply_layouts(&d, ids, gfx, 4);
				gp_mqd_dump_free(&d);
			} else {
				struct gp_hqd_dump h;

				bad |= gp_hqds_parse(t, &h) != 0;
				gp_hqd_apply_layouts(&h, ids, gfx, 4);
				gp_hqd_dump_free(&h);
			}
			free(t);
		}
	}
	CHECK(!bad);
	free(base[0]);
	free(base[1]);
}

int main(void)
{
	if (find_fixtures()) {
		printf("1..0 # SKIP fixtures not found\n");
		return 0;
	}
	RUN(layout_table);
	RUN(mqds_612_gfx90a);
	RUN(mqds_7x_unknown_layout_raw);
	RUN(mqds_truncated_stays_raw);
	RUN(mqds_vm_noqueues);
	RUN(mqds_garbage_counted_not_fatal);
	RUN(hqds_612);
	RUN(hqds_61);
	RUN(assign_ids_only_when_unambiguous);
	RUN(read_addrs_on_fixture_root);
	RUN(mutated_input_is_safe);
	return tap_done();
}
