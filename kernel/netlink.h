/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CUFAB_NETLINK_H
#define _CUFAB_NETLINK_H

int cufab_nl_init(void);
void cufab_nl_exit(void);

struct netlink_callback;
struct sk_buff;
void *cufab_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);

#endif /* _CUFAB_NETLINK_H */
