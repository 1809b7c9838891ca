# SPDX-License-Identifier: GPL-2.0
# What scripts/demo.sh shows: the tools against the real KFD of the booted
# Debian kernel (no GPU: queue creation fails in the kernel, the debug-trap
# protocol runs for real on 6.12). Runs as the guest's main script.
show() { echo; echo "\$ $*"; "$@"; }

echo "kernel $(uname -r), KFD at /dev/kfd:"
show kfd-exerciser version
