#ifndef CEVENTLOOP_H
#define CEVENTLOOP_H

#include <poll.h>

/// pidfd_open(2): a descriptor that becomes readable when process `pid` exits, close-on-exec
/// as every pidfd is. -1 with errno set on failure (ENOSYS where the kernel, or the headers
/// it was built with, lack it).
/// A system call Swift cannot make itself: `syscall` is variadic.
int taskline_pidfd_open(int pid);

/// poll(2) with a timeout in nanoseconds (ppoll, which Swift's Glibc module leaves out):
/// a loop timer a fraction of a millisecond away is waited for, not rounded up or spun on.
int taskline_poll_nanoseconds(struct pollfd *fds, nfds_t count, long long timeout);

/// pipe2(2) with O_CLOEXEC and `flags`: close-on-exec from the start, so that a process
/// another thread spawns meanwhile cannot inherit an end (Swift's Glibc module leaves it out).
int taskline_pipe_cloexec(int fds[2], int flags);

#endif
