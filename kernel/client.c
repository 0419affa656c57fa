// SPDX-License-Identifier: GPL-2.0
/*
 * Clients: open files of /dev/cufab.
 *
 * A client belongs to the thread group that opened it. Objects name
 * process-local things (its contexts, its endpoint id space), so another
 * process using the file, a forked child included, is refused (see
 * cufab_fops_ioctl()). Closing the last reference to the file,
 * whoever holds it, destroys everything the client held.
 *
 * The global client list lets debugfs show who is connected and lets the
 * topology be changed only while nobody is.
 *
 * Lock order: cufab_clients_lock -> cufab_topo_rwsem (device.c) ->
 * client->objects xa_lock (object.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "cufab.h"

static LIST_HEAD(cufab_clients);
static DEFINE_MUTEX(cufab_clients_lock);
static unsigned int cufab_nr_clients;

/*
 * The subsystems with state in every client. Each initialises its part at
 * open, in this order, and tears it down at close, in this order:
 *
 *   1. stream work (stream.c): queued operations are cancelled and running
 *      ones waited for, so nothing touches the client's memory or mm after
 *   2. multicast bindings the client made on any object (multicast.c): the teams
 *      belong to every process of the object and stay; only this client's
 *      bindings go, so the others keep theirs and can still multimem
 *   3. objects (object.c): contexts (with their peer links and cuMemAlloc
 *      ties), streams, events, memory handles; leaf first
 *   4. the stream space (stream.c): completion slots, empty by then
 *   5. logical endpoint aliases and the id space (le.c)
 *   6. VA reservations (va.c): empty by then, since each reservation's VMA
 *      holds the file until it is unmapped
 *   7. the CPU fence of managed memory (alloc_managed.c)
 *   8. registered host memory (alloc_hostreg.c): unpinned
 *
 * A new kind of per-client state is one more line here.
 */
static const struct cufab_client_part *const cufab_client_parts[] = {
	&cufab_stream_work_client_part,
	&cufab_mc_client_part,
	&cufab_object_client_part,
	&cufab_stream_space_client_part,
	&cufab_le_client_part,
	&cufab_va_client_part,
	&cufab_managed_client_part,
	&cufab_hostreg_client_part,
	&cufab_alloc_client_part,
	&cufab_pool_client_part,
};

/**
 * cufab_client_alloc() - a client for the calling process
 *
 * Return: the client, not yet on the client list, or ERR_PTR(-ENOMEM).
 */
struct cufab_client *cufab_client_alloc(void)
{
	struct cufab_client *client;
	unsigned int i;

	if (cufab_should_fail(CUFAB_FAULT_CLIENT_OPEN))
		return ERR_PTR(-ENOMEM);
	client = kzalloc(sizeof(*client), GFP_KERNEL_ACCOUNT);
	if (!client)
		return ERR_PTR(-ENOMEM);
	client->tgid = get_pid(task_tgid(current));
	get_task_comm(client->comm, current);
	INIT_LIST_HEAD(&client->node);
	client->imex_channel = CUFAB_IMEX_NO_CHANNEL;
	for (i = 0; i < ARRAY_SIZE(cufab_client_parts); i++)
		if (cufab_client_parts[i]->init)
			cufab_client_parts[i]->init(client);
	return client;
}

/* Everything the client holds, in the order of cufab_client_parts[]. */
static void cufab_client_teardown(struct cufab_client *client)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cufab_client_parts); i++)
		if (cufab_client_parts[i]->teardown)
			cufab_client_parts[i]->teardown(client);
}

static void cufab_client_release_self(struct cufab_client *client)
{
	put_pid(client->tgid);
	kfree(client);
}

/**
 * cufab_client_free() - destroy a client and everything it holds
 * @client: not on the client list
 */
void cufab_client_free(struct cufab_client *client)
{
	cufab_client_teardown(client);
	cufab_client_release_self(client);
}

void cufab_client_register(struct cufab_client *client)
{
	mutex_lock(&cufab_clients_lock);
	list_add_tail(&client->node, &cufab_clients);
	WRITE_ONCE(cufab_nr_clients, cufab_nr_clients + 1);
	mutex_unlock(&cufab_clients_lock);
}

