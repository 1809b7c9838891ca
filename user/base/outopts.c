// SPDX-License-Identifier: GPL-2.0
/* Output units; see outopts.h. */
#include "outopts.h"
#include "util.h"

uint64_t gp_unit_ns(enum gp_unit u)
{
	switch (u) {
	case GP_UNIT_MSEC:
		return NSEC_PER_MSEC;
	case GP_UNIT_USEC:
		return NSEC_PER_USEC;
	default:
		return 1;
	}
}

const char *gp_unit_label(enum gp_unit u)
{
	switch (u) {
	case GP_UNIT_MSEC:
		return "msecs";
	case GP_UNIT_USEC:
		return "usecs";
	default:
		return "nsecs";
	}
}

const char *gp_unit_short(enum gp_unit u)
{
	switch (u) {
	case GP_UNIT_MSEC:
		return "ms";
	case GP_UNIT_USEC:
		return "us";
	default:
		return "ns";
	}
}
