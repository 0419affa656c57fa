/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IMEX channels: the capability that FABRIC handles are checked against.
 *
 * Like NVIDIA's nvidia-caps-imex-channels, the channels are the minors of
 * a bare char-device region named "cufab-imex-channels". A process proves
 * it may use channel N by opening /dev/cufab-imex-channels/channelN (Unix
 * permissions on the node are the access control) and handing the fd to
 * CUFAB_IOCTL_IMEX_SET_CHANNEL; the client then records N.
 */
#ifndef _CUFAB_IMEX_H
#define _CUFAB_IMEX_H

#include <linux/types.h>

struct cufab_client;
struct cufab_ucmd;

#define CUFAB_IMEX_REGION_NAME	"cufab-imex-channels"
#define CUFAB_IMEX_DIR		"/dev/cufab-imex-channels"
/* cufab_client.imex_channel when the client has none */
#define CUFAB_IMEX_NO_CHANNEL	(-1)

int cufab_imex_init(void);
void cufab_imex_exit(void);

int cufab_imex_channel(const struct cufab_client *client);
int cufab_imex_check(struct cufab_client *client, const char *what);
int cufab_ioctl_imex_set_channel(struct cufab_ucmd *ucmd);

unsigned int cufab_imex_major(void);
unsigned int cufab_imex_channel_count(void);

#endif /* _CUFAB_IMEX_H */
