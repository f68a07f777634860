// Each step's output contract on its own, for any key type and order, against a CPU reference:
// step 1 sorts every block, step 2 every sequence, step 3 cuts groups that are ordered, bounded
// and sum to n, step 4 sorts every set (version 5) or the whole input (version 4). Built-in
// float keys go through the steps as the library runs them: as their order_words, in less.
#pragma once

#include "common/test_inputs.hpp"

#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/stages.hpp>
#include <warpsort/order.cuh>
#include <warpsort/warpsort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace warpsort::testing::steps {

namespace ws = ::warpsort::stages;

/// A key type and the order the test sorts it by.
template <class K, class C>
struct order_case {
  using Key = K;
  using Comp = C;
};

/// What the steps sort for (Key, Comp): the keys themselves, or floats' order_words in less.
template <class Key, class Comp, bool = order_traits<Key, Comp>::sorts_as_bits>
struct step_keys {
  using word = Key;
  using order = Comp;
  static std::vector<word> of(const std::vector<Key>& keys) { return keys; }
};
template <class Key, class Comp>
struct step_keys<Key, Comp, true> {
  using map = order_words_for<Key, Comp>;
  using word = typename map::bits;
  using order = less<word>;
  static std::vector<word> of(const std::vector<Key>& keys) {
    std::vector<word> w(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) w[i] = map::to(keys[i]);
    return w;
  }
};

/// Every [i len, (i + 1) len) range sorted on the host.
template <class Word, class Order>
std::vector<Word> sort_ranges(std::vector<Word> keys, std::size_t len) {
  for (std::size_t b = 0; b < keys.size(); b += len)
    std::stable_sort(keys.begin() + b, keys.begin() + std::min(keys.size(), b + len), Order{});
  return keys;
}

/// Bit-for-bit equality (a custom key type need not define ==).
template <class Word>
::testing::AssertionResult same_keys(const std::vector<Word>& got, const std::vector<Word>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(Word)) != 0)
      return ::testing::AssertionFailure() << "first difference at " << i << " of " << got.size();
  return ::testing::AssertionSuccess();
}

inline const std::vector<std::string>& distributions() {
  static const std::vector<std::string> names{"uniform",  "sorted",         "reverse_sorted",
                                              "all_equal", "eight_distinct", "specials"};
  return names;
}
inline std::vector<std::size_t> sizes() {
  return capped({0, 1, 127, 128, 129, 4095, 4097, 65537, (std::size_t{1} << 20) + 1});
}

/// Version 5 and version 4 with small on-chip sizes (many blocks, sequences and rounds even
/// for small inputs), and the paper's step 1 (a warp a 128-key chunk).
template <class Word>
policy small_v5() {
  policy p = default_policy<Word>();
  p.block_sort_keys = 1024;
  p.group_capacity = 2048;
  return p;
}
template <class Word>
ablation::design small_v4() {
  ablation::design p = ablation::v4_for(sizeof(Word));
  p.block_sort_keys = 256;
  p.merge_block_keys = 256;
  p.max_sequences = 5;
  return p;
}

/// Step 1 under `p` (a policy or a design): every block of block_sort_keys sorted, out of place
/// and in place.
template <class Word, class Order, class Tuning>
void check_step1(const std::vector<Word>& input, const Tuning& p, const std::string& label) {
  const std::size_t n = input.size();
  const auto want = sort_ranges<Word, Order>(input, static_cast<std::size_t>(p.block_sort_keys));
  auto in = to_device(input);
  auto out = poisoned<Word>(n);
  ws::sort_chunks(in.get(), out.get(), n, Order{}, p, 0);
  ASSERT_TRUE(same_keys(to_host(out.get(), n), want)) << label;
  ws::sort_chunks(in.get(), in.get(), n, Order{}, p, 0);
  ASSERT_TRUE(same_keys(to_host(in.get(), n), want)) << label << " in place";
}

/// Version 4's steps 1 and 2: the sequences of plan.sequence_keys, each sorted.
template <class Word, class Order>
std::vector<Word> run_steps_1_2(const std::vector<Word>& input, const ablation::design& p,
                                const ablation::pairwise_plan& plan,
                                detail::device_buffer<Word>& result) {
  const std::size_t n = input.size();
  auto in = to_device(input);
  auto a = poisoned<Word>(n), b = poisoned<Word>(n);
  ws::sort_chunks(in.get(), a.get(), n, Order{}, p, 0);
  detail::device_buffer<std::size_t> block_starts(std::max<std::size_t>(ws::block_start_entries(n, p), 1));
  std::size_t seq = static_cast<std::size_t>(p.block_sort_keys);
  for (int r = 0; r < plan.pairwise_rounds; ++r, seq *= 2) {
    ws::merge_sequences_round(a.get(), b.get(), n, seq, block_starts.get(), Order{}, p, 0);
    std::swap(a, b);
  }
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  result = std::move(a);
  return to_host(result.get(), n);
}

