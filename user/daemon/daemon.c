// SPDX-License-Identifier: GPL-2.0
/*
 * `gpreempt-ctl daemon`: warm debug sessions for many targets behind a
 * Unix socket, one single-threaded poll loop. See daemon.h.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl_args.h"
#include "daemon.h"
#include "exitcodes.h"
#include "proto.h"
#include "session.h"
#include "util.h"

#define PROG "gpreempt-ctl daemon"
/* A client that does not read its replies is dropped past this. */
#define CLIENT_MAX_OUT (1024 * 1024)
/* Supplementary groups looked at for --group (SO_PEERGROUPS). */
#define MAX_PEER_GROUPS 256
/* Poll timeout: the safety net for a SIGCHLD folded into another. */
#define TICK_MS 1000

struct target {
	struct session *s;
	pid_t pid;
	uint64_t held_since;	/* monotonic ns of the first suspend, 0 */
	uint64_t deadline;	/* resume at this monotonic ns, 0: none */
};

struct client {
	int fd;
	uid_t uid;
	pid_t pid;
	bool closing;		/* close once out is flushed */
	size_t in_len, out_len, out_cap;
	char in[PROTO_MAX_REQ];
	char *out;
};

struct daemon {
	const struct daemon_opts *o;
	const char *path;
	uint64_t max_hold_ns;
	int lfd, sfd, tfd;
	dev_t sock_dev;		/* our socket inode: unlink only it */
	ino_t sock_ino;
	bool has_group;
	gid_t gid;
	struct kfd kfd;
	bool kfd_ok;
	struct target t[PROTO_MAX_SESSIONS];
	uint32_t n_t;
	struct client *c[DAEMON_MAX_CLIENTS];
	uint32_t n_c;
};

/* ---- logging ----------------------------------------------------------- */

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char when[32];
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld " PROG ": ", when, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static void fmt_dur(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%03llu s",
		 (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns / 1000000 % 1000));
}

/* ---- arguments --------------------------------------------------------- */

enum { OPT_READY = 0x100, OPT_SEND };

static const struct argp_option daemon_options[] = {
	{ "socket", 's', "PATH", 0,
	  "Listen here (default " CTL_DEFAULT_SOCKET ")", 0 },
	{ "max-hold", 'm', "DURATION", 0,
	  "Resume any target held longer than this (default 10s)", 0 },
	{ "group", 'g', "NAME", 0,
	  "Also let this group use the daemon (socket 0660, group NAME; "
	  "default: root only, 0600)", 0 },
	{ "ready", OPT_READY, "FILE", 0,
	  "Write the daemon's pid to FILE once it listens", 0 },
	{ "send", OPT_SEND, "REQUEST", 0,
	  "Client: send one raw request line to the daemon, print the "
	  "reply, exit with its code", 0 },
	{ "verbose", 'v', NULL, 0, "Log every request", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ 0 },
};

static const char daemon_doc[] =
"Hold debug sessions for many targets and serve suspend, resume, attach, "
"detach and status on a Unix socket. Sessions are attached once and kept "
"warm, so a suspend costs one ioctl. A watchdog resumes any target held "
"longer than --max-hold. SIGINT/SIGTERM/SIGHUP resume and detach "
"everything, remove the socket and exit 0. Needs root (CAP_SYS_PTRACE); "
"starts without /dev/kfd (suspend then answers exit 4).\v"
"Protocol (one line per request, one reply per request; see user/core/proto.h):\n"
"  suspend pid=N [queues=ID,ID] [grace=N] [for_ns=N]\n"
"  resume pid=N [queues=ID,ID]   attach pid=N   detach pid=N   "
"status [pid=N]\n"
"Replies: info lines, then 'ok' or 'err EXIT ERRNO MESSAGE'.\n"
"\n"
"EXAMPLES:\n"
"    gpreempt-ctl daemon &                       # root-only socket\n"
"    gpreempt-ctl daemon --group gpreempt        # let a group in\n"
"    gpreempt-ctl daemon -s /tmp/gp.sock -m 2s   # private, 2 s watchdog\n"
"    gpreempt-ctl suspend -p 4242 -f 1s          # goes to the daemon\n"
"    gpreempt-ctl status -j                      # what it holds\n"
"    gpreempt-ctl daemon --send 'attach pid=4242' # raw request\n"
"    echo 'suspend pid=4242' | socat - UNIX:" CTL_DEFAULT_SOCKET "\n";

