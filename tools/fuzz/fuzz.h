/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cufab-fuzz: a structure-aware fuzzer of the /dev/cufab ioctls and the
 * "cufab" generic netlink family. Documentation/testing.rst describes it.
 *
 * Every ioctl is described once, in table.c: its struct, and per field
 * what kind of value it takes (a size, flag bits, an enumeration, an id
 * an earlier call returned, a length, an address of a mapping, a user
 * pointer, an fd, a handle's bytes). gen.c makes calls from those
 * descriptions, mostly valid and coherent (the id, device, length and
 * address of one call agree), sometimes with one or two fields mutated;
 * results (ids, addresses, fds, fabric handles) feed later calls.
 */
#ifndef _CUFAB_FUZZ_H
#define _CUFAB_FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/cufab.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_IOCTLS	(CUFAB_CMD_LAST - CUFAB_CMD_BASE)
#define MAX_ERRNO	134

/* Kinds of resources earlier calls produced (bit numbers). */
enum res_kind {
	R_CTX, R_MEM, R_MC, R_VA, R_MAP, R_LEGACY, R_STREAM, R_EVENT,
	R_POOL, R_CHUNK, R_LEID, R_LE, R_FD_DMABUF, R_FD_POOL, R_FD_IMEX,
	R_FAB_MEM, R_FAB_POOL, R_FAB_LE, R_EV_HANDLE, R_PTR_DATA, R_IMPPTR,
	R_MCMAP, R_MANAGED, R_TOKEN, R_PEER, R_IMPPOOL, R_LEBIND, R_MCBIND,
	R_IPC_MEM, R_IPCMAP, R_NKINDS,
};

#define RB(k)		(1U << (k))
#define R_OBJECTS	(RB(R_CTX) | RB(R_STREAM) | RB(R_EVENT) | RB(R_POOL))
#define R_ADDRS		(RB(R_MAP) | RB(R_LEGACY) | RB(R_CHUNK) | RB(R_IMPPTR) | \
			 RB(R_MCMAP) | RB(R_MANAGED))

struct thread;

/* What a field takes. */
enum field_kind {
	F_SIZE,		/* the struct's size */
	F_FLAGS,	/* bits of .arg */
	F_ENUM,		/* .arg = lo | hi << 32 */
	F_RSVD,		/* must be 0 */
	F_OUT,		/* written by the kernel */
	F_RES,		/* an id of a resource in .res */
	F_DEV,		/* GPU index (u32) */
	F_SDEV,		/* GPU index or -1 (s32) */
	F_LOCTYPE,	/* CUFAB_LOC_* */
	F_LOCID,	/* GPU or NUMA node, following F_LOCTYPE */
	F_LEN,		/* bytes: .arg = unit (0: the granularity) */
	F_OFF,		/* offset into an object: 0 or a granule */
	F_ADDR,		/* an address of a resource in .res */
	F_PTR,		/* a user buffer of the calling thread */
	F_COUNT,	/* a small count, 1 .. .arg */
	F_FD,		/* an fd resource in .res */
	F_BYTES,	/* a handle's bytes from a resource in .res */
	F_VAL,		/* a value, random below .arg (0: any) */
	F_CONST,	/* .arg */
};

struct field {
	const char *name;
	unsigned short off;
	unsigned short width;	/* bytes: 1..8, or the array's length */
	unsigned char kind;
	unsigned int res;	/* RB() mask: where F_RES/F_ADDR/F_FD/F_BYTES pick */
	unsigned int prod;	/* on success: record this field's value as these */
	unsigned int cons;	/* on success: forget the resource with this value */
	unsigned long long arg;
};

struct ioctl_desc {
	const char *name;
	unsigned int nr;		/* CUFAB_CMD_* */
	unsigned int size;		/* sizeof the struct */
	const struct field *fields;
	unsigned int nfields;
	bool blocking;			/* may sleep: interrupted by a timer */
	/* after generation: the rules between fields the kinds cannot say */
	void (*fix)(struct thread *t, void *arg);
	/* after a successful call: results the fields' prod cannot say */
	void (*post)(struct thread *t, const void *arg);
};

extern const struct ioctl_desc fuzz_ioctls[];
extern const unsigned int fuzz_nioctls;

/* One remembered result. */
struct res {
	unsigned long long val;	/* id, address or fd */
	unsigned long long len;
	int dev;
	unsigned int aux;	/* owning pool, a team's members (bits), ... */
	unsigned short team;	/* R_MC made here: its number of devices */
	unsigned short types;	/* and its handle types */
	unsigned char bytes[64];
	bool ready;
};

