/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed offsets into the KFD ioctl argument structs, for the reduced mode
 * (no amdgpu module BTF, so no CO-RE on amdgpu types). UAPI layouts do not
 * move; tests/bpf/test_logic.c checks these against <linux/kfd_ioctl.h>.
 * Plain C: included by BPF code and by user-space tests alike.
 */
#ifndef GP_KFD_UAPI_H
#define GP_KFD_UAPI_H

/* struct kfd_ioctl_create_queue_args */
#define GP_UAPI_CQ_RING_BASE		0
#define GP_UAPI_CQ_WPTR			8
#define GP_UAPI_CQ_RPTR			16
#define GP_UAPI_CQ_DOORBELL_OFFSET	24
#define GP_UAPI_CQ_RING_SIZE		32
#define GP_UAPI_CQ_GPU_ID		36
#define GP_UAPI_CQ_QUEUE_TYPE		40
#define GP_UAPI_CQ_PERCENTAGE		44
#define GP_UAPI_CQ_PRIORITY		48
#define GP_UAPI_CQ_QUEUE_ID		52
/* struct kfd_ioctl_destroy_queue_args */
#define GP_UAPI_DQ_QUEUE_ID		0
/* struct kfd_ioctl_dbg_trap_args */
#define GP_UAPI_DBG_PID			0
#define GP_UAPI_DBG_OP			4

#endif