struct dparse {
	struct daemon_opts *o;
	FILE *out, *err;
};

static error_t daemon_opt(int key, char *arg, struct argp_state *state)
{
	struct dparse *p = state->input;
	struct daemon_opts *o = p->o;

	switch (key) {
	case ARGP_KEY_INIT:
		state->out_stream = p->out;
		state->err_stream = p->err;
		break;
	case 's':
		if (!*arg) {
			argp_error(state, "empty socket path");
			return EINVAL;
		}
		o->socket = arg;
		break;
	case 'm':
		if (parse_duration_ns(arg, &o->max_hold_ns) ||
		    !o->max_hold_ns) {
			argp_error(state, "invalid duration '%s' (e.g. 500ms, "
				   "10s, 2m)", arg);
			return EINVAL;
		}
		break;
	case 'g':
		if (!*arg) {
			argp_error(state, "empty group name");
			return EINVAL;
		}
		o->group = arg;
		break;
	case OPT_READY:
		o->ready = arg;
		break;
	case OPT_SEND:
		o->send = arg;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'h':
		argp_state_help(state, p->out, ARGP_HELP_STD_HELP);
		o->help = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int daemon_parse(int argc, char **argv, struct daemon_opts *o, FILE *out,
		 FILE *err)
{
	struct argp ap = {
		.options = daemon_options, .parser = daemon_opt,
		.doc = daemon_doc,
	};
	struct dparse p = { o, out, err };
	char name[] = PROG;
	char **sub;
	int i, r;

	memset(o, 0, sizeof(*o));
	sub = calloc(argc + 1, sizeof(*sub));
	if (!sub)
		return GP_EXIT_FAILURE;
	sub[0] = name;	/* argp names the program after argv[0] */
	for (i = 1; i < argc; i++)
		sub[i] = argv[i];
	r = argp_parse(&ap, argc, sub, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, &p);
	free(sub);
	return r ? GP_EXIT_USAGE : 0;
}

/* ---- targets ----------------------------------------------------------- */

static struct target *find_target(struct daemon *d, pid_t pid)
{
	uint32_t i;

	for (i = 0; i < d->n_t; i++)
		if (d->t[i].pid == pid)
			return &d->t[i];
	return NULL;
}

static void drop_target(struct daemon *d, struct target *t)
{
	session_close(t->s);
	*t = d->t[--d->n_t];
}

/*
 * /dev/kfd on first need, with the checks ctl_prepare() makes: version
 * (the debug API needs KFD 1.13) and sched_policy.
 */
static int need_kfd(struct daemon *d, struct gp_err *e)
{
	if (d->kfd_ok)
		return 0;
	if (kfd_open_debug(&d->kfd, e))
		return -1;
	d->kfd_ok = true;
	logf_("opened " KFD_DEV_PATH " (KFD ioctl %u.%u)", d->kfd.major,
	      d->kfd.minor);
	return 0;
}

/* The warm session of pid, attaching on first use. */
static struct target *get_target(struct daemon *d, pid_t pid,
				 struct gp_err *e)
{
	struct target *t = find_target(d, pid);
	struct session *s;
	uint64_t t0;

	if (t)
		return t;
	if (session_check_pid(pid, e) || need_kfd(d, e))
		return NULL;
	if (d->n_t == PROTO_MAX_SESSIONS) {
		gp_err_set(e, GP_EXIT_BUSY, ENOSPC, "the daemon holds %d "
			   "targets already: detach one first",
			   PROTO_MAX_SESSIONS);
		return NULL;
	}
	t0 = monotonic_ns();
	s = session_open(&d->kfd, pid, e);
	if (!s)
		return NULL;
	t = &d->t[d->n_t++];
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->pid = pid;
	logf_("attached to pid %d (runtime %s, %.3f ms)", pid,
	      kfd_runtime_state_name(session_runtime_state(s)),
	      (monotonic_ns() - t0) / 1e6);
	return t;
}

/*
 * A hold: from the first suspend request the kernel accepted (ret >= 0,
 * even if every id was invalid or the target had no queue yet) until a
 * resume without ids or one that leaves nothing suspended, a detach, or
 * the deadline: --max-hold after the start, sooner with for_ns.
 */
static void hold_start(struct daemon *d, struct target *t, uint64_t for_ns)
{
	uint64_t now = monotonic_ns(), until;

	if (!t->held_since) {
		t->held_since = now;
		t->deadline = now + d->max_hold_ns;
	}
	/* for_ns may shorten the hold, never stretch it past --max-hold */
	if (for_ns) {
		until = now + for_ns < now ? UINT64_MAX : now + for_ns;
		if (until < t->deadline)
			t->deadline = until;
	}
}

static void hold_end(struct target *t)
{
	t->held_since = t->deadline = 0;
}

/* Resume everything t holds (watchdog, detach, shutdown). */
static void resume_all(struct target *t, const char *why)
{
	struct session_op op = {};
	struct gp_err e = {};
	char held[32];
	int r;

	if (!t->held_since && !session_suspended_count(t->s))
		return;
	fmt_dur(held, sizeof(held), t->held_since ?
		monotonic_ns() - t->held_since : 0);
	r = session_resume(t->s, NULL, 0, &op, &e);
	if (r && r != GP_EXIT_PARTIAL)
		logf_("%s: resuming pid %d failed: %s", why, t->pid, e.msg);
	else
		logf_("%s: resumed pid %d after %s (%u queues: %u ok, "
		      "%u invalid, %u error)", why, t->pid, held, op.n,
		      op.n_ok, op.n_invalid, op.n_error);
	session_op_free(&op);
	hold_end(t);
}

/* ---- requests ---------------------------------------------------------- */

static int out_append(struct client *c, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (c->out_len + n > CLIENT_MAX_OUT)
		return -1;
	if (c->out_len + n > c->out_cap) {
		cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + n)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p)
			return -1;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, s, n);
	c->out_len += n;
	return 0;
}

