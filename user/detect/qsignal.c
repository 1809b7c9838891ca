// SPDX-License-Identifier: GPL-2.0
/* The completion-signal test (qsignal.h): three process_vm_readv(2). */
#include <errno.h>
#include <sys/uio.h>

#include "qsignal.h"
#include "qwatch.h"

static int rd(pid_t pid, struct iovec *l, struct iovec *r, int n)
{
	ssize_t want = 0, got;
	int i;

	for (i = 0; i < n; i++)
		want += l[i].iov_len;
	got = process_vm_readv(pid, l, n, r, n, 0);
	if (got < 0)
		return -errno;
	return got == want ? 0 : -EFAULT;
}

#define IOV(a, n) (struct iovec){ .iov_base = (void *)(uintptr_t)(a), .iov_len = (n) }

int gp_qsig_read(pid_t pid, uint64_t q, struct gp_qsig_res *r,
		 void (*between)(void *), void *ctx)
{
	uint64_t base, write2, slot;
	uint32_t size;
	struct iovec l[4], rm[4];
	int err;

	*r = (struct gp_qsig_res){ .state = GP_QS_BUSY };
	l[0] = IOV(&base, 8);
	l[1] = IOV(&size, 4);
	l[2] = IOV(&r->write, 8);
	l[3] = IOV(&r->read, 8);
	rm[0] = IOV(q + GP_HSAQ_BASE_ADDRESS, 8);
	rm[1] = IOV(q + GP_HSAQ_SIZE, 4);
	rm[2] = IOV(q + GP_AMDQ_WRITE_DISPATCH_ID, 8);
	rm[3] = IOV(q + GP_AMDQ_READ_DISPATCH_ID, 8);
	err = rd(pid, l, rm, 4);
	if (err)
		return err;
	if (r->read < r->write)
		return 0;
	if (!r->write) {
		r->state = GP_QS_IDLE;	/* nothing ever submitted */
		return 0;
	}
	if (!size || (size & (size - 1)))
		return -EINVAL;		/* not an AQL queue header */
	slot = (r->write - 1) & (size - 1);
	l[0] = IOV(&r->signal, 8);
	rm[0] = IOV(base + slot * GP_AQL_PACKET_SIZE +
		    GP_AQL_COMPLETION_SIGNAL, 8);
	err = rd(pid, l, rm, 1);
	if (err)
		return err;
	if (!r->signal) {
		r->state = GP_QS_NOSIG;
		return 0;
	}
	if (between)
		between(ctx);
	/* the value first, then write: a move after the value is seen */
	l[0] = IOV(&r->value, 8);
	l[1] = IOV(&write2, 8);
	rm[0] = IOV(r->signal + GP_AMD_SIGNAL_VALUE, 8);
	rm[1] = IOV(q + GP_AMDQ_WRITE_DISPATCH_ID, 8);
	err = rd(pid, l, rm, 2);
	if (err)
		return err;
	if (write2 != r->write)
		r->state = GP_QS_MOVED;
	else
		r->state = r->value ? GP_QS_BUSY : GP_QS_IDLE;
	return 0;
}

const char *gp_qsig_name(enum gp_qsig_state s)
{
	static const char *const n[] = { "idle", "busy", "nosig", "moved" };

	return s <= GP_QS_MOVED ? n[s] : "?";
}
