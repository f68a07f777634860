// GPU test: merge_runs (merge_runs_impl.cuh), the round of steps 3 and 4 over sorted runs of any
// lengths that the distributed sort's ranks finish with, on its own: runs wherever they are
// (empty ones, one run, the most runs), duplicates, against std::sort; and its output window,
// which the gathered path asks for (a rank's slice of every rank's runs): exactly the sorted
// slice is written, from out[0], and nothing after it (a poisoned guard), for windows inside one
// group, across many, at either end, empty and whole. And merge_sample_runs, which orders step
// 3's records of such runs without sorting them: against a stable sort of them by key.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/detail/stages/merge_runs_impl.cuh>
#include <warpsort/error.hpp>
#include <warpsort/policy.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpsort::testing;
namespace ws = warpsort::stages;

/// The library's group capacity for the key's width (what the distributed sort merges with).
template <class Key>
int capacity_of() {
  return warpsort::default_policy_for(sizeof(Key)).group_capacity;
}
constexpr std::size_t guard = 1000;  // poisoned keys after the window, which must stay so

/// Runs of these lengths (keys drawn from `distinct` values, 0: any), each sorted and held in
/// its own device buffer.
template <class Key>
struct runs_on_device {
  std::vector<std::vector<Key>> host;
  std::vector<warpsort::detail::device_buffer<Key>> device;
  ws::run_sources<Key> sources{};
  ws::runs_shape shape;
  runs_on_device(const std::vector<std::size_t>& lengths, std::uint64_t distinct, std::mt19937_64& rng,
                 int oversampling) {
    for (std::size_t len : lengths) {
      std::vector<Key> run(len);
      for (Key& k : run) k = static_cast<Key>(distinct ? rng() % distinct : rng());
      std::sort(run.begin(), run.end());
      host.push_back(run);
      device.push_back(to_device(run));
    }
    for (std::size_t i = 0; i < lengths.size(); ++i) sources.at[i] = device[i].get();
    shape = ws::make_runs_shape(lengths.data(), static_cast<int>(lengths.size()),
                                capacity_of<Key>(), oversampling);
  }
  std::vector<Key> sorted() const {
    std::vector<Key> all;
    for (const auto& r : host) all.insert(all.end(), r.begin(), r.end());
    std::sort(all.begin(), all.end());
    return all;
  }
};

/// Empty when merge_runs writes exactly sorted[from, to) at out[0, to - from) and leaves the
/// guard after it poisoned; else what went wrong.
template <class Key>
std::string merge_window(const runs_on_device<Key>& r, const std::vector<Key>& sorted,
                         std::size_t from, std::size_t to, bool whole) {
  const std::size_t keys = sorted.size();
  const std::size_t asked = to > from ? to - from : 0;
  auto out = poisoned<Key>(asked + guard);
  const std::vector<Key> poison = to_host(out.get() + asked, guard);
  const std::size_t bytes = ws::merge_runs_temp_bytes<Key>(r.shape);
  warpsort::detail::device_buffer<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  if (whole)
    ws::merge_runs<Key>(r.sources, out.get(), r.shape, capacity_of<Key>(), temp.get(), bytes, 0);
  else
    ws::merge_runs<Key>(r.sources, out.get(), r.shape, capacity_of<Key>(), temp.get(), bytes, 0,
                        ws::output_window{from, to});
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<Key> got = to_host(out.get(), asked + guard);
  const std::string where = "window [" + std::to_string(from) + ", " + std::to_string(to) +
                            ") of " + std::to_string(keys) + " keys in " +
                            std::to_string(r.shape.runs) + " runs (" +
                            std::to_string(r.shape.groups) + " groups)";
  for (std::size_t i = 0; i < asked; ++i)
    if (got[i] != sorted[from + i]) return where + ": first difference at " + std::to_string(i);
  for (std::size_t i = 0; i < guard; ++i)
    if (got[asked + i] != poison[i]) return where + ": written past the window at " + std::to_string(i);
  return {};
}

template <class Key>
void check_runs(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<std::vector<std::size_t>> layouts = {
      {0},
      {1},
      {70001},                          // one run
      {5000, 0, 12345, 1, 0, 99999},    // empty and tiny runs among long ones
      {30000, 30000, 30000, 30000},     // the gathered path's: a share a rank
      std::vector<std::size_t>(64, 3001),  // the most runs
      {250000, 7, 180001},              // many groups
      {600000, 400000},                 // ~8000 samples: past CUB's sort of them in one block
  };
  for (const auto& lengths : layouts)
    for (std::uint64_t distinct : {std::uint64_t{0}, std::uint64_t{5}})
      for (int oversampling : {128, 4}) {
        const runs_on_device<Key> r(lengths, distinct, rng, oversampling);
        const std::vector<Key> sorted = r.sorted();
        const std::size_t n = sorted.size();
        std::vector<std::pair<std::size_t, std::size_t>> windows = {
            {0, n}, {0, 0}, {n, n}, {0, n / 3}, {n / 3, 2 * n / 3}, {2 * n / 3, n}};
        if (n > 0) windows.push_back({n / 2, n / 2 + 1});  // one key
        for (int i = 0; i < 6 && n > 0; ++i) {
          const std::size_t a = rng() % (n + 1), b = rng() % (n + 1);
          windows.push_back({std::min(a, b), std::max(a, b)});
        }
        std::string label = "runs";
        for (std::size_t len : lengths) label += " " + std::to_string(len);
        label += distinct ? ", 5 distinct keys" : ", any keys";
        label += ", oversampling " + std::to_string(oversampling);
        EXPECT_EQ(merge_window(r, sorted, 0, n, true), "") << label << " (whole, no window)";
        for (const auto& [from, to] : windows)
          EXPECT_EQ(merge_window(r, sorted, from, to, false), "") << label;
      }
}

