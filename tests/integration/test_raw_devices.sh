#!/usr/bin/env bash
# Raw block devices on loop devices of the test's own (root only):
#  - a write and a read phase through `rackbench run --local 1` with the
#    agent's --allow-device: the bytes of summary.json are the sectors
#    /proc/diskstats counts for that loop device (writes exactly, reads
#    within the few blocks libblkid reads when the agent probes it);
#  - the same jobs through Debian's fio and rackbench: the same bytes, and
#    on each device of a filename= list the same sectors written;
#  - safety: a mounted device, one with an ext4 signature, one with a
#    partition table, one open exclusively elsewhere, one an md/dm holder
#    has (shown through a /sys of the test's own) and one not allowed are
#    each refused (exit 3) naming the node, the device and the reason, and
#    their sha256sum does not change; :wipe lets the ext4 one be written;
#    direct IO below the logical block size is refused; --list-devices says
#    all of it;
#  - filename=@devices writes numjobs workers' bytes on each allowed device
#    that is idle, and nothing on the others.
#   test_raw_devices.sh BIN_DIR SCRATCH
set -uo pipefail
. "$(dirname "$0")/it_lib.sh"
bin=$1
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop devices)"; exit 77; }
for t in losetup partx mkfs.ext4 sfdisk fio python3 sha256sum mount; do
    command -v $t > /dev/null || { echo "$t is not installed (deploy/setup.sh --test)"; exit 77; }