/* Queue one formatted line (n from a proto_format_*: <0 never here). */
static void reply_line(struct client *c, const char *buf, int n)
{
	if (n < 0 || out_append(c, buf, n))
		c->closing = true;
}

static void reply_err(struct client *c, const struct gp_err *e)
{
	char buf[512];

	reply_line(c, buf, proto_format_err(buf, sizeof(buf), e));
}

static void reply_ok(struct client *c)
{
	char buf[8];

	reply_line(c, buf, proto_format_ok(buf, sizeof(buf)));
}

static void session_info(struct daemon *d, struct target *t,
			 struct proto_session *ps)
{
	uint64_t now = monotonic_ns();

	memset(ps, 0, sizeof(*ps));
	ps->pid = t->pid;
	ps->runtime = session_runtime_state(t->s);
	session_queues(t->s, &ps->queues);
	ps->held = session_suspended_count(t->s);
	if (t->held_since)
		ps->held_ns = now - t->held_since;
	if (t->deadline)
		ps->left_ns = t->deadline > now ? t->deadline - now : 0;
}

static void reply_session(struct daemon *d, struct client *c,
			  struct target *t)
{
	struct proto_session ps;
	char buf[256];

	session_info(d, t, &ps);
	reply_line(c, buf, proto_format_session(buf, sizeof(buf), &ps));
}

static void do_status(struct daemon *d, struct client *c,
		      const struct proto_req *q)
{
	struct proto_daemon pd = {
		.pid = getpid(), .sessions = d->n_t,
		.max_hold_ns = d->max_hold_ns, .kfd = d->kfd_ok,
		.kfd_major = d->kfd_ok ? d->kfd.major : 0,
		.kfd_minor = d->kfd_ok ? d->kfd.minor : 0,
	};
	char buf[256];
	uint32_t i;

	reply_line(c, buf, proto_format_daemon(buf, sizeof(buf), &pd));
	for (i = 0; i < d->n_t; i++)
		if (!q->pid || d->t[i].pid == q->pid)
			reply_session(d, c, &d->t[i]);
	reply_ok(c);
}

static void reply_op(struct client *c, pid_t pid, const struct session_op *op)
{
	static struct proto_op p;
	static char buf[PROTO_MAX_LINE];

	proto_op_from_session(&p, pid, op);
	reply_line(c, buf, proto_format_op(buf, sizeof(buf), &p));
}

