// SPDX-License-Identifier: GPL-2.0
/*
 * The events step: KFD's signal-event round trip the way the HSA thunk
 * does it when HIP blocks on a signal (hsaKmtWaitOnEvent): CREATE_EVENT
 * (signal, manual reset, no event page: KFD allocates its own), then
 * SET_EVENT when asked, WAIT_EVENTS on it with a timeout, DESTROY_EVENT.
 * A set event makes WAIT_EVENTS answer COMPLETE (wait_result 0), an
 * unset one TIMEOUT (1) after the timeout. Needs no GPU: a workload for
 * the launch detector's WAIT_EVENTS hook. One line:
 *   {"step":"events","create_err":E,"event_id":N,"set_err":E,
 *    "wait_err":E,"wait_result":N,"wait_ns":T,"destroy_err":E}
 * (set_err only with set=1; E is an errno, 0 for success).
 */
#include "ex.h"

void ex_events(int kfd, bool set, long long ms)
{
	struct kfd_ioctl_create_event_args c = { 0 };
	struct kfd_ioctl_set_event_args s = { 0 };
	struct kfd_ioctl_wait_events_args w = { 0 };
	struct kfd_ioctl_destroy_event_args d = { 0 };
	struct kfd_event_data ev = { 0 };
	struct ioc r;
	struct jl j;

	jl_begin(&j, "events");
	c.event_type = KFD_IOC_EVENT_SIGNAL;
	c.auto_reset = 0;
	kfd_call(kfd, AMDKFD_IOC_CREATE_EVENT, &c, &r, "create-event");
	jl_int(&j, "create_err", r.ret < 0 ? r.err : 0);
	if (r.ret < 0) {
		jl_end(&j, false);
		return;
	}
	jl_int(&j, "event_id", c.event_id);
	if (set) {
		s.event_id = c.event_id;
		kfd_call(kfd, AMDKFD_IOC_SET_EVENT, &s, &r, "set-event");
		jl_int(&j, "set_err", r.ret < 0 ? r.err : 0);
	}
	ev.event_id = c.event_id;
	w.events_ptr = (uintptr_t)&ev;
	w.num_events = 1;
	w.wait_for_all = 1;
	w.timeout = ms < 0 ? 0 : (uint32_t)ms;
	kfd_call(kfd, AMDKFD_IOC_WAIT_EVENTS, &w, &r, "wait-events");
	jl_int(&j, "wait_err", r.ret < 0 ? r.err : 0);
	jl_int(&j, "wait_result", w.wait_result);
	jl_int(&j, "wait_ns", r.ns);
	d.event_id = c.event_id;
	kfd_call(kfd, AMDKFD_IOC_DESTROY_EVENT, &d, &r, "destroy-event");
	jl_int(&j, "destroy_err", r.ret < 0 ? r.err : 0);
	jl_end(&j, false);
}
