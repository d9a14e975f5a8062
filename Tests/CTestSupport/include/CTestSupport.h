#ifndef CTESTSUPPORT_H
#define CTESTSUPPORT_H

#include <spawn.h>

/// pipe2(2) with O_CLOEXEC: both ends close-on-exec from the moment they exist.
int test_pipe_cloexec(int fds[2]);

/// dup3(2) with O_CLOEXEC: `newfd` names what `oldfd` names, close-on-exec, in one step.
int test_dup_cloexec(int oldfd, int newfd);

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor
/// from `from` up. Swift's Glibc module leaves it out (it is a GNU extension).
int test_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
