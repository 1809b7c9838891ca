# SPDX-License-Identifier: GPL-2.0
# gpreempt build. Layout and habits follow bcc's libbpf-tools:
#   bpf/<x>.bpf.c  -> $(OUTPUT)/<x>.bpf.o -> $(OUTPUT)/<x>.skel.h
#   user/<layer>/*.c -> $(OUTPUT)/libgp.a (everything but the two mains)
#   user/trace/trace.c -> gpreempt-trace, user/ctl/ctl.c -> gpreempt-ctl
# user/ layers (each points only to the ones before it):
#   core/    shared: KFD ioctls, debug session, queue table, protocol, util
#   trace/   gpreempt-trace: probes' attach, event output
#   daemon/  the warm holder daemon (and its policy)
#   ctl/     gpreempt-ctl: arguments, sub-commands, the daemon's client
# New sources are picked up by wildcard; the Makefile rarely needs edits.
#
#   make                 both tools, dynamically linked
#   make STATIC=1        both tools, statically linked (VM initramfs)
#   make test            every suite (see scripts/run-tests.sh)
#   make test-vm KERNELS="6.1 6.12 7.x"
#   make bench           benchmarks, summary table (docs/benchmarks.md)

OUTPUT ?= .output
BINDIR ?= .
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
CC ?= cc
ARCH := x86
VMLINUX_DIR := vmlinux/$(ARCH)

CFLAGS ?= -g -O2
USER_DIRS := $(sort $(dir $(wildcard user/*/*.c)))
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
# bookworm's libelf.a (0.188) links statically; backports' 0.192 does not.
LDLIBS := -Wl,-Bstatic -lbpf -lelf -lz -lzstd
else
LDLIBS := -lbpf -lelf -lz
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_TEST_SRCS := $(wildcard tests/bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS)) \
	 $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_TEST_SRCS))

MAINS := user/trace/trace.c user/ctl/ctl.c
LIB_SRCS := $(filter-out $(MAINS),$(wildcard user/*/*.c))
LIB_OBJS := $(addprefix $(OUTPUT)/,$(notdir $(LIB_SRCS:.c=.o)))
USER_HDRS := $(wildcard user/*/*.h)
vpath %.c $(USER_DIRS)
LIBGP := $(OUTPUT)/libgp.a

APPS := $(BINDIR)/gpreempt-trace $(BINDIR)/gpreempt-ctl
EXERCISER := $(OUTPUT)/kfd-exerciser
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS := $(patsubst tests/bpf/%.c,$(OUTPUT)/tests/%,$(wildcard tests/bpf/test_*.c))

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

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX_DIR)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(CLANG_BPF_SYS_INCLUDES) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/%.bpf.o: tests/bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX_DIR)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(CLANG_BPF_SYS_INCLUDES) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUTPUT)/%.o: %.c $(USER_HDRS) $(wildcard bpf/*.h) $(SKELS) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIBGP): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BINDIR)/gpreempt-%: $(OUTPUT)/%.o $(LIBGP) | $(BINDIR)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The exerciser runs as PID-anything inside the busybox initramfs: always
# static, and it needs nothing but libc and the KFD UAPI header.
$(EXERCISER): $(wildcard tests/exerciser/*.c tests/exerciser/*.h) | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $(filter %.c,$^) -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(LIBGP) $(wildcard tests/unit/*.h) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

$(OUTPUT)/tests/%: tests/bpf/%.c $(LIBGP) $(SKELS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

# The kit's analysis is compiled into its unit test (tests/kit/l3an*.c).
$(OUTPUT)/tests/test_snapshot_l3: $(wildcard tests/kit/*.c tests/kit/*.h)

.PHONY: tests
tests: all $(UNIT_TESTS) $(BPF_TESTS)

# Suites. Each prints TAP; scripts/run-tests.sh sums them.
.PHONY: test test-unit test-bpf test-bats test-vm
test:
	$(Q)scripts/run-tests.sh all
test-unit test-bpf test-bats:
	$(Q)scripts/run-tests.sh $(patsubst test-%,%,$@)
test-vm:
	$(Q)scripts/run-tests.sh vm

# Benchmarks (not tests): bench/run.sh; method and figures in
# docs/benchmarks.md. The suite runs its quick mode so they cannot rot.
.PHONY: bench
bench:
	$(Q)bench/run.sh

.PHONY: vmlinux
vmlinux:
	$(Q)scripts/gen-vmlinux.sh "$$(scripts/kernels.sh path 6.12 vmlinuz)"

.PHONY: clean
clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) $(APPS)

.DELETE_ON_ERROR:
.SECONDARY:
