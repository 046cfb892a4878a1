#!/usr/bin/env bash
# rackbench against IOR and mdtest, side by side, with the same ranks
# (mpirun -np 4: IOR's and mdtest's tasks, rackbench-mpi's ranks), the same
# patterns, the same sizes and the same page cache treatment, alternating
# (peer first in odd rounds, rackbench first in even ones) for ROUNDS
# rounds, on DIR:
#
#   ior easy    N-N, 1 MiB transfers, O_DIRECT          write, read
#   ior hard    N-1 strided, 47,008-byte transfers      write, read
#   mdtest easy a folder per rank, empty files          write, stat, read, delete
#   mdtest hard one shared folder, 3,901-byte files     write, stat, read, delete
#
# The ior cases run twice a round, once per treatment of the cache:
#
#   cached  each rank reads back what it wrote, as it left the page cache:
#           IOR -w -r (IOR never drops the cache); rackbench with
#           invalidate=0 (fio's default 1 drops a file's cached pages as a
#           worker opens it, so the read would go to the disk while IOR's
#           comes from memory).
#   cold    the cache-defeating variant: each rank reads what its neighbour
#           (rank + 1 mod 4) wrote, after the page cache is dropped. IOR
#           writes with -k, then `sync` and drop_caches, then reads in a
#           second run with -C (reorder tasks) and -O numTasksOnNode0=1;
#           rackbench's read job has read_from=neighbour and drop_caches=1
#           (its agents sync and drop before the phase, outside the timed
#           window), invalidate=0 as above. IOR's -C shifts by one node's
#           worth of tasks (-Q nodes), which on one host is all 4 tasks:
#           every task would read its own data again, hence
#           numTasksOnNode0=1, which makes the shift one task. Across hosts
#           the neighbour's data is not in the reader's cache; on one host
#           all ranks share one page cache, so only the drop keeps the read
#           off memory here.
#
# With O_DIRECT (ior easy) neither tool goes through the page cache at all:
# its two variants differ only in whose file each rank reads. ior hard is
# buffered: cached reads memory, cold reads the disk. The metadata cases
# keep what mdtest does (no drop, each rank's own files).
#
# Prints, per case, treatment and phase, each tool's median and spread
# ((max - min) / median over the rounds) and the ratio rackbench / peer of
# the medians. Bandwidth in MiB/s (IOR's unit), metadata in operations/s.
# How each tool times a phase: docs/metrics.md ("IOR, mdtest and
# rackbench").
#
#   tests/bench/vs-ior.sh PEER_BIN DIR [ROUNDS=3]
#
# PEER_BIN holds ior and mdtest (the peers' build-ior.sh DEST builds them
# into DEST/bin). Sizes: EASY_MB (MiB per rank, 256), HARD_SEGS (47,008-byte
# pieces per rank, 2000), MDE_N and MDH_N (items per rank, 5000 and 2000);
# SETTLE: seconds of quiet before each metadata run (see pair below);
# CASES: "ior", "md" or both ("ior md", the default) to run.
# Needs mpirun (Debian's Open MPI), a build with rackbench-mpi and root (the
# cold variant drops the page cache). Not run by ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/lib.sh
[ $# -ge 2 ] || { echo "usage: $0 PEER_BIN DIR [ROUNDS]" >&2; exit 2; }
bench_need mpirun openmpi-bin python3 python3
peer=$(realpath "$1")
for t in ior mdtest; do
    [ -x "$peer/$t" ] || { echo "no $peer/$t (build-ior.sh DEST builds it)" >&2; exit 2; }
done
rbmpi=./build/bin/rackbench-mpi
[ -x "$rbmpi" ] || { echo "no $rbmpi: build with Open MPI installed" >&2; exit 2; }
dir=$(bench_disk_dir "$2")
rounds=${3:-3}
np=4
easy_mb=${EASY_MB:-256}
hard_segs=${HARD_SEGS:-2000}
mde_n=${MDE_N:-5000}
mdh_n=${MDH_N:-2000}
cases=${CASES:-ior md}
for c in $cases; do
    case $c in ior | md) ;; *) echo "CASES=$cases: expected ior, md or both" >&2; exit 2 ;; esac
done
mpi=(mpirun --allow-run-as-root --oversubscribe -np "$np")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case " $cases " in *" ior "*)
    [ -w /proc/sys/vm/drop_caches ] || {
        echo "the ior cases' cold variant drops the page cache: run as root" >&2
        exit 2
    } ;;