static void do_suspend_resume(struct daemon *d, struct client *c,
			      const struct proto_req *q)
{
	struct session_op op = {};
	struct gp_err e = {};
	struct target *t;
	int r;

	if (q->verb == PROTO_SUSPEND) {
		t = get_target(d, q->pid, &e);
	} else {
		t = find_target(d, q->pid);
		if (!t)
			gp_err_set(&e, GP_EXIT_TARGET, ESRCH, "pid %d is not "
				   "held by the daemon: nothing to resume (a "
				   "one-shot 'gpreempt-ctl suspend' resumes "
				   "when it ends)", q->pid);
	}
	if (!t) {
		reply_err(c, &e);
		return;
	}
	if (q->verb == PROTO_SUSPEND)
		r = session_suspend(t->s, q->queues, q->n_queues, q->grace,
				    &op, &e);
	else
		r = session_resume(t->s, q->queues, q->n_queues, &op, &e);
	if (q->verb == PROTO_SUSPEND && op.ret >= 0)
		hold_start(d, t, q->for_ns);
	else if (q->verb == PROTO_RESUME && op.ret >= 0 &&
		 (!q->n_queues || !session_suspended_count(t->s)))
		hold_end(t);
	if (d->o->verbose || r)
		logf_("%s pid %d: %u queues, %u ok, %u invalid, %u error%s%s",
		      proto_verb_name(q->verb), q->pid, op.n, op.n_ok,
		      op.n_invalid, op.n_error, r ? ": " : "",
		      r ? e.msg : "");
	reply_op(c, q->pid, &op);
	session_op_free(&op);
	if (r)
		reply_err(c, &e);
	else
		reply_ok(c);
	if (!session_alive(t->s)) {
		logf_("pid %d is gone: dropped", t->pid);
		drop_target(d, t);
	}
}

static void do_request(struct daemon *d, struct client *c,
		       const char *line, size_t len)
{
	struct proto_req q;
	struct gp_err e = {};
	struct target *t;

	if (proto_parse_request(line, len, &q, &e)) {
		logf_("refused a request from pid %d uid %u: %s", c->pid,
		      c->uid, e.msg);
		reply_err(c, &e);
		return;
	}
	if (d->o->verbose)
		logf_("pid %d uid %u: %.*s", c->pid, c->uid,
		      (int)(len && line[len - 1] == '\n' ? len - 1 : len),
		      line);
	switch (q.verb) {
	case PROTO_STATUS:
		do_status(d, c, &q);
		return;
	case PROTO_SUSPEND:
	case PROTO_RESUME:
		do_suspend_resume(d, c, &q);
		return;
	case PROTO_ATTACH:
		t = get_target(d, q.pid, &e);
		if (!t) {
			reply_err(c, &e);
			return;
		}
		reply_session(d, c, t);
		reply_ok(c);
		return;
	case PROTO_DETACH:
		t = find_target(d, q.pid);
		if (!t) {
			gp_err_set(&e, GP_EXIT_TARGET, ESRCH, "pid %d is not "
				   "held by the daemon", q.pid);
			reply_err(c, &e);
			return;
		}
		resume_all(t, "detach");
		drop_target(d, t);
		logf_("detached from pid %d", q.pid);
		reply_ok(c);
		return;
	case PROTO_NONE:
		break;
	}
}

/* ---- clients ----------------------------------------------------------- */

static void client_close(struct daemon *d, uint32_t i)
{
	struct client *c = d->c[i];

	close(c->fd);
	free(c->out);
	free(c);
	d->c[i] = d->c[--d->n_c];
}

/* Flush what can be sent now. -1 when the client is to be closed. */
static int client_flush(struct client *c)
{
	ssize_t n;

	while (c->out_len) {
		n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL |
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		c->out_len -= n;
		memmove(c->out, c->out + n, c->out_len);
	}
	return c->closing ? -1 : 0;
}

/*
 * Root, our own uid, or (with --group) a member of the group. The socket
 * mode keeps others out already; this is the check that does not depend
 * on the file system (a chmod'ed socket, a bind-mounted directory).
 */
static bool peer_allowed(struct daemon *d, int fd, const struct ucred *uc)
{
	gid_t groups[MAX_PEER_GROUPS];
	socklen_t len = sizeof(groups);
	size_t i;

	if (uc->uid == 0 || uc->uid == geteuid())
		return true;
	if (!d->has_group)
		return false;
	if (uc->gid == d->gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == d->gid)
			return true;
	return false;
}

