#ifndef CTESTSUPPORT_H
#define CTESTSUPPORT_H

/// pipe2(2) with O_CLOEXEC: both ends close-on-exec from the moment they exist.
int test_pipe_cloexec(int fds[2]);

/// dup3(2) with O_CLOEXEC: `newfd` names what `oldfd` names, close-on-exec, in one step.
int test_dup_cloexec(int oldfd, int newfd);

#endif
