/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ready files ("--ready FILE", "--ready-file FILE"): this process's pid
 * and a newline, written whole (a waiter never sees half a file) and
 * never through a symlink planted at FILE or at FILE.tmp.
 */
#ifndef GP_PIDFILE_H
#define GP_PIDFILE_H

/* 0, or -errno (errno is set too). */
int pidfile_write(const char *path);

#endif
