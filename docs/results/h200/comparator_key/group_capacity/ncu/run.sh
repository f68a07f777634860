#!/usr/bin/env bash
# One H200: Nsight Compute of step 4 (merge_set_groups) of the key128 key sort at 2^24, the
# default group (3472) and the old one (4096) through WARPSORT_POLICY.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
export LD_LIBRARY_PATH=/tmp/w/lib
W=/tmp/w/bin/warpsort
for c in default 4096; do
  pol=""; [ $c = 4096 ] && pol="group_capacity=4096"
  WARPSORT_POLICY="$pol" timeout 120 ncu --clock-control none --kernel-name regex:'merge_set_groups' --launch-count 2 --section SpeedOfLight --section LaunchStats --section WarpStateStats --section Occupancy $W bench --types key128 --sizes 2^24 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/n_$c > $R/ncu_step4_$c.txt 2>&1
  grep -E "Duration|Registers Per|Block Size|Achieved Occupancy|Theoretical Occupancy|Block Limit Registers|Block Limit Shared|Stall Barrier|Warp Cycles Per Issued|Issue Slots Busy|Compute \(SM\) Throughput|Memory Throughput" $R/ncu_step4_$c.txt | head -26
done