done
scratch=$2/raw-devices.$$
mkdir -p "$scratch"
holder=
writer=
# every loop device made is listed in $scratch/loops (mkloop runs in a subshell)
cleanup() {
    [ -n "$holder" ] && kill "$holder" 2> /dev/null && wait "$holder" 2> /dev/null
    [ -n "$writer" ] && kill "$writer" 2> /dev/null && wait "$writer" 2> /dev/null
    mountpoint -q "$scratch/mnt2" && umount "$scratch/mnt2"
    [ -n "${swapnode:-}" ] && rm -f "$swapnode"
    mountpoint -q "$scratch/mnt" && umount "$scratch/mnt"
    [ -f "$scratch/loops" ] && while read -r l; do losetup -d "$l" 2> /dev/null; done < "$scratch/loops"
    rm -rf "$scratch"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# a new loop device on a zeroed image of 64 MiB: its path (extra losetup options after NAME)
mkloop() {
    local img=$scratch/$1.img
    shift
    truncate -s 64M "$img"
    local l
    l=$(losetup --find --show --direct-io=on "$@" "$img") || { echo "losetup failed" >&2; exit 1; }
    echo "$l" >> "$scratch/loops"
    echo "$l"
}

# the device number of node $1, MAJOR:MINOR in decimal
devno() { stat -c '%t %T' "$1" | { read -r a b; echo "$((16#$a)):$((16#$b))"; }; }

# sectors read and written of a device, from /proc/diskstats
sectors() {
    awk -v n="$(basename "$1")" '$3 == n { print $6, $10 }' /proc/diskstats
}

# bytes read and written of the last run folder under $1 (summary.json, all phases)
rb_bytes() {
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
print(*(sum(x[d] for x in p) for d in ("read_bytes", "write_bytes")))' "$(ls -d "$1"/*/ | tail -1)/summary.json"
}

# bytes read and written of fio's JSON
fio_bytes() {
    python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"]
print(*(sum(x[d]["io_bytes"] for x in j) for d in ("read", "write")))' "$1"
}

# rackbench run of plan $1 with --local 1 and agent arguments $2..: exit code; output in $out
rb() {
    local plan=$1
    shift
    local args=()
    for a in "$@"; do args+=(--agent-arg "$a"); done
    out=$(timeout 120 "$bin/rackbench" run "$plan" --local 1 --quiet --out "$scratch/runs" "${args[@]}" 2>&1)
}

# a plan whose jobs have no directory: [global] gives the local agents' one, each job clears it
plan() {
    printf '[global]\ndirectory=%s\nioengine=libaio\ndirect=1\niodepth=4\n' "$scratch/root"
    printf '%b\n' "$1"
}

mib=1048576

# --list-devices output $1 against "DEVICE|READ|WRITE|REASON" lines $2..
listed() {
    local list=$1 e d r w reason line gr gw
    shift
    for e in "$@"; do
        IFS='|' read -r d r w reason <<< "$e"
        line=$(awk -v d="$d" '$1 == d' "$list")
        read -r _ _ _ _ _ gr gw _ <<< "$line" # SIZE is two words ("64.0 MiB")
        if [ -z "$line" ]; then
            bad "--list-devices has no line for $d"
        elif [ "$gr" != "$r" ] || [ "$gw" != "$w" ] || ! grep -qF "$reason" <<< "$line"; then
            bad "--list-devices $d: '$line', expected read $r write $w '$reason'"
        else
            ok "--list-devices: $line"
        fi
    done
}

# ---- bytes against /proc/diskstats ----
A=$(mkloop a) || exit 1
B=$(mkloop b) || exit 1 # not allowed: the agent does not even read it
plan "[w]\ndirectory=\nrw=write\nbs=64k\nfilename=$A\nstonewall\n[r]\ndirectory=\nrw=read\nbs=64k\nsize=32M\nfilename=$A\nstonewall" > "$scratch/rw.ini"
read -r r0 w0 <<< "$(sectors "$A")"
read -r br0 bw0 <<< "$(sectors "$B")"
rm -rf "$scratch/runs"
# allowed through a link to it, as /dev/disk/by-id/ names are: the real node counts
ln -s "$A" "$scratch/disk-a"
if rb "$scratch/rw.ini" "--allow-device=$scratch/disk-a"; then
    read -r r1 w1 <<< "$(sectors "$A")"
    read -r rr rw <<< "$(rb_bytes "$scratch/runs")"
    dr=$(((r1 - r0) * 512)) dw=$(((w1 - w0) * 512))
    if [ "$rw" != $((64 * mib)) ] || [ "$dw" != "$rw" ]; then
        bad "diskstats: wrote $rw bytes (the device's 64 MiB expected), diskstats says $dw"
    elif [ "$rr" != $((32 * mib)) ] || [ "$dr" -lt "$rr" ] || [ "$dr" -gt $((rr + 4 * mib)) ]; then
        bad "diskstats: read $rr bytes (32 MiB expected), diskstats says $dr"
    else
        ok "diskstats: wrote $rw bytes (the whole device) and read $rr, diskstats $dw and $dr"
    fi
    read -r br1 bw1 <<< "$(sectors "$B")"
    if [ "$br1" != "$br0" ] || [ "$bw1" != "$bw0" ]; then
        bad "diskstats: $B, not allowed, was read or written: sectors $br0/$bw0 before, $br1/$bw1 after"
    else
        ok "diskstats: $B, not allowed, not read for the inventory (no signature probe)"
    fi
else
    bad "raw write and read phases: $out"
fi

# ---- fio beside rackbench ----
B=$(mkloop b) || exit 1
C=$(mkloop c) || exit 1
# allowed by a glob over links to them (a glob of /dev/ would match other loop devices)
mkdir "$scratch/links" && ln -s "$A" "$scratch/links/disk-a" && ln -s "$B" "$scratch/links/disk-b" &&
    ln -s "$C" "$scratch/links/disk-c"
cases=(
  "whole-device|[j]\nrw=write\nbs=1M\nfilename=$A"
  "randread|[j]\nrw=randread\nbs=4k\nsize=8M\niodepth=8\nfilename=$A"
  "list-whole|[j]\nrw=write\nbs=64k\nfilename=$B:$C"
  "list-size|[j]\nrw=randwrite\nbs=4k\nsize=8M\nfilename=$B:$C"
  "list-numjobs|[j]\nrw=write\nbs=64k\nsize=4M\nnumjobs=2\nfilename=$B:$C"
  "offset|[j]\nrw=write\nbs=64k\noffset=16M\nfilename=$C"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name text <<< "$c"
    body=$(printf '%b' "$text")
    printf '[global]\nioengine=libaio\ndirect=1\niodepth=4\n%s\n' "$body" > "$scratch/$name.fio"
    plan "$(printf '%s' "$body" | sed 's/^\[j\]$/[j]\ndirectory=/')" > "$scratch/$name.ini"
    s0=$(for d in $A $B $C; do sectors $d; done | awk '{ print $2 }' | paste -sd' ')
    if ! timeout 120 fio $IT_FIO_FLAGS --output-format=json --output="$scratch/$name.json" "$scratch/$name.fio" > "$scratch/$name.out" 2>&1; then
        bad "$name: fio failed: $(cat "$scratch/$name.out")"; continue
    fi
    s1=$(for d in $A $B $C; do sectors $d; done | awk '{ print $2 }' | paste -sd' ')
    rm -rf "$scratch/runs"
    if ! rb "$scratch/$name.ini" "--allow-device=$scratch/links/disk-*"; then
        bad "$name: rackbench failed: $out"; continue
    fi
    s2=$(for d in $A $B $C; do sectors $d; done | awk '{ print $2 }' | paste -sd' ')
    fiod=$(python3 -c 'import sys; a, b = (list(map(int, s.split())) for s in sys.argv[1:3]); print(*(y - x for x, y in zip(a, b)))' "$s0" "$s1")
    rbd=$(python3 -c 'import sys; a, b = (list(map(int, s.split())) for s in sys.argv[1:3]); print(*(y - x for x, y in zip(a, b)))' "$s1" "$s2")
    read -r fr fw <<< "$(fio_bytes "$scratch/$name.json")"
    read -r rr rw <<< "$(rb_bytes "$scratch/runs")"
    if [ "$fr" != "$rr" ] || [ "$fw" != "$rw" ]; then
        bad "$name: fio read $fr written $fw, rackbench read $rr written $rw"
    elif [ "$fiod" != "$rbd" ]; then
        bad "$name: sectors written on $A $B $C: fio $fiod, rackbench $rbd"
    else
        ok "$name: read $rr written $rw, sectors written per device $rbd, as fio"
    fi
done

# ---- safety ----
M=$(mkloop mounted) || exit 1
S=$(mkloop signed) || exit 1
P=$(mkloop parted -P) || exit 1
N=$(mkloop notallowed) || exit 1
X=$(mkloop held) || exit 1
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$M" && mkdir -p "$scratch/mnt" &&
    mount -o ro "$M" "$scratch/mnt" || { bad "cannot mount $M"; }
mkfs.ext4 -q -F "$S"
printf 'label: dos\n,16M,L\n' | sfdisk -q "$P" > /dev/null 2>&1
# the kernel's partition (sysfs) even where no udev makes its /dev node
part=/sys/block/$(basename "$P")/$(basename "$P")p1
[ -e "$part" ] || partx -a "$P" 2> /dev/null
for i in $(seq 50); do [ -e "$part" ] && break; sleep 0.1; done
[ -e "$part" ] || bad "no partition $part after sfdisk"
python3 -c 'import os, sys, time; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(600)' "$X" > "$scratch/held" &
holder=$!
for i in $(seq 100); do grep -q held "$scratch/held" && break; sleep 0.05; done
allow=("--allow-device=$M" "--allow-device=$S" "--allow-device=$P" "--allow-device=$X")
declare -A why=([$M]="it is mounted (at $scratch/mnt)" [$S]="TYPE=ext4"
                [$P]="it has partitions ($(basename "$P")p1)"
                [$X]="open exclusively elsewhere" [$N]="not allowed on this agent")
for d in $M $S $P $X $N; do
    sum0=$(sha256sum < "$d")
    plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=1M\nfilename=$d" > "$scratch/w.ini"
    rb "$scratch/w.ini" "${allow[@]}"
    code=$?
    sum1=$(sha256sum < "$d")
    if [ $code != 3 ]; then
        bad "write on $d: exit $code, not 3: $out"
    elif ! grep -q "local-1" <<< "$out" || ! grep -qF "device $d" <<< "$out" ||
         ! grep -qF "${why[$d]}" <<< "$out"; then
        bad "write on $d: the refusal does not name the node, the device and '${why[$d]}': $out"
    elif [ "$sum0" != "$sum1" ]; then
        bad "write on $d: refused, but its sha256sum changed"
    else
        ok "write on $d refused: $(grep -m1 'refused' <<< "$out" | sed 's/^error: //')"
    fi
done
Q=$(mkloop fourk --sector-size 4096) || exit 1
# ---- --list-devices ----
timeout 30 "$bin/rackbench-agent" --list-devices "${allow[@]}" "--allow-device=$A" > "$scratch/list" 2>&1
# device | read | write | reason
expect=(
  "$A|yes|yes|"
  "$M|no|no|it is mounted"
  "$S|yes|no|TYPE=ext4"
  "$P|yes|no|it has partitions"
  "$X|no|no|open exclusively elsewhere"
  "$N|no|no|not allowed on this agent"
  "$Q|no|no|not allowed on this agent"
)
listed "$scratch/list" "${expect[@]}"
head -1 "$scratch/list" | grep -q "DEVICE.*SIZE.*READ.*WRITE.*REASON" || bad "--list-devices header: $(head -1 "$scratch/list")"

# a member of md, dm or LVM: this kernel has no device-mapper, so the
# holder is shown to the agent through a /sys of the test's own (--sys-root)
H=$(mkloop member) || exit 1
sys=$scratch/sys
mkdir -p "$sys/dev/block/$(devno "$H")/holders/dm-7" "$sys/class/block/$(basename "$H")"
hsum=$(sha256sum < "$H")
plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=1M\nfilename=$H" > "$scratch/h.ini"
rb "$scratch/h.ini" "--allow-device=$H:wipe" "--sys-root=$sys"
code=$?
if [ $code = 3 ] && grep -qF "device $H" <<< "$out" && grep -q "it is a member of dm-7 (md, dm or LVM" <<< "$out" &&
   [ "$(sha256sum < "$H")" = "$hsum" ]; then
    ok "write on $H, held by dm-7, refused even with :wipe, unchanged"
else
    bad "write on $H held by dm-7: exit $code: $out"
fi
line=$(timeout 30 "$bin/rackbench-agent" --list-devices --sys-root "$sys" "--allow-device=$H" | awk -v d="$H" '$1 == d')
if grep -q "no *no *it is a member of dm-7" <<< "$line"; then
    ok "--list-devices: $line"
else
    bad "--list-devices of $H held by dm-7: '$line'"
fi
# a dm volume whose member is the mounted $M: $H shown as dm-9 over $M
# through a /sys of the test's own, as the kernel lays it out
sys2=$scratch/sys2
mkdir -p "$sys2/block/dm-9/slaves" "$sys2/block/$(basename "$M")/holders" "$sys2/dev/block" "$sys2/class/block/$(basename "$H")"
devno "$H" > "$sys2/block/dm-9/dev"
devno "$M" > "$sys2/block/$(basename "$M")/dev"
ln -s "../../$(basename "$M")" "$sys2/block/dm-9/slaves/$(basename "$M")"
ln -s ../../dm-9 "$sys2/block/$(basename "$M")/holders/dm-9"
ln -s ../../block/dm-9 "$sys2/dev/block/$(devno "$H")"
ln -s "../../block/$(basename "$M")" "$sys2/dev/block/$(devno "$M")"
line=$(timeout 30 "$bin/rackbench-agent" --list-devices --sys-root "$sys2" "--allow-device=$H:wipe" | awk -v d="$H" '$1 == d')
if grep -qF "yes    no  its stack is in use: dm-9 -> $(basename "$M"), and $(basename "$M") is mounted at $scratch/mnt" <<< "$line"; then
    ok "--list-devices: a dm volume on the mounted $M: $line"
else
    bad "--list-devices of $H as dm-9 on the mounted $M: '$line'"
fi

# ---- the stack: what lies under and over a device, and who else writes it ----
# a loop device on the mounted $M past its superblock: writing it would
# destroy the mounted file system, though nothing holds it
K=$(losetup --find --show -o 1M "$M") && echo "$K" >> "$scratch/loops" || bad "losetup over $M"
# a loop device whose own loop device is mounted, one that shares the
# mounted $M's image, one another program has open for writing
V=$(mkloop under) || exit 1
O=$(losetup --find --show "$V") && echo "$O" >> "$scratch/loops" || bad "losetup over $V"
mkfs.ext4 -q -F "$O" && mkdir -p "$scratch/mnt2" && mount -o ro "$O" "$scratch/mnt2" || bad "cannot mount $O"
G=$(losetup --find --show "$scratch/mounted.img") && echo "$G" >> "$scratch/loops" || bad "losetup on $M's image"
Wr=$(mkloop written) || exit 1
python3 -c 'import os, sys, time; os.open(sys.argv[1], os.O_RDWR); print("writing", flush=True); time.sleep(600)' "$Wr" > "$scratch/writer" &
writer=$!
for i in $(seq 100); do grep -q writing "$scratch/writer" && break; sleep 0.05; done
ksum=$(sha256sum < "$K") msum=$(sha256sum < "$M")
plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=1M\nfilename=$K" > "$scratch/k.ini"
rb "$scratch/k.ini" "--allow-device=$K:wipe"
code=$?
kn=$(basename "$K") mn=$(basename "$M")
if [ $code = 3 ] && grep -qF "device $K" <<< "$out" &&
   grep -qF "its stack is in use: $kn -> $mn, and $mn is mounted at $scratch/mnt" <<< "$out" &&
   [ "$(sha256sum < "$K")" = "$ksum" ] && [ "$(sha256sum < "$M")" = "$msum" ]; then
    ok "write on $K (on the mounted $M) refused even with :wipe, both unchanged"
else
    bad "write on $K, a loop device on the mounted $M: exit $code: $out"
fi
plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=1M\nfilename=$Wr" > "$scratch/wr.ini"
wsum=$(sha256sum < "$Wr")
rb "$scratch/wr.ini" "--allow-device=$Wr"
code=$?
if [ $code = 3 ] && grep -qF "it is open for writing by process $writer (python3)" <<< "$out" &&
   [ "$(sha256sum < "$Wr")" = "$wsum" ]; then
    ok "write on $Wr, open for writing by process $writer, refused, unchanged"
else
    bad "write on $Wr open for writing elsewhere: exit $code: $out"
fi
timeout 30 "$bin/rackbench-agent" --list-devices "--allow-device=$K" "--allow-device=$V" \
    "--allow-device=$G" "--allow-device=$Wr" "--allow-device=$scratch/links/disk-*" > "$scratch/list2" 2>&1
timeout 30 "$bin/rackbench-agent" --list-devices "--allow-device=$Wr" --allow-open-writers > "$scratch/list3" 2>&1
vn=$(basename "$V") on=$(basename "$O") gn=$(basename "$G")
expect=(
  "$K|yes|no|its stack is in use: $kn -> $mn, and $mn is mounted at $scratch/mnt"
  "$V|yes|no|its stack is in use: $on -> $vn, and $on is mounted at $scratch/mnt2"
  "$G|yes|no|its stack is in use: $gn -> $scratch/mounted.img <- $mn, and $mn is mounted at $scratch/mnt"
  "$Wr|yes|no|it is open for writing by process $writer (python3)"
)
listed "$scratch/list2" "${expect[@]}"
if grep -qE "^$Wr +.* yes +yes +yes" "$scratch/list3" &&
   grep -qF -- "--allow-device $scratch/links/disk-* matches 3 block devices" "$scratch/list2"; then
    ok "--allow-open-writers lets $Wr be written; a pattern says how many devices it matches"
else
    bad "--allow-open-writers or the pattern count: $(grep "$Wr" "$scratch/list3"); $(grep -- '--allow-device' "$scratch/list2")"
fi
# an agent that may not read other processes' open files (no root, no
# CAP_SYS_PTRACE): it cannot know who writes a disk, and says so rather than
# call the disk free; --allow-open-writers still allows it
if command -v setpriv > /dev/null; then
    nobody=(setpriv --reuid=65534 --regid="$(getent group disk | cut -d: -f3)" --clear-groups
            --inh-caps=-all --bounding-set=-all)
    # the disk group may open it, as udev's rules make it on Debian; where
    # nothing applies them (a machine without udev), devtmpfs leaves the node
    # root's alone: this test's own device is given to the group for the case
    a_mode=$(stat -c %a "$A") a_group=$(stat -c %g "$A")
    chgrp disk "$A" && chmod g+rw "$A"
    "${nobody[@]}" "$bin/rackbench-agent" --list-devices "--allow-device=$A" > "$scratch/list4" 2>&1
    "${nobody[@]}" "$bin/rackbench-agent" --list-devices "--allow-device=$A" --allow-open-writers \
        > "$scratch/list5" 2>&1
    if grep -qE "^$A +.* no +whether another program writes it is unknown: the open files of [0-9]+ other process" "$scratch/list4" &&
       grep -qE "^$A +.* yes +yes +yes" "$scratch/list5"; then
        ok "an agent that cannot see other processes' open files refuses to write $A, and says why"
    else
        bad "an agent blind to other writers: $(grep "^$A " "$scratch/list4"); $(grep "^$A " "$scratch/list5")"
    fi
    chgrp "$a_group" "$A" && chmod "$a_mode" "$A"
else
    it_skip "setpriv missing: the blind agent's case"
fi
kill "$writer" 2> /dev/null
wait "$writer" 2> /dev/null
umount "$scratch/mnt2"

# a device node allowed by its path that leads to another device when the
# run comes (a disk swapped or renamed): not written
Y1=$(mkloop swap1) || exit 1
Y2=$(mkloop swap2) || exit 1
# (a raw device is named under /dev/: the test's own node there, removed at the end)
swapnode=/dev/rbtest-swap-$$
node() { rm -f "$swapnode"; mknod "$swapnode" b $(devno "$1" | tr : ' '); }
node "$Y1"
mkdir -p "$scratch/root"
"$bin/rackbench-agent" --coordinator "ipc://$scratch/c" --insecure --name swap --root "$scratch/root" \
    --once "--allow-device=$swapnode" > "$scratch/swap.log" 2>&1 &
apid=$!
for i in $(seq 200); do grep -q "matches 1 block device" "$scratch/swap.log" && break; sleep 0.05; done
node "$Y2"
ysum=$(sha256sum < "$Y2")
plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=1M\nfilename=$swapnode" > "$scratch/y.ini"
out=$(timeout 60 "$bin/rackbench" run "$scratch/y.ini" --bind "ipc://$scratch/c" --insecure --expect 1 \
    --wait 20s --quiet --out "$scratch/runs" 2>&1)
code=$?
wait "$apid" 2> /dev/null
y1=$(devno "$Y1") y2=$(devno "$Y2")
if [ $code = 3 ] && grep -qF "$swapnode is device $y2 now, not $y1 as when the agent started" <<< "$out" &&
   [ "$(sha256sum < "$Y2")" = "$ysum" ]; then
    ok "a node swapped from $Y1 to $Y2 after the agent started is not written"
else
    bad "a node swapped from $Y1 to $Y2: exit $code: $out"
fi

# reads need no :wipe; the run writes nothing
sum0=$(sha256sum < "$S")
plan "[r]\ndirectory=\nrw=read\nbs=64k\nsize=1M\nfilename=$S" > "$scratch/r.ini"
if rb "$scratch/r.ini" "${allow[@]}" && [ "$(sha256sum < "$S")" = "$sum0" ]; then
    ok "read of $S (an ext4 signature) without :wipe, unchanged"
else
    bad "read of $S without :wipe: $out"
fi
# :wipe writes over the signature
plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=1M\nfilename=$S" > "$scratch/w.ini"
if rb "$scratch/w.ini" "--allow-device=$S:wipe" && [ "$(sha256sum < "$S")" != "$sum0" ]; then
    ok "write on $S with --allow-device $S:wipe"
else
    bad "write on $S with :wipe: $out"
fi
# :wipe on a pattern takes the count of devices it must match
if timeout 10 "$bin/rackbench-agent" --list-devices --allow-device '/dev/loop*:wipe' > "$scratch/l.out" 2>&1; then
    bad "--allow-device '/dev/loop*:wipe' accepted"
elif grep -q "takes the number of devices it must match (/dev/loop\*:wipe=N)" "$scratch/l.out"; then
    ok "--allow-device '/dev/loop*:wipe' refused: $(cat "$scratch/l.out")"
else
    bad "--allow-device '/dev/loop*:wipe': $(cat "$scratch/l.out")"
fi
# ... and with the count right, the devices it matches may be written over
# (two bays, as by-id names are: links to the devices)
mkdir -p "$scratch/bays"
ln -sf "$S" "$scratch/bays/wwn-1"
ln -sf "$N" "$scratch/bays/wwn-2"
timeout 10 "$bin/rackbench-agent" --list-devices --allow-device "$scratch/bays/wwn-*:wipe=2" > "$scratch/l2.out" 2>&1
timeout 10 "$bin/rackbench-agent" --list-devices --allow-device "$scratch/bays/wwn-*:wipe=3" > "$scratch/l3.out" 2>&1
l3=$?
if grep -qE "^$S +.* yes +yes +yes" "$scratch/l2.out" && [ "$l3" = 2 ] &&
    grep -q "the pattern matches 2 block devices, not 3 ($S, $N)\|the pattern matches 2 block devices, not 3 ($N, $S)" "$scratch/l3.out"; then
    ok "--allow-device 'bays/wwn-*:wipe=2': $S (ext4) may be written; with wipe=3 refused: $(cat "$scratch/l3.out")"
else
    bad "--allow-device 'bays/wwn-*:wipe=N': $(grep "$S" "$scratch/l2.out"); exit $l3: $(cat "$scratch/l3.out")"
fi
# direct IO below the logical block size
plan "[w]\ndirectory=\nrw=write\nbs=2k\nsize=1M\nfilename=$Q" > "$scratch/q.ini"
rb "$scratch/q.ini" "--allow-device=$Q"
code=$?
if [ $code = 3 ] && grep -qF "bs 2k is not a multiple of the logical block size of $Q (4k)" <<< "$out"; then
    ok "bs=2k direct on $Q (4 KiB blocks) refused"
else
    bad "bs=2k direct on $Q: exit $code: $out"
fi

# ---- trims: what writes need, and a device that takes discards ----
T=$(mkloop trims) || exit 1
mkfs.ext4 -q -F "$T"
tsum=$(sha256sum < "$T")
plan "[t]\ndirectory=\nrw=trim\nbs=64k\nsize=4M\nfilename=$T" > "$scratch/t.ini"
rb "$scratch/t.ini" "--allow-device=$T"
code=$?
if [ $code = 3 ] && grep -qF "device $T" <<< "$out" && grep -q "which writing would destroy (--allow-device $T:wipe" <<< "$out" &&
   [ "$(sha256sum < "$T")" = "$tsum" ]; then
    ok "trim of $T (an ext4 signature) without :wipe refused, unchanged"
else
    bad "trim of $T without :wipe: exit $code: $out"
fi
# no discard: the agent sees queue/discard_max_bytes 0 through a /sys of the test's own
tsys=$scratch/sys-nodiscard
tdev=$(devno "$T")
mkdir -p "$tsys/dev/block/$tdev/queue" "$tsys/dev/block/$tdev/holders" "$tsys/class/block/$(basename "$T")"
echo 0 > "$tsys/dev/block/$tdev/queue/discard_max_bytes"
rb "$scratch/t.ini" "--allow-device=$T:wipe" "--sys-root=$tsys"
code=$?
if [ $code = 3 ] && grep -qF "rw=trim trims, but device $T ($T) takes no discards (its queue/discard_max_bytes is 0)" <<< "$out" &&
   [ "$(sha256sum < "$T")" = "$tsum" ]; then
    ok "trim of $T without discard refused, unchanged"
else
    bad "trim of $T without discard: exit $code: $out"
fi
# :wipe: the trims reach the device, counted as trims
t0=$(awk -v n="$(basename "$T")" '$3 == n { print $17 }' /proc/diskstats)
rm -rf "$scratch/runs"
if rb "$scratch/t.ini" "--allow-device=$T:wipe"; then
    t1=$(awk -v n="$(basename "$T")" '$3 == n { print $17 }' /proc/diskstats)
    read -r tb to <<< "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["phases"][0]["directions"]["trim"]
print(d["bytes"], d["ops"])' "$(ls -d "$scratch"/runs/*/ | tail -1)/summary.json")"
    if [ "$tb $to" = "$((4 * mib)) 64" ] && [ $(((t1 - t0) * 512)) = $((4 * mib)) ]; then
        ok "trim of $T with :wipe: 4 MiB in 64 trims, $(((t1 - t0) * 512)) bytes discarded (/proc/diskstats)"
    else
        bad "trim of $T with :wipe: summary $tb in $to, diskstats $(((t1 - t0) * 512)) bytes discarded"
    fi
else
    bad "trim of $T with :wipe: $out"
fi

# ---- filename=@devices: one worker set on each allowed device that is idle ----
psum0=$(sha256sum < "$P")
plan "[w]\ndirectory=\nrw=write\nbs=64k\nsize=8M\nnumjobs=2\nfilename=@devices" > "$scratch/all.ini"
w0=$(for d in $B $C $M $P; do sectors $d; done | awk '{ print $2 }' | paste -sd' ')
rm -rf "$scratch/runs"
if rb "$scratch/all.ini" "--allow-device=$B" "--allow-device=$C" "--allow-device=$M" "--allow-device=$P"; then
    w1=$(for d in $B $C $M $P; do sectors $d; done | awk '{ print $2 }' | paste -sd' ')
    wd=$(python3 -c 'import sys; a, b = (list(map(int, s.split())) for s in sys.argv[1:3]); print(*((y - x) * 512 for x, y in zip(a, b)))' "$w0" "$w1")
    read -r rr rw <<< "$(rb_bytes "$scratch/runs")"
    if [ "$wd" != "$((16 * mib)) $((16 * mib)) 0 0" ] || [ "$rw" != $((32 * mib)) ]; then
        bad "@devices: bytes written on $B $C $M $P: $wd (16 MiB on each idle one expected), summary $rw"
    elif [ "$(sha256sum < "$P")" != "$psum0" ]; then
        bad "@devices: the partitioned $P changed"
    else
        ok "@devices: 2 workers of 8 MiB on each of $B and $C ($wd), none on the mounted $M or the partitioned $P"
    fi
else
    bad "@devices: $out"
fi
rb "$scratch/all.ini" "--allow-device=$M" "--allow-device=$P"
code=$?
if [ $code = 3 ] && grep -q "no allowed device is idle and free to write" <<< "$out"; then
    ok "@devices with no idle device refused"
else
    bad "@devices with no idle device: exit $code: $out"
fi

it_exit "$fail"
