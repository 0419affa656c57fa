/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CUFAB_DEBUGFS_H
#define _CUFAB_DEBUGFS_H

void cufab_debugfs_init(void);
void cufab_debugfs_exit(void);

#endif /* _CUFAB_DEBUGFS_H */
