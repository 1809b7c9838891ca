# SPDX-License-Identifier: GPL-2.0
# gpreempt build. Layout and habits follow bcc's libbpf-tools:
#   bpf/<x>.bpf.c  -> $(OUTPUT)/<x>.bpf.o -> $(OUTPUT)/<x>.skel.h
#   user/<layer>/*.c -> $(OUTPUT)/libgp.a (everything but the two mains)
#   user/trace/trace.c -> gpreempt-trace, user/ctl/ctl.c -> gpreempt-ctl
# user/ layers (each points only to the ones before it; docs/architecture.md):
#   base/    no GPU: errors, JSON, /proc, sockets, pidfiles, output options
#   kfd/     the kernel's ABI: KFD ioctls, topology, queue table, MQD decoding
#   session/ ptrace and the debug-trap session: hold, suspend, resume
#   proto/   the daemon's wire protocol: parse, format, reply
#   metrics/ Prometheus exposition, the HTTP endpoint, log2 histograms
#   policy/  pure decisions: the policies, selectors, the verbs' format
#   trace/   gpreempt-trace: probes' attach, event output
#   detect/  activity detectors: queue watcher, launch uprobes
#   daemon/  the warm holder daemon: sockets, clients, holds, reload
#   arbiter/ the daemon's arbiter module: feeds the policy, carries it out
#   ctl/     gpreempt-ctl: arguments, sub-commands, the daemon's client
# New sources are picked up by wildcard (user/<layer>/ and one folder
# below it, e.g. user/backend/kfd/); objects are named by file alone, so
# every file name under user/ is unique. The Makefile rarely needs edits.
#
#   make                 both tools, dynamically linked
#   make STATIC=1        both tools, statically linked (VM initramfs)
#   make PORTABLE=1      glibc dynamic, libbpf/libelf/zlib/zstd static
#                        (a machine without libbpf; dlopen of libcuda works)
#   make DEBUG=1         -Og -g3, for a debugger
#   make install PREFIX=/usr DESTDIR=/tmp/root   (see packaging/)
#   make deb             Debian package (packaging/debian), in $(OUTPUT)/deb/
#   make test            every suite (see scripts/run-tests.sh)
#   make test-vm KERNELS="6.1 6.12 7.x"
#   make bench           benchmarks, tables (docs/benchmarks.md)
# A change of STATIC, DEBUG, ARCH, CC or flags rebuilds everything in that
# OUTPUT: $(OUTPUT)/build-config records them (git's GIT-CFLAGS idiom).

OUTPUT ?= .output
BINDIR ?= .
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
CC ?= cc
# The machine's architecture, in the kernel's (and libbpf's
# __TARGET_ARCH_*) names; vmlinux/<arch>/vmlinux.h must exist for it.
ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/i.86/x86/' \
	-e 's/aarch64.*/arm64/' -e 's/ppc64.*/powerpc/' -e 's/s390x/s390/' \
	-e 's/riscv64/riscv/' -e 's/loongarch64/loongarch/')
VMLINUX_DIR := vmlinux/$(ARCH)

