#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's main command. With no AMD GPU here, the embedded default is
# a QEMU/TCG VM booting Debian's own 6.12 kernel with the stock amdgpu
# module: /dev/kfd, the ioctl dispatcher and the debug-trap protocol are
# the real kernel code. It runs gpreempt-trace and gpreempt-ctl there
# against a workload (tests/vm/demo.sh) and shows their output.
#   scripts/demo.sh [-k 6.1|6.12|7.x]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh" demo >&2
exec "$top/scripts/vm.sh" demo "$@"
