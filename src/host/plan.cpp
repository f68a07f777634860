// The plan of a sort: every size and count of its steps, from n and the tuning alone; and
// plan_for, the step that fits the caller's policy to n, the key's width and the device.
#include <warpsort/detail/stages/index_math.hpp>

#include <warpsort/ablation.cuh>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace warpsort {

using stages::ceil_div;

namespace {

[[noreturn]] void fail(const std::string& what) { throw input_error("warpsort policy: " + what); }

bool pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

void check_policy(const policy& p) {
  if (!pow2(p.block_sort_keys) || p.block_sort_keys < 1024)
    fail("block_sort_keys must be a power of two, at least 1024 (a warp's run)");
  if (p.max_sequences != 0 && (p.max_sequences < 2 || p.max_sequences > 64))
    fail("max_sequences must be 0 (chosen by size) or in [2, 64] (a round's groups merge on chip)");
  if (p.oversampling < 0) fail("oversampling (K) must be 0 (chosen by size) or at least 1");
  if (p.max_ranked_samples < 0) fail("max_ranked_samples must be at least 0");
  if (p.group_capacity < oversampling_of(p) + max_sequences_of(p))
    fail("group_capacity must be at least oversampling + max_sequences (a sample stride >= 1)");
  if (p.pairwise_below_blocks < 0 || p.small_oversampling_blocks < 0)
    fail("pairwise_below_blocks and small_oversampling_blocks must be at least 0");
  if (p.small_oversampling < 1) fail("small_oversampling must be at least 1");
  if (p.one_round_blocks < 0 || p.one_round_blocks > 64)
    fail("one_round_blocks must be in [0, 64] (it sets max_sequences for small inputs)");
}

void check_design(const ablation::design& d) {
  if (d.block_threads < policy::warp_threads || d.block_threads % policy::warp_threads != 0 ||
      d.block_threads > 1024)
    fail("block_threads must be a multiple of 32 in [32, 1024]");
  if (d.group_block_threads < policy::warp_threads ||
      d.group_block_threads % policy::warp_threads != 0 || d.group_block_threads > 1024)
    fail("group_block_threads must be a multiple of 32 in [32, 1024]");
  if (d.block_sort_keys != policy::chunk_keys &&
      (!pow2(d.block_sort_keys) || d.block_sort_keys < policy::merge_tile_keys))
    fail("block_sort_keys must be a power of two, at least 256 (or 128: the paper's chunks)");
  if (!pow2(d.merge_block_keys) || d.merge_block_keys < policy::merge_tile_keys ||
      d.merge_block_keys > 2 * d.block_sort_keys)
    fail("merge_block_keys must be a power of two in [256, 2 block_sort_keys]");
  if (d.max_sequences < 2) fail("max_sequences (L) must be at least 2");
  if (d.oversampling < 1) fail("oversampling (K) must be at least 1");
  if (d.max_ranked_samples < 0) fail("max_ranked_samples must be at least 0");
  if (d.warp_split_max_blocks < 0) fail("warp_split_max_blocks must be at least 0");
  if (d.few_blocks < 0) fail("few_blocks must be at least 0");
  if (d.few_blocks_threads < policy::warp_threads ||
      d.few_blocks_threads % policy::warp_threads != 0 || d.few_blocks_threads > 1024)
    fail("few_blocks_threads must be a multiple of 32 in [32, 1024]");
  if (d.small_input_blocks < 0) fail("small_input_blocks must be at least 0");
  if (d.small_input_min_keys < policy::merge_tile_keys)
    fail("small_input_min_keys must be at least 256");
  if (d.one_block_keys < 0) fail("one_block_keys must be at least 0");
  if (d.rank_merge_keys < 0) fail("rank_merge_keys must be at least 0");
  // (the paper's step 4 through memory, groups_on_chip = 0, holds no group on chip: S sets s)
  if (d.groups_on_chip && d.group_capacity < d.oversampling + d.max_sequences)
    fail("group_capacity must be at least oversampling + max_sequences (a sample stride >= 1)");
  const auto flag = [](int x) { return x == 0 || x == 1; };
  if (!flag(d.buffer_merge_pairs) || !flag(d.splitter_positions) || !flag(d.groups_on_chip))
    fail("buffer_merge_pairs, splitter_positions and groups_on_chip must be 0 or 1");
  if (d.merge_buffer_keys != 64 && d.merge_buffer_keys != 128 && d.merge_buffer_keys != 256)
    fail("merge_buffer_keys (t) must be 64, 128 or 256");
  if (d.groups_on_chip == 1 && d.splitter_positions == 0)
    fail("groups_on_chip = 1 needs splitter_positions = 1: key-only splitters do not bound a "
         "group (all equal keys land in one)");
  if (d.split_groups < 1) fail("split_groups (S) must be at least 1");
}

/// Keys in `blocks` blocks of the policy's step 1.
std::size_t keys_in_blocks(const policy& p, int blocks) {
  return static_cast<std::size_t>(blocks) * static_cast<std::size_t>(p.block_sort_keys);
}

}  // namespace

