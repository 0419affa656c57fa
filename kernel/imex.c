// SPDX-License-Identifier: GPL-2.0
/*
 * IMEX channels, modelled on NVIDIA's nvidia-caps-imex-channels.
 *
 * The channels are nothing but the minors of a char-device region named
 * "cufab-imex-channels" (see /proc/devices). Opening a channel node does
 * nothing; what matters is that the opener could open it: the node's Unix
 * permissions are the access control, set by the administrator who
 * creates the nodes (mknod /dev/cufab-imex-channels/channelN c MAJOR N).
 * Only with create_imex_channel0=1 does the module create channel0 itself,
 * root-only (0600), through devtmpfs.
 *
 * A client presents an open channel fd with CUFAB_IOCTL_IMEX_SET_CHANNEL;
 * the kernel accepts only a file of this region (its f_op is ours) and
 * records the minor. FABRIC create/export/import then check it (share.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/cufab.h>

#include "cufab.h"

static unsigned int imex_channel_count = 2048;
module_param(imex_channel_count, uint, 0444);
MODULE_PARM_DESC(imex_channel_count,
		 "Number of IMEX channels (minors of cufab-imex-channels), 0 disables FABRIC handles (default 2048)");

static bool create_imex_channel0;
module_param(create_imex_channel0, bool, 0444);
MODULE_PARM_DESC(create_imex_channel0,
		 "Create /dev/cufab-imex-channels/channel0 (mode 0600, root only) at load; otherwise the administrator creates channel nodes (default N)");

/* A char-device region has at most MINORMASK + 1 minors. */
#define CUFAB_IMEX_MAX_CHANNELS	(MINORMASK + 1)

static dev_t cufab_imex_devt;
static struct cdev cufab_imex_cdev;
static struct class *cufab_imex_class;
static bool cufab_imex_cdev_added;

/*
 * Opening and closing a channel does nothing: the open itself, allowed by
 * the node's permissions, is the capability. The fops are still ours so
 * that IMEX_SET_CHANNEL can tell a channel from any other file.
 */
static const struct file_operations cufab_imex_fops = {
	.owner = THIS_MODULE,
	.llseek = noop_llseek,
};

unsigned int cufab_imex_major(void)
{
	return MAJOR(cufab_imex_devt);
}

unsigned int cufab_imex_channel_count(void)
{
	return cufab_imex_devt ? imex_channel_count : 0;
}

/* Root only: NVIDIA leaves channel access to the administrator too. */
static char *cufab_imex_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

static int cufab_imex_create_channel0(void)
{
	struct device *dev;

	cufab_imex_class = class_create(THIS_MODULE, CUFAB_IMEX_REGION_NAME);
	if (IS_ERR(cufab_imex_class))
		return PTR_ERR(cufab_imex_class);
	cufab_imex_class->devnode = cufab_imex_devnode;
	/* '!' becomes '/': devtmpfs creates the directory for us. */
	dev = device_create(cufab_imex_class, NULL, MKDEV(cufab_imex_major(), 0),
			    NULL, CUFAB_IMEX_REGION_NAME "!channel0");
	if (IS_ERR(dev)) {
		class_destroy(cufab_imex_class);
		cufab_imex_class = NULL;
		return PTR_ERR(dev);
	}
	return 0;
}

static void cufab_imex_destroy_channel0(void)
{
	if (!cufab_imex_class)
		return;
	device_destroy(cufab_imex_class, MKDEV(cufab_imex_major(), 0));
	class_destroy(cufab_imex_class);
	cufab_imex_class = NULL;
}

/**
 * cufab_imex_init() - register the channel region (and maybe channel0)
 *
 * Return: 0 (also when disabled by imex_channel_count=0) or -errno.
 */
int cufab_imex_init(void)
{
	int ret;

	if (!imex_channel_count) {
		pr_info("IMEX channels disabled (imex_channel_count=0): FABRIC handles are not permitted\n");
		return 0;
	}
	if (imex_channel_count > CUFAB_IMEX_MAX_CHANNELS) {
		pr_err("imex_channel_count=%u: at most %u channels (minors) exist\n",
		       imex_channel_count, CUFAB_IMEX_MAX_CHANNELS);
		return -EINVAL;
	}
	ret = alloc_chrdev_region(&cufab_imex_devt, 0, imex_channel_count,
				  CUFAB_IMEX_REGION_NAME);
	if (ret)
		return ret;
	cdev_init(&cufab_imex_cdev, &cufab_imex_fops);
	cufab_imex_cdev.owner = THIS_MODULE;
	ret = cdev_add(&cufab_imex_cdev, cufab_imex_devt, imex_channel_count);
	if (ret)
		goto err_region;
	cufab_imex_cdev_added = true;
	if (create_imex_channel0) {
		ret = cufab_imex_create_channel0();
		if (ret) {
			pr_err("cannot create %s/channel0: %d\n",
			       CUFAB_IMEX_DIR, ret);
			goto err_cdev;
		}
	}
	return 0;

err_cdev:
	cdev_del(&cufab_imex_cdev);
	cufab_imex_cdev_added = false;
err_region:
	unregister_chrdev_region(cufab_imex_devt, imex_channel_count);
	cufab_imex_devt = 0;
	return ret;
}