static void client_accept(struct daemon *d)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	struct client *c;
	struct gp_err e = {};
	int fd;

	fd = accept4(d->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	c = calloc(1, sizeof(*c));
	if (!c || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len)) {
		free(c);
		close(fd);
		return;
	}
	c->fd = fd;
	c->uid = uc.uid;
	c->pid = uc.pid;
	if (d->n_c == DAEMON_MAX_CLIENTS) {
		gp_err_set(&e, GP_EXIT_DAEMON, EMFILE, "the daemon serves %d "
			   "clients already: try again later",
			   DAEMON_MAX_CLIENTS);
		c->closing = true;
	} else if (!peer_allowed(d, fd, &uc)) {
		logf_("refused pid %d uid %u gid %u: not root%s%s", uc.pid,
		      uc.uid, uc.gid, d->has_group ? " nor in group " : "",
		      d->has_group ? d->o->group : "");
		gp_err_set(&e, GP_EXIT_PRIV, EACCES, "permission denied: uid "
			   "%u may not use this daemon (root only%s%s); run as "
			   "root%s", uc.uid, d->has_group ? ", or group " : "",
			   d->has_group ? d->o->group : "",
			   d->has_group ? " or join the group" : "");
		c->closing = true;
	}
	if (c->closing) {
		/* answer once, whatever the request, and hang up */
		reply_err(c, &e);
		client_flush(c);
		close(fd);
		free(c->out);
		free(c);
		return;
	}
	d->c[d->n_c++] = c;
}

/* Read and serve complete lines. -1 when the client is to be closed. */
static int client_read(struct daemon *d, struct client *c)
{
	struct gp_err e = {};
	size_t used;
	ssize_t n;
	char *nl;

	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
		 MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;	/* a partial line without "\n" is dropped */
	c->in_len += n;
	while (!c->closing && (nl = memchr(c->in, '\n', c->in_len))) {
		used = nl + 1 - c->in;
		do_request(d, c, c->in, used);
		c->in_len -= used;
		memmove(c->in, c->in + used, c->in_len);
	}
	if (c->in_len == sizeof(c->in)) {
		/* no way to find the next request: say why and hang up */
		gp_err_set(&e, GP_EXIT_USAGE, E2BIG, "request longer than %d "
			   "bytes", PROTO_MAX_REQ - 1);
		logf_("refused a request from pid %d uid %u: %s", c->pid,
		      c->uid, e.msg);
		reply_err(c, &e);
		c->closing = true;
	}
	return client_flush(c);
}

/* ---- socket ------------------------------------------------------------ */

/*
 * --group NAME from /etc/group, or a numeric gid. Read directly rather
 * than with getgrnam(): the static build (VM, containers) has no NSS.
 */
static int resolve_group(struct daemon *d, struct gp_err *e)
{
	struct group *g;
	bool found = false;
	uint32_t v;
	FILE *f;

	if (!d->o->group)
		return 0;
	f = fopen("/etc/group", "re");
	while (f && !found && (g = fgetgrent(f))) {
		if (!strcmp(g->gr_name, d->o->group)) {
			d->gid = g->gr_gid;
			found = true;
		}
	}
	if (f)
		fclose(f);
	if (found) {
		;
	} else if (!parse_u32(d->o->group, &v)) {
		d->gid = v;
	} else {
		gp_err_set(e, GP_EXIT_USAGE, ENOENT, "no group '%s' (create "
			   "it with groupadd, or give a numeric gid)",
			   d->o->group);
		return -1;
	}
	d->has_group = true;
	return 0;
}

