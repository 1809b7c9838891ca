# SPDX-License-Identifier: GPL-2.0
# The base every other guest test stands on: the real amdgpu module loaded,
# /dev/kfd and module BTF present, and the KFD version this kernel reports.
. /gp/tests/vm/lib.sh

gp_check "amdgpu module loaded" grep -q '^amdgpu ' /proc/modules
gp_check "/dev/kfd exists" test -c /dev/kfd
gp_check "/sys/kernel/btf/amdgpu exists (module BTF for CO-RE)" \
	test -s /sys/kernel/btf/amdgpu

out=$(kfd-exerciser version 2>&1)
echo "$out"
case $GP_KERNEL in
6.1) want_ver=1.11 ;;
6.12) want_ver=1.17 ;;
esac
if [ "$GP_KERNEL" = 7.x ]; then
	# 7.x refuses to create a KFD process when the topology has no GPU
	# node; the day that changes, this test says so.
	if echo "$out" | jq -e 'select(.step == "open") | .errno == 22' >/dev/null; then
		gp_ok "open(/dev/kfd) fails with EINVAL without a GPU node"
	else
		gp_fail "open(/dev/kfd) fails with EINVAL without a GPU node" "got: $out"
	fi
else
	got=$(echo "$out" | jq -r 'select(.step == "version") | "\(.major).\(.minor)"')
	if [ "$got" = "$want_ver" ]; then
		gp_ok "GET_VERSION reports KFD $want_ver"
	else
		gp_fail "GET_VERSION reports KFD $want_ver" "got '$got' from: $out"
	fi
fi