void cufab_imex_exit(void)
{
	if (!cufab_imex_devt)
		return;
	cufab_imex_destroy_channel0();
	if (cufab_imex_cdev_added)
		cdev_del(&cufab_imex_cdev);
	cufab_imex_cdev_added = false;
	unregister_chrdev_region(cufab_imex_devt, imex_channel_count);
	cufab_imex_devt = 0;
}

/**
 * cufab_imex_channel() - the channel a client presented
 * @client: any client
 *
 * Return: the channel (minor) or CUFAB_IMEX_NO_CHANNEL.
 */
int cufab_imex_channel(const struct cufab_client *client)
{
	return READ_ONCE(client->imex_channel);
}

/**
 * cufab_imex_check() - may this client use FABRIC handles?
 * @client: the caller
 * @what: the cu* call, for the log line ("cuMemCreate")
 *
 * Logs once per client what the administrator or user has to do, since
 * a bare CUDA_ERROR_NOT_PERMITTED is otherwise a riddle.
 *
 * Return: 0 when the client has an IMEX channel, else -EPERM.
 */
int cufab_imex_check(struct cufab_client *client, const char *what)
{
	if (cufab_imex_channel(client) != CUFAB_IMEX_NO_CHANNEL)
		return 0;
	if (test_and_set_bit(CUFAB_CLIENT_IMEX_WARNED, &client->imex_flags))
		return -EPERM;
	if (!cufab_imex_channel_count())
		pr_warn("pid %d (%s): %s: handle type FABRIC: needs an IMEX channel, but IMEX channels are disabled (imex_channel_count=0)\n",
			pid_nr(client->tgid), client->comm, what);
	else
		pr_warn("pid %d (%s): %s: handle type FABRIC: needs an IMEX channel: open %s/channelN (major %u) first; no channel recorded (root makes one: a line in /etc/cufab/imex-channels, then cufab-imex-channels; or mknod %s/channel0 c %u 0; or load with create_imex_channel0=1)\n",
			pid_nr(client->tgid), client->comm, what,
			CUFAB_IMEX_DIR, cufab_imex_major(), CUFAB_IMEX_DIR,
			cufab_imex_major());
	return -EPERM;
}

/* The channel of an open file of our region, or -EINVAL. */
static int cufab_imex_channel_of_fd(int fd)
{
	struct file *file;
	int channel;

	file = fget(fd);
	if (!file)
		return -EBADF;
	if (file->f_op != &cufab_imex_fops) {
		pr_warn_ratelimited("pid %d (%s): fd %d is not a cufab IMEX channel node (%s/channelN, major %u)\n",
				    task_tgid_nr(current), current->comm, fd,
				    CUFAB_IMEX_DIR, cufab_imex_major());
		channel = -EINVAL;
	} else {
		channel = iminor(file_inode(file));
	}
	fput(file);
	return channel;
}

/**
 * cufab_ioctl_imex_set_channel() - CUFAB_IOCTL_IMEX_SET_CHANNEL
 * @ucmd: struct cufab_imex_set_channel; fd -1 clears the channel
 *
 * Return: 0, -EBADF for a bad fd, -EINVAL for a file that is no channel.
 */
int cufab_ioctl_imex_set_channel(struct cufab_ucmd *ucmd)
{
	struct cufab_imex_set_channel *cmd = ucmd->cmd;
	int channel = CUFAB_IMEX_NO_CHANNEL;

	if (cmd->flags)
		return -EINVAL;
	if (cmd->fd != -1) {
		channel = cufab_imex_channel_of_fd(cmd->fd);
		if (channel < 0)
			return channel;
	}
	WRITE_ONCE(ucmd->client->imex_channel, channel);
	cmd->out_channel = channel;
	return cufab_ucmd_respond(ucmd, sizeof(*cmd));
}
