// SPDX-License-Identifier: GPL-2.0
/*
 * The mailbox: IPC event and IPC memory handles that one worker exported,
 * for the other workers of the episode to import. The driver refuses a
 * process its own handles (EVENT_IMPORT and IPC_MEM_IMPORT: -ELOOP, as
 * driver 580 does), and the ring of unix sockets hands a handle on too
 * rarely, and often after its exporter was killed, for an import to meet a
 * live one; every export posts its handle here, and an import takes one
 * another process posted most of the time.
 *
 * The slots are a shared anonymous mapping made by the parent before the
 * first worker exists, so no range a call returned can ever lie over it
 * (a stale address is never the mailbox). A slot is read without a lock:
 * a handle torn by a concurrent post is a wrong handle, which the import
 * must refuse anyway (-ESRCH or -EINVAL).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#define MB_SLOTS	16

_Static_assert(sizeof(((struct cufab_event_import *)0)->handle) == MB_HANDLE_LEN &&
	       sizeof(((struct cufab_ipc_mem_import *)0)->handle) == MB_HANDLE_LEN,
	       "a mailbox slot holds one IPC handle");

struct slot {
	int pid;		/* the exporter, 0: empty */
	unsigned char handle[MB_HANDLE_LEN];
};

struct mailbox {
	unsigned int next[MB_KINDS];
	struct slot slot[MB_KINDS][MB_SLOTS];
};

static struct mailbox *mb;

void mailbox_init(void)
{
	void *p = mmap(NULL, sizeof(*mb), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	mb = p == MAP_FAILED ? NULL : p;
}

/* An episode's handles are its own: the last one's exporters are gone. */
void mailbox_clear(void)
{
	if (mb)
		memset(mb, 0, sizeof(*mb));
}

void mailbox_post(unsigned int kind, const unsigned char *handle)
{
	struct slot *s;

	if (!mb)
		return;
	s = &mb->slot[kind][__atomic_fetch_add(&mb->next[kind], 1,
					       __ATOMIC_RELAXED) % MB_SLOTS];
	__atomic_store_n(&s->pid, 0, __ATOMIC_RELEASE);
	memcpy(s->handle, handle, MB_HANDLE_LEN);
	__atomic_store_n(&s->pid, getpid(), __ATOMIC_RELEASE);
}

/* A handle of @kind another process posted, into @handle; false if none. */
bool mailbox_take(struct thread *t, unsigned int kind, unsigned char *handle)
{
	unsigned int i, n;
	int pid, me = getpid();

	if (!mb)
		return false;
	/* the newest first: the older a handle, the likelier its event ended */
	n = __atomic_load_n(&mb->next[kind], __ATOMIC_RELAXED);
	for (i = 0; i < MB_SLOTS; i++) {
		struct slot *s = &mb->slot[kind][(n - 1 - i - rn(t, 2)) % MB_SLOTS];

		pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
		if (!pid || pid == me)
			continue;
		memcpy(handle, s->handle, MB_HANDLE_LEN);
		__atomic_add_fetch(&stats->handoffs, 1, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}
