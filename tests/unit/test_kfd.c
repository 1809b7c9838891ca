// SPDX-License-Identifier: GPL-2.0
/*
 * L0: the KFD layer's pure parts: per-queue status words, errno ->
 * cause/remedy/exit code, the version gate, and the names used in output.
 */
#include <errno.h>
#include <string.h>

#include "exitcodes.h"
#include "kfd.h"
#include "names.h"
#include "tap.h"

TEST(queue_word_ok)
{
	CHECK(kfd_queue_word_status(7) == KFD_Q_OK);
	CHECK(kfd_queue_word_id(7) == 7);
	CHECK(kfd_queue_word_status(0) == KFD_Q_OK);
}

TEST(queue_word_invalid)
{
	/* What KFD wrote back in the VM for ids 7 and 1234. */
	CHECK(kfd_queue_word_status(0x80000007) == KFD_Q_INVALID);
	CHECK(kfd_queue_word_id(0x80000007) == 7);
	CHECK(kfd_queue_word_status(0x800004d2) == KFD_Q_INVALID);
	CHECK(kfd_queue_word_id(0x800004d2) == 1234);
}

TEST(queue_word_error_wins)
{
	/* suspend_queues() leaves INVALID set when it also sets ERROR */
	CHECK(kfd_queue_word_status(0xc0000003) == KFD_Q_ERROR);
	CHECK(kfd_queue_word_status(0x40000003) == KFD_Q_ERROR);
	CHECK(kfd_queue_word_id(0xc0000003) == 3);
}

TEST(qstatus_names)
{
	CHECK_STR(kfd_qstatus_name(KFD_Q_OK), "ok");
	CHECK_STR(kfd_qstatus_name(KFD_Q_INVALID), "invalid");
	CHECK_STR(kfd_qstatus_name(KFD_Q_NOT_DONE), "not_done");
	CHECK_STR(kfd_qstatus_name(KFD_Q_ERROR), "error");
}

TEST(version_gate)
{
	CHECK(kfd_version_check(1, 11) == GP_EXIT_NO_DEBUG_API); /* 6.1 */
	CHECK(kfd_version_check(1, 12) == GP_EXIT_NO_DEBUG_API);
	CHECK(kfd_version_check(1, 13) == GP_EXIT_OK);
	CHECK(kfd_version_check(1, 17) == GP_EXIT_OK); /* 6.12 */
	CHECK(kfd_version_check(1, 22) == GP_EXIT_OK);
	CHECK(kfd_version_check(2, 0) == GP_EXIT_NO_DEBUG_API);
	CHECK(kfd_version_check(0, 99) == GP_EXIT_NO_DEBUG_API);
}

/* exit code and a word the message must contain */
static int explains(enum kfd_call call, int err, int want_exit,
		    const char *word)
{
	const char *cause = NULL, *remedy = NULL;
	int exit = kfd_explain(call, err, &cause, &remedy);

	if (exit != want_exit) {
		printf("# %s errno %d: exit %d, want %d\n",
		       kfd_call_name(call), err, exit, want_exit);
		return 0;
	}
	if (!cause || !remedy)
		return 0;
	if (word && !strstr(cause, word) && !strstr(remedy, word)) {
		printf("# %s errno %d: '%s' not in '%s' / '%s'\n",
		       kfd_call_name(call), err, word, cause, remedy);
		return 0;
	}
	return 1;
}

TEST(explain_eperm)
{
	/* ENABLE: the ptrace rule; SUSPEND/RESUME: the runtime */
	CHECK(explains(KFD_CALL_ENABLE, EPERM, GP_EXIT_TARGET, "ptraced"));
	CHECK(explains(KFD_CALL_SUSPEND, EPERM, GP_EXIT_TARGET,
		       "runtime never enabled debug support"));
	CHECK(explains(KFD_CALL_SUSPEND, EPERM, GP_EXIT_TARGET, "1.13"));
	CHECK(explains(KFD_CALL_SUSPEND, EPERM, GP_EXIT_TARGET, "firmware"));
	CHECK(explains(KFD_CALL_RESUME, EPERM, GP_EXIT_TARGET, "ptraced"));
	CHECK(explains(KFD_CALL_RESUME, EACCES, GP_EXIT_TARGET, "runtime"));
}

TEST(explain_einval)
{
	CHECK(explains(KFD_CALL_ENABLE, EINVAL, GP_EXIT_NO_DEBUG_API,
		       "sched_policy=2"));
	CHECK(explains(KFD_CALL_SUSPEND, EINVAL, GP_EXIT_NO_DEBUG_API,
		       "sched_policy=2"));
	CHECK(explains(KFD_CALL_SUSPEND, EINVAL, GP_EXIT_NO_DEBUG_API,
		       "debug is not enabled"));
}

TEST(explain_busy)
{
	CHECK(explains(KFD_CALL_ENABLE, EALREADY, GP_EXIT_BUSY, "rocgdb"));
	CHECK(explains(KFD_CALL_ENABLE, EBUSY, GP_EXIT_BUSY,
		       "one debugged process per device"));
	CHECK(explains(KFD_CALL_SUSPEND, EBUSY, GP_EXIT_BUSY, NULL));
}

TEST(explain_gone)
{
	CHECK(explains(KFD_CALL_SUSPEND, ESRCH, GP_EXIT_TARGET, "exited"));
	CHECK(explains(KFD_CALL_ENABLE, ESRCH, GP_EXIT_TARGET, "exited"));
	CHECK(explains(KFD_CALL_PTRACE, ESRCH, GP_EXIT_TARGET, "exited"));
}