merge_round plan_round(std::size_t n, std::size_t seq_keys, std::size_t set_sequences,
                       const policy& p) {
  merge_round m;
  const std::size_t K = static_cast<std::size_t>(oversampling_of(p));
  const std::size_t sequences = ceil_div(n, seq_keys);
  m.sequence_keys = seq_keys;
  m.sequences = sequences;
  m.set_sequences = std::min(set_sequences, sequences);
  m.sets = ceil_div(sequences, m.set_sequences);
  m.sample_stride = std::max<std::size_t>(1, static_cast<std::size_t>(p.group_capacity) / (K + m.set_sequences));
  const std::size_t per_sequence = stages::samples_in(seq_keys, m.sample_stride);
  m.set_samples = m.set_sequences * per_sequence;
  const std::size_t last_sequences = sequences - (m.sets - 1) * m.set_sequences;
  const std::size_t last_keys = n - (sequences - 1) * seq_keys;
  const std::size_t last_set_samples =
      (last_sequences - 1) * per_sequence + stages::samples_in(last_keys, m.sample_stride);
  const auto groups_of = [K](std::size_t samples) { return samples > K ? ceil_div(samples, K) : std::size_t{1}; };
  m.set_groups = groups_of(m.set_samples);
  m.last_set_groups = groups_of(last_set_samples);
  m.groups = (m.sets - 1) * m.set_groups + m.last_set_groups;
  m.samples = (m.sets - 1) * m.set_samples + last_set_samples;
  // ranking costs (samples x k) searches, sorting a few launches: rank small rounds
  m.ranks_on_chip = m.set_samples <= merge_round::max_ranked_set_samples &&
                    m.samples * m.set_sequences <= static_cast<std::size_t>(p.max_ranked_samples);
  return m;
}

/// The rounds: the bits of the number of step 1's sequences, less the `left_bits` left
/// unmerged, spread as evenly as they go over as few rounds as keep every set at most
/// max_sequences sequences.
static void plan_rounds(sort_plan& plan, const policy& p, int left_bits) {
  const std::size_t n = plan.n;
  std::size_t sequences = ceil_div(n, static_cast<std::size_t>(p.block_sort_keys));
  const int all_bits = stages::ceil_log2(sequences);
  const int bits = all_bits > left_bits ? all_bits - left_bits : 0;
  int per_round = 0;
  while ((2 << per_round) <= max_sequences_of(p)) ++per_round;  // floor(log2 max_sequences)
  const int rounds = bits == 0 ? 0 : (bits + per_round - 1) / per_round;
  if (rounds > sort_plan::max_rounds) fail("max_sequences too small for n");
  std::size_t seq_keys = static_cast<std::size_t>(p.block_sort_keys);
  for (int r = 0; r < rounds; ++r) {
    const int set_bits = bits / rounds + (r < bits % rounds ? 1 : 0);
    plan.rounds[r] = plan_round(n, seq_keys, std::size_t{1} << set_bits, p);
    seq_keys *= plan.rounds[r].set_sequences;
  }
  plan.round_count = rounds;
}

sort_plan make_plan(std::size_t n, const policy& p, std::size_t sequences_left) {
  check_policy(p);
  sort_plan plan;
  plan.n = n;
  if (n == 0) return plan;
  plan.chunks = ceil_div(n, policy::chunk_keys);
  int left_bits = 0;
  while ((std::size_t{2} << left_bits) <= sequences_left) ++left_bits;  // floor(log2)
  plan_rounds(plan, p, left_bits);
  return plan;
}

device_limits device_limits_of(int device) {
  static std::mutex guard;
  static std::vector<device_limits> known;  // by device ordinal; sm_count 0: not read yet
  if (device < 0) WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(guard);
  if (known.size() <= static_cast<std::size_t>(device)) known.resize(static_cast<std::size_t>(device) + 1);
  device_limits& d = known[static_cast<std::size_t>(device)];
  if (d.sm_count == 0) {
    int sms = 0, smem = 0, threads = 0;
    WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WARPSORT_CUDA_CHECK(
        cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, device));
    d = {sms, static_cast<std::size_t>(smem), threads};
  }
  return d;
}

namespace {

/// The plan's blocks must be launchable on the device: at most the threads and the shared
/// memory one of its blocks may have (block_sort_keys and group_capacity set both).
void check_blocks(const sized_plan& s) {
  const auto check = [&](const stages::thread_block_shape& shape, const char* field, int keys) {
    if (shape.threads > s.device.threads_per_block || shape.smem_bytes > s.device.smem_per_block)
      fail(std::string(field) + " = " + std::to_string(keys) + " needs blocks of " +
           std::to_string(shape.threads) + " threads and " + std::to_string(shape.smem_bytes) +
           " bytes of shared memory for " + std::to_string(s.key_bytes) +
           "-byte keys (a block of this GPU may have " +
           std::to_string(s.device.threads_per_block) + " and " +
           std::to_string(s.device.smem_per_block) + ")");
  };
  const policy& p = s.tuning;
  check(stages::sort_blocks_shape_of(s.key_bytes, p.block_sort_keys), "block_sort_keys",
        p.block_sort_keys);
  for (int r = 0; r < s.plan.round_count; ++r)
    check(stages::merge_sets_shape_of(s.key_bytes, p.group_capacity,
                                      static_cast<int>(s.plan.rounds[r].set_sequences)),
          "group_capacity", p.group_capacity);
}

}  // namespace

