/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CO-RE mirrors of the amdgpu (amdkfd) types the probes read. vmlinux.h has
 * none of them: amdkfd is linked into amdgpu.ko, so libbpf relocates these
 * against /sys/kernel/btf/amdgpu at load time. Only the fields read are
 * declared; the "___gp" suffix keeps them apart from anything vmlinux.h
 * may define and libbpf drops it when it matches names.
 *
 * Layout differences handled here rather than with version checks:
 *   - queue.device / kfd_process_device.dev point to struct kfd_dev (6.1)
 *     or struct kfd_node (6.5+); both carry the UAPI gpu_id as "id".
 *     Pick with bpf_core_type_exists(struct kfd_node___gp).
 *   - pasid lives in kfd_process (<= 6.13) or kfd_process_device (6.14+).
 *     Pick with bpf_core_field_exists().
 * The UAPI argument structs are read at fixed offsets (kfd_uapi.h).
 */
#ifndef GP_KFD_TYPES_BPF_H
#define GP_KFD_TYPES_BPF_H

#pragma clang attribute push(__attribute__((preserve_access_index)), \
			     apply_to = record)

struct kfd_node___gp {		/* 6.5+ */
	unsigned int id;
};

struct kfd_dev___gp {		/* 6.1: one kfd_dev per GPU */
	unsigned int id;
};

struct kfd_process___gp {
	struct task_struct *lead_thread;
	u32 pasid;		/* gone in 6.14+ */
};

struct qcm_process_device___gp {
	unsigned int queue_count;
	unsigned int evicted;
};

struct kfd_process_device___gp {
	void *dev;		/* kfd_dev (6.1) or kfd_node (6.5+) */
	struct kfd_process___gp *process;
	struct qcm_process_device___gp qpd;
	u32 pasid;		/* 6.14+ */
};

/* An enum in the kernel: CO-RE matches enums only with enums. */
enum kfd_queue_type___gp {
	KFD_QUEUE_TYPE_COMPUTE___gp = 0,
};

struct queue_properties___gp {
	enum kfd_queue_type___gp type;
	unsigned int queue_id;
	u64 queue_address;
	u64 queue_size;
	void *read_ptr;		/* uint32_t * (6.1), void __user * (6.12) */
	void *write_ptr;
	u32 priority;
	u32 queue_percent;
	u32 doorbell_off;
};

struct queue___gp {
	struct queue_properties___gp properties;
	struct kfd_process___gp *process;
	void *device;		/* kfd_dev (6.1) or kfd_node (6.5+) */
};

#pragma clang attribute pop

#include "kfd_uapi.h"

#endif
