// Tests of the input distributions: each one's defining property, every key type, sizes that are
// not powers of two, determinism by seed and independence from the thread count.
#include "data/distributions.hpp"
#include "common/key_type_lists.hpp"

#include "warpsort/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace wd = warpsort::data;

namespace {

// Restores the default thread count when a test that changes it ends.
struct thread_guard {
  ~thread_guard() { wd::set_generation_threads(0); }
};

template <class Key>
using word_t = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
template <class Key>
constexpr int W = 8 * sizeof(Key);

// Inverse of the generator's map for integer keys: the W-bit word (signed: top bit flipped).
template <class Key>
word_t<Key> word_of(Key k) {
  static_assert(std::is_integral_v<Key>);
  word_t<Key> u;
  std::memcpy(&u, &k, sizeof u);
  if constexpr (std::is_signed_v<Key>) u ^= word_t<Key>(1) << (W<Key> - 1);
  return u;
}

// Position of a key in its range, in [0, 1): word / 2^W for integers, the value for floats.
template <class Key>
double unit_pos(Key k) {
  if constexpr (std::is_floating_point_v<Key>) return static_cast<double>(k);
  else return std::ldexp(static_cast<double>(word_of(k)), -W<Key>);
}

// Which of the hbj_p equal sub-ranges a key lies in (exact for every type).
template <class Key>
unsigned bucket_of(Key k) {
  if constexpr (std::is_floating_point_v<Key>)
    return static_cast<unsigned>(std::floor(k * static_cast<Key>(wd::hbj_p)));
  else return static_cast<unsigned>(word_of(k) >> (W<Key> - wd::hbj_log2_p));
}

std::uint64_t piece(std::uint64_t i, std::uint64_t pieces, std::uint64_t n) {
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(i) * pieces / n);
}

template <class Key>
bool same_bits(const std::vector<Key>& a, const std::vector<Key>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Key)) == 0);
}

bool is_duplicate_dist(const std::string& name) {
  return name == "deterministic_duplicates" || name == "randomized_duplicates";
}

const std::size_t kSizes[] = {0, 1, 2, 3, 127, 128, 129, 1000, 4097, 65537};

}  // namespace

// ---- names --------------------------------------------------------------------------------------

TEST(DistributionNames, ExactListInOrder) {
  const std::vector<std::string> expected = {
      "uniform", "gaussian", "zero", "sorted", "reverse_sorted", "nearly_sorted",
      "bucket_sorted", "staggered", "g_group", "deterministic_duplicates",
      "randomized_duplicates", "entropy_0.811", "entropy_0.544", "entropy_0.337",
      "entropy_0.201"};
  EXPECT_EQ(wd::distribution_names(), expected);
  for (const auto& n : expected) EXPECT_TRUE(wd::is_distribution(n)) << n;
  EXPECT_FALSE(wd::is_distribution("Uniform"));
  EXPECT_FALSE(wd::is_distribution(""));
  EXPECT_FALSE(wd::is_distribution("entropy_0.8"));
}

TEST(DistributionNames, UnknownNameThrowsListingValidNames) {
  for (std::size_t n : {std::size_t(0), std::size_t(10)}) {
    try {
      (void)wd::generate<std::uint32_t>("unifrom", 1, n);
      FAIL() << "no exception for an unknown name";
    } catch (const warpsort::input_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'unifrom'"), std::string::npos) << what;
      for (const auto& name : wd::distribution_names())
        EXPECT_NE(what.find(name), std::string::npos) << what;
    }
  }
  EXPECT_THROW((void)wd::generate<double>("", 1, 5), warpsort::input_error);
}

// ---- typed tests over the six key types ---------------------------------------------------------

template <class Key>
class Distributions : public ::testing::Test {};
TYPED_TEST_SUITE(Distributions, warpsort::testing::all_key_types);

