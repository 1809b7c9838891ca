// SPDX-License-Identifier: GPL-2.0
/*
 * rocr-probe: a real ROCm runtime (ROCr) process for the VM tests. It
 * loads Debian's libhsa-runtime64.so.1, calls hsa_init() (which opens
 * /dev/kfd and, on KFD >= 1.13, enables the debug runtime itself), prints
 * the status and every agent ROCr found, then waits and reports signals
 * like kfd-exerciser's "wait" step, and ends with hsa_shut_down(). One
 * JSON object per line on stdout, so tests assert with jq.
 *
 *   rocr-probe [-r READY-FILE] [-w MS] [-n] [-R FILE]
 *
 * Why dlopen and not -lhsa-runtime64: the host builds with bookworm's
 * toolchain (glibc 2.36), the guest runs trixie's runtime, whose
 * libhsa-runtime64.so.1 needs GLIBC_2.38 and GLIBCXX_3.4.32 symbols. The
 * host linker resolves a shared library's own needs against the host's
 * libc and fails; linking for real would need a trixie sysroot (libc6-dev,
 * its crt files with gcc 12's crtbegin/libgcc) for one test program. With
 * dlopen the binary needs only glibc <= 2.36 symbols, which every newer
 * glibc keeps, and the calls are still typed by the header of the very
 * package we load (libhsa-runtime-dev 6.1.2): each pointer is declared
 * with __typeof__ of the header's prototype, so a changed signature is a
 * compile error, not a local guess. At run time trixie's ld.so loads
 * ROCr and its libraries from the standard paths, as it would for a
 * program linked against it.
 *
 * Exit: 0 when hsa_init() succeeded (after the wait), 1 when it failed
 * (also after the wait: the refused process stays up as a target), 2 on
 * bad usage, 3 when the runtime library cannot be loaded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>

#include "../lib/sigpipe.h"

#define RUNTIME "libhsa-runtime64.so.1"

static struct {
	__typeof__(hsa_init) *init;
	__typeof__(hsa_shut_down) *shut_down;
	__typeof__(hsa_status_string) *status_string;
	__typeof__(hsa_iterate_agents) *iterate_agents;
	__typeof__(hsa_agent_get_info) *agent_get_info;
	__typeof__(hsa_system_get_info) *system_get_info;
} hsa;

static volatile sig_atomic_t stop;
static bool stdin_eof;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* JSON string contents: the few names we print are plain ASCII. */
static const char *js(const char *s)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ & 3];
	size_t n = 0;

	for (; *s && n < sizeof(buf[0]) - 2; s++)
		if (*s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\')
			b[n++] = *s;
	b[n] = 0;
	return b;
}

/* "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed ..." -> name */
static const char *status_name(hsa_status_t st)
{
	static char name[64];
	const char *s = NULL;

	if (hsa.status_string(st, &s) != HSA_STATUS_SUCCESS || !s)
		return "?";
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(s, ":"), s);
	return name;
}

static bool load(void)
{
	void *h = dlopen(RUNTIME, RTLD_NOW | RTLD_GLOBAL);

	if (!h) {
		out("{\"step\":\"load\",\"ok\":false,\"error\":\"%s\"}",
		    js(dlerror()));
		return false;
	}
#define SYM(f) (hsa.f = (__typeof__(hsa.f))dlsym(h, "hsa_" #f))
	if (!SYM(init) || !SYM(shut_down) || !SYM(status_string) ||
	    !SYM(iterate_agents) || !SYM(agent_get_info) ||
	    !SYM(system_get_info)) {
		out("{\"step\":\"load\",\"ok\":false,\"error\":\"%s\"}",
		    js(dlerror() ?: "missing symbol"));
		return false;
	}
#undef SYM
	out("{\"step\":\"load\",\"ok\":true,\"library\":\"%s\"}", RUNTIME);
	return true;
}

struct tally {
	int n, cpu, gpu;
};

static hsa_status_t agent_cb(hsa_agent_t agent, void *data)
{
	struct tally *t = data;
	hsa_device_type_t type = HSA_DEVICE_TYPE_DSP;
	char name[64] = "";
	uint32_t node = 0;
	const char *tn;

	hsa.agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
	hsa.agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
	hsa.agent_get_info(agent, HSA_AGENT_INFO_NODE, &node);
	tn = type == HSA_DEVICE_TYPE_CPU ? "CPU" :
	     type == HSA_DEVICE_TYPE_GPU ? "GPU" : "DSP";
	t->n++;
	t->cpu += type == HSA_DEVICE_TYPE_CPU;
	t->gpu += type == HSA_DEVICE_TYPE_GPU;
	out("{\"step\":\"agent\",\"name\":\"%s\",\"type\":\"%s\",\"node\":%u}",
	    js(name), tn, node);
	return HSA_STATUS_SUCCESS;
}

static void sig_drain(void)
{
	int sig;

	while ((sig = sigpipe_next()))
		out("{\"step\":\"signal\",\"sig\":%d,\"name\":\"SIG%s\"}",
		    sig, sigabbrev_np(sig) ?: "?");
}