esac

# The rackbench plans: one per case and treatment, the same IO as the
# peer's command line. ior_plan CASE VARIANT PEER_LINE GLOBAL_KEYS: the
# write and read jobs of CASE (easy or hard); the read of the cold variant
# reads the neighbour's data after the page cache is dropped.
ior_plan() {
    local read_keys=
    [ "$2" = cold ] && read_keys=$'read_from=neighbour\ndrop_caches=1'
    cat >"$work/ior-$1-$2.ini" <<PLAN
; $3
[global]
directory=$dir/rb
; the read reads what a write wrote, as IOR's does
filename_format=$1.\$jobnum.\$filenum
; as IOR: no drop of the file's cached pages when a worker opens it
invalidate=0
$4
[$1.write]
rw=write
end_fsync=1
[$1.read]
stonewall
rw=read
$read_keys
PLAN
}
easy_keys="bs=1m
size=${easy_mb}m
direct=1"
hard_keys="bs=47008
size=$(( hard_segs * 47008 ))
file_per_worker=0
layout=strided"
ior_plan easy cached "ior -w -r -F -t 1m -b ${easy_mb}m --posix.odirect -e" "$easy_keys"
ior_plan easy cold "ior -w -k -F -t 1m -b ${easy_mb}m --posix.odirect -e; sync; drop_caches;
; ior -r -C -O numTasksOnNode0=1 -F -t 1m -b ${easy_mb}m --posix.odirect" "$easy_keys"
ior_plan hard cached "ior -w -r -t 47008 -b 47008 -s $hard_segs -e (one shared file, N-1 strided)" "$hard_keys"
ior_plan hard cold "ior -w -k -t 47008 -b 47008 -s $hard_segs -e; sync; drop_caches;
; ior -r -C -O numTasksOnNode0=1 -t 47008 -b 47008 -s $hard_segs" "$hard_keys"
cat >"$work/md-easy.ini" <<PLAN
; mdtest -F -u -n $mde_n -C -T -E -r (empty files, a folder per rank)
[global]
directory=$dir/rb
[mde]
rw=meta
meta_ops=create,stat,read,delete
meta_files=$mde_n
PLAN
cat >"$work/md-hard.ini" <<PLAN
; mdtest -F -n $mdh_n -w 3901 -e 3901 -C -T -E -r (one shared folder)
[global]
directory=$dir/rb
[mdh]
rw=meta
meta_ops=create,stat,read,delete
meta_files=$mdh_n
meta_filesize=3901
meta_shared_dir=1
PLAN

# rb_run CASE: rackbench-mpi of CASE's plan; prints "CASE PHASE rackbench VALUE".
rb_run() {
    rm -rf "$work/runs" "$dir/rb"
    mkdir -p "$dir/rb"
    "${mpi[@]}" "$rbmpi" "$work/$1.ini" --out "$work/runs" >"$work/rb.out" 2>"$work/rb.err" \
        || { cat "$work/rb.err" >&2; exit 1; }
    python3 - "$work/runs" "$1" <<'PY'
import glob, json, sys
j = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
for p in j["phases"]:
    step = p["name"].split(".")[1]
    step = {"create": "write", "delete": "delete"}.get(step, step)
    v = p["iops"] if p["rw"] == "meta" else p["aggregate_bw"] / 2**20
    print(sys.argv[2], step, "rackbench", v)
PY
}

# ior_run CASE ARGS...: IOR's "Summary of all tests" rows; MiB/s (one
# repetition). CASE ending in -cold: a write run that keeps its files, sync
# and a drop of the page cache, then a read run of the neighbour's data.
ior_run() {
    local c=$1
    shift
    rm -rf "$dir/peer"
    mkdir -p "$dir/peer"
    local runs=("-w -r")
    case $c in *-cold) runs=("-w -k" "-r -C -O numTasksOnNode0=1") ;; esac
    : >"$work/peer.out"
    local r
    for r in "${runs[@]}"; do
        case $r in -r\ -C*) sync; echo 3 >/proc/sys/vm/drop_caches ;; esac
        # shellcheck disable=SC2086 # $r is IOR's flags, one word each
        "${mpi[@]}" "$peer/ior" $r -e "$@" -o "$dir/peer/f" >>"$work/peer.out" 2>&1 \
            || { cat "$work/peer.out" >&2; exit 1; }
    done
    awk -v c="$c" '/^Summary of all tests/ { s = 1; next }
        /^Finished/ { s = 0 }
        s && ($1 == "write" || $1 == "read") { print c, $1, "peer", $2 }' "$work/peer.out"
}

