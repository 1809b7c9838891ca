// SPDX-License-Identifier: GPL-2.0
/* Names for numbers, one fallback for unknown ones (names.h). */
#include <stdio.h>
#include <linux/kfd_ioctl.h>

#include "names.h"

const char *names_or_num(const char *name, uint32_t n, char *buf,
			 size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "?%u", n);
	return buf;
}

const char *names_ioc_queue_type(uint32_t type)
{
	switch (type) {
	case KFD_IOC_QUEUE_TYPE_COMPUTE: return "compute";
	case KFD_IOC_QUEUE_TYPE_SDMA: return "sdma";
	case KFD_IOC_QUEUE_TYPE_COMPUTE_AQL: return "compute_aql";
	case KFD_IOC_QUEUE_TYPE_SDMA_XGMI: return "sdma_xgmi";
	case KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID: return "sdma_by_eng_id";
	}
	return NULL;
}
