// `warpsort dist`'s host side, without a GPU: its arguments (checked once, before any rank
// starts), the totals (0 included), the default deadline, and the fuzz's cases and layouts.
#include "cli/bench_config.hpp"
#include "cli/dist.hpp"
#include "cli/dist_fuzz.hpp"

#include <warpsort/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>
#include <string>
#include <vector>

namespace {

using namespace warpsort::cli;
using warpsort::input_error;

dist_options valid_options() {
  dist_options o;
  o.gpus = 2;
  o.sizes = "0,3,2^20";
  return o;
}

/// The input_error check_dist_arguments throws, or "" if none.
std::string refusal(const dist_options& o, int devices = 4) {
  try {
    check_dist_arguments(o, devices);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(DistArguments, ZeroIsATotal) {
  EXPECT_EQ(parse_size("0", 0), 0u);
  EXPECT_EQ(parse_size_list("0,1,2^4-3", 0), (std::vector<std::size_t>{0, 1, 13}));
  EXPECT_EQ(parse_size("2^4-16", 0), 0u);
  EXPECT_THROW(parse_size("2^4-17", 0), input_error);
  EXPECT_THROW(parse_size("0"), input_error);  // elsewhere sizes still start at 1
  dist_options o = valid_options();
  EXPECT_EQ(dist_totals(o), (std::vector<std::size_t>{0, 3, 1u << 20}));
  EXPECT_EQ(refusal(o), "");
}

TEST(DistArguments, EveryBadArgumentIsRefusedWithWhatIsWrong) {
  const auto expect_refused = [](dist_options o, const std::string& needle, int devices = 4) {
    const std::string why = refusal(o, devices);
    EXPECT_NE(why.find(needle), std::string::npos) << "expected \"" << needle << "\" in \"" << why << "\"";
  };
  dist_options o = valid_options();
  o.reps = 0;
  expect_refused(o, "--reps 0");
  o = valid_options();
  o.warmup = -1;
  expect_refused(o, "--warmup -1");
  o = valid_options();
  o.sizes = "2^x";
  expect_refused(o, "2^x");
  o = valid_options();
  o.dists = "nosuch";
  expect_refused(o, "nosuch");
  o = valid_options();
  o.type = "int128";
  expect_refused(o, "int128");
  o = valid_options();
  o.timeout = -1;
  expect_refused(o, "--timeout");
  o = valid_options();
  o.gpus = 8;
  expect_refused(o, "this host has 4 GPU(s)");
  EXPECT_EQ(refusal(o, 0), "") << "under mpirun the GPUs are not counted here";
  o = valid_options();
  o.device_generate = true;
  o.dists = "zero";
  expect_refused(o, "uniform keys only");
  o = valid_options();
  o.stall_rank = 1;
  expect_refused(o, "go together");
  o.stall_phase = "nowhere";
  expect_refused(o, "'nowhere'");
  o.stall_phase = "exchange";
  EXPECT_EQ(refusal(o), "");
  o.stall_rank = 2;
  expect_refused(o, "--stall-rank 2");
  o.stall_rank = 1;
  o.stall_action = "explode";
  expect_refused(o, "explode");
  o = valid_options();
  o.fuzz = true;
  o.fuzz_max_k = 40;
  expect_refused(o, "--fuzz-max-k 40");
}

TEST(DistArguments, TheDefaultDeadlineIsAMinuteScaledToTheTotal) {
  EXPECT_EQ(default_dist_timeout(0), 60.0);
  EXPECT_EQ(default_dist_timeout(std::size_t{1} << 26), 61.0);
  EXPECT_EQ(default_dist_timeout(std::size_t{1} << 34), 60.0 + 256.0);
  dist_options o = valid_options();
  EXPECT_EQ(dist_timeout(o), default_dist_timeout(1u << 20));
  o.timeout = 5;
  EXPECT_EQ(dist_timeout(o), 5.0);
  o = valid_options();
  o.fuzz = true;
  EXPECT_EQ(dist_timeout(o), default_dist_timeout((std::size_t{1} << 24) + 3));
}

TEST(DistFuzz, TotalsCoverZeroToThreeHundredAndAroundEveryPowerOfTwo) {
  const auto totals = dist_fuzz_totals(1, 300, 1, 24, 32);
  const std::set<std::size_t> all(totals.begin(), totals.end());
  EXPECT_EQ(all.size(), totals.size()) << "each total once";
  for (std::size_t n = 0; n <= 300; ++n) EXPECT_TRUE(all.count(n)) << n;
  for (int k = 2; k <= 24; ++k)
    for (int d = -3; d <= 3; ++d) EXPECT_TRUE(all.count((std::size_t{1} << k) + d)) << k << " " << d;
  EXPECT_GE(totals.size(), 301u + 7u * 16u);  // k = 9..24 lie above 300
  EXPECT_LE(*std::max_element(totals.begin(), totals.end()), (std::size_t{1} << 24) + 3);
  EXPECT_EQ(totals, dist_fuzz_totals(1, 300, 1, 24, 32)) << "the same list on every rank";
}

TEST(DistFuzz, CasesCycleEveryChoice) {
  const auto cases = dist_fuzz_cases(dist_fuzz_totals(1, 300, 1, 24, 32), 1);
  std::set<int> types, values, layouts, dists;
  std::set<bool> orders, rebalances;
  std::set<std::tuple<int, int, bool, bool>> combos;
  for (const auto& c : cases) {
    types.insert(c.type);
    values.insert(c.value_bytes);
    layouts.insert(static_cast<int>(c.layout));
    dists.insert(c.distribution);
    orders.insert(c.descending);
    rebalances.insert(c.rebalance);
    combos.insert({c.type, c.value_bytes, c.descending, c.rebalance});
  }
  EXPECT_EQ(types.size(), dist_fuzz_type_names().size());
  EXPECT_EQ(values, (std::set<int>{0, 4, 8}));
  EXPECT_EQ(layouts.size(), static_cast<std::size_t>(dist_layout_count));
  EXPECT_EQ(dists.size(), dist_fuzz_distributions().size());
  EXPECT_EQ(orders.size(), 2u);
  EXPECT_EQ(rebalances.size(), 2u);
  // every (type, values, order, rebalance) combination appears
  EXPECT_EQ(combos.size(), dist_fuzz_type_names().size() * 3 * 2 * 2);
}

TEST(DistFuzz, LayoutsSumToTheTotalWithEmptyRanksWhereTheySay) {
  for (int P = 1; P <= 8; ++P)
    for (std::size_t total : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7},
                              std::size_t{300}, std::size_t{65539}})
      for (int l = 0; l < dist_layout_count; ++l)
        for (std::uint64_t seed : {1u, 2u, 3u}) {
          dist_fuzz_case c;
          c.total = total;
          c.layout = static_cast<dist_layout>(l);
          c.seed = seed;
          const auto counts = dist_fuzz_counts(c, P);
          ASSERT_EQ(counts.size(), static_cast<std::size_t>(P));
          EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::size_t{0}), total)
              << dist_layout_name(c.layout) << " P " << P;
          const auto holders = std::count_if(counts.begin(), counts.end(), [](std::size_t n) { return n > 0; });
          if (c.layout == dist_layout::one_rank) {
            EXPECT_LE(holders, 1);
          }
          if (c.layout == dist_layout::empty_first && P > 1) {
            EXPECT_EQ(counts[0], 0u);
          }
          if (c.layout == dist_layout::empty_middle && P > 2)
            for (int r = 1; r + 1 < P; ++r) EXPECT_EQ(counts[static_cast<std::size_t>(r)], 0u);
        }
}

}  // namespace
