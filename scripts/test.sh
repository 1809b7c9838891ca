#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's test command: install what is needed (idempotent), build,
# and run every suite: unit (L0), BPF on the host kernel (L1), BATS, the
# protocol fuzzer, and the VM suite on Debian 6.1, 6.12 and 7.x (L2).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
exec "$top/scripts/run-tests.sh" "$@"