template <class Word, class Order>
void check_step2(const std::vector<Word>& input, const ablation::design& p,
                 const std::string& label) {
  const ablation::pairwise_plan plan = ablation::make_plan(input.size(), p);
  detail::device_buffer<Word> seqs;
  const auto got = run_steps_1_2<Word, Order>(input, p, plan, seqs);
  ASSERT_TRUE(same_keys(got, sort_ranges<Word, Order>(input, plan.sequence_keys)))
      << label << " (" << plan.pairwise_rounds << " rounds)";
}

/// Groups [offsets[g], offsets[g + 1]) over sequences cut at `cut(g, i)`: sizes that sum to the
/// offsets, at most `bound` keys, and every key of a group not after any key of the next.
template <class Word, class Order, class Cut, class SeqLen>
void check_groups(const std::vector<Word>& seqs, std::size_t seq_keys, std::size_t first_seq,
                  std::size_t sequences, std::size_t first_group, std::size_t groups,
                  const std::vector<std::size_t>& offsets, std::size_t bound, Cut cut,
                  SeqLen seq_len, const std::string& label) {
  const Order order;
  for (std::size_t j = 0; j < groups; ++j) {
    const std::size_t g = first_group + j;
    std::size_t size = 0;
    const Word* last = nullptr;   // the group's last key in the order
    const Word* first_next = nullptr;  // the next group's first
    for (std::size_t i = 0; i < sequences; ++i) {
      const std::size_t q = first_seq + i, at = q * seq_keys, len = seq_len(q);
      const std::size_t lo = j == 0 ? 0 : cut(g - 1, i);
      const std::size_t hi = j + 1 == groups ? len : cut(g, i);
      ASSERT_LE(lo, hi) << label << " group " << g << " sequence " << q;
      ASSERT_LE(hi, len) << label << " group " << g << " sequence " << q;
      size += hi - lo;
      if (hi > lo && (last == nullptr || order(*last, seqs[at + hi - 1]))) last = &seqs[at + hi - 1];
      if (j + 1 < groups) {
        const std::size_t hi2 = j + 2 == groups ? len : cut(g + 1, i);
        if (hi2 > hi && (first_next == nullptr || order(seqs[at + hi], *first_next)))
          first_next = &seqs[at + hi];
      }
    }
    ASSERT_EQ(size, offsets[g + 1] - offsets[g]) << label << " group " << g;
    ASSERT_LE(size, bound) << label << " group " << g;
    if (last != nullptr && first_next != nullptr)
      ASSERT_FALSE(order(*first_next, *last)) << label << ": group " << g << " and the next overlap";
  }
}

/// Version 5's steps 3 and 4 on step 1's sequences: every set's groups (check_groups), the same
/// by ranking the samples on chip and by sorting them, and step 4 making every set one sorted
/// sequence of exactly its keys.
template <class Word, class Order>
void check_steps_3_4_v5(const std::vector<Word>& input, const policy& p, const std::string& label) {
  const std::size_t n = input.size();
  const sort_plan plan = make_plan(n, p);
  if (plan.round_count == 0) return;  // one block: step 1 sorted it all
  auto in = to_device(input);
  auto seqs = poisoned<Word>(n);
  ws::sort_chunks(in.get(), seqs.get(), n, Order{}, p, 0);
  const auto host_seqs = to_host(seqs.get(), n);
  std::vector<std::size_t> cuts[2], offsets[2];
  merge_round m = plan.rounds[0];
  for (int on_chip : {0, 1}) {
    m.ranks_on_chip = on_chip && m.set_samples <= merge_round::max_ranked_set_samples;
    const std::size_t bytes = ws::split_sets_temp_bytes<Word, Order>(m);
    auto temp = poisoned<unsigned char>(bytes);
    const auto layout = ws::split_sets(seqs.get(), n, m, temp.get(), bytes, Order{}, p, 0);
    cuts[on_chip] = to_host(layout.cuts, m.groups * m.set_sequences);
    offsets[on_chip] = to_host(layout.group_offsets, m.groups + 1);
    if (on_chip == 1) {
      auto out = poisoned<Word>(n);
      ws::merge_sets(seqs.get(), out.get(), n, m, layout, Order{}, p, 0);
      ASSERT_TRUE(same_keys(to_host(out.get(), n), sort_ranges<Word, Order>(input, m.set_keys())))
          << label << ": step 4 (merge_sets)";
    }
  }
  ASSERT_EQ(offsets[0], offsets[1]) << label << ": samples ranked on chip vs sorted";
  ASSERT_TRUE(same_keys(cuts[0], cuts[1])) << label << ": samples ranked on chip vs sorted";
  ASSERT_EQ(offsets[0].back(), n) << label;
  const ws::round_shape r = ws::shape_of(n, m, p);
  const std::size_t bound =
      (static_cast<std::size_t>(oversampling_of(p)) + m.set_sequences) * m.sample_stride;
  for (std::size_t set = 0; set < m.sets; ++set) {
    ASSERT_EQ(offsets[0][r.first_group(set)], r.set_begin(set)) << label << " set " << set;
    check_groups<Word, Order>(
        host_seqs, m.sequence_keys, set * m.set_sequences, r.sequences_in(set),
        r.first_group(set), r.groups_of(set), offsets[0], bound,
        [&](std::size_t g, std::size_t i) { return cuts[0][g * m.set_sequences + i]; },
        [&](std::size_t q) { return r.sequence_keys(q); }, label + " step 3 (split_sets)");
  }
}

