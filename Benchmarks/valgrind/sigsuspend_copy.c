/*
 * Preloaded into `authflow serve` when it runs under valgrind (Benchmarks/callgrind.sh).
 *
 * Swift's async `main` parks the main thread in libdispatch's dispatch_main(), which calls
 * sigsuspend() with a mask in read-only memory (a `static const sigset_t`). Valgrind 3.19 (Debian 12)
 * writes into the mask it is given before the system call, faults, and aborts ("the 'impossible'
 * happened"). This sigsuspend() hands the kernel a writable copy of the same mask; the behaviour is
 * otherwise unchanged.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