/// Records of runs of these lengths, each run sorted by key (drawn by `draw(run, rng)`), indices
/// in position order as gather_samples writes them; merge_sample_runs must order them as a
/// stable sort by key does.
template <class Key, class Draw>
std::string check_sample_runs(const std::vector<std::size_t>& lengths, std::mt19937_64& rng,
                              Draw draw) {
  using record = ws::sample_record<Key, false>;
  ws::runs_shape r;
  r.runs = static_cast<int>(lengths.size());
  std::vector<record> records;
  for (int i = 0; i < r.runs; ++i) {
    std::vector<Key> keys(lengths[i]);
    for (Key& k : keys) k = draw(i, rng);
    std::sort(keys.begin(), keys.end());
    for (Key k : keys) records.push_back({static_cast<std::uint32_t>(records.size()), k});
    r.sample_start[i + 1] = records.size();
  }
  r.samples = records.size();
  std::vector<record> expected = records;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const record& a, const record& b) { return a.key < b.key; });
  const auto in = to_device(records);
  warpsort::detail::device_buffer<record> out(std::max<std::size_t>(records.size(), 1));
  WARPSORT_CUDA_CHECK(cudaMemset(out.get(), 0xff, out.size() * sizeof(record)));
  ws::merge_sample_runs(in.get(), out.get(), r, 0);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<record> got = to_host(out.get(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i)
    if (got[i].index != expected[i].index || got[i].key != expected[i].key)
      return std::to_string(records.size()) + " samples in " + std::to_string(r.runs) +
             " runs: first difference at " + std::to_string(i);
  return {};
}

template <class Key>
void check_sample_runs_of() {
  std::mt19937_64 rng(sizeof(Key));
  const auto any = [](int, std::mt19937_64& g) { return static_cast<Key>(g()); };
  const auto five = [](int, std::mt19937_64& g) { return static_cast<Key>(g() % 5); };
  const auto equal = [](int, std::mt19937_64&) { return Key{7}; };
  // each run its own band of keys: runs wholly before or after each other
  const auto bands = [](int run, std::mt19937_64& g) {
    return static_cast<Key>((static_cast<Key>(63 - run) << (sizeof(Key) * 8 - 7)) + g() % 1000);
  };
  // run 0 spread thinly over every key, the others packed between two of its keys: a tile of
  // run 0 reaches across a whole other run (the search past two windows)
  const auto packed = [](int run, std::mt19937_64& g) {
    return run == 0 ? static_cast<Key>(g()) : static_cast<Key>((Key{1} << (sizeof(Key) * 8 - 1)) + g() % 97);
  };
  std::vector<std::vector<std::size_t>> layouts = {
      {}, {0}, {1}, {5}, {128}, {129}, {3, 0, 1000, 0},
      {1000, 1000}, std::vector<std::size_t>(64, 770), std::vector<std::size_t>(33, 257),
      {4095, 1, 70000, 127, 129, 0, 31, 33, 64, 65},
  };
  std::vector<std::size_t> uneven(64);
  for (std::size_t& len : uneven) len = rng() % 3000;
  layouts.push_back(uneven);
  for (const auto& lengths : layouts) {
    EXPECT_EQ(check_sample_runs<Key>(lengths, rng, any), "") << "any keys";
    EXPECT_EQ(check_sample_runs<Key>(lengths, rng, five), "") << "5 distinct keys";
    EXPECT_EQ(check_sample_runs<Key>(lengths, rng, equal), "") << "all keys equal";
    EXPECT_EQ(check_sample_runs<Key>(lengths, rng, bands), "") << "runs in bands";
  }
  for (const auto& lengths : std::vector<std::vector<std::size_t>>{
           {300, 200000}, {1000, 5000, 5000, 5000}, {130, 4096, 0, 333}})
    EXPECT_EQ(check_sample_runs<Key>(lengths, rng, packed), "") << "runs packed inside run 0";
}

}  // namespace

TEST(MergeSampleRuns, RecordsOfSortedRunsInTheStableSortsOrder) {
  WARPSORT_REQUIRE_GPU();
  check_sample_runs_of<std::uint32_t>();
  check_sample_runs_of<std::uint64_t>();
}

TEST(MergeRuns, AnyRunsAndAnyWindowGiveTheSortedSlice) {
  WARPSORT_REQUIRE_GPU();
  check_runs<std::uint32_t>(11);
  check_runs<std::uint64_t>(12);
}