#define RES_MAX		24

/* The resources of one process's client, shared by its threads. */
struct client {
	int fd;
	int ngpus;
	pthread_mutex_t lock;
	struct res r[R_NKINDS][RES_MAX];
	unsigned int n[R_NKINDS];
};

/* The counters of a run (stats.c). */
struct stats {
	unsigned long long calls[NR_IOCTLS];
	unsigned long long ok[NR_IOCTLS];
	unsigned long long err[NR_IOCTLS][MAX_ERRNO];
	unsigned long long nl_calls[16], nl_ok[16], nl_err[16][MAX_ERRNO];
	unsigned long long pseudo[16];
	unsigned long long kills;
	unsigned long long reply_faults;	/* calls whose struct was read-only */
	unsigned long long dump_rounds;		/* every dump and debugfs file, once */
	unsigned long long handoffs;		/* imports of another process's handle */
};

extern struct stats *stats;	/* this process's counts */

/* stats.c */
int stats_init(void);
void stats_fork_child(void);
void stats_flush(void);
void stats_sum(struct stats *out);

/* Per-thread state of the generator. */
struct thread {
	struct client *cl;
	unsigned long long rng;
	unsigned char *scratch;		/* page-aligned, SCRATCH bytes */
	/* the coherence of one call: what its first resource said */
	int dev;
	unsigned long long len, addr;
	unsigned int loctype;
	unsigned int pool;		/* the pool a pool-related pick named */
	unsigned int picked;		/* RB() of the kinds picked */
	struct res pick0;		/* the first resource picked */
	unsigned int pick0_kind;	/* and its kind, R_NKINDS: none */
	unsigned int mutate;		/* per mille of calls mutated */
};

#define SCRATCH		(4 * 4096)

static inline unsigned long long rnd(struct thread *t)
{
	/* splitmix64: the sequence is a function of the seed alone */
	unsigned long long z = (t->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline unsigned int rn(struct thread *t, unsigned int n)
{
	return n ? rnd(t) % n : 0;
}

/* gen.c */
void client_init(struct client *cl, int fd, int ngpus);
void client_fini(struct client *cl);
int fuzz_one(struct thread *t, const struct ioctl_desc *d, bool mutate);
const struct ioctl_desc *pick_ioctl(struct thread *t);
bool res_pick(struct thread *t, unsigned int mask, struct res *out,
	      unsigned int *kind);
void res_add(struct client *cl, unsigned int kind, const struct res *r);
void res_forget(struct client *cl, unsigned int mask,
		unsigned long long val);
int fd_take(struct client *cl, unsigned int kind);
void count_call(unsigned int i, int err);
void timer_arm(bool on);

/* mailbox.c: the IPC handles the workers of an episode exported */
enum { MB_EVENT, MB_IPC_MEM, MB_KINDS };
#define MB_HANDLE_LEN	64

void mailbox_init(void);
void mailbox_clear(void);
void mailbox_post(unsigned int kind, const unsigned char *handle);
bool mailbox_take(struct thread *t, unsigned int kind, unsigned char *handle);

/* main.c: the run's options */
#define MAX_PROCS	16
#define MAX_THREADS	16
#define LIVE_OBJECTS	"/sys/kernel/debug/cufab/live_objects"

enum { E_THREADS, E_PROCS, E_NETLINK, E_MAPS, E_KINDS };

struct options {
	unsigned long long seed;
	long seconds;
	unsigned int first, episodes, calls, threads, procs, mutate;
	unsigned int reload;
	bool ktap, verbose, all_ok, keep_going;
};

extern struct options opt;
extern int ngpus;

/* worker.c */
struct worker {
	struct client cl;
	int ring_out, ring_in;		/* unix sockets to the neighbours */
	unsigned long long seed;
	unsigned int kind;
	unsigned int *progress;		/* shared: calls made, for the parent */
};

pid_t spawn(struct worker *w);

/* invariants.c */
long long read_ll(const char *path);
long long live_wait(long long want);
int invariants(long long live0, bool reload_now, char *why, size_t len);
void invariants_init(void);
void invariants_fini(void);

/* nl.c */
int nl_open(void);
void nl_reset(void);
int nl_fuzz_one(struct thread *t, int sock);
int nl_check_empty(int sock, char *why, size_t len);
void nl_dump_all(int sock);
long long nl_topo_u64(int sock, int attr);
void nl_snapshot(int sock);
void nl_restore(int sock);
extern const unsigned int fuzz_nl_ncmds;
extern const char *const fuzz_nl_names[];

#endif /* _CUFAB_FUZZ_H */
