/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The health of the emulated fabric software (fabric manager, IMEX
 * daemon, NVSwitches). Real multicast and endpoint calls fail with
 * CUDA_ERROR_SYSTEM_NOT_READY while that software is down or stalled, and
 * with CUDA_ERROR_ILLEGAL_STATE after fabric trouble; the module parameter
 * fabric_state lets an administrator or a test put the node in either
 * state, so callers can prove they retry or report instead of hanging.
 */
#ifndef _CUFAB_FABRIC_H
#define _CUFAB_FABRIC_H

enum cufab_fabric_state {
	CUFAB_FABRIC_OK,
	CUFAB_FABRIC_NOT_READY,		/* -EHOSTDOWN: SYSTEM_NOT_READY */
	CUFAB_FABRIC_ILLEGAL,		/* -ENOTRECOVERABLE: ILLEGAL_STATE */
};

/*
 * 0 when the fabric is usable; otherwise -EHOSTDOWN or -ENOTRECOVERABLE
 * and one log line naming @obj (e.g. "multicast 3"), the operation @what
 * and the state.
 */
int cufab_fabric_check(const char *obj, const char *what);

#endif /* _CUFAB_FABRIC_H */
