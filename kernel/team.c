// SPDX-License-Identifier: GPL-2.0
/*
 * Teams (team.h): the devices of a multicast object or logical endpoint
 * and one binding map per device.
 *
 * Locking: team->lock covers membership and the maps. It is innermost:
 * no user copy, no allocation, no mmap_lock and no topology lock under it
 * (the GPU facts a call needs are read, and a binding is allocated,
 * before team->lock is taken), and bindings removed
 * from a map are freed only after it is dropped, since freeing one may
 * drop the last reference of an allocation.
 *
 * Membership only grows, and @joined is written under the lock with
 * WRITE_ONCE(), so cufab_team_wait() can test completion locklessly as its
 * wait condition (it may not sleep on the mutex there).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/numa.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/cufab.h>

#include "cufab.h"
#include "trace.h"

/*
 * A refusal's line, "pid N (comm): call: team: ..." (struct cufab_team_who),
 * or "team: ..." for the module's own calls; rate limited by the caller's
 * state, one per call site as pr_info_ratelimited() would.
 */
static __printf(4, 5) void cufab_team_log(struct ratelimit_state *rs,
					  const struct cufab_team_who *who,
					  const struct cufab_team *team,
					  const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (who)
		pr_info("pid %d (%s): %s: %s: %pV", pid_nr(who->client->tgid),
			who->client->comm, who->call, team->name, &vaf);
	else
		pr_info("%s: %pV", team->name, &vaf);
	va_end(args);
}

