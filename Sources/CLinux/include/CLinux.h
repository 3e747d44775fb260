#ifndef PASSPORT_LINUX_H
#define PASSPORT_LINUX_H
// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not see.

/// unshare(CLONE_FILES): the calling thread gets a descriptor table of its own (a copy).
/// 0, or -1 with errno set (e.g. EPERM under a seccomp filter).
int passport_unshare_descriptors(void);

/// How many CPUs the calling thread may run on (its affinity mask), or -1.
int passport_cpus_allowed(void);

#endif
