/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KFD's debugfs queue dumps, parsed: /sys/kernel/debug/kfd/mqds (every
 * process's memory queue descriptors) and .../hqds (the hardware queue
 * slots' registers). Root only; present when the kernel has
 * CONFIG_DEBUG_FS (Debian's do) and debugfs is mounted.
 *
 * Text format, from the kernel's formatting code (docs/snapshot.md has
 * the citations; the format strings were checked in the Debian 6.1.192,
 * 6.12.95 and 7.3.4 amdgpu.ko binaries):
 *   mqds (kfd_process.c kfd_debugfs_mqds_by_process, then
 *   kfd_process_queue_manager.c pqm_debugfs_mqds):
 *     "Process %d PASID 0x%x:\n"   (6.1, 6.12; 7.x: "Process %d PASID %d:")
 *     "  Compute queue on device %x\n" | "  SDMA queue on device %x\n" |
 *     "  DIQ on device %x\n" (6.1, 6.12) | "  Bad user queue type %d on
 *     device %x\n" | "  Bad kernel queue type %d on device %x\n"
 *     then the MQD as seq_hex_dump(m, "    ", DUMP_PREFIX_OFFSET, 32, 4,
 *     mqd, sizeof(struct v9_mqd) ...): "    %.8x: " + up to eight
 *     "%8.8x" u32 words separated by one space. The queue's own list is
 *     newest first (list_add); no queue id is printed.
 *   hqds (kfd_topology.c kfd_debugfs_hqds_by_device, then
 *   kfd_device_queue_manager.c dqm_debugfs_hqds / seq_reg_dump):
 *     "Node %u, gpu_id %x:\n", " Device is stopped\n", then per slot
 *     6.1:  "  HIQ on MEC %d Pipe %d Queue %d\n", "  CP Pipe %d, Queue %d\n"
 *     6.5+: "   Inst %d, HIQ on MEC %d Pipe %d Queue %d\n",
 *           " Inst %d,  CP Pipe %d, Queue %d\n"
 *     all:  "  SDMA Engine %d, RLC %d\n"
 *     and registers "    %08x: %08x" (byte address: value) followed by
 *     " %08x" for the next contiguous registers, eight to a line.
 *
 * Decoding (never guessed): a compute MQD is decoded only when its GPU's
 * gfx_target_version selects a layout whose offsets were read from the
 * module BTF of all three kernels (struct v9_mqd for gfx9 incl. MI200 /
 * MI300, v11_compute_mqd for gfx11, v12_compute_mqd for gfx12.0; all
 * 2048 bytes, identical dword offsets for the fields below) and the dump
 * is exactly 512 words. A gfx9/11/12 CP HQD dump is the 56 registers
 * CP_MQD_BASE_ADDR..CP_HQD_PQ_WPTR_HI (kgd_gfx_v9_hqd_dump, hqd_dump_v11,
 * hqd_dump_v12), the same block as MQD dwords 128..183 (the hqd_load
 * functions copy &m->cp_mqd_base_addr_lo onward into those registers).
 * Anything else stays raw.
 */
#ifndef GP_MQD_H
#define GP_MQD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GP_DEBUGFS_MQDS "/sys/kernel/debug/kfd/mqds"
#define GP_DEBUGFS_HQDS "/sys/kernel/debug/kfd/hqds"

enum gp_mqd_layout {
	GP_MQD_RAW = 0,		/* unknown: words kept, nothing decoded */
	GP_MQD_V9,
	GP_MQD_V11,
	GP_MQD_V12,
};

enum gp_mqd_kind {
	GP_MQD_COMPUTE,
	GP_MQD_SDMA,
	GP_MQD_DIQ,
	GP_MQD_BAD,		/* "Bad ... queue type": no dump follows */
};

