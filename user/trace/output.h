/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpreempt-trace's output: names for the numbers in struct gp_event, the
 * one-line text form of an event, and its NDJSON form. Pure formatting
 * (no BPF, no clocks unless asked), so every byte is L0-tested.
 *
 * Text (header printed once by gp_out_header): columns wide enough for
 * the widest values (a 10-digit GPU id: CREATE_QUEUE's gpu_id is what the
 * caller passed; a 15-character comm, control characters shown as '?'),
 * so a line stays within 100 columns; -T prepends "HH:MM:SS ":
 *   OP       PID     NSPID   CGROUP  COMM                   GPU  QID RET
 *   create   4242    7       5012    python3              51157    2 0
 *   (then LAT(us) "    41.5" and DETAIL "aql p7 4K"). LAT is in the unit of
 * -m/-u (default usecs), "-" for instant events (q_add, q_del, exit).
 * RET is the errno name when negative. DETAIL by op: create
 * "<ioctl type> p<prio> <ring>", q_add/q_del "<kernel type> p<prio>",
 * evict/restore "evicted <before>-><after>", p_evict "<trigger>" (CRIU
 * ones cut to criu_ckpt, criu_rstr), dbg_trap "<dbg op> ><target pid>",
 * suspend "<done>/<asked> g<grace>", resume "<done>/<asked>", both
 * followed by the phases seen (" hw_unmap <lat> hw_fence <lat>"), hw_unmap
 * "f<filter> <param>[ reset]", hw_fence "<timeout>ms", exit "<n> rows"
 * (map rows dropped).
 *
 * NDJSON: one object per line; keys are stable per op; every quantity
 * carries its unit in the key name (_ns, _ms, _bytes, _kcycles):
 *   {"type":"event","op":"create","ts_boot_ns":N,"duration_ns":N,
 *    "pid":N,"tid":N,"ns_pid":N,"cgroup_id":N,"comm":"..","gpu_id":N,
 *    "queue_id":N,"ret":N,["errno_name":"EINVAL",]"pasid":N,
 *    "reduced":bool,"kworker":bool, <op fields>}
 * op fields:
 *   create:          "queue_type":"compute_aql","queue_type_raw":2,
 *                    "priority":N,"percentage":N,"ring_size_bytes":N,
 *                    "doorbell_offset":"0x.."	(queue_type: KFD_IOC_*)
 *   q_add, q_del:    same keys; queue_type from enum kfd_queue_type
 *   evict, restore:  "evicted_before":N,"evicted_after":N,"n_queues":N
 *   p_evict:         "trigger":"ttm","trigger_raw":2
 *   dbg_trap:        "dbg_op":"suspend_queues","dbg_op_raw":6,
 *                    "target_pid":N,"debugger_pid":N
 *   suspend, resume: "target_pid":N,"queues_asked":N,"queues_done":N,
 *                    "grace_period_kcycles":N (suspend only),
 *                    "phase_hw_unmap_ns":N,"phase_hw_fence_ns":N,
 *                    "phase_mes_rm_ns":N,"phase_mes_add_ns":N (time in
 *                    each hardware step inside it, same thread; 0: none)
 *   hw_unmap:        "target_pid":N,"filter":N,"filter_param":N,
 *                    "reset":bool
 *   hw_fence:        "target_pid":N,"timeout_ms":N
 *   mes_rm, mes_add: "target_pid":N
 *   exit:            "queues_dropped":N
 * "errno_name" is present only when ret < 0. A number with no name shows
 * as "?<n>" ("queue_type":"?9"; the "_raw" twin keeps the number).
 *
 * Other objects: {"type":"lost","events":N} (gp_out_lost), map rows
 * {"type":"queue",...} (queues.h), histograms {"type":"hist",...}
 * (hist.h).
 */
#ifndef GP_OUTPUT_H
#define GP_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "gpreempt.h"
#include "names.h"
#include "outopts.h"

/* Is this event printed? (text: see gp_out_opts.all_dbg; JSON: all) */
bool gp_out_wanted(const struct gp_event *e, const struct gp_out_opts *o);
/*
 * Per-op counts (summary mode), ops with a count only. Text: a blank
 * line, "OP COUNT FAILED" and one row per op ("No KFD events counted."
 * if none); JSON: {"type":"count","op":"create","count":N,"failed":N}.
 */
void gp_out_counts(FILE *f, const struct gp_count *counts,
		   const struct gp_out_opts *o);

/* Column header line (text mode only; nothing in JSON mode). */
void gp_out_header(FILE *f, const struct gp_out_opts *o);
/* One event: a text line or an NDJSON object, per o->json. */
void gp_out_event(FILE *f, const struct gp_event *e,
		  const struct gp_out_opts *o);
void gp_out_event_text(FILE *f, const struct gp_event *e,
		       const struct gp_out_opts *o);
void gp_out_event_json(FILE *f, const struct gp_event *e);
/* "N events lost" (text: only if N > 0; JSON: always one object). */
void gp_out_lost(FILE *f, uint64_t lost, const struct gp_out_opts *o);
/*
 * Full BPF maps, only when something was dropped: text "N histogram
 * samples dropped (gp_hists full)" / "N queues not tracked (gp_queues
 * full)"; JSON {"type":"map_full","hist_samples":N,"queues":N}.
 */
void gp_out_full(FILE *f, uint64_t hist_samples, uint64_t queues,
		 const struct gp_out_opts *o);

#endif
