/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CUFAB_NETLINK_H
#define _CUFAB_NETLINK_H

int cufab_nl_init(void);
void cufab_nl_exit(void);

#endif /* _CUFAB_NETLINK_H */
