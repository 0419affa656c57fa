/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A team: the devices of a multicast object or of a logical endpoint,
 * and what each of them has bound. One implementation serves
 * cuMulticast* (multicast.c) and cuLogicalEndpoint* (le.c): a unicast endpoint is
 * a team of one, its owner device, added at create.
 *
 * Membership only grows and is permanent. Devices join in any order, from
 * any process that holds the object; callers that need the whole team
 * (multicast bind and map) sleep in cufab_team_wait() until the last one
 * joins. The team belongs to a node-wide, reference-counted object (the
 * endpoint, or the multicast allocation); whoever calls into the team
 * holds a reference to that object, so the team outlives every caller.
 */
#ifndef _CUFAB_TEAM_H
#define _CUFAB_TEAM_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "bindmap.h"

struct cufab_alloc;

#define CUFAB_TEAM_NAME_LEN	32

/**
 * struct cufab_team_member - one device of the team
 * @gpu: GPU index on its node
 * @node: the node of the GPU: this one (cufab_node.node_index), or
 *	another one of the domain for a team that spans nodes
 *	(fabric_team.c), whose bindings are that node's window memory
 * @map: what is bound on it
 */
struct cufab_team_member {
	u32 gpu;
	u16 node;
	struct cufab_bindmap map;
};

/**
 * struct cufab_team - devices and bindings of one object
 * @lock: protects everything below except @wq
 * @wq: woken when the team completes
 * @name: "multicast 12", "endpoint 3": the object, for log lines
 * @size: devices wanted (numDevices), >= 1
 * @joined: devices added so far; members[0 .. joined - 1] are valid
 * @devs: bitmask of the joined GPUs
 * @length: bytes bindable per device (the object's size)
 * @align: every bind offset, size and memory offset is a multiple of it
 * @clique: clique of the first device, -1 while the team is empty
 * @waiters: callers sleeping in cufab_team_wait()
 * @broken: 0, or the negative errno every wait and bind returns once the
 *	team can no longer complete or work (a member's node was lost)
 * @members: @size entries; @devs counts this node's members only
 */
struct cufab_team {
	struct mutex lock;	/* see above */
	wait_queue_head_t wq;
	char name[CUFAB_TEAM_NAME_LEN];
	u32 size;
	u32 joined;
	u64 devs;
	u64 length;
	u64 align;
	/* two 32-bit fields together: an endpoint with its team fits 256 bytes */
	s32 clique;
	u32 waiters;
	int broken;
	struct cufab_team_member members[];
};

/*
 * A team of @size devices for an object of @length bytes per device whose
 * binds align to @align (a power of two), named "@kind @number" (the
 * object) in log lines. ERR_PTR(-EINVAL/-ENOMEM).
 */
struct cufab_team *cufab_team_create(const char *kind, u64 number, u32 size,
				     u64 length, u64 align);
/* Unbind everything (dropping allocation references) and free. */
void cufab_team_destroy(struct cufab_team *team);

/*
 * The same for a team kept at the end of its object's own allocation, so
 * that creating the object is one allocation less: the object reserves
 * cufab_team_size(@size) bytes for it, zeroed, and cufab_team_init()
 * fills them (0, -EINVAL or the injected -ENOMEM of cufab_team_create());
 * cufab_team_fini() unbinds everything and leaves the memory to the
 * object.
 */
size_t cufab_team_size(u32 size);
int cufab_team_init(struct cufab_team *team, const char *kind, u64 number,
		    u32 size, u64 length, u64 align);
void cufab_team_fini(struct cufab_team *team);

/**
 * struct cufab_team_who - who asks a team, for its refusal lines
 * @client: the calling process
 * @call: the driver call it made ("cuMulticastBindMem")
 *
 * A refusal then reads "pid N (comm): @call: <team>: <value>: <rule>", as
 * the callers' own refusals do (cufab_pr_info()); a NULL who (the module
 * acting for itself) logs "<team>: ...".
 */
struct cufab_team_who {
	const struct cufab_client *client;
	const char *call;
};

/*
 * Add GPU @gpu for good. Errors, each with one log line naming the team,
 * the GPU and the rule:
 *   -ENODEV  no such GPU, or its clique differs from the team's
 *            (CUDA_ERROR_INVALID_DEVICE)
 *   -EEXIST  the GPU is already a member
 *   -ENOSPC  the team already has @size devices
 *   -EHOSTDOWN, -ENOTRECOVERABLE  the fabric is down (fabric_health.c)
 * Wakes cufab_team_wait() sleepers when this completes the team.
 */
int cufab_team_add_device(struct cufab_team *team, u32 gpu,
			  const struct cufab_team_who *who);
/*
 * The same, and when (only when) the GPU joins, store @when in *@stamp
 * under the team lock before the GPU counts: a refused add changes nothing.
 */
int cufab_team_add_device_stamp(struct cufab_team *team, u32 gpu,
				const struct cufab_team_who *who,
				unsigned long *stamp, unsigned long when);
