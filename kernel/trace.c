// SPDX-License-Identifier: GPL-2.0
/* The tracepoints of trace.h, instantiated once for the module. */
#define CREATE_TRACE_POINTS
#include "trace.h"
