# SPDX-License-Identifier: GPL-2.0
# Build of the benchmark programs, on top of the main Makefile (same
# flags, same skeleton rules, warnings are errors):
#
#   make -f bench/bench.mk OUTPUT=.output/bench/build bench-tools
#
# -> $(OUTPUT)/bpf-cost (host, dynamic), $(OUTPUT)/kfd-loop and
#    $(OUTPUT)/startwait, $(OUTPUT)/ctl-lat, $(OUTPUT)/arb-lat,
#    $(OUTPUT)/progstats (static: they run in the VM's busybox initramfs),
#    $(OUTPUT)/uprobe-arm (host; STATIC=1 for the GPU machine).
include Makefile

BENCH_TOOLS := $(OUTPUT)/bpf-cost $(OUTPUT)/kfd-loop $(OUTPUT)/startwait \
	       $(OUTPUT)/ctl-lat $(OUTPUT)/imm-lat $(OUTPUT)/arb-lat \
	       $(OUTPUT)/progstats $(OUTPUT)/gpu-scope $(OUTPUT)/uprobe-arm
.DEFAULT_GOAL := bench-tools

.PHONY: bench-tools
bench-tools: $(BENCH_TOOLS)

$(OUTPUT)/%.bpf.o: bench/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX_DIR)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(CLANG_BPF_SYS_INCLUDES) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

# The loader's own formatter (user/trace/output.c) when it exists, so the
# ring-buffer consumer can do what gpreempt-trace -j does per event. Only
# its objects, not all of libgp: the rest is not needed here.
ifneq ($(wildcard user/trace/output.c),)
BENCH_FMT := -DBENCH_FORMAT
BENCH_FMT_LIB := $(OUTPUT)/output.o $(OUTPUT)/json.o $(OUTPUT)/util.o \
		 $(OUTPUT)/names.o $(OUTPUT)/outopts.o $(OUTPUT)/text.o
endif

$(OUTPUT)/bpf-cost: bench/bpf-cost.c $(OUTPUT)/bpf_cost.skel.h $(BENCH_FMT_LIB) | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_FMT) $(LDFLAGS) $< $(BENCH_FMT_LIB) $(LDLIBS) -lpthread -o $@

# The launch probe's traps and its arm/disarm cost (bench/detect-cost.sh).
$(OUTPUT)/uprobe-arm: bench/uprobe-arm.c $(OUTPUT)/trap_count.skel.h | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

# Immediate-path latency: the embeddable probe (libgp); host, and with
# STATIC=1 into another OUTPUT for the VM (bench/run.sh part imm).
$(OUTPUT)/imm-lat: bench/imm-lat.c $(LIBGP) | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

# Per-GPU against node scope: the policy alone, on the host (libgp).
$(OUTPUT)/gpu-scope: bench/gpu-scope.c $(LIBGP) | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBGP) $(LDLIBS) -o $@

# The arbiter's busy/idle round trips: a notify client (static, VM).
$(OUTPUT)/arb-lat: bench/arb-lat.c user/notify/gp_notify.c | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static -Iuser/notify $^ -o $@

$(OUTPUT)/kfd-loop $(OUTPUT)/startwait $(OUTPUT)/ctl-lat $(OUTPUT)/progstats: $(OUTPUT)/%: bench/%.c | $(OUTPUT)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@
