// warpsort: GPU Warp Sort (Ye et al., IPDPS 2010) for keys in device memory.
//
//   #include <warpsort/warpsort.cuh>
//   std::size_t temp_bytes = 0;
//   warpsort::sort_keys<std::uint32_t>(nullptr, temp_bytes, d_in, d_out, n);   // query
//   cudaMalloc(&d_temp, temp_bytes);
//   warpsort::sort_keys<std::uint32_t>(d_temp, temp_bytes, d_in, d_out, n);    // sort
//
// d_in may equal d_out (in place). The call is asynchronous on `stream` and makes no host
// round trip; with `times` non-null it records CUDA events between the four steps and waits for
// the stream at the end to read them.
#pragma once

#include <warpsort/error.hpp>
#include <warpsort/order.cuh>
#include <warpsort/policy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpsort {

/// Device time of each step of one sort, in milliseconds.
struct stage_times {
  float sort_chunks_ms = 0;      // step 1: every block of block_sort_keys sorted on chip
  float merge_sequences_ms = 0;  // step 2: the rounds of steps 3 and 4 before the last
                                 // (version 4's pairwise merge rounds)
  float split_ms = 0;            // step 3: sampling, splitters, cutting, group offsets
  float merge_groups_ms = 0;     // step 4: each group's pieces merged on chip
  float total_ms() const {
    return sort_chunks_ms + merge_sequences_ms + split_ms + merge_groups_ms;
  }
};

/// Version 5: one round of steps 3 and 4. The sorted sequences are taken k at a time (a set);
/// each set is sampled, split into groups at its splitters, and its groups merged on chip, so
/// each set becomes one sorted sequence. Every round but the last is step 2.
struct merge_round {
  std::size_t sequence_keys = 0;   // S: keys of each input sequence (the last may be shorter)
  std::size_t sequences = 0;       // input sequences
  std::size_t set_sequences = 0;   // k: input sequences a set merges (the last set may have fewer)
  std::size_t sets = 0;            // sets: the output sequences
  std::size_t sample_stride = 0;   // s: every s-th key of a sequence is sampled
  std::size_t set_samples = 0;     // samples of a whole set (the last set may have fewer)
  std::size_t samples = 0;         // samples of all sets
  std::size_t set_groups = 0;      // groups of every set but the last
  std::size_t last_set_groups = 0;
  std::size_t groups = 0;          // groups of all sets
  bool ranks_on_chip = false;      // step 3 ranks the samples in one kernel (else it sorts them)
  std::size_t set_keys() const { return set_sequences * sequence_keys; }
  /// Most samples a set ranked on chip has: a block holds them in shared memory.
  static constexpr std::size_t max_ranked_set_samples = 12288;
};

/// The shape of a sort of n keys under a policy: a pure function of (n, policy), computed on
/// the host, so no step needs to read sizes back from the device. After step 1 (sequences of
/// block_sort_keys), rounds of steps 3 and 4.
struct sort_plan {
  static constexpr int max_rounds = 32;  // max_sequences 2 over 2^32 sequences
  std::size_t n = 0;
  std::size_t chunks = 0;          // step 1: ceil(n / 128)
  int round_count = 0;
  merge_round rounds[max_rounds];
};

/// Checks the policy (input_error naming the field) and plans the sort of n keys with it as it
/// is (fields left to plan_for take their values for large inputs). It may stop short of the
/// whole sort, leaving up to `sequences_left` sorted sequences (a power of two) unmerged: the
/// distributed sort's receivers run the last round. 1 (the default) plans the whole sort.
sort_plan make_plan(std::size_t n, const policy& p, std::size_t sequences_left = 1);

/// One round over n keys in sequences of seq_keys (the last shorter), sets of set_sequences
/// (make_plan's rounds are these).
merge_round plan_round(std::size_t n, std::size_t seq_keys, std::size_t set_sequences,
                       const policy& p);

/// What a plan is fitted to: the GPU's SM count and what one block there may have.
struct device_limits {
  int sm_count = 0;
  std::size_t smem_per_block = 0;  // the opt-in limit of one block's shared memory
  int threads_per_block = 0;
};