/* The fields a compute MQD or CP HQD dump yields. */
struct gp_mqd_fields {
	bool active;		/* cp_hqd_active bit 0 */
	uint32_t vmid;
	uint32_t pipe_priority;
	uint32_t queue_priority;
	uint32_t quantum;
	uint64_t mqd_addr;	/* cp_mqd_base_addr (GPU address) */
	uint64_t ring_base;	/* cp_hqd_pq_base << 8: the ring's VA */
	uint64_t ring_size;	/* bytes, from cp_hqd_pq_control QUEUE_SIZE;
				 * 0 when the field is out of range */
	uint32_t rptr;		/* cp_hqd_pq_rptr (dwords) */
	uint64_t wptr;		/* cp_hqd_pq_wptr_lo/hi */
	uint64_t rptr_report_addr; /* process VA the CP writes rptr to */
	uint64_t wptr_poll_addr;   /* process VA the CP polls wptr from */
	uint32_t doorbell_offset;  /* DOORBELL_OFFSET field (dwords) */
	bool doorbell_en;
};

struct gp_mqd_queue {
	int pid;		/* the "Process" header's tgid (host pid) */
	char pasid[16];		/* the header's PASID text, as printed */
	uint32_t gpu_id;
	enum gp_mqd_kind kind;
	int bad_type;		/* GP_MQD_BAD: the type printed */
	unsigned int index;	/* order within its process (0: newest) */
	int queue_id;		/* -1 unless matched (gp_mqd_assign_ids) */
	enum gp_mqd_layout layout;
	bool decoded;
	struct gp_mqd_fields f;
	uint32_t *dw;		/* the dump's words, in order */
	size_t ndw;
	/* Set by gp_mqd_match_hqds when a live CP slot runs this queue. */
	bool on_hqd;
	int hqd_inst, hqd_pipe, hqd_queue;
};

struct gp_mqd_proc {
	int pid;
	char pasid[16];
	size_t first, nq;	/* its queues: q[first .. first + nq) */
};

struct gp_mqd_dump {
	struct gp_mqd_proc *procs;
	size_t nprocs;
	struct gp_mqd_queue *q;
	size_t nq;
	unsigned int unknown_lines;	/* lines in no known format */
	unsigned int first_unknown;	/* 1-based line number, 0: none */
};

enum gp_hqd_kind { GP_HQD_HIQ, GP_HQD_CP, GP_HQD_SDMA };

struct gp_hqd {
	unsigned int node;
	uint32_t gpu_id;
	int inst;		/* XCC; -1 when not printed (6.1) */
	enum gp_hqd_kind kind;
	int mec;		/* HIQ only */
	int pipe, queue;	/* SDMA: engine, RLC */
	uint32_t (*regs)[2];	/* byte address, value */
	size_t nregs;
	enum gp_mqd_layout layout;
	bool decoded;
	struct gp_mqd_fields f;
};

struct gp_hqd_node {
	unsigned int node;
	uint32_t gpu_id;
	bool stopped;		/* " Device is stopped" */
};

struct gp_hqd_dump {
	struct gp_hqd_node *nodes;
	size_t nnodes;
	struct gp_hqd *h;
	size_t n;
	unsigned int unknown_lines;
	unsigned int first_unknown;
};

/* gfx_target_version -> layout (GP_MQD_RAW when not known). */
enum gp_mqd_layout gp_mqd_layout_for_gfx(uint32_t gfx_target_version);
const char *gp_mqd_layout_name(enum gp_mqd_layout l);
const char *gp_mqd_kind_name(enum gp_mqd_kind k);
const char *gp_hqd_kind_name(enum gp_hqd_kind k);

/*
 * Decode a compute MQD's words. 0, or -EINVAL for GP_MQD_RAW or a dump
 * that is not exactly 512 words.
 */
int gp_mqd_decode(const uint32_t *dw, size_t ndw, enum gp_mqd_layout l,
		  struct gp_mqd_fields *f);
/*
 * Decode an HQD: its registers (byte address, value), which mirror the
 * MQD from CP_MQD_BASE_ADDR on. 0, or -EINVAL for GP_MQD_RAW or anything
 * but the one contiguous block of CP registers the dump prints.
 */
int gp_hqd_decode(const uint32_t (*regs)[2], size_t nregs,
		  enum gp_mqd_layout l, struct gp_mqd_fields *f);

