/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfd-exerciser internals shared by its few source files. The exerciser
 * is a test workload: libc and the KFD UAPI header only, no libgp.
 */
#ifndef KFD_EXERCISER_H
#define KFD_EXERCISER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kfd_ioctl.h>

#define EX_MAX_QIDS	64

/* Exit codes of the exerciser (its own, documented in --help). */
enum {
	EX_OK = 0,
	EX_NO_KFD = 1,	/* /dev/kfd could not be opened, or fatal error */
	EX_USAGE = 2,
};

/* Exceptions ROCdbgapi subscribes to (process.cpp runtime_enable()). */
#define EX_EC_DBGAPI_QUEUE (KFD_EC_MASK(EC_QUEUE_WAVE_ABORT) |		\
			    KFD_EC_MASK(EC_QUEUE_WAVE_TRAP) |		\
			    KFD_EC_MASK(EC_QUEUE_WAVE_MATH_ERROR) |	\
			    KFD_EC_MASK(EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION) | \
			    KFD_EC_MASK(EC_QUEUE_WAVE_MEMORY_VIOLATION) | \
			    KFD_EC_MASK(EC_QUEUE_WAVE_APERTURE_VIOLATION))
#define EX_EC_DBGAPI_ENABLED (EX_EC_DBGAPI_QUEUE |			\
			      KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION) |	\
			      KFD_EC_MASK(EC_PROCESS_RUNTIME))

/* One JSON object, built in place and printed as one line. */
struct jl {
	char buf[4096];
	size_t len;
};

void jl_begin(struct jl *j, const char *step);
void jl_int(struct jl *j, const char *key, long long v);
void jl_hex(struct jl *j, const char *key, unsigned long long v);
void jl_str(struct jl *j, const char *key, const char *v);
void jl_bool(struct jl *j, const char *key, bool v);
void jl_hex_array(struct jl *j, const char *key, const uint32_t *v, int n);
/* Prints the line unless --quiet; @always overrides --quiet. */
void jl_end(struct jl *j, bool always);

/* Result of one ioctl (or syscall), EINTR already retried. */
struct ioc {
	int ret;
	int err;
	uint64_t ns;
};

void jl_ioc(struct jl *j, const struct ioc *r);
/* @what names the call in the summary's per-call "ops" totals. */
int kfd_call(int fd, unsigned long req, void *arg, struct ioc *r,
	     const char *what);
/* Appends "ops":{"NAME":{"n":..,"errors":..,"ns":..,"min_ns":..,
 * "max_ns":..},...} to the summary line. */
void jl_ops(struct jl *j);
uint64_t now_ns(void);

struct ex_stats {
	unsigned long long steps;
	unsigned long long ioctls;
	unsigned long long errors;
	unsigned long long ioctl_ns;
};

extern bool ex_quiet;
extern long ex_iter;		/* current --repeat iteration, -1 if none */
extern struct ex_stats ex_stats;
extern volatile sig_atomic_t ex_stop;	/* SIGTERM/SIGINT seen: stop after step */

void sig_setup(void);
void sig_drain(void);
int sig_fd(void);

/* One DBG_TRAP call on @pid, printed as {"step":"dbg","op":...}. */
struct dbg_req {
	uint32_t pid;
	uint32_t op;
	uint64_t mask;
	bool mask_set;
	uint32_t qids[EX_MAX_QIDS];
	int nq;
	uint32_t grace;
	uint32_t gpu;
	uint32_t qid;
	uint32_t mode;
	uint32_t n;		/* snapshot capacity, 0 = default */
	int dbg_fd;		/* ENABLE: fd KFD writes events to */
};

const char *dbg_op_name(uint32_t op);
int dbg_op_parse(const char *s, uint32_t *op);
/* Returns the ioctl's ret; fills @out_mask for QUERY_DEBUG_EVENT. */
int dbg_call(int kfd, struct dbg_req *q, struct ioc *r, uint64_t *out_mask);

/* The whole debugger scenario (debug_target.c). */
struct dt_opts {
	uint32_t qids[EX_MAX_QIDS];
	int nq;
	uint32_t grace;
	bool before;		/* ROCdbgapi order: ENABLE, then runtime */
	bool eperm;		/* try ENABLE before PTRACE_SEIZE first */
	bool eventfd;		/* dbg_fd is an eventfd, not a pipe */
	uint64_t r_debug;
	bool r_debug_set;
	unsigned int timeout_ms;
	unsigned int hold_ms;	/* between SUSPEND and RESUME */
};

/* PTRACE_SEIZE @pid, printed as {"step":"seize",...}. */
void ex_seize(int pid);
/* Wait for KFD's event byte on a dbg_fd pipe: {"step":"poll-event"}. */
void ex_poll_event(int fd, unsigned int timeout_ms);
int debug_target(int kfd, const char *kfd_path, const struct dt_opts *o);
/* CREATE/SET/WAIT/DESTROY_EVENT round trip (events.c). */
void ex_events(int kfd, bool set, long long ms);
/* Connect to a Unix socket, say status, keep it open (uconn.c). */
void ex_uconnect(const char *path);

/* A command-line step (parse.c), run by run_step() (steps.c). */
enum kind {
	ST_OPEN, ST_CLOSE, ST_VERSION, ST_RT_ENABLE, ST_RT_DISABLE,
	ST_CREATE, ST_DESTROY, ST_SLEEP, ST_READY, ST_WAIT, ST_SEIZE,
	ST_DBG, ST_POLL, ST_DEBUG_TARGET, ST_EVENTS, ST_UCONNECT,
};

struct step {
	enum kind kind;
	uint64_t r_debug;
	bool r_debug_set;
	uint32_t mode;
	uint32_t gpu, type, prio, pct, ring, sdma;
	uint32_t qid;
	bool qid_set;
	long long ms;		/* -1: forever */
	const char *file;
	struct dbg_req dbg;
	bool pid_set, op_set, fd_set;
	bool set;		/* events: SET_EVENT before the wait */
	struct dt_opts dt;
};

/* Prints why on stderr and returns -1 on bad usage. */
int parse_step(const char *arg, struct step *st);
int parse_num(const char *s, uint64_t max, uint64_t *v);

extern const char *ex_kfd_path;
void run_step(struct step *st);

#endif
