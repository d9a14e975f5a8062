#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include "CTestSupport.h"

int test_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int test_dup_cloexec(int oldfd, int newfd) {
    return dup3(oldfd, newfd, O_CLOEXEC);
}

int test_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