/// Version 4's steps 3 and 4 after steps 1 and 2: groups as check_groups says, and the whole
/// input sorted.
template <class Word, class Order>
void check_steps_3_4_v4(const std::vector<Word>& input, const ablation::design& p,
                        const std::string& label) {
  const std::size_t n = input.size();
  const ablation::pairwise_plan plan = ablation::make_plan(n, p);
  if (!plan.has_groups()) return;
  detail::device_buffer<Word> seqs;
  const auto host_seqs = run_steps_1_2<Word, Order>(input, p, plan, seqs);
  const std::size_t bytes = ws::split_temp_bytes<Word, Order>(plan.samples, plan.sequences, plan.groups);
  auto temp = poisoned<unsigned char>(bytes);
  const auto layout = ws::split(seqs.get(), n, plan.sequence_keys, plan.sequences, plan.sample_stride,
                                plan.samples, plan.groups, temp.get(), bytes, Order{}, p, 0);
  const std::size_t S = plan.groups, L = plan.sequences;
  const auto cuts = to_host(layout.cuts, (S - 1) * L);
  const auto offsets = to_host(layout.group_offsets, S + 1);
  ASSERT_EQ(offsets.front(), 0u) << label;
  ASSERT_EQ(offsets.back(), n) << label;
  check_groups<Word, Order>(
      host_seqs, plan.sequence_keys, 0, L, 0, S, offsets, plan.group_bound,
      [&](std::size_t g, std::size_t i) { return cuts[g * L + i]; },
      [&](std::size_t q) { return std::min(plan.sequence_keys, n - q * plan.sequence_keys); },
      label + " step 3 (split)");
  auto out = poisoned<Word>(n);
  ws::merge_groups(seqs.get(), out.get(), n, plan.sequence_keys, plan.sequences, plan.groups,
                   layout, Order{}, p, 0);
  ASSERT_TRUE(same_keys(to_host(out.get(), n), sort_ranges<Word, Order>(input, n ? n : 1)))
      << label << ": step 4 (merge_groups)";
}

/// Every step, every distribution and size, for one key type and order: `keys(dist, n, seed)`
/// makes the input.
template <class Key, class Comp, class MakeKeys>
void check_every_step(MakeKeys keys, const std::string& name) {
  using steps = step_keys<Key, Comp>;
  using Word = typename steps::word;
  using Order = typename steps::order;
  const ablation::design paper = ablation::paper_for(sizeof(Word));
  for (const auto& dist : distributions())
    for (std::size_t n : sizes()) {
      const std::vector<Word> input = steps::of(keys(dist, n, 977 * n + dist.size()));
      const std::string label = name + " " + dist + " n=" + std::to_string(n);
      check_step1<Word, Order>(input, small_v5<Word>(), label + " step 1 (version 5)");
      check_step1<Word, Order>(input, small_v4<Word>(), label + " step 1 (version 4)");
      check_step1<Word, Order>(input, paper, label + " step 1 (the paper's 128-key chunks)");
      check_step2<Word, Order>(input, small_v4<Word>(), label + " step 2 (tiles)");
      ablation::design buffer = small_v4<Word>();
      buffer.buffer_merge_pairs = 1;
      check_step2<Word, Order>(input, buffer, label + " step 2 (the paper's buffer merge)");
      check_steps_3_4_v5<Word, Order>(input, small_v5<Word>(), label + " version 5");
      check_steps_3_4_v4<Word, Order>(input, small_v4<Word>(), label + " version 4");
      if (::testing::Test::HasFatalFailure()) return;
    }
}

}  // namespace warpsort::testing::steps