TEST(explain_open)
{
	CHECK(explains(KFD_CALL_OPEN, ENOENT, GP_EXIT_NO_KFD, "amdgpu"));
	CHECK(explains(KFD_CALL_OPEN, EINVAL, GP_EXIT_NO_KFD,
		       "without a GPU"));
	CHECK(explains(KFD_CALL_OPEN, EACCES, GP_EXIT_PRIV, "root"));
}

/*
 * PTRACE_SEIZE's EPERM has four causes; only one is a missing
 * capability. The old table said "lacks CAP_SYS_PTRACE ... or" and
 * exit 3 for all of them, so root refused by Yama or by a container's
 * non-dumpable process was told to become root.
 */
TEST(ptrace_denied)
{
	struct gp_err e = {};

	kfd_ptrace_denied(&e, 42, false, 0, 1);
	CHECK(e.exit == GP_EXIT_PRIV && e.err == EPERM &&
	      strstr(e.msg, "CAP_SYS_PTRACE"));
	kfd_ptrace_denied(&e, 42, true, 77, 1);
	CHECK(e.exit == GP_EXIT_BUSY && strstr(e.msg, "pid 77"));
	kfd_ptrace_denied(&e, 42, true, 0, 3);
	CHECK(e.exit == GP_EXIT_TARGET && strstr(e.msg, "ptrace_scope is 3"));
	CHECK(!strstr(e.msg, "lacks"));
	kfd_ptrace_denied(&e, 42, true, 0, -1);
	CHECK(e.exit == GP_EXIT_TARGET && strstr(e.msg, "dumpable") &&
	      strstr(e.msg, "LSM"));
	CHECK(!strstr(e.msg, "lacks"));
	/* what a caller that only has the errno gets is not exit 3 either */
	CHECK(explains(KFD_CALL_PTRACE, EPERM, GP_EXIT_TARGET, "dumpable"));
}

TEST(explain_hardware)
{
	CHECK(explains(KFD_CALL_SUSPEND, ETIME, GP_EXIT_FAILURE, "dmesg"));
	CHECK(explains(KFD_CALL_RESUME, EIO, GP_EXIT_FAILURE, "dmesg"));
	CHECK(explains(KFD_CALL_SNAPSHOT, EFAULT, GP_EXIT_FAILURE, "bug"));
}

TEST(explain_unknown)
{
	CHECK(explains(KFD_CALL_SUSPEND, EOVERFLOW, GP_EXIT_FAILURE, NULL));
	CHECK(explains(KFD_CALL_OPEN, EOVERFLOW, GP_EXIT_NO_KFD, NULL));
}

TEST(err_message)
{
	struct gp_err e;

	kfd_err(&e, KFD_CALL_ENABLE, 42, EALREADY);
	CHECK(e.exit == GP_EXIT_BUSY);
	CHECK(e.err == EALREADY);
	CHECK(strstr(e.msg, "enable on pid 42 failed: ") == e.msg);
	CHECK(strstr(e.msg, "rocgdb") != NULL);

	kfd_err(&e, KFD_CALL_OPEN, 0, ENOENT);
	CHECK(strstr(e.msg, "open failed: ") == e.msg);
	CHECK(e.exit == GP_EXIT_NO_KFD);

	gp_err_set(&e, GP_EXIT_TARGET, 0, "pid %d", 7);
	CHECK_STR(e.msg, "pid 7");
	CHECK(e.exit == GP_EXIT_TARGET && e.err == 0);
}

TEST(names)
{
	char nb[NAMES_NUM_LEN];

	CHECK_STR(kfd_call_name(KFD_CALL_SUSPEND), "suspend");
	CHECK_STR(kfd_call_name(KFD_CALL_RESUME), "resume");
	CHECK_STR(kfd_runtime_state_name(DEBUG_RUNTIME_STATE_DISABLED),
		  "DISABLED");
	CHECK_STR(kfd_runtime_state_name(DEBUG_RUNTIME_STATE_ENABLED),
		  "ENABLED");
	CHECK_STR(kfd_runtime_state_name(99), "UNKNOWN");
	CHECK_STR(names_ioc_queue_type(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL),
		  "compute_aql");
	CHECK(names_ioc_queue_type(77) == NULL);
	CHECK_STR(names_or_num(names_ioc_queue_type(77), 77, nb, sizeof(nb)),
		  "?77");
	CHECK_STR(names_or_num("sdma", 1, nb, sizeof(nb)), "sdma");
	CHECK_STR(names_or_num(NULL, UINT32_MAX, nb, sizeof(nb)),
		  "?4294967295");
}

TEST(ec_masks)
{
	/* kfd-reference.md 1.3: the masks the session passes */
	CHECK(GP_EC_PROCESS_RUNTIME == 0x800000000000ULL);
	CHECK(GP_EC_QUEUE_NEW == 0x40000000ULL);
}

int main(void)
{
	RUN(queue_word_ok);
	RUN(queue_word_invalid);
	RUN(queue_word_error_wins);
	RUN(qstatus_names);
	RUN(version_gate);
	RUN(explain_eperm);
	RUN(explain_einval);
	RUN(explain_busy);
	RUN(explain_gone);
	RUN(explain_open);
	RUN(explain_hardware);
	RUN(ptrace_denied);
	RUN(explain_unknown);
	RUN(err_message);
	RUN(names);
	RUN(ec_masks);
	return tap_done();
}