TYPED_TEST(Distributions, EverySizeAndNameGivesValidKeys) {
  using Key = TypeParam;
  for (const auto& name : wd::distribution_names()) {
    for (std::size_t n : kSizes) {
      const std::vector<Key> keys = wd::generate<Key>(name, 7, n);
      ASSERT_EQ(keys.size(), n) << name;
      if constexpr (std::is_floating_point_v<Key>) {
        for (Key k : keys) {
          ASSERT_TRUE(std::isfinite(k)) << name << " n=" << n;
          ASSERT_GE(k, Key(0)) << name << " n=" << n;
          if (!is_duplicate_dist(name)) {
            ASSERT_LT(k, Key(1)) << name << " n=" << n;
          }
          ASSERT_FALSE(k == 0 && std::signbit(k)) << "negative zero in " << name;
        }
      }
    }
  }
}

TYPED_TEST(Distributions, PointerOverloadFillsInPlace) {
  using Key = TypeParam;
  std::vector<Key> keys(1000);
  wd::generate<Key>("uniform", 3, keys.data(), keys.size());
  EXPECT_TRUE(same_bits(keys, wd::generate<Key>("uniform", 3, 1000)));
  wd::generate<Key>("uniform", 3, static_cast<Key*>(nullptr), 0);  // n = 0: nothing to write
}

TYPED_TEST(Distributions, SameSeedSameKeysDifferentSeedDifferentKeys) {
  using Key = TypeParam;
  for (const auto& name : wd::distribution_names()) {
    const auto a = wd::generate<Key>(name, 42, 1000);
    const auto b = wd::generate<Key>(name, 42, 1000);
    EXPECT_TRUE(same_bits(a, b)) << name;
    const auto c = wd::generate<Key>(name, 43, 1000);
    if (name == "deterministic_duplicates") {
      EXPECT_TRUE(same_bits(a, c)) << name;  // no randomness in it
    } else {
      EXPECT_FALSE(same_bits(a, c)) << name;
    }
  }
}

TYPED_TEST(Distributions, KeysDoNotDependOnThreadCount) {
  using Key = TypeParam;
  thread_guard guard;
  const std::size_t n = 200003;  // several threads' worth, not a power of two
  for (const auto& name : wd::distribution_names()) {
    wd::set_generation_threads(1);
    const auto one = wd::generate<Key>(name, 5, n);
    for (unsigned t : {3u, 8u, 0u}) {
      wd::set_generation_threads(t);
      EXPECT_TRUE(same_bits(one, wd::generate<Key>(name, 5, n))) << name << " threads=" << t;
    }
  }
}

TYPED_TEST(Distributions, ZeroIsOneRepeatedValue) {
  using Key = TypeParam;
  for (std::size_t n : kSizes) {
    const auto keys = wd::generate<Key>("zero", 9, n);
    for (Key k : keys) ASSERT_EQ(k, keys[0]);
  }
  EXPECT_NE(wd::generate<Key>("zero", 1, 1)[0], wd::generate<Key>("zero", 2, 1)[0]);
}

TYPED_TEST(Distributions, UniformCoversTheRange) {
  using Key = TypeParam;
  const std::size_t n = 200000;
  const auto keys = wd::generate<Key>("uniform", 11, n);
  double sum = 0, sum2 = 0;
  std::size_t low_half = 0;
  for (Key k : keys) {
    const double x = unit_pos(k);
    sum += x;
    sum2 += x * x;
    low_half += x < 0.5;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 0.005);
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
  EXPECT_NEAR(static_cast<double>(low_half) / n, 0.5, 0.01);
  if constexpr (std::is_signed_v<Key> && std::is_integral_v<Key>) {
    // Signed keys use the whole range: about half are negative.
    const auto negative = std::count_if(keys.begin(), keys.end(), [](Key k) { return k < 0; });
    EXPECT_NEAR(static_cast<double>(negative) / n, 0.5, 0.01);
  }
  std::set<Key> distinct(keys.begin(), keys.end());
  EXPECT_GT(distinct.size(), n * 99 / 100);
}

