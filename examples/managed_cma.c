// SPDX-License-Identifier: GPL-2.0
/*
 * Demo: a GPU with CONCURRENT_MANAGED_ACCESS 0 (Jetson, WSL, pre-Pascal)
 * gives managed memory to the GPU while a stream has work; a CPU access
 * then crashes the program (NVIDIA/cuda-python#1607, ml-explore/mlx#3645).
 * cufab does the same on any machine and says who touched what:
 *
 *   1. turn the setting off on gpu0 (cufabctl dev set) and watch the
 *      events (cufabctl monitor);
 *   2. a child process writes managed memory while its stream is busy:
 *      SIGSEGV, a kernel log line and a managed-event name the process,
 *      the address, the allocation and the busy stream;
 *   3. the fixed program synchronizes first and reads what the stream
 *      wrote.
 *
 * The demo process itself opens no client (the setting cannot change
 * while one is open): its CUDA work runs in children.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cufab/cuda.h>

static char ctl_path[PATH_MAX] = "cufabctl";
static int gate[2];

/* build/bin/cufabctl next to build/demo/, else the one on $PATH. */
static void find_cufabctl(void)
{
	char self[PATH_MAX - 32], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(ctl_path, sizeof(ctl_path), "%s/../bin/cufabctl", self);
	if (access(ctl_path, X_OK))
		snprintf(ctl_path, sizeof(ctl_path), "cufabctl");
}

static int ctl(const char *args)
{
	char cmd[PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd), "%s %s", ctl_path, args);
	printf("$ cufabctl %s\n", args);
	fflush(stdout);
	return system(cmd);
}

static void CUDA_CB wait_gate(void *arg)
{
	char c;

	(void)arg;
	if (read(gate[0], &c, 1) < 0)
		_exit(3);
}

/* The bug: the CPU writes while a stream still has work. */
static int buggy(void)
{
	CUcontext ctx;
	CUdeviceptr d;
	CUstream s;

	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) ||
	    cuCtxSetCurrent(ctx) || pipe(gate) ||
	    cuMemAllocManaged(&d, 4096, CU_MEM_ATTACH_GLOBAL) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING))
		return 2;
	strcpy((char *)d, "written while idle");
	printf("child %d: managed memory at 0x%llx: \"%s\"\n", getpid(),
	       (unsigned long long)d, (char *)d);
	if (cuLaunchHostFunc(s, wait_gate, NULL))
		return 2;
	printf("child %d: stream has work; writing to the memory now...\n",
	       getpid());
	fflush(stdout);
	strcpy((char *)d, "written while busy");
	printf("child %d: not reached\n", getpid());
	return 1;
}

/* The fix: synchronize, then touch. */
static int fixed(void)
{
	CUcontext ctx;
	CUdeviceptr d;
	CUstream s;

	if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) ||
	    cuCtxSetCurrent(ctx) ||
	    cuMemAllocManaged(&d, 4096, CU_MEM_ATTACH_GLOBAL) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) ||
	    cuMemsetD8Async(d, 'A', 8, s) || cuStreamSynchronize(s))
		return 2;
	printf("child %d: after cuStreamSynchronize the CPU reads \"%.8s\"\n",
	       getpid(), (char *)d);
	return 0;
}

static int run(int (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* The kernel's lines about managed memory since @fd was opened. */
static void show_kmsg(int fd)
{
	char rec[1024], *msg;
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (msg && strstr(msg, "managed memory"))
			printf("kernel:%s", msg + 1);
	}
}

int main(void)
{
	int status, kmsg, ret = 0;
	pid_t mon;

	setvbuf(stdout, NULL, _IOLBF, 0);
	find_cufabctl();
	printf("== managed memory on a GPU with CONCURRENT_MANAGED_ACCESS 0 ==\n");
	mon = fork();
	if (mon == 0) {
		execl(ctl_path, ctl_path, "monitor", (char *)NULL);
		execlp("cufabctl", "cufabctl", "monitor", (char *)NULL);
		_exit(127);
	}
	usleep(300000);	/* the monitor joins the events group */
	if (ctl("dev set gpu0 managed-concurrent off")) {
		fprintf(stderr, "managed_cma: cannot change gpu0 (root, no client open?)\n");
		kill(mon, SIGINT);
		return 1;
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);

	status = run(buggy);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		printf("the child died of SIGSEGV, as on such a GPU; the kernel says:\n");
	} else {
		printf("unexpected: the child's status is 0x%x\n", status);
		ret = 1;
	}
	if (kmsg >= 0) {
		show_kmsg(kmsg);
		close(kmsg);
	}
	usleep(300000);	/* the monitor prints the event */

	status = run(fixed);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		ret = 1;
	ctl("dev set gpu0 managed-concurrent on");
	usleep(300000);
	kill(mon, SIGINT);
	waitpid(mon, NULL, 0);
	return ret;
}
