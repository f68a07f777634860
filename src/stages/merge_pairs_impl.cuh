#pragma once
// Step 2 kernels and launcher: one round of pairwise merges by warps.
//
// While a merged pair fits in one task, each warp merges one whole pair, as in the paper.
// Longer pairs would leave most SMs idle in the late rounds, so their output is cut into
// tasks of policy::merge_task_keys by merge path (a small partition kernel finds where each
// task starts in A and B), and each warp merges one task.
#include "stages.hpp"
#include "warp_merge.cuh"

#include <warpsort/error.hpp>

namespace warpsort::stages {

/// One thread per task boundary: splits[pair * (tasks + 1) + t] = keys of A before task t.
template <class Key, class Comp>
__global__ void find_merge_splits_kernel(const Key* in, std::size_t n, std::size_t seq_len,
                                         std::size_t task_keys, std::size_t tasks,
                                         std::size_t entries, std::size_t* splits, Comp comp) {
  const std::size_t e = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= entries) return;
  const pair_bounds pb = pair_of(e / (tasks + 1), seq_len, n);
  const std::size_t na = pb.a_end - pb.a_begin, nb = pb.b_end - pb.a_end;
  const std::size_t diag = min_size((e % (tasks + 1)) * task_keys, na + nb);
  splits[e] = merge_path(in + pb.a_begin, na, in + pb.a_end, nb, diag, comp);
}

template <class Key, class Comp>
__global__ void merge_pairs_kernel(const Key* in, Key* out, std::size_t n, std::size_t seq_len,
                                   std::size_t task_keys, std::size_t tasks,
                                   std::size_t total_tasks, const std::size_t* splits, Comp comp) {
  const std::size_t task =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  if (task >= total_tasks) return;  // whole warps leave together
  const std::size_t pair = task / tasks, part = task % tasks;
  const pair_bounds pb = pair_of(pair, seq_len, n);
  const std::size_t na = pb.a_end - pb.a_begin, nb = pb.b_end - pb.a_end;
  const std::size_t d0 = min_size(part * task_keys, na + nb);
  const std::size_t d1 = min_size(d0 + task_keys, na + nb);
  if (d0 == d1) return;
  std::size_t a0 = 0, a1 = na;
  if (tasks > 1) {
    a0 = splits[pair * (tasks + 1) + part];
    a1 = splits[pair * (tasks + 1) + part + 1];
  }
  const std::size_t b0 = d0 - a0, b1 = d1 - a1;
  merge_by_warp(in + pb.a_begin + a0, a1 - a0, in + pb.a_end + b0, b1 - b0,
                out + pb.a_begin + d0, comp);
}

template <class Key, class Comp>
void merge_pairs_round(const Key* in, Key* out, std::size_t n, std::size_t seq_len,
                       std::size_t* splits, Comp comp, const policy& p, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t pairs = ceil_div(n, 2 * seq_len);
  const std::size_t tasks = tasks_per_pair(seq_len, p.merge_task_keys);
  if (tasks > 1) {
    const std::size_t entries = pairs * (tasks + 1);
    const unsigned threads = 256;
    find_merge_splits_kernel<<<static_cast<unsigned>(ceil_div(entries, threads)), threads, 0,
                               stream>>>(in, n, seq_len, p.merge_task_keys, tasks, entries,
                                         splits, comp);
    WARPSORT_CHECK_LAUNCH();
  }
  const std::size_t total_tasks = pairs * tasks;
  const std::size_t warps_per_block = p.block_threads / policy::warp_threads;
  merge_pairs_kernel<<<static_cast<unsigned>(ceil_div(total_tasks, warps_per_block)),
                       p.block_threads, 0, stream>>>(in, out, n, seq_len, p.merge_task_keys,
                                                     tasks, total_tasks, splits, comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); see CMakeLists.txt.
#define WARPSORT_INSTANTIATE_MERGE_PAIRS(Key, Comp) \
  template void warpsort::stages::merge_pairs_round<Key, Comp>(const Key*, Key*, std::size_t, std::size_t, \
                                             std::size_t*, Comp, const warpsort::policy&, cudaStream_t);