/// The limits of CUDA device `device` (-1: the calling thread's current one), read from the
/// driver the first time and kept (any thread).
device_limits device_limits_of(int device = -1);

/// What a sort of n keys of key_bytes bytes runs: plan_for's choices from the caller's policy.
/// Either the library's rounds (`tuning`, every field set, and `plan`), or, below
/// policy::pairwise_below_blocks blocks, the small-input path (`pairwise`: version 4's pairwise
/// merges with ablation::small_input_design: version 4 for the key's width, sized for n).
struct sized_plan {
  std::size_t n = 0;
  std::size_t key_bytes = 0;
  bool pairwise = false;             // the small-input path
  bool chose_oversampling = false;   // the policy left oversampling to plan_for
  bool chose_max_sequences = false;  // ... and max_sequences
  device_limits device;              // what the plan's blocks were checked against
  policy tuning;                     // the caller's policy, the fields it left chosen
  sort_plan plan;                    // the rounds (not pairwise)
  /// What was chosen, a line a choice, each with the rule that chose it.
  std::string describe() const;
};

/// Fits the caller's policy to a sort of n keys of key_bytes bytes on a device with these
/// limits (device_limits_of() for the current one): the size rules choose the fields the
/// policy leaves to them (0) and the path; nothing the caller set is changed. Throws input_error
/// where the policy is invalid or the plan's blocks do not fit the device (the threads and
/// shared memory one block there may have).
sized_plan plan_for(std::size_t n, std::size_t key_bytes, const policy& p,
                    const device_limits& device);

/// Sorts n keys of d_in into d_out by `comp`. With d_temp == nullptr only sets temp_bytes.
/// d_out may be d_in (in place); any other overlap of d_in, d_out and the temporary storage is
/// refused (input_error) before any work.
/// Throws warpsort::cuda_error on any CUDA failure and warpsort::input_error on bad arguments.
template <class Key, class Comp = less<Key>>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp = {}, cudaStream_t stream = 0,
               const policy& tuning = default_policy<Key>(), stage_times* times = nullptr);

/// Sorts key-value pairs by key: keys_in/values_in into keys_out/values_out. In place is
/// allowed: keys_out == keys_in and/or values_out == values_in, each exactly; any other overlap
/// of the four arrays and the temporary storage (keys and values sharing memory, an output
/// over the other input, ranges offset from each other) is refused (input_error) before any
/// work. Stable: equal keys keep their input order. Values: std::uint32_t or std::uint64_t (any other
/// 4- or 8-byte value type can be passed reinterpreted as one of them; an argsort is argsort()
/// below). At most 2^32 - 1 pairs. The library's keys sort as 64-bit (key digit, position)
/// words, 4-byte keys in one pass and 8-byte keys in two (warpsort/detail/pairs_impl.cuh), the
/// values gathered once at the end; temporary storage: one or two words and a value (floats: a
/// (key, value) record) a pair, plus the word sort's. `times` sums the passes' steps.
template <class Key, class Value, class Comp = less<Key>>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                const Value* values_in, Value* values_out, std::size_t n, Comp comp = {},
                cudaStream_t stream = 0, const policy& tuning = default_policy<Key>(),
                stage_times* times = nullptr);

/// Stable argsort: writes to d_indices the input positions of the keys in sorted order (equal
/// keys keep their input order); the keys are only read. The library's keys and orders
/// (warpsort::less / greater); Index: std::uint32_t or std::uint64_t (int64 indices can be
/// passed as uint64: the same bits). The indices are written from the sort itself, with no
/// values gathered. d_indices may be exactly d_keys (the keys are read before any index is
/// written); any other overlap with them or the temporary storage is refused. At most
/// 2^32 - 1 keys.
template <class Key, class Index, class Comp = less<Key>>
void argsort(void* d_temp, std::size_t& temp_bytes, const Key* d_keys, Index* d_indices,
             std::size_t n, Comp comp = {}, cudaStream_t stream = 0,
             const policy& tuning = default_policy<Key>(), stage_times* times = nullptr);

}  // namespace warpsort
