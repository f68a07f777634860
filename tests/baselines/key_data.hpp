// Test inputs for the baseline tests (CPU and GPU): a few deterministic patterns for every key
// type, and a checker that reports the first mismatch against std::sort instead of whole arrays.
#pragma once

#include "common/key_type_lists.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace warpsort::baselines::testing {

using key_types = ::warpsort::testing::all_key_types;

/// The size list of the brief: edges around powers of two, the shared-memory tile (2048) and a
/// prime, up to 65537.
inline const std::vector<std::size_t>& test_sizes() {
  static const std::vector<std::size_t> sizes{0,    1,    2,    3,    31,   127,  128, 129,
                                              1000, 1023, 1024, 1025, 2047, 2048, 2049, 4099,
                                              65537};
  return sizes;
}

inline const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> names{"uniform", "sorted",       "reverse",
                                              "all_equal", "few_distinct", "extremes"};
  return names;
}

/// Keys of `pattern`: "uniform" (random over the whole type range for integers, [-1e6, 1e6] for
/// floating point), "sorted", "reverse", "all_equal", "few_distinct" (4 values), "extremes"
/// (random mix of the lowest, maximum, 0, +/-1 and, for floating point, +/-infinity: the padding
/// value of the bitonic sorts occurs among the real keys).
template <class Key>
std::vector<Key> make_keys(const std::string& pattern, std::size_t n, std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + n);
  std::vector<Key> keys(n);
  auto uniform = [&]() -> Key {
    if constexpr (std::is_floating_point_v<Key>) {
      return static_cast<Key>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
    } else {
      return static_cast<Key>(rng());
    }
  };
  if (pattern == "uniform" || pattern == "sorted" || pattern == "reverse") {
    for (auto& k : keys) k = uniform();
    if (pattern == "sorted") std::sort(keys.begin(), keys.end());
    if (pattern == "reverse") std::sort(keys.begin(), keys.end(), [](Key a, Key b) { return b < a; });
  } else if (pattern == "all_equal") {
    std::fill(keys.begin(), keys.end(), static_cast<Key>(42));
  } else if (pattern == "few_distinct") {
    const Key values[4] = {static_cast<Key>(7), static_cast<Key>(3), static_cast<Key>(100),
                           static_cast<Key>(0)};
    for (auto& k : keys) k = values[rng() % 4];
  } else if (pattern == "extremes") {
    using lim = std::numeric_limits<Key>;
    std::vector<Key> values{lim::lowest(), lim::max(), static_cast<Key>(0), static_cast<Key>(1)};
    if constexpr (std::is_signed_v<Key>) values.push_back(static_cast<Key>(-1));
    if constexpr (lim::has_infinity) {
      values.push_back(lim::infinity());
      values.push_back(-lim::infinity());
    }
    for (auto& k : keys) k = values[rng() % values.size()];
  } else {
    ADD_FAILURE() << "unknown test pattern " << pattern;
  }
  return keys;
}

/// Expects `got` to equal std::sort(input); reports the first differing position only.
template <class Key>
::testing::AssertionResult sorted_like_std(const std::vector<Key>& input,
                                           const std::vector<Key>& got) {
  std::vector<Key> want = input;
  std::sort(want.begin(), want.end());
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << "size " << got.size() << ", expected " << want.size();
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(got[i] == want[i]))
      return ::testing::AssertionFailure() << "first mismatch at " << i << " of " << want.size()
                                           << ": got " << +got[i] << ", expected " << +want[i];
  return ::testing::AssertionSuccess();
}

}  // namespace warpsort::baselines::testing
