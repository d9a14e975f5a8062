#define _GNU_SOURCE
#include "CEventLoop.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int taskline_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int taskline_poll_nanoseconds(struct pollfd *fds, nfds_t count, long long timeout) {
    struct timespec spec = { .tv_sec = timeout / 1000000000, .tv_nsec = timeout % 1000000000 };
    return ppoll(fds, count, &spec, NULL);
}

int taskline_pipe_cloexec(int fds[2], int flags) {
    return pipe2(fds, O_CLOEXEC | flags);
}