#define cufab_team_info(who, team, fmt, ...)				\
	do {								\
		static DEFINE_RATELIMIT_STATE(__rs,			\
					      DEFAULT_RATELIMIT_INTERVAL, \
					      DEFAULT_RATELIMIT_BURST);	\
									\
		cufab_team_log(&__rs, who, team, fmt, ##__VA_ARGS__);	\
	} while (0)

/*
 * "@kind @number", cut to fit as snprintf() would cut it, without
 * snprintf()'s format parser: that was a quarter of cuMulticastCreate in
 * a guest profile, for a name only log lines and tracepoints read.
 */
static void cufab_team_set_name(struct cufab_team *team, const char *kind,
				u64 number)
{
	char digits[21], *p = digits + sizeof(digits) - 1;
	ssize_t n;

	*p = '\0';
	do {
		*--p = '0' + number % 10;
		number /= 10;
	} while (number);
	n = strscpy(team->name, kind, sizeof(team->name));
	if (n < 0 || n + 1 >= sizeof(team->name))
		return;
	team->name[n++] = ' ';
	strscpy(team->name + n, p, sizeof(team->name) - n);
}

size_t cufab_team_size(u32 size)
{
	/* a size init refuses must not ask for a huge allocation first */
	return struct_size((struct cufab_team *)NULL, members,
			   min_t(u32, size, CUFAB_MAX_GPUS));
}

int cufab_team_init(struct cufab_team *team, const char *kind, u64 number,
		    u32 size, u64 length, u64 align)
{
	u32 i;

	if (!size || size > CUFAB_MAX_GPUS || !length ||
	    !is_power_of_2(align))
		return -EINVAL;
	if (cufab_should_fail(CUFAB_FAULT_BIND))
		return -ENOMEM;
	mutex_init(&team->lock);
	init_waitqueue_head(&team->wq);
	cufab_team_set_name(team, kind, number);
	team->size = size;
	team->clique = -1;
	team->length = length;
	team->align = align;
	for (i = 0; i < size; i++)
		cufab_bindmap_init(&team->members[i].map);
	cufab_live_objects_inc();
	return 0;
}

struct cufab_team *cufab_team_create(const char *kind, u64 number, u32 size,
				     u64 length, u64 align)
{
	struct cufab_team *team;
	int ret;

	team = kzalloc(cufab_team_size(size), GFP_KERNEL_ACCOUNT);
	if (!team)
		return ERR_PTR(-ENOMEM);
	ret = cufab_team_init(team, kind, number, size, length, align);
	if (ret) {
		kfree(team);
		return ERR_PTR(ret);
	}
	return team;
}

void cufab_team_fini(struct cufab_team *team)
{
	LIST_HEAD(freed);
	u32 i;

	/* callers hold a reference on the owning object: none is waiting */
	WARN_ON_ONCE(team->waiters);
	mutex_lock(&team->lock);
	for (i = 0; i < team->joined; i++)
		cufab_bindmap_remove_all(&team->members[i].map, &freed);
	mutex_unlock(&team->lock);
	cufab_bindings_free(&freed);
	mutex_destroy(&team->lock);
	cufab_live_objects_dec();
}

void cufab_team_destroy(struct cufab_team *team)
{
	if (!team)
		return;
	cufab_team_fini(team);
	kfree(team);
}

/* Context: team->lock held. */
static struct cufab_team_member *cufab_team_member(struct cufab_team *team,
						   u32 gpu)
{
	u32 i;

	lockdep_assert_held(&team->lock);
	if (gpu >= CUFAB_MAX_GPUS || !(team->devs & BIT_ULL(gpu)))
		return NULL;
	for (i = 0; i < team->joined; i++)
		if (team->members[i].gpu == gpu &&
		    cufab_team_member_local(&team->members[i]))
			return &team->members[i];
	return NULL;
}

bool cufab_team_member_local(const struct cufab_team_member *m)
{
	return m->node == cufab_node.node_index;
}

/* Member @gpu of @node, whichever node. Context: team->lock held. */
static struct cufab_team_member *cufab_team_member_at(struct cufab_team *team,
						      u16 node, u32 gpu)
{
	u32 i;

	lockdep_assert_held(&team->lock);
	for (i = 0; i < team->joined; i++)
		if (team->members[i].gpu == gpu &&
		    team->members[i].node == node)
			return &team->members[i];
	return NULL;
}

struct cufab_bindmap *cufab_team_map(struct cufab_team *team, u32 gpu)
{
	struct cufab_team_member *m = cufab_team_member(team, gpu);

	return m ? &m->map : NULL;
}

int cufab_team_add_device(struct cufab_team *team, u32 gpu,
			  const struct cufab_team_who *who)
{
	return cufab_team_add_device_stamp(team, gpu, who, NULL, 0);
}

int cufab_team_add_device_stamp(struct cufab_team *team, u32 gpu,
				const struct cufab_team_who *who,
				unsigned long *stamp, unsigned long when)
{
	struct cufab_gpu_facts f;
	bool complete = false;
	int ret;

	if (cufab_gpu_facts(gpu, &f)) {
		cufab_team_info(who, team, "gpu %u: no such device (node has %u GPUs)\n",
				gpu, cufab_node_num_gpus());
		return -ENODEV;
	}
	ret = cufab_health_check(team->name, "adding a device");
	if (ret)
		return ret;
	mutex_lock(&team->lock);
	if (team->broken) {
		cufab_team_info(who, team, "gpu %u: the team is broken (%d): a member's node was lost\n",
				gpu, team->broken);
		ret = team->broken;
	} else if (team->devs & BIT_ULL(gpu)) {
		cufab_team_info(who, team, "gpu %u: already a device of the team\n",
				gpu);
		ret = -EEXIST;
	} else if (team->joined == team->size) {
		cufab_team_info(who, team, "gpu %u: the team is complete (%u of %u devices)\n",
				gpu, team->joined, team->size);
		ret = -ENOSPC;
	} else if (team->clique >= 0 && f.clique != team->clique) {
		cufab_team_info(who, team, "gpu %u: clique %u differs from the team's clique %d\n",
				gpu, f.clique, team->clique);
		ret = -ENODEV;
	} else {
		if (team->clique < 0)
			team->clique = f.clique;
		if (stamp)
			WRITE_ONCE(*stamp, when);
		team->members[team->joined].gpu = gpu;
		team->members[team->joined].node = cufab_node.node_index;
		team->devs |= BIT_ULL(gpu);
		WRITE_ONCE(team->joined, team->joined + 1);
		complete = team->joined == team->size;
		trace_cufab_team_join(team, gpu);
		if (complete)
			trace_cufab_team_complete(team, gpu);
		ret = 0;
	}
	mutex_unlock(&team->lock);
	/*
	 * Most teams complete with nobody waiting (a unicast endpoint at
	 * create): no wait queue lock then. The barrier of wq_has_sleeper()
	 * pairs with the one a waiter sets its state with before it tests
	 * cufab_team_done().
	 */
	if (complete && wq_has_sleeper(&team->wq))
		wake_up_all(&team->wq);
	return ret;
}

/* Complete, or broken: either ends a wait. */
static bool cufab_team_done(struct cufab_team *team)
{
	return READ_ONCE(team->joined) == team->size ||
	       READ_ONCE(team->broken);
}

bool cufab_team_complete(struct cufab_team *team)
{
	bool done;

	mutex_lock(&team->lock);
	done = team->joined == team->size;
	mutex_unlock(&team->lock);
	return done;
}

bool cufab_team_has(struct cufab_team *team, u32 gpu)
{
	bool has;

	if (gpu >= CUFAB_MAX_GPUS)
		return false;
	mutex_lock(&team->lock);
	has = team->devs & BIT_ULL(gpu);
	mutex_unlock(&team->lock);
	return has;
}

/* Context: team->lock held. */
static int cufab_team_describe_locked(struct cufab_team *team, char *buf,
				      size_t len)
{
	const char *sep = "";
	int n;
	u32 gpu;

	lockdep_assert_held(&team->lock);
	n = scnprintf(buf, len, "%u of %u devices (", team->joined,
		      team->size);
	for (gpu = 0; gpu < CUFAB_MAX_GPUS; gpu++) {
		if (!(team->devs & BIT_ULL(gpu)))
			continue;
		n += scnprintf(buf + n, len - n, "%sgpu%u", sep, gpu);
		sep = ",";
	}
	for (gpu = 0; gpu < team->joined; gpu++) {
		if (cufab_team_member_local(&team->members[gpu]))
			continue;
		n += scnprintf(buf + n, len - n, "%snode%u/gpu%u", sep,
			       team->members[gpu].node,
			       team->members[gpu].gpu);
		sep = ",";
	}
	n += scnprintf(buf + n, len - n, ")");
	return n;
}

int cufab_team_describe(struct cufab_team *team, char *buf, size_t len)
{
	int n;

	mutex_lock(&team->lock);
	n = cufab_team_describe_locked(team, buf, len);
	mutex_unlock(&team->lock);
	return n;
}

/* Fits "64 of 64 devices (node1023/gpu63,...)". */
#define CUFAB_TEAM_DESC_LEN	(32 + CUFAB_MAX_GPUS * 16)

/*
 * The GPUs that could still join: not members and, once the team has a
 * clique, in it. Appended to @buf as "gpu1,gpu3" ("none" if no GPU can).
 */
static void cufab_team_describe_missing(u64 devs, s32 team_clique, char *buf,
					size_t len)
{
	u32 gpu, n = cufab_node_num_gpus();
	struct cufab_gpu_facts f;
	const char *sep = "";
	int at = 0;

	for (gpu = 0; gpu < n && gpu < CUFAB_MAX_GPUS; gpu++) {
		if ((devs & BIT_ULL(gpu)) ||
		    cufab_gpu_facts(gpu, &f) ||
		    (team_clique >= 0 && f.clique != team_clique))
			continue;
		at += scnprintf(buf + at, len - at, "%sgpu%u", sep, gpu);
		sep = ",";
	}
	if (!at)
		scnprintf(buf, len, "none");
}

/*
 * One line naming what the waiter waits for: the members so far, how many
 * are missing and which GPUs could still be added.
 */
static void cufab_team_log_wait(struct cufab_team *team, unsigned int ms,
				const char *what, const char *state)
{
	char *desc = kmalloc(2 * CUFAB_TEAM_DESC_LEN, GFP_KERNEL);
	s32 clique;
	u32 missing;
	u64 devs;

	if (!desc) {
		pr_info_ratelimited("%s: %s %s after %u ms for the team\n",
				    team->name, what, state, ms);
		return;
	}
	mutex_lock(&team->lock);
	missing = team->size - team->joined;
	devs = team->devs;
	clique = team->clique;
	cufab_team_describe_locked(team, desc, CUFAB_TEAM_DESC_LEN);
	mutex_unlock(&team->lock);
	cufab_team_describe_missing(devs, clique, desc + CUFAB_TEAM_DESC_LEN,
				    CUFAB_TEAM_DESC_LEN);
	pr_info_ratelimited("%s: %s %s after %u ms for the team: %s, missing %u; not added yet: %s\n",
			    team->name, what, state, ms, desc, missing,
			    desc + CUFAB_TEAM_DESC_LEN);
	kfree(desc);
}

/* How often a bind or map still waiting for its team says so. */
#define CUFAB_TEAM_WAIT_LOG_MS	5000

int cufab_team_wait(struct cufab_team *team, unsigned int timeout_ms,
		    const char *what)
{
	unsigned int waited = 0, slice;
	long left;
	int ret;

	mutex_lock(&team->lock);
	if (team->broken || team->joined == team->size) {
		ret = team->broken;
		mutex_unlock(&team->lock);
		return ret;
	}
	team->waiters++;
	mutex_unlock(&team->lock);

	/* CUDA waits without limit: timeout_ms 0 does too, saying so */
	for (;;) {
		slice = CUFAB_TEAM_WAIT_LOG_MS;
		if (timeout_ms && timeout_ms - waited < slice)
			slice = timeout_ms - waited;
		left = wait_event_interruptible_timeout(team->wq,
							cufab_team_done(team),
							msecs_to_jiffies(slice));
		if (left) {
			ret = left > 0 ? 0 : (int)left;
			break;
		}
		waited += slice;
		if (timeout_ms && waited >= timeout_ms) {
			ret = -ETIMEDOUT;
			break;
		}
		cufab_team_log_wait(team, waited, what, "still waiting");
	}

	mutex_lock(&team->lock);
	team->waiters--;
	if (!ret && team->broken)
		ret = team->broken;
	mutex_unlock(&team->lock);
	if (ret && ret != -ETIMEDOUT && ret != -ERESTARTSYS)
		pr_info_ratelimited("%s: %s: the team is broken (%d): a member's node was lost\n",
				    team->name, what, ret);
	if (ret == -ETIMEDOUT)
		cufab_team_log_wait(team, waited, what, "gave up");
	return ret;
}

/* Is [off, off + size) inside [0, limit)? Overflow-safe. */
static bool cufab_team_fits(u64 off, u64 size, u64 limit)
{
	return size <= limit && off <= limit - size;
}

/*
 * Membership is checked first, so a refusal names the rule that matters:
 * it is permanent, so a member found here is still one under the lock.
 */
static int cufab_team_check_member(struct cufab_team *team, u32 gpu,
				   const struct cufab_team_who *who)
{
	if (cufab_team_has(team, gpu))
		return 0;
	cufab_team_info(who, team, "gpu %u: not a device of the team\n",
			gpu);
	return -EINVAL;
}

/* Arguments that need no lock: the team's size and alignment are fixed. */
static int cufab_team_check_span(struct cufab_team *team, u32 gpu, u64 offset,
				 u64 size, const struct cufab_team_who *who)
{
	if (!size) {
		cufab_team_info(who, team, "gpu %u: size 0 at offset 0x%llx: a bind must have a size\n",
				gpu, offset);
		return -EINVAL;
	}
	if (!IS_ALIGNED(offset, team->align) || !IS_ALIGNED(size, team->align)) {
		cufab_team_info(who, team, "gpu %u: offset 0x%llx or size 0x%llx is not a multiple of the alignment 0x%llx\n",
				gpu, offset, size, team->align);
		return -EINVAL;
	}
	if (!cufab_team_fits(offset, size, team->length)) {
		cufab_team_info(who, team, "gpu %u: [0x%llx, +0x%llx) runs past the object's size 0x%llx\n",
				gpu, offset, size, team->length);
		return -EINVAL;
	}
	return 0;
}

/* Is @alloc memory GPU @gpu may have bound on it? */
static int cufab_team_check_location(struct cufab_team *team,
				     const struct cufab_bind_req *req)
{
	const struct cufab_alloc *alloc = req->alloc;
	struct cufab_gpu_facts f = { .numa_node = NUMA_NO_NODE };

	if (!cufab_alloc_has(alloc, CUFAB_ALLOC_BINDABLE) ||
	    (alloc->location_type != CUFAB_LOC_DEVICE &&
			      alloc->location_type != CUFAB_LOC_HOST_NUMA)) {
		cufab_team_info(req->who, team, "gpu %u: allocation %llu: memory must come from cuMemCreate (device or host NUMA)\n",
				req->gpu, alloc->id);
		return -EINVAL;
	}
	if (alloc->location_type == CUFAB_LOC_DEVICE) {
		if (alloc->location_id == req->gpu)
			return 0;
		cufab_team_info(req->who, team, "gpu %u: allocation %llu is device memory of gpu %d, not of the bound device\n",
				req->gpu, alloc->id, alloc->location_id);
		return -EINVAL;
	}
	if (cufab_gpu_facts(req->gpu, &f) ||
	    alloc->location_id != f.numa_node) {
		cufab_team_info(req->who, team, "gpu %u: allocation %llu is on host NUMA node %d, not the device's node %d\n",
				req->gpu, alloc->id, alloc->location_id,
				f.numa_node);
		return -EINVAL;
	}
	return 0;
}

static int cufab_team_check_bind(struct cufab_team *team,
				 const struct cufab_bind_req *req)
{
	int ret;

	ret = cufab_team_check_member(team, req->gpu, req->who);
	if (ret)
		return ret;
	ret = cufab_team_check_span(team, req->gpu, req->offset, req->size,
				    req->who);
	if (ret)
		return ret;
	if (!IS_ALIGNED(req->mem_offset, team->align)) {
		cufab_team_info(req->who, team, "gpu %u: memory offset 0x%llx is not a multiple of the alignment 0x%llx\n",
				req->gpu, req->mem_offset, team->align);
		return -EINVAL;
	}
	if (!cufab_team_fits(req->mem_offset, req->size, req->alloc->length)) {
		cufab_team_info(req->who, team, "gpu %u: memory [0x%llx, +0x%llx) runs past allocation %llu of 0x%llx bytes\n",
				req->gpu, req->mem_offset, req->size,
				req->alloc->id, req->alloc->length);
		return -EINVAL;
	}
	return cufab_team_check_location(team, req);
}

int cufab_team_bind(struct cufab_team *team, const struct cufab_bind_req *req)
{
	struct cufab_binding *b, *clash = NULL;
	struct cufab_team_member *m;
	int ret;

	ret = cufab_health_check(team->name, "bind");
	if (ret)
		return ret;
	ret = cufab_team_check_bind(team, req);
	if (ret)
		return ret;
	b = cufab_binding_new(req->offset, req->size, req->alloc,
			      req->mem_offset, req->owner, req->tag);
	if (!b)
		return -ENOMEM;

	mutex_lock(&team->lock);
	m = cufab_team_member(team, req->gpu);
	ret = team->broken ?: cufab_bindmap_insert(&m->map, b, &clash);
	if (!ret)
		trace_cufab_bind(team, req);
	if (ret == -EEXIST) {
		cufab_team_info(req->who, team, "gpu %u: [0x%llx, +0x%llx) overlaps the binding [0x%llx, +0x%llx)\n",
				req->gpu, req->offset, req->size, clash->offset,
				clash->size);
		ret = -EINVAL;
	}
	mutex_unlock(&team->lock);
	if (ret)
		cufab_binding_free(b);
	return ret;
}

static const char *cufab_unbind_rule(int err)
{
	switch (err) {
	case -ENOENT:
		return "no binding starts there";
	case -EPERM:
		return "a binding there belongs to another owner";
	default:
		return "the range is not exactly a run of whole bindings";
	}
}

int cufab_team_unbind(struct cufab_team *team, u32 gpu, u64 offset, u64 size,
		      const void *owner, const struct cufab_team_who *who)
{
	struct cufab_team_member *m;
	LIST_HEAD(freed);
	u64 bad = offset;
	int ret;

	ret = cufab_team_check_member(team, gpu, who);
	if (ret)
		return ret;
	ret = cufab_team_check_span(team, gpu, offset, size, who);
	if (ret)
		return ret;
	mutex_lock(&team->lock);
	m = cufab_team_member(team, gpu);
	ret = cufab_bindmap_remove_range(&m->map, offset, size, owner, &freed,
					 &bad);
	if (ret)
		cufab_team_info(who, team, "gpu %u: unbind [0x%llx, +0x%llx): at 0x%llx %s\n",
				gpu, offset, size, bad, cufab_unbind_rule(ret));
	else
		trace_cufab_unbind(team, gpu, offset, size, 1);
	mutex_unlock(&team->lock);
	cufab_bindings_free(&freed);
	return ret ? -EINVAL : 0;
}

u64 cufab_team_unbind_owner(struct cufab_team *team, const void *owner,
			    const void *tag)
{
	LIST_HEAD(freed);
	u64 n = 0;
	u32 i;

	mutex_lock(&team->lock);
	for (i = 0; i < team->joined; i++) {
		u64 gone = cufab_bindmap_remove_owner(&team->members[i].map,
						      owner, tag, &freed);

		if (gone)
			trace_cufab_unbind(team, team->members[i].gpu, 0, 0,
					   gone);
		n += gone;
	}
	mutex_unlock(&team->lock);
	cufab_bindings_free(&freed);
	return n;
}

u64 cufab_team_bindings(struct cufab_team *team)
{
	u64 n = 0;
	u32 i;

	mutex_lock(&team->lock);
	for (i = 0; i < team->joined; i++)
		n += team->members[i].map.count;
	mutex_unlock(&team->lock);
	return n;
}

u64 cufab_team_local_bindings(struct cufab_team *team)
{
	u64 n = 0;
	u32 i;

	mutex_lock(&team->lock);
	for (i = 0; i < team->joined; i++)
		if (cufab_team_member_local(&team->members[i]))
			n += team->members[i].map.count;
	mutex_unlock(&team->lock);
	return n;
}

/* Context: team->lock held. */
static int cufab_team_add_remote_locked(struct cufab_team *team, u16 node,
					u32 gpu, s32 clique)
{
	lockdep_assert_held(&team->lock);
	if (team->broken)
		return team->broken;
	if (cufab_team_member_at(team, node, gpu)) {
		cufab_team_info(NULL, team, "node %u gpu %u: already a device of the team\n",
				node, gpu);
		return -EEXIST;
	}
	if (team->joined == team->size) {
		cufab_team_info(NULL, team, "node %u gpu %u: the team is complete (%u of %u devices)\n",
				node, gpu, team->joined, team->size);
		return -ENOSPC;
	}
	if (team->clique >= 0 && clique != team->clique) {
		cufab_team_info(NULL, team, "node %u gpu %u: clique %d differs from the team's clique %d\n",
				node, gpu, clique, team->clique);
		return -ENODEV;
	}
	if (team->clique < 0)
		team->clique = clique;
	team->members[team->joined].gpu = gpu;
	team->members[team->joined].node = node;
	WRITE_ONCE(team->joined, team->joined + 1);
	return 0;
}

int cufab_team_add_remote(struct cufab_team *team, u16 node, u32 gpu,
			  s32 clique)
{
	bool complete;
	int ret;

	if (node == cufab_node.node_index || gpu >= CUFAB_MAX_GPUS)
		return -EINVAL;
	mutex_lock(&team->lock);
	ret = cufab_team_add_remote_locked(team, node, gpu, clique);
	complete = !ret && team->joined == team->size;
	mutex_unlock(&team->lock);
	if (complete && wq_has_sleeper(&team->wq))
		wake_up_all(&team->wq);
	return ret;
}

bool cufab_team_has_member(struct cufab_team *team, u16 node, u32 gpu)
{
	bool has;

	mutex_lock(&team->lock);
	has = cufab_team_member_at(team, node, gpu);
	mutex_unlock(&team->lock);
	return has;
}

int cufab_team_replace_bindings(struct cufab_team *team, u16 node, u32 gpu,
				struct list_head *bindings,
				struct list_head *old)
{
	struct cufab_binding *b, *tmp;
	struct cufab_team_member *m;

	mutex_lock(&team->lock);
	m = cufab_team_member_at(team, node, gpu);
	if (!m) {
		mutex_unlock(&team->lock);
		return -ENOENT;
	}
	cufab_bindmap_remove_all(&m->map, old);
	list_for_each_entry_safe(b, tmp, bindings, list) {
		if (team->broken || cufab_bindmap_insert(&m->map, b, NULL))
			continue;
		list_del_init(&b->list);
	}
	mutex_unlock(&team->lock);
	return 0;
}

u64 cufab_team_drop_node(struct cufab_team *team, u16 node,
			 struct list_head *old)
{
	u64 n = 0;
	u32 i;

	mutex_lock(&team->lock);
	for (i = 0; i < team->joined; i++) {
		if (team->members[i].node != node)
			continue;
		n += team->members[i].map.count;
		cufab_bindmap_remove_all(&team->members[i].map, old);
	}
	mutex_unlock(&team->lock);
	return n;
}

bool cufab_team_spans(struct cufab_team *team, u16 node)
{
	bool found = false;
	u32 i;

	mutex_lock(&team->lock);
	for (i = 0; i < team->joined && !found; i++)
		found = team->members[i].node == node;
	mutex_unlock(&team->lock);
	return found;
}

void cufab_team_break(struct cufab_team *team, int err)
{
	mutex_lock(&team->lock);
	if (!team->broken)
		WRITE_ONCE(team->broken, err);
	mutex_unlock(&team->lock);
	/* pairs with the barrier a waiter sets its state with */
	if (wq_has_sleeper(&team->wq))
		wake_up_all(&team->wq);
}