void cufab_client_unregister(struct cufab_client *client)
{
	mutex_lock(&cufab_clients_lock);
	list_del_init(&client->node);
	WRITE_ONCE(cufab_nr_clients, cufab_nr_clients - 1);
	mutex_unlock(&cufab_clients_lock);
}

/* Is the caller the process that opened the client? */
bool cufab_client_is_owner(const struct cufab_client *client)
{
	return task_tgid(current) == client->tgid;
}

int cufab_fops_open(struct inode *inode, struct file *filp)
{
	struct cufab_client *client;
	int ret;

	ret = nonseekable_open(inode, filp);
	if (ret)
		return ret;
	client = cufab_client_alloc();
	if (IS_ERR(client))
		return PTR_ERR(client);
	cufab_client_register(client);
	client->file = filp;
	filp->private_data = client;
	return 0;
}

int cufab_fops_release(struct inode *inode, struct file *filp)
{
	struct cufab_client *client = filp->private_data;

	/*
	 * Torn down before the client leaves the list: the topology must
	 * not change while anything of it still refers to a GPU.
	 */
	cufab_client_teardown(client);
	cufab_client_unregister(client);
	cufab_client_release_self(client);
	return 0;
}

/**
 * cufab_clients_block() - keep clients out while the topology changes
 *
 * Return: 0 with no client open and opens blocked until
 * cufab_clients_unblock(), or -EBUSY while a client is open.
 */
int cufab_clients_block(void)
{
	mutex_lock(&cufab_clients_lock);
	if (cufab_nr_clients) {
		mutex_unlock(&cufab_clients_lock);
		return -EBUSY;
	}
	return 0;
}

void cufab_clients_unblock(void)
{
	mutex_unlock(&cufab_clients_lock);
}

unsigned int cufab_clients_count(void)
{
	return READ_ONCE(cufab_nr_clients);
}

static unsigned int cufab_client_nr_objects(struct cufab_client *client)
{
	struct cufab_object *obj;
	unsigned long index;
	unsigned int n = 0;

	/*
	 * One being built (users 0, object.c) is not counted yet. Under the
	 * table's lock: a destroy erases an object under it before freeing
	 * it, and xa_for_each() alone lets go of the entry it returns.
	 */
	xa_lock(&client->objects);
	xa_for_each(&client->objects, index, obj)
		n += !!refcount_read(&obj->users);
	xa_unlock(&client->objects);
	return n;
}

/**
 * cufab_clients_for_each() - call @fn on open clients, in open order
 * @skip: clients to pass over first (a netlink dump resuming)
 * @fn: stops the walk with a non-zero return, which is returned
 * @arg: for @fn
 *
 * @fn runs under cufab_clients_lock: a client cannot be freed meanwhile.
 */
int cufab_clients_for_each(unsigned long skip,
			   int (*fn)(struct cufab_client *client, void *arg),
			   void *arg)
{
	struct cufab_client *client;
	int ret = 0;

	mutex_lock(&cufab_clients_lock);
	list_for_each_entry(client, &cufab_clients, node) {
		if (skip) {
			skip--;
			continue;
		}
		ret = fn(client, arg);
		if (ret)
			break;
	}
	mutex_unlock(&cufab_clients_lock);
	return ret;
}

/**
 * cufab_clients_sync() - wait for every walk of the client list in progress
 *
 * A part whose state a walk reads through a pointer of the client (a dump,
 * a debugfs file) clears the pointer, calls this, then frees the state:
 * a walker holds cufab_clients_lock from reading the pointer until it is
 * done with what it points to, so after this no walker still uses it.
 * The same as synchronize_rcu(), with the walkers' mutex as the grace period.
 */
void cufab_clients_sync(void)
{
	mutex_lock(&cufab_clients_lock);
	mutex_unlock(&cufab_clients_lock);
}

/* debugfs "clients": "pid comm objects", one line per open client. */
void cufab_clients_show(struct seq_file *m)
{
	struct cufab_client *client;

	mutex_lock(&cufab_clients_lock);
	list_for_each_entry(client, &cufab_clients, node)
		seq_printf(m, "%d %s %u\n", pid_nr(client->tgid), client->comm,
			   cufab_client_nr_objects(client));
	mutex_unlock(&cufab_clients_lock);
}
