// The plan of a sort: every size and count of the four steps, from n and the policy alone.
#include "stages/index_math.hpp"

#include <warpsort/warpsort.cuh>

#include <string>

namespace warpsort {

using stages::ceil_div;

namespace {
void check_policy(const policy& p) {
  auto fail = [](const std::string& what) { throw input_error("warpsort policy: " + what); };
  if (p.block_threads < policy::warp_threads || p.block_threads % policy::warp_threads != 0 ||
      p.block_threads > 1024)
    fail("block_threads must be a multiple of 32 in [32, 1024]");
  if (p.group_block_threads < policy::warp_threads ||
      p.group_block_threads % policy::warp_threads != 0 || p.group_block_threads > 1024)
    fail("group_block_threads must be a multiple of 32 in [32, 1024]");
  const auto pow2 = [](int x) { return x > 0 && (x & (x - 1)) == 0; };
  if (!pow2(p.block_sort_keys) || p.block_sort_keys < policy::merge_tile_keys)
    fail("block_sort_keys must be a power of two, at least 256");
  if (!pow2(p.merge_block_keys) || p.merge_block_keys < policy::merge_tile_keys ||
      p.merge_block_keys > 2 * p.block_sort_keys)
    fail("merge_block_keys must be a power of two in [256, 2 block_sort_keys]");
  if (p.max_sequences < 2) fail("max_sequences (L) must be at least 2");
  if (p.oversampling < 1) fail("oversampling (K) must be at least 1");
  if (p.max_ranked_samples < 0) fail("max_ranked_samples must be at least 0");
  if (p.warp_split_max_blocks < 0) fail("warp_split_max_blocks must be at least 0");
  if (p.few_blocks < 0) fail("few_blocks must be at least 0");
  if (p.few_blocks_threads < policy::warp_threads ||
      p.few_blocks_threads % policy::warp_threads != 0 || p.few_blocks_threads > 1024)
    fail("few_blocks_threads must be a multiple of 32 in [32, 1024]");
  if (p.small_input_blocks < 0) fail("small_input_blocks must be at least 0");
  if (p.small_input_min_keys < policy::merge_tile_keys)
    fail("small_input_min_keys must be at least 256");
  if (p.group_capacity < p.oversampling + p.max_sequences)
    fail("group_capacity must be at least oversampling + max_sequences (a sample stride >= 1)");
}

}  // namespace

sort_plan make_plan(std::size_t n, const policy& p) {
  check_policy(p);
  sort_plan plan;
  plan.n = n;
  if (n == 0) return plan;
  plan.chunks = ceil_div(n, policy::chunk_keys);
  plan.sequence_keys = static_cast<std::size_t>(p.block_sort_keys);
  plan.sequences = ceil_div(n, plan.sequence_keys);
  while (plan.sequences > static_cast<std::size_t>(p.max_sequences)) {
    plan.sequence_keys *= 2;
    plan.sequences = ceil_div(n, plan.sequence_keys);
    ++plan.merge_rounds;
  }
  if (!plan.splits()) return plan;
  const std::size_t K = static_cast<std::size_t>(p.oversampling);
  const std::size_t L = plan.sequences;
  plan.sample_stride = static_cast<std::size_t>(p.group_capacity) / (K + L);
  const std::size_t last_keys = n - (L - 1) * plan.sequence_keys;
  plan.samples = (L - 1) * stages::samples_in(plan.sequence_keys, plan.sample_stride) +
                 stages::samples_in(last_keys, plan.sample_stride);
  plan.groups = plan.samples > K ? ceil_div(plan.samples, K) : 1;
  plan.group_bound = (K + L) * plan.sample_stride;
  return plan;
}

}  // namespace warpsort
