// Small shims over glibc's posix_spawn extensions and wait-status macros, for the test-support
// library's ChildProcess (used by test targets only).
#ifndef AF_CHILD_PROCESS_H
#define AF_CHILD_PROCESS_H

#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>

/// Adds "chdir(path)" to the child's file actions (glibc >= 2.29); returns 0 or an errno value.
int af_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// Adds "close every descriptor >= from" to the child's file actions (glibc >= 2.34); returns 0 or an errno value.
int af_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int from);

/// pipe2(fds, O_CLOEXEC): both ends close on exec, so no other child inherits them; 0 or -1 with errno set.
int af_pipe_cloexec(int fds[2]);

/// Sets O_NONBLOCK on `fd` (only this open file description); returns 0 or -1 with errno set.
int af_set_nonblocking(int fd);

/// write(2) that reports a closed pipe as EPIPE instead of raising SIGPIPE in the process.
ssize_t af_write_nosigpipe(int fd, const void *buffer, size_t count);

/// The calling process's environment block.
char *const *af_environ(void);

/// pidfd_open(2): a descriptor that polls readable when `pid` exits; -1 with errno set when unsupported.
int af_pidfd_open(pid_t pid);

/// WIFEXITED / WEXITSTATUS / WIFSIGNALED / WTERMSIG.
int af_wifexited(int status);
int af_wexitstatus(int status);
int af_wifsignaled(int status);
int af_wtermsig(int status);

#endif
