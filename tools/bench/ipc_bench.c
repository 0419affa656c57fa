// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA IPC rows of cufab-bench: cuIpcOpenMemHandle+cuIpcCloseMemHandle
 * of memory another process exported with cuIpcGetMemHandle (a process
 * cannot open its own handle). The exporter is a child that keeps its
 * allocation until the bench closes the pipe it waits on.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cufab/cuda.h>

#include "bench.h"
#include "ipc_bench.h"

static CUipcMemHandle ipcb_handle;
static pid_t ipcb_child = -1;
static int ipcb_hold = -1;

/* The child: export 2 MiB, hand the handle over, wait for the end. */
static void ipcb_exporter(int out, int hold)
{
	CUipcMemHandle h;
	CUcontext ctx;
	CUdeviceptr p;
	char c;

	if (cuInit(0) || cuCtxCreate(&ctx, NULL, 0, 0) ||
	    cuMemAlloc(&p, 2 << 20) || cuIpcGetMemHandle(&h, p) ||
	    write(out, &h, sizeof(h)) != sizeof(h))
		_exit(1);
	close(out);
	while (read(hold, &c, 1) > 0)
		;
	_exit(0);
}

int ipc_bench_setup(void)
{
	int hand[2], hold[2];

	if (pipe(hand) || pipe(hold))
		return -1;
	ipcb_child = fork();
	if (ipcb_child < 0)
		return -1;
	if (ipcb_child == 0) {
		close(hand[0]);
		close(hold[1]);
		ipcb_exporter(hand[1], hold[0]);
	}
	close(hand[1]);
	close(hold[0]);
	ipcb_hold = hold[1];
	if (read(hand[0], &ipcb_handle, sizeof(ipcb_handle)) !=
	    sizeof(ipcb_handle)) {
		close(hand[0]);
		return -1;
	}
	close(hand[0]);
	return 0;
}

void ipc_bench_teardown(void)
{
	if (ipcb_hold >= 0)
		close(ipcb_hold);
	if (ipcb_child > 0)
		waitpid(ipcb_child, NULL, 0);
}

int ipcb_step_open_close(struct bench *b)
{
	CUdeviceptr p;

	return cuIpcOpenMemHandle(&p, ipcb_handle,
				  CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ||
	       cuIpcCloseMemHandle(p);
}