/*
 * Parse the text of a dump (NUL-terminated). 0 or -ENOMEM; lines in no
 * known format are counted, not fatal (a newer kernel may add some).
 * Free with the matching _free even after an error.
 */
int gp_mqds_parse(const char *text, struct gp_mqd_dump *d);
void gp_mqd_dump_free(struct gp_mqd_dump *d);
int gp_hqds_parse(const char *text, struct gp_hqd_dump *d);
void gp_hqd_dump_free(struct gp_hqd_dump *d);

/*
 * Layout per GPU: gfx[i] is the gfx_target_version of gpu_ids[i]. Sets
 * layout and decodes every compute MQD / CP and HIQ HQD it can.
 * Returns how many were decoded.
 */
int gp_mqd_apply_layouts(struct gp_mqd_dump *d, const uint32_t *gpu_ids,
			 const uint32_t *gfx, size_t ngpus);
int gp_hqd_apply_layouts(struct gp_hqd_dump *d, const uint32_t *gpu_ids,
			 const uint32_t *gfx, size_t ngpus);

/*
 * Mark the decoded compute MQDs that an active CP slot of the same GPU
 * runs (same ring base, rptr report and wptr poll addresses): on_hqd,
 * inst, pipe, queue. Returns the number matched.
 */
int gp_mqd_match_hqds(struct gp_mqd_dump *m, const struct gp_hqd_dump *h);

/*
 * Queue ids: sysfs knows (pid, gpu_id, queue_id, type), debugfs knows
 * (pid, gpu_id, kind) and the MQD. An id is set only where that is
 * unambiguous: one sysfs queue and one MQD of the same kind for the same
 * (pid, gpu_id). ids[i]/types[i] (enum kfd_queue_type: 0 compute,
 * 1 SDMA, 3 DIQ, 4 SDMA XGMI, 5 SDMA by engine) belong to pids[i],
 * gpus[i]. Returns the number of ids set.
 */
int gp_mqd_assign_ids(struct gp_mqd_dump *d, const int *pids,
		      const uint32_t *gpus, const uint32_t *ids,
		      const uint32_t *types, size_t n);

/*
 * The arbiter's view: one row per decoded compute queue of the running
 * machine (or of fixture files: any path may be given; NULL means the
 * live default), with the addresses of the queue's read index report
 * and write index poll in the owning process's memory. For ROCr's AQL
 * queues those are &amd_queue_t.read_dispatch_id / write_dispatch_id
 * (docs/snapshot.md).
 */
struct gp_mqd_paths {
	const char *mqds;	/* GP_DEBUGFS_MQDS */
	const char *hqds;	/* GP_DEBUGFS_HQDS (missing: no pipe/queue) */
	const char *topology;	/* KFD_SYSFS_TOPOLOGY */
	const char *proc;	/* KFD_SYSFS_PROC (missing: ids stay -1) */
};

struct gp_mqd_addr {
	int pid;
	uint32_t gpu_id;
	int queue_id;		/* -1: not known unambiguously */
	enum gp_mqd_layout layout;
	uint64_t ring_base;
	uint64_t ring_size;
	uint64_t rptr_report_addr;
	uint64_t wptr_poll_addr;
	uint32_t doorbell_offset;
	bool active;		/* the MQD's saved cp_hqd_active */
	bool on_hqd;		/* an active CP slot runs it now */
};

/*
 * Read and decode. *out is malloc'd (free it). Returns the number of
 * rows, or -errno: -ENOENT (no such file: debugfs not mounted or kernel
 * without CONFIG_DEBUG_FS), -EACCES/-EPERM (not root). *undecoded, when
 * not NULL, gets the number of compute queues left raw (unknown layout):
 * those queues are not watched and the caller should say so.
 */
int gp_mqd_read_addrs(const struct gp_mqd_paths *p, struct gp_mqd_addr **out,
		      int *undecoded);

/* Whole file into a NUL-terminated malloc'd buffer; 0 or -errno. */
int gp_mqd_slurp(const char *path, char **text);

#endif