# md_run CASE ARGS...: mdtest's SUMMARY rate rows for files, operations/s.
md_run() {
    local c=$1
    shift
    rm -rf "$dir/peer"
    mkdir -p "$dir/peer"
    "${mpi[@]}" "$peer/mdtest" -F -C -T -E -r "$@" -d "$dir/peer" >"$work/peer.out" 2>&1 \
        || { cat "$work/peer.out" >&2; exit 1; }
    awk -v c="$c" '$1 == "File" {
        s = $2 == "creation" ? "write" : $2 == "removal" ? "delete" : $2
        print c, s, "peer", $(NF - 1) }' "$work/peer.out"
}

: >"$work/res"
# pair FIRST CASE PEER_ARGS...: the peer and rackbench on one case, FIRST
# (peer or rackbench) first. ext4 skips inodes deleted in the last few
# seconds when it allocates new ones, so whichever tool creates right after
# the other's delete pays for it: the order flips every round, and SETTLE
# seconds (default 0) of quiet before each metadata run take it away.
pair() {
    local first=$1 c=$2
    shift 2
    local run=ior_run
    case $c in md-*) run=md_run ;; esac
    if [ "$first" = peer ]; then
        settle "$c"; $run "$c" "$@" >>"$work/res"
        settle "$c"; rb_run "$c" >>"$work/res"
    else
        settle "$c"; rb_run "$c" >>"$work/res"
        settle "$c"; $run "$c" "$@" >>"$work/res"
    fi
}
settle() {
    case $1 in md-*) sync; sleep "${SETTLE:-0}" ;; esac
}

for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds" >&2
    first=peer
    [ $(( r % 2 )) -eq 0 ] && first=rackbench
    case " $cases " in *" ior "*)
        for v in cached cold; do
            pair "$first" "ior-easy-$v" -F -t 1m -b "${easy_mb}m" --posix.odirect
            pair "$first" "ior-hard-$v" -t 47008 -b 47008 -s "$hard_segs"
        done ;;
    esac
    case " $cases " in *" md "*)
        pair "$first" md-easy -u -n "$mde_n"
        pair "$first" md-hard -n "$mdh_n" -w 3901 -e 3901 ;;
    esac
done
rm -rf "$dir/rb" "$dir/peer"

python3 - "$work/res" "$rounds" "$np" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
res = {}
for case, step, tool, v in rows:
    res.setdefault((case, step), {}).setdefault(tool, []).append(float(v))
print(f"rackbench vs IOR / mdtest, mpirun -np {sys.argv[3]}, {sys.argv[2]} rounds, alternating")
print(f"{'case':<9} {'cache':<7} {'phase':<7} {'unit':<6} {'peer median':>12} {'spread':>7} "
      f"{'rackbench':>12} {'spread':>7} {'ratio':>6}")
order = ["ior-easy-cached", "ior-easy-cold", "ior-hard-cached", "ior-hard-cold",
         "md-easy", "md-hard"]
steps = ["write", "stat", "read", "delete"]
def name(case):
    part = case.split("-")
    return "-".join(part[:2]), part[2] if len(part) > 2 else "-"
for case in order:
    for step in steps:
        t = res.get((case, step))
        if not t or "peer" not in t or "rackbench" not in t:
            continue
        unit = "MiB/s" if case.startswith("ior") else "ops/s"
        out = []
        for tool in ("peer", "rackbench"):
            m = statistics.median(t[tool])
            out += [m, (max(t[tool]) - min(t[tool])) / m if m else 0.0]
        c, v = name(case)
        print(f"{c:<9} {v:<7} {step:<7} {unit:<6} {out[0]:>12.1f} {out[1]:>6.0%} "
              f"{out[2]:>12.1f} {out[3]:>6.0%} {out[2] / out[0]:>6.2f}")
print("each round, peer / rackbench:")
for case in order:
    for step in steps:
        t = res.get((case, step))
        if t and "peer" in t and "rackbench" in t:
            c, v = name(case)
            print(f"  {c:<9} {v:<7} {step:<7} " + "  ".join(
                f"{p:.0f}/{r:.0f}" for p, r in zip(t["peer"], t["rackbench"])))
PY
