// The CPU bitonic sorts of loni2024bitonic (docs/references.bib): recursive bitonic sort,
// sequential and threaded (std::thread) with a parallel merge. Any n: a length that is not a
// power of two is sorted as a padded copy of next_pow2(n) keys (padding: +inf for floating
// point, the maximum otherwise, bitonic::pad_key), whose first n keys are copied back.
// Floating point keys: NaN is not supported (the compare-exchange assumes a strict weak order).
#include <warpsort/key_types.hpp>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "baselines/bitonic_index.hpp"
#include "baselines/cpu_baselines.hpp"

namespace warpsort::baselines {
namespace {

namespace bt = ::warpsort::baselines::bitonic;

/// Elements below which the parallel sort and merge recurse sequentially.
constexpr std::size_t default_parallel_grain = std::size_t{1} << 14;

template <class Key>
inline void compare_exchange(Key* a, std::size_t i, std::size_t j, bool asc) {
  // Swap when out of order for the direction (the seed's `(a[i] > a[i + mid]) == direction`).
  if (asc ? (a[i + j] < a[i]) : (a[i] < a[i + j])) std::swap(a[i], a[i + j]);
}

/// Bitonic merge of a[lo, lo + cnt) (a bitonic sequence, cnt a power of two) towards `asc`.
template <class Key>
void merge_seq(Key* a, std::size_t lo, std::size_t cnt, bool asc) {
  if (cnt <= 1) return;
  const std::size_t half = cnt / 2;
  for (std::size_t i = lo; i < lo + half; ++i) compare_exchange(a, i, half, asc);
  merge_seq(a, lo, half, asc);
  merge_seq(a, lo + half, half, asc);
}

/// Recursive bitonic sort of a[lo, lo + cnt) (cnt a power of two) towards `asc`.
template <class Key>
void sort_seq(Key* a, std::size_t lo, std::size_t cnt, bool asc) {
  if (cnt <= 1) return;
  const std::size_t half = cnt / 2;
  sort_seq(a, lo, half, true);
  sort_seq(a, lo + half, half, false);
  merge_seq(a, lo, cnt, asc);
}

/// Joins every thread it holds when it goes out of scope (also on an exception).
class thread_group {
 public:
  ~thread_group() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  template <class F>
  void spawn(F&& f) {
    threads_.emplace_back(std::forward<F>(f));
  }
  void join_all() {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  std::vector<std::thread> threads_;
};

/// Parallel bitonic merge with `threads` threads (this one included): the compare-exchange loop
/// is split into `threads` contiguous chunks, then the two halves are merged in parallel with
/// the threads split between them. At most `threads` threads run at any time.
template <class Key>
void merge_par(Key* a, std::size_t lo, std::size_t cnt, bool asc, unsigned threads,
               std::size_t grain) {
  if (cnt <= 1) return;
  if (threads <= 1 || cnt < grain || cnt < 4) {
    merge_seq(a, lo, cnt, asc);
    return;
  }
  const std::size_t half = cnt / 2;
  {
    const unsigned parts = static_cast<unsigned>(std::min<std::size_t>(threads, half));
    const auto chunk = [&](unsigned p) {
      const std::size_t begin = lo + half * p / parts;
      const std::size_t end = lo + half * (p + 1) / parts;
      for (std::size_t i = begin; i < end; ++i) compare_exchange(a, i, half, asc);
    };
    thread_group group;
    for (unsigned p = 1; p < parts; ++p) group.spawn([&chunk, p] { chunk(p); });
    chunk(0);
    group.join_all();
  }
  const unsigned t_lo = threads / 2;
  const unsigned t_hi = threads - t_lo;
  thread_group group;
  group.spawn([=] { merge_par(a, lo, half, asc, t_lo, grain); });
  merge_par(a, lo + half, half, asc, t_hi, grain);
  group.join_all();
}

/// Parallel recursive bitonic sort: the two halves are sorted in parallel (threads split between
/// them) down to one thread per subtree, then merged with merge_par.
template <class Key>
void sort_par(Key* a, std::size_t lo, std::size_t cnt, bool asc, unsigned threads,
              std::size_t grain) {
  if (cnt <= 1) return;
  if (threads <= 1 || cnt < grain || cnt < 4) {
    sort_seq(a, lo, cnt, asc);
    return;
  }
  const std::size_t half = cnt / 2;
  const unsigned t_lo = threads / 2;
  const unsigned t_hi = threads - t_lo;
  {
    thread_group group;
    group.spawn([=] { sort_par(a, lo, half, true, t_lo, grain); });
    sort_par(a, lo + half, half, false, t_hi, grain);
    group.join_all();
  }
  merge_par(a, lo, cnt, asc, threads, grain);
}

/// Runs body(p, P) on keys as a power-of-two array: in place when n is one, else on a padded copy.
template <class Key, class Body>
void on_padded(Key* keys, std::size_t n, Body&& body) {
  if (n <= 1) return;
  const std::size_t P = bt::next_pow2(n);
  if (P == n) {
    body(keys, P);
    return;
  }
  std::vector<Key> padded(P, bt::pad_key<Key>());
  std::copy(keys, keys + n, padded.begin());
  body(padded.data(), P);
  std::copy(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(n), keys);
}

}  // namespace

template <class Key>
void cpu_bitonic_sort_sequential(Key* keys, std::size_t n) {
  on_padded(keys, n, [](Key* a, std::size_t P) { sort_seq(a, 0, P, true); });
}

namespace detail {
template <class Key>
void cpu_bitonic_sort_parallel_grain(Key* keys, std::size_t n, unsigned threads,
                                     std::size_t grain) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (grain < 2) grain = 2;
  on_padded(keys, n, [&](Key* a, std::size_t P) { sort_par(a, 0, P, true, threads, grain); });
}
}  // namespace detail

template <class Key>
void cpu_bitonic_sort_parallel(Key* keys, std::size_t n, unsigned threads) {
  detail::cpu_bitonic_sort_parallel_grain(keys, n, threads, default_parallel_grain);
}

#define WARPSORT_INSTANTIATE_CPU_BITONIC(name, Key)                                        \
  template void cpu_bitonic_sort_sequential<Key>(Key*, std::size_t);                       \
  template void cpu_bitonic_sort_parallel<Key>(Key*, std::size_t, unsigned);               \
  template void detail::cpu_bitonic_sort_parallel_grain<Key>(Key*, std::size_t, unsigned, \
                                                             std::size_t);
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_CPU_BITONIC)
#undef WARPSORT_INSTANTIATE_CPU_BITONIC

}  // namespace warpsort::baselines