bool cufab_team_complete(struct cufab_team *team);
bool cufab_team_has(struct cufab_team *team, u32 gpu);

/*
 * Sleep until the team is complete: 0; -ERESTARTSYS on a signal (nothing
 * was done, the syscall restarts or fails with EINTR; a fatal signal ends
 * the process); -ETIMEDOUT after @timeout_ms (0 = no limit, as CUDA).
 * Every few seconds of waiting, and at a timeout, one log line names the
 * members, the number missing and the GPUs that could still be added.
 * @what names the caller's operation for that line.
 */
int cufab_team_wait(struct cufab_team *team, unsigned int timeout_ms,
		    const char *what);

/*
 * "2 of 4 devices (gpu0,gpu3)" into @buf; returns its length. Takes the
 * lock.
 */
int cufab_team_describe(struct cufab_team *team, char *buf, size_t len);

/**
 * struct cufab_bind_req - one bind
 * @gpu: device the memory is bound on; must be a member
 * @offset: in the object
 * @size: bytes
 * @alloc: the memory (the caller keeps its own reference; the binding
 *	takes another)
 * @mem_offset: into @alloc
 * @owner: the binding client
 * @tag: endpoint alias or NULL (see struct cufab_binding)
 * @who: the call asking, for the refusal lines (NULL: the module)
 */
struct cufab_bind_req {
	u32 gpu;
	u64 offset;
	u64 size;
	struct cufab_alloc *alloc;
	u64 mem_offset;
	const void *owner;
	const void *tag;
	const struct cufab_team_who *who;
};

/*
 * Check and record a bind. -EINVAL, each with a log line naming the team,
 * the value and the rule: @gpu not a member; offset, size or mem_offset
 * not a multiple of @align; size 0; offset + size past @length;
 * mem_offset + size past the allocation; device memory of another GPU;
 * host-NUMA memory not on @gpu's NUMA node; the range overlaps a binding.
 * -ENOMEM; -EHOSTDOWN or -ENOTRECOVERABLE while the fabric is down
 * (fabric_health.c). Rules that depend on the kind of object (exportable memory,
 * readiness, team completion) are the caller's.
 */
int cufab_team_bind(struct cufab_team *team, const struct cufab_bind_req *req);

/*
 * Unbind [offset, offset + size) on @gpu with the rules of
 * cufab_bindmap_remove_range() plus: @gpu a member, offset and size
 * multiples of @align, size > 0, offset + size within @length. -EINVAL
 * (-ENOENT, -EPERM from the map are turned into -EINVAL after logging).
 */
int cufab_team_unbind(struct cufab_team *team, u32 gpu, u64 offset, u64 size,
		      const void *owner, const struct cufab_team_who *who);

/* Unbind every binding of @owner (matching @tag too when non-NULL). */
u64 cufab_team_unbind_owner(struct cufab_team *team, const void *owner,
			    const void *tag);

/*
 * The binding map of member @gpu, NULL when @gpu is not a member, for
 * callers walking or looking up bindings (cufab_bindmap_lookup() ...).
 * Context: team->lock held, and kept while the map is used.
 */
struct cufab_bindmap *cufab_team_map(struct cufab_team *team, u32 gpu);

/* Bindings of the whole team (debugfs, netlink, tests). Takes the lock. */
u64 cufab_team_bindings(struct cufab_team *team);

/*
 * Teams across nodes (fabric_team.c, Documentation/multinode.rst): the
 * members of other nodes and their bindings, as those nodes report them.
 */

/* Is @m a device of this node? */
bool cufab_team_member_local(const struct cufab_team_member *m);

/* Bindings of this node's members only. Takes the lock. */
u64 cufab_team_local_bindings(struct cufab_team *team);

/*
 * Add GPU @gpu of node @node (another node) whose clique is @clique, for
 * good. -EEXIST, -ENOSPC, -ENODEV (another clique) as
 * cufab_team_add_device(), each logged; the team's own failure
 * (@broken). Wakes the waiters when this completes the team.
 */
int cufab_team_add_remote(struct cufab_team *team, u16 node, u32 gpu,
			  s32 clique);
bool cufab_team_has_member(struct cufab_team *team, u16 node, u32 gpu);

/*
 * Replace every binding of member (@node, @gpu) by the bindings on
 * @bindings (linked by ->list; the map takes them). One that overlaps
 * another is left on the list for the caller to free. -ENOENT when no
 * such member. What was bound before goes to @old.
 */
int cufab_team_replace_bindings(struct cufab_team *team, u16 node, u32 gpu,
				struct list_head *bindings,
				struct list_head *old);

/* Move the bindings of every member on @node to @old; how many. */
u64 cufab_team_drop_node(struct cufab_team *team, u16 node,
			 struct list_head *old);
/* Has the team a member on @node? */
bool cufab_team_spans(struct cufab_team *team, u16 node);

/*
 * The team will never complete or work: every waiter wakes, and waits,
 * binds and adds fail with @err from now on (the first cause stays).
 */
void cufab_team_break(struct cufab_team *team, int err);

#endif /* _CUFAB_TEAM_H */
