// The distributed sort's fuzz cases: totals, key types, values, orders, rebalancing and how the
// keys lie over the ranks, as pure functions of a seed, so every rank (and the test on the test
// transport) computes the same list. Header-only: the GPU test uses it without the CLI's
// libraries.
#pragma once

#include <warpsort/key_types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsort::cli {

/// How a total lies over the ranks.
enum class dist_layout : int {
  balanced = 0,      // N/P each (the sort's own split)
  random = 1,        // random cut points: uneven, some ranks often empty
  one_rank = 2,      // one rank holds every key, all others none
  empty_middle = 3,  // the first and last ranks hold the keys, the ranks between none
  empty_first = 4,   // rank 0 none, the others evenly
};
constexpr int dist_layout_count = 5;

inline const char* dist_layout_name(dist_layout l) {
  switch (l) {
    case dist_layout::balanced: return "balanced";
    case dist_layout::random: return "random";
    case dist_layout::one_rank: return "one_rank";
    case dist_layout::empty_middle: return "empty_middle";
    case dist_layout::empty_first: return "empty_first";
  }
  return "?";
}

/// The key types by name, in the list's order (include/warpsort/key_types.hpp).
inline const std::vector<std::string>& dist_fuzz_type_names() {
  static const std::vector<std::string> names{
#define WARPSORT_DIST_FUZZ_TYPE_NAME_(name, Key) #name,
      WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_DIST_FUZZ_TYPE_NAME_)
#undef WARPSORT_DIST_FUZZ_TYPE_NAME_
  };
  return names;
}

/// The key distributions the cases cycle through (names of data::generate): spread keys, one
/// key everywhere, few distinct keys.
inline const std::vector<std::string>& dist_fuzz_distributions() {
  static const std::vector<std::string> names{"uniform", "zero", "randomized_duplicates"};
  return names;
}

struct dist_fuzz_case {
  std::size_t total = 0;
  int type = 0;          // index into dist_fuzz_type_names()
  int value_bytes = 0;   // 0: keys only; 4 or 8: pairs (values: the keys' global input indices)
  bool descending = false;
  bool rebalance = false;
  dist_layout layout = dist_layout::balanced;
  int distribution = 0;  // index into dist_fuzz_distributions()
  std::uint64_t seed = 0;
};

/// splitmix64: the cases' one source of randomness (the same on every rank and machine).
inline std::uint64_t dist_fuzz_mix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The totals: 0..small_max every small_step-th, 2^k - 3 .. 2^k + 3 for 2 <= k <= max_k, and
/// `random_totals` totals drawn log-uniformly up to 2^max_k; each once, in that order.
inline std::vector<std::size_t> dist_fuzz_totals(std::uint64_t seed, std::size_t small_max,
                                                 std::size_t small_step, int max_k,
                                                 int random_totals) {
  std::vector<std::size_t> totals;
  const auto add = [&](std::size_t n) {
    if (std::find(totals.begin(), totals.end(), n) == totals.end()) totals.push_back(n);
  };
  for (std::size_t n = 0; n <= small_max; n += std::max<std::size_t>(small_step, 1)) add(n);
  for (int k = 2; k <= max_k; ++k)
    for (int d = -3; d <= 3; ++d)
      add(static_cast<std::size_t>((std::int64_t{1} << k) + d));
  std::uint64_t state = seed ^ 0x746f74616c73ull;
  for (int i = 0; i < random_totals; ++i) {
    const int bits = 1 + static_cast<int>(dist_fuzz_mix(state) % static_cast<std::uint64_t>(std::max(max_k, 1)));
    add(static_cast<std::size_t>(dist_fuzz_mix(state) % (std::uint64_t{1} << bits)));
  }
  return totals;
}

/// One case a total. The other choices cycle with periods that share no factor (types 6,
/// layouts 5, values 3, orders, rebalancing and distributions by the case's index in mixed
/// radix), so every combination recurs within a few hundred cases.
inline std::vector<dist_fuzz_case> dist_fuzz_cases(const std::vector<std::size_t>& totals,
                                                   std::uint64_t seed) {
  std::vector<dist_fuzz_case> cases;
  const int types = static_cast<int>(dist_fuzz_type_names().size());
  const int dists = static_cast<int>(dist_fuzz_distributions().size());
  for (std::size_t i = 0; i < totals.size(); ++i) {
    const int k = static_cast<int>(i);
    dist_fuzz_case c;
    c.total = totals[i];
    c.type = k % types;
    c.layout = static_cast<dist_layout>(k % dist_layout_count);
    const int values[] = {0, 4, 8};
    c.value_bytes = values[(k / 7) % 3];
    c.descending = (k / 2) % 2 == 1;
    c.rebalance = (k / 4) % 2 == 1;
    c.distribution = (k / 11) % dists;
    c.seed = seed * 1000003ull + i;
    cases.push_back(c);
  }
  return cases;
}

/// Each rank's count under the case's layout; they sum to the total.
inline std::vector<std::size_t> dist_fuzz_counts(const dist_fuzz_case& c, int ranks) {
  const std::size_t P = static_cast<std::size_t>(ranks), N = c.total;
  std::vector<std::size_t> counts(P, 0);
  const auto even = [&](std::size_t from, std::size_t to, std::size_t n) {  // ranks [from, to)
    const std::size_t k = to - from;
    for (std::size_t r = from; r < to; ++r)
      counts[r] = n / k + ((r - from) < n % k ? 1 : 0);
  };
  switch (c.layout) {
    case dist_layout::balanced: even(0, P, N); break;
    case dist_layout::random: {
      std::uint64_t state = c.seed ^ 0x6c61796f7574ull;
      std::vector<std::size_t> cuts{0, N};
      for (std::size_t r = 1; r < P; ++r) cuts.push_back(N ? dist_fuzz_mix(state) % (N + 1) : 0);
      std::sort(cuts.begin(), cuts.end());
      for (std::size_t r = 0; r < P; ++r) counts[r] = cuts[r + 1] - cuts[r];
      break;
    }
    case dist_layout::one_rank: counts[c.seed % P] = N; break;
    case dist_layout::empty_middle:
      if (P <= 2) even(0, P, N);
      else {
        counts[0] = N / 2;
        counts[P - 1] = N - N / 2;
      }
      break;
    case dist_layout::empty_first:
      if (P == 1) counts[0] = N;
      else even(1, P, N);
      break;
  }
  return counts;
}

}  // namespace warpsort::cli