TYPED_TEST(Distributions, GaussianMeanVarianceAndNoWrap) {
  using Key = TypeParam;
  const std::size_t n = 200000;
  const auto keys = wd::generate<Key>("gaussian", 12, n);
  double sum = 0, sum2 = 0;
  std::size_t tails = 0;
  for (Key k : keys) {
    const double x = unit_pos(k);
    sum += x;
    sum2 += x * x;
    tails += (x < 0.1 || x > 0.9);
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Mean of four U(0,1): mean 1/2, variance 1/48; P(x < 0.1) = 0.4^4 / 24 ~ 0.00107 per tail.
  EXPECT_NEAR(mean, 0.5, 0.003);
  EXPECT_NEAR(var, 1.0 / 48, 0.001);
  // A sum that wrapped around the word would put many keys in the tails.
  EXPECT_LT(static_cast<double>(tails) / n, 0.004);
  EXPECT_GT(tails, 0u);
}

TYPED_TEST(Distributions, SortedIsTheUniformKeysAscending) {
  using Key = TypeParam;
  for (std::size_t n : {std::size_t(1), std::size_t(127), std::size_t(1000), std::size_t(100003)}) {
    const auto sorted = wd::generate<Key>("sorted", 4, n);
    EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
    auto uniform = wd::generate<Key>("uniform", 4, n);
    std::sort(uniform.begin(), uniform.end());
    EXPECT_TRUE(same_bits(sorted, uniform)) << n;

    const auto reverse = wd::generate<Key>("reverse_sorted", 4, n);
    EXPECT_TRUE(std::is_sorted(reverse.rbegin(), reverse.rend()));  // non-increasing
    EXPECT_TRUE(std::equal(reverse.rbegin(), reverse.rend(), sorted.begin()));
  }
}

TYPED_TEST(Distributions, NearlySortedIsMostlySortedButNotFully) {
  using Key = TypeParam;
  for (std::size_t n : {std::size_t(1000), std::size_t(10007), std::size_t(100000)}) {
    const auto nearly = wd::generate<Key>("nearly_sorted", 8, n);
    const auto sorted = wd::generate<Key>("sorted", 8, n);
    EXPECT_FALSE(std::is_sorted(nearly.begin(), nearly.end())) << n;
    // A permutation of the sorted keys ...
    auto copy = nearly;
    std::sort(copy.begin(), copy.end());
    EXPECT_TRUE(same_bits(copy, sorted));
    // ... that differs from them in at most 2 positions per swap, each swap adding at most
    // 4 descents.
    const std::size_t swaps = (n + wd::nearly_sorted_swaps_per - 1) / wd::nearly_sorted_swaps_per;
    std::size_t moved = 0, descents = 0;
    for (std::size_t i = 0; i < n; ++i) moved += nearly[i] != sorted[i];
    for (std::size_t i = 1; i < n; ++i) descents += nearly[i] < nearly[i - 1];
    EXPECT_LE(moved, 2 * swaps);
    EXPECT_GE(moved, swaps);  // almost every swap moves two distinct keys
    EXPECT_LE(descents, 4 * swaps);
    EXPECT_GE(descents, swaps / 2);
  }
  // Fewer than two keys: nothing to swap.
  EXPECT_EQ(wd::generate<Key>("nearly_sorted", 8, 1), wd::generate<Key>("sorted", 8, 1));
}

TYPED_TEST(Distributions, EntropySeriesHasExpectedOneBitFraction) {
  using Key = TypeParam;
  const std::size_t n = 100000;
  const std::pair<const char*, int> series[] = {{"uniform", 1},        {"entropy_0.811", 2},
                                                {"entropy_0.544", 3},  {"entropy_0.337", 4},
                                                {"entropy_0.201", 5}};
  for (const auto& [name, k] : series) {
    const auto keys = wd::generate<Key>(name, 13, n);
    const double p = std::ldexp(1.0, -k);  // probability of a one bit after AND of k words
    if constexpr (std::is_integral_v<Key>) {
      std::uint64_t ones = 0;
      for (Key key : keys) ones += __builtin_popcountll(static_cast<std::uint64_t>(word_of(key)));
      const double fraction = static_cast<double>(ones) / (double(n) * W<Key>);
      EXPECT_NEAR(fraction, p, 0.01 * p + 0.001) << name;
      // Per-bit entropy H(p): 1, 0.811, 0.544, 0.337, 0.201 as the name says.
      const double h = -fraction * std::log2(fraction) - (1 - fraction) * std::log2(1 - fraction);
      const double named = k == 1 ? 1.0 : std::stod(std::string(name).substr(8));
      EXPECT_NEAR(h, named, 0.01) << name;
    } else {
      // Floats are word * 2^-W, so their mean is about p.
      double sum = 0;
      for (Key key : keys) sum += key;
      EXPECT_NEAR(sum / n, p, 0.05 * p) << name;
    }
  }
}

TYPED_TEST(Distributions, BucketSortedStructure) {
  using Key = TypeParam;
  const std::uint64_t p = wd::hbj_p;
  for (std::size_t n : {std::size_t(1000), std::size_t(p * p * 3 + 17)}) {
    const auto keys = wd::generate<Key>("bucket_sorted", 21, n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(bucket_of(keys[i]), piece(i, p * p, n) % p) << "i=" << i << " n=" << n;
  }
  // With n >= p^2 every block visits the p buckets in ascending order.
  const std::size_t n = p * p * 2 + 5;
  const auto keys = wd::generate<Key>("bucket_sorted", 21, n);
  for (std::uint64_t q = 0; q < p; ++q) {
    std::vector<unsigned> seen;
    for (std::size_t i = 0; i < n; ++i)
      if (piece(i, p, n) == q && (seen.empty() || seen.back() != bucket_of(keys[i])))
        seen.push_back(bucket_of(keys[i]));
    ASSERT_EQ(seen.size(), p) << "block " << q;
    for (unsigned b = 0; b < p; ++b) ASSERT_EQ(seen[b], b);
  }
}

TYPED_TEST(Distributions, StaggeredStructureAndRange) {
  using Key = TypeParam;
  const std::uint64_t p = wd::hbj_p;
  const std::size_t n = 100003;
  const auto keys = wd::generate<Key>("staggered", 22, n);
  std::vector<std::set<unsigned>> buckets_of_block(p);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t q = piece(i, p, n);
    const unsigned expected = static_cast<unsigned>(q < p / 2 ? 2 * q + 1 : 2 * q - p);
    ASSERT_EQ(bucket_of(keys[i]), expected) << "i=" << i;
    buckets_of_block[q].insert(bucket_of(keys[i]));
  }
  // Each block uses one bucket and the blocks use every bucket once (a permutation).
  std::set<unsigned> all;
  for (const auto& s : buckets_of_block) {
    ASSERT_EQ(s.size(), 1u);
    all.insert(*s.begin());
  }
  EXPECT_EQ(all.size(), p);
  // Block p/2 - 1 draws from the top bucket: the keys there reach near the top of the type's
  // range, where a formula computed in too narrow an integer would overflow.
  const auto block = [&](std::uint64_t q) {
    std::vector<Key> v;
    for (std::size_t i = 0; i < n; ++i)
      if (piece(i, p, n) == q) v.push_back(keys[i]);
    return v;
  };
  const auto top = block(p / 2 - 1);
  const Key top_max = *std::max_element(top.begin(), top.end());
  EXPECT_GT(unit_pos(top_max), 1.0 - 1.0 / p + 0.9 / p);
  EXPECT_LT(unit_pos(top_max), 1.0);
  const auto bottom = block(p / 2);
  EXPECT_LT(unit_pos(*std::min_element(bottom.begin(), bottom.end())), 0.1 / p);
  if constexpr (std::is_signed_v<Key> && std::is_integral_v<Key>) {
    EXPECT_GT(top_max, std::numeric_limits<Key>::max() - std::numeric_limits<Key>::max() / 64);
  }
}

TYPED_TEST(Distributions, GGroupStructure) {
  using Key = TypeParam;
  const std::uint64_t p = wd::hbj_p, g = wd::g_group_g;
  for (std::size_t n : {std::size_t(5000), std::size_t(p * g * 7 + 3)}) {
    const auto keys = wd::generate<Key>("g_group", 23, n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t pc = piece(i, p * g, n), q = pc / g, k = pc % g, j = q / g;
      ASSERT_EQ(bucket_of(keys[i]), (j * g + p / 2 + k) % p) << "i=" << i << " n=" << n;
    }
  }
  // The blocks of one group use the same g buckets; the groups together use all p buckets.
  const std::size_t n = p * g * 4;
  const auto keys = wd::generate<Key>("g_group", 23, n);
  std::set<unsigned> all;
  for (std::uint64_t group = 0; group < p / g; ++group) {
    std::set<unsigned> first;
    for (std::uint64_t q = group * g; q < (group + 1) * g; ++q) {
      std::set<unsigned> s;
      for (std::size_t i = q * n / p; i < (q + 1) * n / p; ++i) s.insert(bucket_of(keys[i]));
      ASSERT_EQ(s.size(), g);
      if (q == group * g) first = s;
      ASSERT_EQ(s, first);
    }
    all.insert(first.begin(), first.end());
  }
  EXPECT_EQ(all.size(), p);
}

TYPED_TEST(Distributions, DeterministicDuplicates) {
  using Key = TypeParam;
  {
    const std::size_t n = 1024;  // the first 512 keys are 10, the next 256 are 9, ..., the last 0
    const auto keys = wd::generate<Key>("deterministic_duplicates", 1, n);
    std::size_t i = 0;
    for (int v = 10, len = 512; v >= 0; --v, len = std::max(len / 2, 1))
      for (int c = 0; c < len; ++c, ++i) ASSERT_EQ(keys[i], static_cast<Key>(v)) << "i=" << i;
    EXPECT_EQ(i, n);
  }
  for (std::size_t n : kSizes) {
    if (n == 0) continue;
    const auto keys = wd::generate<Key>("deterministic_duplicates", 1, n);
    const int lg = static_cast<int>(std::floor(std::log2(static_cast<double>(n))));
    EXPECT_EQ(keys.front(), static_cast<Key>(lg));
    EXPECT_EQ(keys.back(), Key(0));
    EXPECT_TRUE(std::is_sorted(keys.rbegin(), keys.rend()));
    const std::set<Key> distinct(keys.begin(), keys.end());
    EXPECT_EQ(distinct.size(), static_cast<std::size_t>(lg) + 1) << n;  // log2 n + 1 values
    // About half the keys take the largest value.
    const auto top = std::count(keys.begin(), keys.end(), static_cast<Key>(lg));
    EXPECT_GE(static_cast<std::size_t>(top), n / 2) << n;
  }
}

TYPED_TEST(Distributions, RandomizedDuplicates) {
  using Key = TypeParam;
  const std::uint64_t p = wd::hbj_p;
  const std::size_t n = 100003;
  const auto keys = wd::generate<Key>("randomized_duplicates", 31, n);
  std::set<Key> distinct;
  for (Key k : keys) {
    ASSERT_GE(k, Key(0));
    ASSERT_LT(k, static_cast<Key>(wd::rd_range));
    ASSERT_EQ(static_cast<double>(k), std::floor(static_cast<double>(k)));  // integral values
    distinct.insert(k);
  }
  EXPECT_GE(distinct.size(), 24u);  // p * range random values from 32: all appear w.h.p.
  EXPECT_LE(distinct.size(), static_cast<std::size_t>(wd::rd_range));
  // Each block is at most `range` runs of one value.
  for (std::uint64_t q = 0; q < p; ++q) {
    std::size_t runs = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (piece(i, p, n) == q && (i == 0 || piece(i - 1, p, n) != q || keys[i] != keys[i - 1]))
        ++runs;
    ASSERT_GE(runs, 1u);
    ASSERT_LE(runs, static_cast<std::size_t>(wd::rd_range)) << "block " << q;
  }
  // Runs are long: about n / (p * range) keys on average.
  std::size_t changes = 0;
  for (std::size_t i = 1; i < n; ++i) changes += keys[i] != keys[i - 1];
  EXPECT_LE(changes, p * wd::rd_range);
  EXPECT_GE(changes, p * 8);
}

TYPED_TEST(Distributions, RangeDistributionsWithFewKeys) {
  // n smaller than the number of blocks: still well formed, deterministic, right buckets.
  using Key = TypeParam;
  for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(127)}) {
    const auto st = wd::generate<Key>("staggered", 2, n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t q = piece(i, wd::hbj_p, n);
      ASSERT_EQ(bucket_of(st[i]), q < wd::hbj_p / 2 ? 2 * q + 1 : 2 * q - wd::hbj_p);
    }
  }
}
