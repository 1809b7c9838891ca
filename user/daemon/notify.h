/* SPDX-License-Identifier: GPL-2.0 */
/*
 * systemd integration without libsystemd: sd_notify(3)'s datagram to
 * $NOTIFY_SOCKET ("READY=1", "RELOADING=1", "STOPPING=1", "STATUS=..."),
 * and whether stderr is the journal (sd_journal_stream_fd: $JOURNAL_STREAM
 * names stderr's device and inode), in which case log lines carry the
 * kernel-style "<N>" priority prefix the journal reads (sd-daemon(3)).
 */
#ifndef GP_NOTIFY_H
#define GP_NOTIFY_H

#include <stdbool.h>

/*
 * Send state to $NOTIFY_SOCKET (a path, or "@name" for the abstract
 * namespace). 1 sent, 0 no $NOTIFY_SOCKET (not under systemd), -errno.
 * Never blocks (MSG_DONTWAIT): a full queue loses the message, not time.
 */
int notify_send(const char *state);

/* Is fd 2 the journal's stream ($JOURNAL_STREAM = "dev:ino" of it)? */
bool notify_stderr_is_journal(void);

#endif