/* A socket file at path: a live daemon (-1), or stale (unlinked, 0). */
static int clear_stale(const char *path, struct gp_err *e)
{
	struct stat st;
	struct gp_err ce = {};
	int fd;

	if (lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		gp_err_set(e, GP_EXIT_USAGE, EEXIST, "%s exists and is not a "
			   "socket: refusing to replace it; choose another "
			   "--socket", path);
		return -1;
	}
	fd = proto_connect(path, &ce);
	if (fd >= 0) {
		close(fd);
		gp_err_set(e, GP_EXIT_DAEMON, EADDRINUSE, "another daemon "
			   "already listens on %s: stop it first, or choose "
			   "another --socket", path);
		return -1;
	}
	if (ce.err != ECONNREFUSED) {
		*e = ce;
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		gp_err_set(e, GP_EXIT_PRIV, errno, "cannot remove the stale "
			   "socket %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int make_socket(struct daemon *d, struct gp_err *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];
	struct stat st;
	mode_t old;
	int fd, r;

	if (strlen(d->path) >= sizeof(sa.sun_path)) {
		gp_err_set(e, GP_EXIT_USAGE, ENAMETOOLONG, "socket path %s is "
			   "longer than %zu bytes", d->path,
			   sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, d->path);
	strcpy(dir, d->path);
	/* the default /run/gpreempt may not exist yet: create one level */
	if (mkdir(dirname(dir), 0755) && errno != EEXIST) {
		gp_err_set(e, errno == EACCES ? GP_EXIT_PRIV : GP_EXIT_FAILURE,
			   errno, "cannot create %s for the socket: %s", dir,
			   strerror(errno));
		return -1;
	}
	if (clear_stale(d->path, e))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "socket: %s",
			   strerror(errno));
		return -1;
	}
	/* born 0600: nobody else can connect before the group is set */
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r) {
		gp_err_set(e, errno == EACCES ? GP_EXIT_PRIV : GP_EXIT_FAILURE,
			   errno, "cannot bind %s: %s", d->path,
			   strerror(errno));
		close(fd);
		return -1;
	}
	if (d->has_group && (chown(d->path, -1, d->gid) ||
			     chmod(d->path, 0660))) {
		gp_err_set(e, GP_EXIT_PRIV, errno, "cannot give %s to group "
			   "%s: %s", d->path, d->o->group, strerror(errno));
		unlink(d->path);
		close(fd);
		return -1;
	}
	if (listen(fd, 64) || stat(d->path, &st)) {
		gp_err_set(e, GP_EXIT_FAILURE, errno, "listen on %s: %s",
			   d->path, strerror(errno));
		unlink(d->path);
		close(fd);
		return -1;
	}
	d->sock_dev = st.st_dev;
	d->sock_ino = st.st_ino;
	d->lfd = fd;
	return 0;
}

/* Remove the socket file if it is still ours (not a successor's). */
static void remove_socket(struct daemon *d)
{
	struct stat st;

	if (!lstat(d->path, &st) && st.st_dev == d->sock_dev &&
	    st.st_ino == d->sock_ino)
		unlink(d->path);
}

static int write_ready(const char *file)
{
	char buf[32], tmp[4096];
	int fd, n;

	/* write then rename: a test waiting for the file sees it whole */
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, buf, n) != n) {
		close(fd);
		return -1;
	}
	close(fd);
	return rename(tmp, file);
}

/* ---- the loop ---------------------------------------------------------- */

