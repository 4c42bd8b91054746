/*
 * Test-only wall-clock shift for a process under test, loaded with LD_PRELOAD.
 *
 * The end-to-end tests run `authflow serve` as a black box; to check expiries (sign-in state, session,
 * Apple notifications) without waiting, they move the server's wall clock forward. The offset in seconds
 * is an int64 (little-endian) at the start of the file named by AUTHFLOW_E2E_CLOCK_OFFSET_FILE, mapped
 * shared so that a write by the test is seen at once. Only CLOCK_REALTIME-based time moves; monotonic
 * clocks (timeouts, timers) are untouched. Without the variable, or if the file cannot be mapped, time
 * is not shifted.
 *
 * (libfaketime would do this too, but its constructor leaves Swift programs with an empty argv.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile const int64_t *offset_seconds;
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);

__attribute__((constructor)) static void clock_offset_init(void) {
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    const char *path = getenv("AUTHFLOW_E2E_CLOCK_OFFSET_FILE");
    if (path == NULL) return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    void *mapped = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (mapped != MAP_FAILED) offset_seconds = (volatile const int64_t *)mapped;
}

static int64_t current_offset(void) { return offset_seconds ? *offset_seconds : 0; }

static int is_wall_clock(clockid_t id) {
    return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE
#ifdef CLOCK_TAI
           || id == CLOCK_TAI
#endif
        ;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    if (real_clock_gettime == NULL) clock_offset_init();
    int result = real_clock_gettime(id, ts);
    if (result == 0 && is_wall_clock(id)) ts->tv_sec += current_offset();
    return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
    if (real_gettimeofday == NULL) clock_offset_init();
    int result = real_gettimeofday(tv, tz);
    if (result == 0) tv->tv_sec += current_offset();
    return result;
}

time_t time(time_t *out) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return (time_t)-1;
    if (out != NULL) *out = now.tv_sec;
    return now.tv_sec;
}
