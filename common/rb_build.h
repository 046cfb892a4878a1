/* Which build this is: the version from `git describe` (VERSION-COMMITS-gHASH
 * in a tree without a release tag, "-dirty" with changes not committed), the
 * release number in a tarball, or what the package set. It is in --version,
 * every HELLO, summary.json's nodes[].build, report.txt and the Prometheus
 * rackbench_build_info, so that a figure says which build measured it. */
#ifndef RB_BUILD_H
#define RB_BUILD_H

/* "0.1.0-412-g9e84c3ac98", "0.2.0", ...: at most RB_BUILD_MAX - 1 bytes. */
const char *rb_build_id(void);

#define RB_BUILD_MAX 64

#endif