/* Arm the timerfd at the earliest hold deadline (or disarm it). */
static void arm_watchdog(struct daemon *d)
{
	struct itimerspec its = {};
	uint64_t first = 0;
	uint32_t i;

	for (i = 0; i < d->n_t; i++)
		if (d->t[i].deadline &&
		    (!first || d->t[i].deadline < first))
			first = d->t[i].deadline;
	if (first) {
		its.it_value.tv_sec = first / NSEC_PER_SEC;
		its.it_value.tv_nsec = first % NSEC_PER_SEC;
	}
	timerfd_settime(d->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void watchdog(struct daemon *d)
{
	uint64_t now = monotonic_ns();
	char why[64], dur[32];
	uint32_t i;

	for (i = 0; i < d->n_t; i++) {
		struct target *t = &d->t[i];

		if (!t->deadline || t->deadline > now)
			continue;
		fmt_dur(dur, sizeof(dur), d->max_hold_ns);
		if (now - t->held_since + 1000000 >= d->max_hold_ns)
			snprintf(why, sizeof(why), "watchdog (--max-hold %s)",
				 dur);
		else
			snprintf(why, sizeof(why), "hold time over");
		resume_all(t, why);
	}
}

/*
 * Handshakes and ptrace stops; drop targets that are gone. A target's
 * events are read when its dbg pipe is readable (ev[i], the revents of
 * d->t[i] in this round) or when all is set (SIGCHLD, the periodic
 * tick): a suspend request does not wait behind ioctls for idle targets.
 * Walks down so a drop, which moves the last target into slot i, only
 * moves one already seen.
 */
static void service_targets(struct daemon *d, const struct pollfd *ev,
			    uint32_t n, bool all)
{
	struct gp_err e = {};
	uint32_t i;

	if (n > d->n_t)
		n = d->n_t;
	for (i = n; i-- > 0;) {
		struct target *t = &d->t[i];

		if (!all && !ev[i].revents)
			continue;
		if (session_handle_event(t->s, &e))
			logf_("pid %d: %s", t->pid, e.msg);
		if (session_handle_wait(t->s) || !session_alive(t->s)) {
			logf_("pid %d exited: dropped", t->pid);
			drop_target(d, t);
		}
	}
}

static void shutdown_all(struct daemon *d, int sig)
{
	logf_("%s: resuming and detaching %u target%s", strsignal(sig),
	      d->n_t, d->n_t == 1 ? "" : "s");
	while (d->n_t) {
		struct target *t = &d->t[d->n_t - 1];

		resume_all(t, "shutdown");
		session_close(t->s);
		d->n_t--;
	}
}

/* Returns the signal that ended the loop. */
static int loop(struct daemon *d)
{
	struct pollfd p[3 + PROTO_MAX_SESSIONS + DAEMON_MAX_CLIENTS];
	struct signalfd_siginfo si;
	uint32_t i, nt, nc;
	uint64_t ticks, now, next_tick = 0;
	bool chld;
	int n, r;

	for (;;) {
		n = 0;
		p[n++] = (struct pollfd){ d->sfd, POLLIN, 0 };
		p[n++] = (struct pollfd){ d->tfd, POLLIN, 0 };
		p[n++] = (struct pollfd){ d->lfd, POLLIN, 0 };
		nt = d->n_t;
		for (i = 0; i < nt; i++)
			p[n++] = (struct pollfd){
				session_event_fd(d->t[i].s), POLLIN, 0 };
		nc = d->n_c;
		for (i = 0; i < nc; i++)
			/* no new request before the last reply left */
			p[n++] = (struct pollfd){ d->c[i]->fd,
				d->c[i]->out_len ? POLLOUT : POLLIN, 0 };
		r = poll(p, n, TICK_MS);
		if (r < 0 && errno != EINTR) {
			logf_("poll: %s", strerror(errno));
			return SIGTERM;
		}
		chld = false;
		while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGCHLD)
				return si.ssi_signo;
			chld = true;
		}
		/* SIGCHLDs merge, and KFD writes the pipe byte after the
		 * event is visible: the tick looks at every target */
		now = monotonic_ns();
		service_targets(d, p + 3, nt, chld || now >= next_tick);
		if (now >= next_tick)
			next_tick = now + TICK_MS * NSEC_PER_MSEC;
		if (r > 0 && p[1].revents)
			while (read(d->tfd, &ticks, sizeof(ticks)) > 0)
				;
		watchdog(d);
		/* clients polled this round, last first: closing one moves
		 * the last into its slot */
		for (i = nc; i-- > 0;) {
			short ev = p[3 + nt + i].revents;
			struct client *c = d->c[i];

			if (!ev)
				continue;
			if (ev & (POLLERR | POLLNVAL))
				r = -1;
			else if (c->out_len)
				r = client_flush(c);
			else
				r = client_read(d, c);
			if (r < 0)
				client_close(d, i);
		}
		if (p[2].revents & POLLIN)
			client_accept(d);
		arm_watchdog(d);
	}
}