sized_plan plan_for(std::size_t n, std::size_t key_bytes, const policy& p,
                    const device_limits& device) {
  check_policy(p);
  sized_plan s;
  s.n = n;
  s.key_bytes = key_bytes;
  s.device = device;
  s.tuning = p;
  if (n < keys_in_blocks(p, p.pairwise_below_blocks)) {
    s.pairwise = true;
    return s;
  }
  if (p.oversampling == 0) {
    s.chose_oversampling = true;
    s.tuning.oversampling = n < keys_in_blocks(p, p.small_oversampling_blocks)
                                ? p.small_oversampling
                                : oversampling_of(p);
  }
  if (p.max_sequences == 0) {
    s.chose_max_sequences = true;
    const bool one_round = n <= keys_in_blocks(p, p.one_round_blocks);
    s.tuning.max_sequences = std::max(max_sequences_of(p), one_round ? p.one_round_blocks : 0);
  }
  s.plan = make_plan(n, s.tuning);
  if (n > 0) check_blocks(s);
  return s;
}

std::string sized_plan::describe() const {
  const std::string blocks = " blocks of block_sort_keys = " + std::to_string(tuning.block_sort_keys);
  if (pairwise)
    return "path: pairwise merges (version 4, ablation::small_input_design(n, " +
           std::to_string(key_bytes) + ")): n = " + std::to_string(n) +
           " < pairwise_below_blocks = " + std::to_string(tuning.pairwise_below_blocks) + blocks +
           "\n";
  std::string out = "path: " + std::to_string(plan.round_count) + " round(s) of steps 3 and 4 (" +
                    std::to_string(1 + plan.round_count) + " passes over the keys)\n";
  out += "blocks: within the device's " + std::to_string(device.threads_per_block) +
         " threads and " + std::to_string(device.smem_per_block) +
         " bytes of shared memory a block (" + std::to_string(device.sm_count) + " SMs)\n";
  const bool small = n < keys_in_blocks(tuning, tuning.small_oversampling_blocks);
  if (chose_oversampling)
    out += "oversampling = " + std::to_string(tuning.oversampling) + (small ? ": n < " : ": n >= ") +
           "small_oversampling_blocks = " + std::to_string(tuning.small_oversampling_blocks) +
           blocks + "\n";
  else
    out += "oversampling = " + std::to_string(tuning.oversampling) + ": the policy's\n";
  if (chose_max_sequences)
    out += "max_sequences = " + std::to_string(tuning.max_sequences) +
           (n <= keys_in_blocks(tuning, tuning.one_round_blocks)
                ? ": one round, n <= one_round_blocks = " +
                      std::to_string(tuning.one_round_blocks) + blocks
                : ": n > one_round_blocks = " + std::to_string(tuning.one_round_blocks) + blocks) +
           "\n";
  else
    out += "max_sequences = " + std::to_string(tuning.max_sequences) + ": the policy's\n";
  return out;
}

namespace ablation {

pairwise_plan make_plan(std::size_t n, const design& d) {
  check_design(d);
  pairwise_plan plan;
  plan.n = n;
  if (n == 0) return plan;
  plan.chunks = ceil_div(n, policy::chunk_keys);
  plan.sequence_keys = static_cast<std::size_t>(d.block_sort_keys);
  plan.sequences = ceil_div(n, plan.sequence_keys);
  while (plan.sequences > static_cast<std::size_t>(d.max_sequences)) {
    plan.sequence_keys *= 2;
    plan.sequences = ceil_div(n, plan.sequence_keys);
    ++plan.pairwise_rounds;
  }
  if (!plan.has_groups()) return plan;
  const std::size_t K = static_cast<std::size_t>(d.oversampling);
  const std::size_t L = plan.sequences;
  // the paper's step 4 (through memory) takes groups of any size: S groups, whatever the keys
  plan.sample_stride =
      d.groups_on_chip ? static_cast<std::size_t>(d.group_capacity) / (K + L)
                       : stages::stride_for_groups(n, static_cast<std::size_t>(d.split_groups), K);
  plan.group_rounds = d.groups_on_chip ? 1 : stages::ceil_log2(L);
  const std::size_t last_keys = n - (L - 1) * plan.sequence_keys;
  plan.samples = (L - 1) * stages::samples_in(plan.sequence_keys, plan.sample_stride) +
                 stages::samples_in(last_keys, plan.sample_stride);
  plan.groups = plan.samples > K ? ceil_div(plan.samples, K) : 1;
  plan.group_bound = d.groups_on_chip ? (K + L) * plan.sample_stride : n;
  return plan;
}

}  // namespace ablation

}  // namespace warpsort
