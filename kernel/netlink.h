/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CUFAB_NETLINK_H
#define _CUFAB_NETLINK_H

#include <linux/types.h>

struct cufab_binding;
struct cufab_team;
struct netlink_callback;
struct sk_buff;

int cufab_nl_init(void);
void cufab_nl_exit(void);

/* For the dumps and events of other files (le_netlink.c, mc_netlink.c). */
void *cufab_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);
int cufab_nl_dump_ret(struct sk_buff *skb, int ret);
int cufab_nl_put_team(struct sk_buff *skb, const struct cufab_team *team);
int cufab_nl_put_binding(struct sk_buff *skb, u32 gpu,
			 const struct cufab_binding *b);
bool cufab_nl_has_listeners(void);
void *cufab_nl_event_put(struct sk_buff *msg, u8 cmd);
void cufab_nl_event_send(struct sk_buff *msg);

/* mc_netlink.c */
int cufab_nl_mc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _CUFAB_NETLINK_H */