int daemon_main(const struct daemon_opts *o)
{
	struct daemon d = { .o = o, .lfd = -1, .sfd = -1, .tfd = -1,
			    .kfd = { .fd = -1 } };
	struct gp_err e = {};
	char hold[32];
	sigset_t old;
	int sig, ret = GP_EXIT_OK;
	bool blocked = false;

	d.path = o->socket ? o->socket : CTL_DEFAULT_SOCKET;
	d.max_hold_ns = o->max_hold_ns ? o->max_hold_ns :
			DAEMON_DEFAULT_MAX_HOLD_NS;
	if (resolve_group(&d, &e))
		goto fail;
	/* signals first: a SIGTERM during start-up still cleans up */
	d.sfd = session_signalfd(&old);
	if (d.sfd < 0) {
		gp_err_set(&e, GP_EXIT_FAILURE, -d.sfd, "signalfd: %s",
			   strerror(-d.sfd));
		goto fail;
	}
	blocked = true;
	signal(SIGPIPE, SIG_IGN);
	d.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d.tfd < 0) {
		gp_err_set(&e, GP_EXIT_FAILURE, errno, "timerfd: %s",
			   strerror(errno));
		goto fail;
	}
	if (make_socket(&d, &e))
		goto fail;
	fmt_dur(hold, sizeof(hold), d.max_hold_ns);
	logf_("listening on %s (%s; --max-hold %s; %s)", d.path,
	      d.has_group ? "root and the group, 0660" : "root only, 0600",
	      hold, access(KFD_DEV_PATH, F_OK) ? "no " KFD_DEV_PATH " yet" :
	      KFD_DEV_PATH " present");
	if (o->ready && write_ready(o->ready)) {
		gp_err_set(&e, GP_EXIT_FAILURE, errno, "cannot write the "
			   "ready file %s: %s", o->ready, strerror(errno));
		goto fail;
	}
	sig = loop(&d);
	shutdown_all(&d, sig);
	goto cleanup;
fail:
	fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);
	ret = e.exit ? e.exit : GP_EXIT_FAILURE;
cleanup:
	while (d.n_c)
		client_close(&d, d.n_c - 1);
	if (d.lfd >= 0) {
		remove_socket(&d);
		close(d.lfd);
		if (ret == GP_EXIT_OK)
			logf_("removed %s; bye", d.path);
	}
	if (o->ready && d.lfd >= 0)
		unlink(o->ready);
	if (d.tfd >= 0)
		close(d.tfd);
	if (d.sfd >= 0)
		close(d.sfd);
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (d.kfd_ok)
		kfd_close(&d.kfd);
	return ret;
}

/* ---- client mode ------------------------------------------------------- */

static void print_reply(const struct proto_reply *r)
{
	static char buf[PROTO_MAX_LINE];
	struct gp_err e = { .exit = r->exit, .err = r->err };
	uint32_t i;

	if (r->has_daemon && proto_format_daemon(buf, sizeof(buf),
						 &r->daemon) > 0)
		fputs(buf, stdout);
	for (i = 0; i < r->n_sessions; i++)
		if (proto_format_session(buf, sizeof(buf),
					 &r->sessions[i]) > 0)
			fputs(buf, stdout);
	if (r->has_op && proto_format_op(buf, sizeof(buf), &r->op) > 0)
		fputs(buf, stdout);
	if (!r->exit) {
		puts("ok");
	} else {
		snprintf(e.msg, sizeof(e.msg), "%s", r->msg);
		if (proto_format_err(buf, sizeof(buf), &e) > 0)
			fputs(buf, stdout);
	}
	fflush(stdout);
}

int daemon_send(const struct daemon_opts *o)
{
	const char *path = o->socket ? o->socket : CTL_DEFAULT_SOCKET;
	static struct proto_reply r;
	size_t n = strlen(o->send);
	struct gp_err e = {};
	char *line;
	int fd, rc;

	/*
	 * Sent as given, "\n" added, not checked here: the daemon judges
	 * it (which is what tests of its refusals need).
	 */
	line = malloc(n + 1);
	if (!line)
		return GP_EXIT_FAILURE;
	memcpy(line, o->send, n);
	line[n++] = '\n';
	fd = proto_connect(path, &e);
	rc = fd < 0 ? -1 : proto_roundtrip(fd, line, n, &r, PROTO_TIMEOUT_MS,
					   &e);
	if (fd >= 0)
		close(fd);
	free(line);
	if (rc) {
		fprintf(stderr, "gpreempt-ctl: %s\n", e.msg);
		return e.exit;
	}
	print_reply(&r);
	if (r.exit)
		fprintf(stderr, "gpreempt-ctl: %s\n", r.msg);
	return r.exit;
}

int daemon_cmd(int argc, char **argv)
{
	struct daemon_opts o;
	int r;

	r = daemon_parse(argc, argv, &o, stdout, stderr);
	if (r)
		return r;
	if (o.help)
		return GP_EXIT_OK;
	if (o.send)
		return daemon_send(&o);
	return daemon_main(&o);
}
