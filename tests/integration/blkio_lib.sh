# Sourced by the tests that slow one loop device with the cgroup v1 blkio
# throttle: blkio_check (exit 77 where it does not work), blkio_throttle
# (a group that reads one device at a rate), blkio_cleanup (the group gone,
# its processes back in the root group, the loop devices listed in the file
# $1 detached).
blkio=/sys/fs/cgroup/blkio

blkio_check() {
    [ -w "$blkio" ] && [ -e "$blkio/blkio.throttle.read_bps_device" ] ||
        { echo "no cgroup v1 blkio throttling here"; exit 77; }
}

# blkio_throttle GROUP DEVICE BYTES_PER_S: makes GROUP, whose reads of DEVICE go at that rate
blkio_throttle() {
    mkdir "$1" || { echo "cannot make a blkio cgroup"; exit 77; }
    echo "$(cat "/sys/class/block/$(basename "$2")/dev") $3" > "$1/blkio.throttle.read_bps_device" ||
        { echo "cannot set a read throttle"; exit 77; }
}

# blkio_cleanup GROUP LOOPS_FILE
blkio_cleanup() {
    if [ -d "$1" ]; then
        while read -r p; do echo "$p" > "$blkio/cgroup.procs" 2> /dev/null; done < "$1/cgroup.procs"
        rmdir "$1" 2> /dev/null
    fi
    [ -f "$2" ] && while read -r l; do losetup -d "$l" 2> /dev/null; done < "$2"
}