static void ready(const char *step, const char *file)
{
	char tmp[4096], pid[32];
	int fd, n;

	out("{\"step\":\"%s\",\"pid\":%d}", step, getpid());
	if (!file)
		return;
	/* Written then renamed: a reader never sees an empty file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", file, getpid());
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, pid, n) != n || close(fd) ||
	    rename(tmp, file))
		fprintf(stderr, "rocr-probe: cannot write %s: %s\n", file,
			strerror(errno));
}

/*
 * Until SIGTERM/SIGINT, EOF on a pipe stdin, or @ms (-1: forever).
 * Returns false when a signal ended it.
 */
static bool wait_loop(const char *step, long long ms)
{
	unsigned long long end = now_ns() + ms * 1000000ull;
	struct pollfd p[2] = {
		{ .fd = sigpipe_fd(), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	const char *why = "timeout";
	struct stat sb;
	char c;

	/*
	 * Only a pipe counts: a shell gives background jobs /dev/null. An
	 * EOF ends one wait only (the -R one); later waits ignore stdin.
	 */
	if (!stdin_eof && !fstat(0, &sb) && S_ISFIFO(sb.st_mode))
		p[1].fd = 0;
	for (;;) {
		int to = -1;

		if (ms >= 0) {
			unsigned long long t = now_ns();

			if (t >= end)
				break;
			to = (end - t) / 1000000 + 1;
		}
		if (poll(p, 2, to) < 0 && errno != EINTR)
			break;
		sig_drain();
		if (stop) {
			why = "signal";
			break;
		}
		if (p[1].fd >= 0 && (p[1].revents & (POLLIN | POLLHUP)) &&
		    read(0, &c, 1) <= 0) {
			stdin_eof = true;
			why = "eof";
			break;
		}
	}
	out("{\"step\":\"%s\",\"end\":\"%s\"}", step, why);
	return !stop;
}

static hsa_status_t do_init(void)
{
	unsigned long long t0 = now_ns();
	hsa_status_t st = hsa.init();

	out("{\"step\":\"hsa_init\",\"status\":%d,\"name\":\"%s\","
	    "\"duration_ns\":%llu}", st, js(status_name(st)), now_ns() - t0);
	return st;
}

static void do_shut_down(void)
{
	unsigned long long t0 = now_ns();
	hsa_status_t st = hsa.shut_down();

	out("{\"step\":\"hsa_shut_down\",\"status\":%d,\"name\":\"%s\","
	    "\"duration_ns\":%llu}", st, js(status_name(st)), now_ns() - t0);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: rocr-probe [-r READY-FILE] [-w MS] [-n] [-R FILE]\n"
"\n"
"A real ROCm runtime process: load " RUNTIME ", hsa_init(), list the\n"
"agents, write READY-FILE (our pid), wait for SIGTERM/SIGINT, EOF on a\n"
"pipe stdin (once) or MS ms (default: forever), reporting every SIGUSR1,\n"
"SIGUSR2 and SIGCONT, then hsa_shut_down(). One JSON line per step.\n"
"\n"
"  -r, --ready FILE   write our pid to FILE once hsa_init() returned\n"
"  -w, --wait MS      wait at most MS ms\n"
"  -n, --no-shutdown  exit without hsa_shut_down() (like a crash)\n"
"  -R, --reinit FILE  hsa_init() and hsa_shut_down() first, then write\n"
"                     FILE (our pid) and wait for EOF on a pipe stdin\n"
"                     before the real hsa_init(): a debugger can attach\n"
"                     to the KFD process while its runtime is disabled\n"
"\n"
"Exit: 0 hsa_init() succeeded, 1 it failed, 2 usage, 3 no runtime.\n"
"Example: rocr-probe -r /tmp/rocr.ready &\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ready", required_argument, NULL, 'r' },
		{ "wait", required_argument, NULL, 'w' },
		{ "no-shutdown", no_argument, NULL, 'n' },
		{ "reinit", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *ready_file = NULL, *reinit_file = NULL;
	long long wait_ms = -1;
	bool shutdown = true;
	struct tally t = {};
	uint16_t maj = 0, min = 0;
	hsa_status_t st;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "r:w:nR:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			ready_file = optarg;
			break;
		case 'w':
			errno = 0;
			wait_ms = strtoll(optarg, &end, 10);
			if (errno || *end || wait_ms < 0) {
				fprintf(stderr, "rocr-probe: bad --wait '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			shutdown = false;
			break;
		case 'R':
			reinit_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	out("{\"step\":\"start\",\"pid\":%d}", getpid());
	sigpipe_setup(&stop);	/* before hsa_init(): see sigpipe.h */
	if (!load())
		return 3;
	/*
	 * ROCr opens /dev/kfd and enables its runtime within about 1 ms of
	 * each other inside hsa_init(), so a debugger cannot attach between
	 * the two. A second hsa_init() in the same process finds the KFD
	 * process (it lives as long as the mm) with the runtime disabled.
	 */
	if (reinit_file) {
		st = do_init();
		if (st == HSA_STATUS_SUCCESS)
			do_shut_down();
		ready("reinit", reinit_file);
		if (!wait_loop("reinit-wait", -1)) {
			out("{\"step\":\"exit\",\"code\":0}");
			return 0;
		}
	}
	st = do_init();
	if (st == HSA_STATUS_SUCCESS) {
		hsa.system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &maj);
		hsa.system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &min);
		hsa.iterate_agents(agent_cb, &t);
		out("{\"step\":\"agents\",\"n\":%d,\"cpu\":%d,\"gpu\":%d,"
		    "\"hsa_version\":\"%u.%u\"}", t.n, t.cpu, t.gpu, maj, min);
	}
	ready("ready", ready_file);
	wait_loop("wait", wait_ms);
	if (st == HSA_STATUS_SUCCESS && shutdown)
		do_shut_down();
	out("{\"step\":\"exit\",\"code\":%d}", st == HSA_STATUS_SUCCESS ? 0 : 1);
	return st == HSA_STATUS_SUCCESS ? 0 : 1;
}