ifeq ($(DEBUG),1)
CFLAGS ?= -g3 -Og -fno-omit-frame-pointer
else
CFLAGS ?= -g -O2
endif
USER_DIRS := $(sort $(dir $(wildcard user/*/*.c user/*/*/*.c)))
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror \
	  -D_GNU_SOURCE -I$(OUTPUT) $(addprefix -I,$(USER_DIRS)) -Ibpf
BPF_CFLAGS := -g -O2 -Wall -Werror -Werror=undef -target bpf \
	      -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -I$(VMLINUX_DIR) -Ibpf

# clang -target bpf does not see the host's system include dirs by default;
# pass them so <bpf/bpf_helpers.h> and friends resolve (libbpf-bootstrap).
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

ifeq ($(STATIC),1)
LDFLAGS += -static
# a static glibc cannot load libcuda: the CUDA backend says so (cuda_api.c)
CFLAGS += -DGP_STATIC
# bookworm's libelf.a (0.188) links statically; backports' 0.192 does not.
LDLIBS := -Wl,-Bstatic -lbpf -lelf -lz -lzstd
else ifeq ($(PORTABLE),1)
# glibc dynamic (dlopen of libcuda.so.1 and libnvidia-ml.so.1 needs it),
# libbpf, libelf, zlib and zstd static: runs where libbpf is not
# installed (docs/development.md, "PORTABLE=1").
LDLIBS := -Wl,-Bstatic -lbpf -lelf -lz -lzstd -Wl,-Bdynamic
else
LDLIBS := -lbpf -lelf -lz
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_TEST_SRCS := $(wildcard tests/bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS)) \
	 $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_TEST_SRCS))

MAINS := user/trace/trace.c user/ctl/ctl.c
LIB_SRCS := $(filter-out $(MAINS),$(wildcard user/*/*.c user/*/*/*.c))
LIB_OBJS := $(addprefix $(OUTPUT)/,$(notdir $(LIB_SRCS:.c=.o)))
USER_HDRS := $(wildcard user/*/*.h user/*/*/*.h)
vpath %.c $(USER_DIRS)
LIBGP := $(OUTPUT)/libgp.a

APPS := $(BINDIR)/gpreempt-trace $(BINDIR)/gpreempt-ctl
EXERCISER := $(OUTPUT)/kfd-exerciser
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS := $(patsubst tests/bpf/%.c,$(OUTPUT)/tests/%,$(wildcard tests/bpf/test_*.c))

# Everything that changes what a compiler or linker makes, recorded in
# $(OUTPUT)/build-config and rewritten only when it differs, so that
# `make STATIC=1` after `make` relinks instead of reusing dynamic binaries.
CONFIG_STAMP := $(OUTPUT)/build-config
BUILD_CONFIG := STATIC=$(STATIC) PORTABLE=$(PORTABLE) DEBUG=$(DEBUG) ARCH=$(ARCH) CC=$(CC) \
	CLANG=$(CLANG) CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) LDFLAGS=$(LDFLAGS) LDLIBS=$(LDLIBS)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all
all: $(APPS) $(EXERCISER)

$(OUTPUT) $(OUTPUT)/tests $(BINDIR):
	$(Q)mkdir -p $@

.PHONY: FORCE
$(CONFIG_STAMP): FORCE | $(OUTPUT)
	$(Q)if [ "$$(cat $@ 2>/dev/null)" != '$(BUILD_CONFIG)' ]; then \
		printf '%s\n' '$(BUILD_CONFIG)' > $@; fi

# No vmlinux.h for this architecture: say so instead of "no rule".
$(VMLINUX_DIR)/vmlinux.h:
	@echo "error: no $@ for ARCH=$(ARCH) (uname -m: $$(uname -m))." \
	      "Generate one with scripts/gen-vmlinux.sh from a kernel of" \
	      "that architecture, or pass ARCH=<dir under vmlinux/>." >&2
	@exit 1

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX_DIR)/vmlinux.h $(CONFIG_STAMP) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(CLANG_BPF_SYS_INCLUDES) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/%.bpf.o: tests/bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX_DIR)/vmlinux.h $(CONFIG_STAMP) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(CLANG_BPF_SYS_INCLUDES) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUTPUT)/%.o: %.c $(USER_HDRS) $(wildcard bpf/*.h) $(SKELS) $(CONFIG_STAMP) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIBGP): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BINDIR)/gpreempt-%: $(OUTPUT)/%.o $(LIBGP) $(CONFIG_STAMP) | $(BINDIR)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(filter-out $(CONFIG_STAMP),$^) $(LDLIBS) -o $@

# The exerciser runs as PID-anything inside the busybox initramfs: always
# static, and it needs nothing but libc and the KFD UAPI header.
$(EXERCISER): $(wildcard tests/exerciser/*.c tests/exerciser/*.h) $(CONFIG_STAMP) | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $(filter %.c,$^) -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(LIBGP) $(wildcard tests/unit/*.h) $(CONFIG_STAMP) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

$(OUTPUT)/tests/%: tests/bpf/%.c $(LIBGP) $(SKELS) $(CONFIG_STAMP) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

# The kit's analysis is compiled into its unit test (tests/kit/l3an*.c).
$(OUTPUT)/tests/test_snapshot_l3: $(wildcard tests/kit/*.c tests/kit/*.h)

# Helpers the L1 bats tests drive (tests/detect/*.c, linked like tests).
DETECT_TOOLS := $(patsubst tests/detect/%.c,$(OUTPUT)/tests/%,$(wildcard tests/detect/*.c))
$(OUTPUT)/tests/%: tests/detect/%.c $(LIBGP) $(SKELS) $(CONFIG_STAMP) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

# The launch detector's CUDA tests (tests/bats/detect_cuda.bats,
# test_detect_libs): a STAND-IN libcuda.so.1 (entry point names only; -O0
# so that no two entries fold into one address) and a program that
# dlopens it. Never linked statically: the program needs dlopen.
CUDA_STANDIN := $(OUTPUT)/tests/standin-launch/libcuda.so.1
$(CUDA_STANDIN): tests/cuda/standin_launch.c | $(OUTPUT)/tests
	$(call msg,STANDIN,$@)
	$(Q)mkdir -p $(@D) && $(CC) -std=gnu11 -O0 -Wall -Wextra \
		-Wno-unused-parameter -Werror -shared -fPIC \
		-Wl,-soname,libcuda.so.1 $< -o $@
$(OUTPUT)/tests/cuda-launch: tests/cuda/cuda-launch.c tests/lib/gofile.h \
			     | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		$< -o $@ -ldl
$(OUTPUT)/tests/test_detect_libs: $(CUDA_STANDIN)

.PHONY: tests
# STAND-INS for the CUDA backend's L1 tests (tests/cuda/): a libcuda.so.1
# with the checkpoint entry points, and a target that maps it.
CUDA_BK_STANDIN := $(OUTPUT)/tests/cuda-standin/libcuda.so.1
CUDA_TARGET := $(OUTPUT)/tests/standin_cuda_target
$(CUDA_BK_STANDIN): tests/cuda/standin_libcuda.c $(CONFIG_STAMP) | $(OUTPUT)/tests
	$(call msg,LIB,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -Wall -Werror -shared -fPIC -Wl,-soname,libcuda.so.1 $< -o $@
$(CUDA_TARGET): tests/cuda/standin_cuda_target.c $(CONFIG_STAMP) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) -O2 -Wall -Werror $< -ldl -o $@

tests: all $(UNIT_TESTS) $(BPF_TESTS) $(DETECT_TOOLS) $(CUDA_STANDIN) \
	$(OUTPUT)/tests/cuda-launch $(CUDA_BK_STANDIN) $(CUDA_TARGET)

# Suites. Each prints TAP; scripts/run-tests.sh sums them.
.PHONY: test test-unit test-bpf test-bats test-doc test-vm
test:
	$(Q)scripts/run-tests.sh all
test-unit test-bpf test-bats test-doc:
	$(Q)scripts/run-tests.sh $(patsubst test-%,%,$@)
test-vm:
	$(Q)scripts/run-tests.sh vm

# Benchmarks (not tests): bench/run.sh; method and figures in
# docs/benchmarks.md. The suite runs its quick mode so they cannot rot.
.PHONY: bench
bench:
	$(Q)bench/run.sh

# Install (packaging/ holds the unit, config and man-page sources).
# Binaries go to sbin: every command needs root or capabilities.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
# Opt-in unit drop-ins (docs/service.md): shipped, not active.
DROPINDIR ?= $(PREFIX)/share/gpreempt/drop-ins
DROPINS := $(wildcard packaging/drop-ins/*.conf)
INSTALL ?= install
MANS := packaging/man/gpreempt-trace.8 packaging/man/gpreempt-ctl.8

# Man pages are help2man's rendering of the binaries' own --help (and of
# every gpreempt-ctl command's), plus packaging/man/*.h2m. The rendered
# pages are committed, so `make install` needs no help2man (a machine
# that ran only scripts/demo.sh has none); `make man` re-renders them
# (help2man needed) and tests/bats/packaging.bats fails when the
# committed pages differ from the binaries' --help.
.PHONY: man
man: $(APPS)
	$(Q)for t in gpreempt-trace gpreempt-ctl; do \
		printf '  %-8s %s\n' MAN packaging/man/$$t.8; \
		packaging/gen-man.sh $(abspath $(BINDIR))/$$t \
			packaging/man/$$t.h2m packaging/man/$$t.8 || exit; \
	done

.PHONY: install
install: $(APPS)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/gpreempt \
		$(DESTDIR)$(DROPINDIR)
	$(Q)$(INSTALL) -m 0755 $(APPS) $(DESTDIR)$(SBINDIR)/
	$(Q)$(INSTALL) -m 0644 $(DROPINS) $(DESTDIR)$(DROPINDIR)/
	$(Q)$(INSTALL) -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man8/
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		packaging/gpreempt.service.in > $(DESTDIR)$(UNITDIR)/gpreempt.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/gpreempt.service
	@# an operator's edited config is kept (the package marks it a conffile)
	$(Q)[ -e $(DESTDIR)$(SYSCONFDIR)/gpreempt/gpreempt.conf ] || \
		$(INSTALL) -m 0644 packaging/gpreempt.conf \
		$(DESTDIR)$(SYSCONFDIR)/gpreempt/gpreempt.conf

.PHONY: uninstall
uninstall:
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/gpreempt-trace $(DESTDIR)$(SBINDIR)/gpreempt-ctl \
		$(DESTDIR)$(MANDIR)/man8/gpreempt-trace.8 \
		$(DESTDIR)$(MANDIR)/man8/gpreempt-ctl.8 \
		$(DESTDIR)$(UNITDIR)/gpreempt.service \
		$(addprefix $(DESTDIR)$(DROPINDIR)/,$(notdir $(DROPINS)))
	$(Q)rmdir $(DESTDIR)$(DROPINDIR) $(DESTDIR)$(PREFIX)/share/gpreempt \
		2>/dev/null || true

# Debian package: dpkg-buildpackage on a copy of the committed-or-not
# tracked files with packaging/debian/ as debian/; the .deb lands in
# $(OUTPUT)/deb/. `lintian $(OUTPUT)/deb/*.deb` checks it.
.PHONY: deb
deb:
	$(Q)packaging/make-deb.sh $(OUTPUT)/deb

.PHONY: vmlinux
vmlinux:
	$(Q)scripts/gen-vmlinux.sh "$$(scripts/kernels.sh path 6.12 vmlinuz)"

.PHONY: clean
clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) $(APPS)

.DELETE_ON_ERROR:
.SECONDARY:
