/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The completion-signal test: is an AQL queue's last packet done, read
 * from outside through process_vm_readv(2)? read == write alone does not
 * say so: the CP advances read_dispatch_id when it takes a packet, so the
 * last kernel may still run. When that packet carries a completion
 * signal, the signal's value says (0 = done). Layouts, from ROCr's
 * headers (libhsa-runtime-dev 6.1.2, docs/arbiter.md):
 *   hsa_queue_t (hsa.h): base_address at 8, size (packets) at 24
 *   amd_queue_t (amd_hsa_queue.h): write_dispatch_id 56, read 128
 *   every AQL packet (hsa.h): 64 bytes, completion_signal at 56
 *   amd_signal_t (amd_hsa_signal.h): a handle is its address; value at 8
 */
#ifndef GP_QSIGNAL_H
#define GP_QSIGNAL_H

#include <stdint.h>
#include <sys/types.h>

#define GP_HSAQ_BASE_ADDRESS 8
#define GP_HSAQ_SIZE 24
#define GP_AQL_PACKET_SIZE 64
#define GP_AQL_COMPLETION_SIGNAL 56
#define GP_AMD_SIGNAL_VALUE 8

enum gp_qsig_state {
	GP_QS_IDLE,	/* read == write and the last signal is 0 (or none ever) */
	GP_QS_BUSY,	/* read < write, or the last packet's signal not 0 */
	GP_QS_NOSIG,	/* read == write, last packet without a signal: unknown */
	GP_QS_MOVED,	/* write moved while reading: new work, re-read later */
};

struct gp_qsig_res {
	enum gp_qsig_state state;
	uint64_t write, read;	/* dispatch ids as read first */
	uint64_t signal;	/* last packet's completion_signal handle */
	int64_t value;		/* its value, when signal != 0 */
};

/*
 * Test one queue of pid, given its amd_queue_t address (the CREATE_QUEUE
 * write pointer minus 56). At most three reads: header and counters, the
 * last packet's signal, then the signal's value with write_dispatch_id
 * again (a pooled signal is reused once its packet is done: the value is
 * the last packet's only if write did not move). between, if set, runs
 * before that last read (tests move the queue there). 0 or -errno.
 */
int gp_qsig_read(pid_t pid, uint64_t queue, struct gp_qsig_res *r,
		 void (*between)(void *), void *ctx);
const char *gp_qsig_name(enum gp_qsig_state s);

#endif
