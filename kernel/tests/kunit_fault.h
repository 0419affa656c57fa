/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit helpers for the allocation-failure cases: fail one fault point
 * exactly once, whatever its debugfs settings, and put them back after.
 */
#ifndef _CUFAB_KUNIT_FAULT_H
#define _CUFAB_KUNIT_FAULT_H

#include <linux/atomic.h>

#include "fault.h"

/*
 * Make the next @fault point fail, quietly (no stack dump in the test
 * log), saving its settings in @saved; false when the kernel has no fault
 * injection, and the case should skip.
 */
static inline bool cufab_test_fail_next(enum cufab_fault fault,
					struct fault_attr *saved)
{
#ifdef CONFIG_FAULT_INJECTION
	struct fault_attr *a = &cufab_faults[fault];

	saved->probability = a->probability;
	saved->interval = a->interval;
	saved->verbose = a->verbose;
	atomic_set(&saved->times, atomic_read(&a->times));
	a->probability = 100;
	a->interval = 1;
	a->verbose = 0;
	atomic_set(&a->times, 1);
	return true;
#else
	return false;
#endif
}

/* Undo cufab_test_fail_next(), even if the point has not failed yet. */
static inline void cufab_test_fail_restore(enum cufab_fault fault,
					   const struct fault_attr *saved)
{
#ifdef CONFIG_FAULT_INJECTION
	struct fault_attr *a = &cufab_faults[fault];

	a->probability = saved->probability;
	a->interval = saved->interval;
	a->verbose = saved->verbose;
	atomic_set(&a->times, atomic_read(&saved->times));
#endif
}

#endif /* _CUFAB_KUNIT_FAULT_H */
