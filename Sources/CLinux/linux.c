#define _GNU_SOURCE
#include <sched.h>
#include "CLinux.h"

int passport_unshare_descriptors(void) { return unshare(CLONE_FILES); }

int passport_cpus_allowed(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}
