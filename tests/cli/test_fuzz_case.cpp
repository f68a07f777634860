// `warpsort fuzz`'s case generator and repro commands (CPU).
#include "cli/fuzz_case.hpp"
#include "cli/key_dispatch.hpp"
#include "data/distributions.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace warpsort::cli;
using warpsort::data::key_type;

TEST(FuzzRng, SplitMix64IsReproducible) {
  fuzz_rng a(1), b(1), c(2);
  // splitmix64's published first output for seed 0 (a fixed reference, the same on every library).
  fuzz_rng zero(0);
  EXPECT_EQ(zero.next(), 0xe220a8397b1dcdafULL);
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
  for (int i = 0; i < 10000; ++i) {
    EXPECT_LT(a.below(7), 7u);
    EXPECT_EQ(a.below(0), 0u);
    const double u = a.unit();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(FuzzCase, SameSeedSameCases) {
  fuzz_rng a(42), b(42);
  for (int i = 0; i < 1000; ++i) {
    const fuzz_case x = draw_fuzz_case(a, std::size_t{1} << 22), y = draw_fuzz_case(b, std::size_t{1} << 22);
    EXPECT_EQ(repro_command(x), repro_command(y));
  }
}

TEST(FuzzCase, CoversTypesDistributionsOrdersAndSizeShapes) {
  const std::size_t max_n = std::size_t{1} << 22;
  fuzz_rng rng(7);
  std::set<key_type> types;
  std::set<std::string> dists;
  std::set<bool> orders, layouts;
  int small = 0, zero = 0, near_power = 0, large = 0;
  for (int i = 0; i < 20000; ++i) {
    const fuzz_case c = draw_fuzz_case(rng, max_n);
    ASSERT_LE(c.n, max_n);
    types.insert(c.type);
    dists.insert(c.distribution);
    orders.insert(c.descending);
    layouts.insert(c.out_of_place);
    small += c.n <= 300;
    zero += c.n == 0;
    large += c.n > (std::size_t{1} << 16);
    for (int k = 9; k <= 22; ++k) {
      const std::size_t p = std::size_t{1} << k;
      near_power += c.n == p - 1 || c.n == p || c.n == p + 1;
    }
  }
  EXPECT_EQ(types.size(), supported_key_types().size());
  EXPECT_EQ(dists.size(), warpsort::data::distribution_names().size());
  EXPECT_EQ(orders.size(), 2u);
  EXPECT_EQ(layouts.size(), 2u);
  EXPECT_GT(small, 20000 / 4);  // "often"
  EXPECT_GT(zero, 0);
  EXPECT_GT(near_power, 500);
  EXPECT_GT(large, 1000);
}

TEST(FuzzCase, SizesStayWithinATinyMaximum) {
  for (std::size_t max_n : {std::size_t{1}, std::size_t{2}, std::size_t{100}, std::size_t{129}}) {
    fuzz_rng rng(max_n);
    for (int i = 0; i < 2000; ++i) EXPECT_LE(draw_fuzz_size(rng, max_n), max_n);
  }
}

TEST(FuzzCase, ReproCommandAndDescription) {
  fuzz_case c;
  c.type = key_type::float64;
  c.n = 100003;
  c.distribution = "entropy_0.337";
  c.descending = true;
  c.out_of_place = true;
  c.seed = 12345;
  EXPECT_EQ(repro_command(c),
            "warpsort sort --dist entropy_0.337 --n 100003 --seed 12345 --type float64 --descending "
            "--out-of-place");
  EXPECT_EQ(describe(c), "float64 entropy_0.337 n=100003 descending seed 12345 out-of-place");
  c.descending = false;
  c.out_of_place = false;
  c.type = key_type::uint32;
  EXPECT_EQ(repro_command(c), "warpsort sort --dist entropy_0.337 --n 100003 --seed 12345 --type uint32");
}

}  // namespace

namespace {

using warpsort::cli::value_type;

TEST(FuzzCase, AboutOneCaseInThreeSortsPairsOfBothValueTypes) {
  fuzz_rng rng(11);
  int pairs = 0, u32 = 0, u64 = 0;
  const int total = 30000;
  for (int i = 0; i < total; ++i) {
    const fuzz_case c = draw_fuzz_case(rng, std::size_t{1} << 22);
    pairs += c.values != value_type::none;
    u32 += c.values == value_type::uint32;
    u64 += c.values == value_type::uint64;
  }
  EXPECT_GT(pairs, total / 3 - total / 30);
  EXPECT_LT(pairs, total / 3 + total / 30);
  EXPECT_GT(u32, total / 8);
  EXPECT_GT(u64, total / 8);
}

TEST(FuzzCase, NoPairsAtOrAbove2To32) {
  fuzz_rng rng(3);
  const std::size_t max_n = std::size_t{1} << 34;
  for (int i = 0; i < 20000; ++i) {
    const fuzz_case c = draw_fuzz_case(rng, max_n);
    if (c.n > warpsort::cli::max_pairs) EXPECT_EQ(c.values, value_type::none) << c.n;
  }
}

TEST(FuzzCase, PairsReproCommandNamesTheValueType) {
  fuzz_case c;
  c.type = key_type::float32;
  c.n = 1000;
  c.distribution = "zero";
  c.out_of_place = false;
  c.seed = 7;
  c.values = value_type::uint64;
  EXPECT_EQ(repro_command(c), "warpsort sort --dist zero --n 1000 --seed 7 --type float32 --values uint64");
  EXPECT_EQ(describe(c), "float32 zero n=1000 ascending seed 7 in-place pairs uint64");
}

}  // namespace
