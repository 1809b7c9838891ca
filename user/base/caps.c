// SPDX-License-Identifier: GPL-2.0
/* Capability checks through capget(2) (caps.h). */
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"

bool caps_have(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3)
		return false;
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1U << (cap % 32));
}
