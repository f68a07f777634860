// GPU tests: the whole pipeline against thrust::sort and cub::DeviceRadixSort.
#include "common/gpu_test.hpp"
#include "common/stream_gate.cuh"
#include "common/test_inputs.hpp"

#include <warpsort/ablation.cuh>
#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using Key = std::uint32_t;
using namespace warpsort::testing;

/// The library's sort with a policy, or the ablation's with a design.
template <class Comp>
void sort_with(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n, Comp comp,
               const warpsort::policy& p, warpsort::stage_times* times = nullptr) {
  warpsort::sort_keys<Key, Comp>(temp, bytes, in, out, n, comp, 0, p, times);
}
template <class Comp>
void sort_with(void* temp, std::size_t& bytes, const Key* in, Key* out, std::size_t n, Comp comp,
               const warpsort::ablation::design& d, warpsort::stage_times* times = nullptr) {
  warpsort::ablation::sort_keys<Key, Comp>(temp, bytes, in, out, n, comp, 0, d, times);
}

template <class Comp, class Tuning>
void sort_and_validate(const std::vector<Key>& input, const Tuning& p, Comp comp,
                       bool in_place, const std::string& what) {
  const std::size_t n = input.size();
  auto in = to_device(input);
  auto out = in_place ? to_device(input) : poisoned<Key>(n);
  std::size_t temp_bytes = 0;
  sort_with(nullptr, temp_bytes, in.get(), out.get(), n, comp, p);
  auto temp = poisoned<unsigned char>(temp_bytes);
  // timed: the events between the steps must not change the result (StepTimesFollowThePlan
  // checks the times themselves)
  warpsort::stage_times times;
  sort_with(temp.get(), temp_bytes, in_place ? out.get() : in.get(), out.get(), n, comp, p,
            &times);
  const auto report = warpsort::validate_against_references(in.get(), out.get(), n, comp);
  ASSERT_TRUE(report.ok) << what << ": " << report.message();
}

/// Which of the four steps launch work for a plan: step 1 whenever n > 0; the rounds: steps 3
/// and 4 are the last round's, step 2 every earlier round; version 4's pairwise path
/// (pairwise_impl.cuh): step 2 for each pairwise round, steps 3 and 4 when the plan has groups.
struct steps_run {
  bool step[4];
};
steps_run steps_of(const warpsort::sort_plan& plan) {
  if (plan.n == 0) return {{false, false, false, false}};
  return {{true, plan.round_count > 1, plan.round_count > 0, plan.round_count > 0}};
}
steps_run steps_of(const warpsort::ablation::pairwise_plan& plan) {
  if (plan.n == 0) return {{false, false, false, false}};
  return {{true, plan.pairwise_rounds > 0, plan.has_groups(), plan.has_groups()}};
}

/// What a step that launches nothing measures: two events recorded back to back on the legacy
/// stream while the device is busy with earlier work (spin_on_stream), the most of three tries.
/// About half a microsecond bare, a few under compute-sanitizer, whose instrumentation slows
/// event records; an idle step may take twice that (the pipeline records one more event).
float back_to_back_events_ms() {
  float most = 0;
  cudaEvent_t a, b;
  WARPSORT_CUDA_CHECK(cudaEventCreate(&a));
  WARPSORT_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) {
    spin_on_stream(0, 5.0f);
    WARPSORT_CUDA_CHECK(cudaEventRecord(a, 0));
    WARPSORT_CUDA_CHECK(cudaEventRecord(b, 0));
    WARPSORT_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    most = std::max(most, ms);
  }
  WARPSORT_CUDA_CHECK(cudaEventDestroy(a));
  WARPSORT_CUDA_CHECK(cudaEventDestroy(b));
  return most;
}

}  // namespace

TEST(Pipeline, EverySizeDistributionAndSeedMatchesBothReferences) {
  WARPSORT_REQUIRE_GPU();
  const auto p = warpsort::default_policy<Key>();
  for (std::size_t n : pipeline_sizes())
    for (const auto& dist : test_distributions())
      for (std::uint64_t seed : {1, 2, 3}) {
        if (n >= (1u << 24) && seed > 1 && dist != "uniform") continue;  // keep the run short
        sort_and_validate(make_keys(dist, n, seed), p, warpsort::less<Key>{}, false,
                          dist + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      }
}

TEST(Pipeline, Version4MatchesBothReferences) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : pipeline_sizes())
    for (const auto& dist : test_distributions())
      sort_and_validate(make_keys(dist, n, 1), warpsort::ablation::v4_for(4), warpsort::less<Key>{},
                        false, "v4 " + dist + " n=" + std::to_string(n));
}

TEST(Pipeline, InPlace) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : capped({1, 129, 1000, 65537, 1299709}))
    sort_and_validate(make_keys("uniform", n, 4), warpsort::default_policy<Key>(),
                      warpsort::less<Key>{}, true, "in place n=" + std::to_string(n));
}

TEST(Pipeline, Descending) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : capped({1, 127, 1000, 65537, 1299709}))
    for (const auto& dist : test_distributions())
      sort_and_validate(make_keys(dist, n, 5), warpsort::default_policy<Key>(),
                        warpsort::greater<Key>{}, false,
                        "descending " + dist + " n=" + std::to_string(n));
}

// Other tunings must sort just as well: small k (more rounds), odd k, small on-chip blocks and
// groups, large ones, either way of ordering step 3's sample, small oversampling; version 5 at
// every size (pairwise_below_blocks = 0).
TEST(Pipeline, PolicyVariationsV5) {
  WARPSORT_REQUIRE_GPU();
  warpsort::policy v5 = warpsort::default_policy<Key>();
  v5.pairwise_below_blocks = 0;
  std::vector<warpsort::policy> policies(6, v5);
  policies[0].max_sequences = 2;  // many rounds
  policies[0].max_ranked_samples = 0;  // step 3 always sorts the samples
  policies[1].max_sequences = 7;
  policies[1].oversampling = 8;
  policies[1].max_ranked_samples = 1 << 30;  // step 3 ranks every set that fits a block
  policies[2].block_sort_keys = 1024;
  policies[2].group_capacity = 1024;
  policies[2].oversampling = 16;
  policies[3].max_sequences = 64;
  policies[3].oversampling = 128;
  policies[3].group_capacity = 16384;
  policies[4].block_sort_keys = 16384;
  policies[4].group_capacity = 24000;
  policies[5].small_oversampling_blocks = 1 << 30;
  policies[5].small_oversampling = 4;
  for (std::size_t i = 0; i < policies.size(); ++i)
    for (std::size_t n : capped({1000, 65537, 1299709}))
      for (const auto& dist : test_distributions())
        sort_and_validate(make_keys(dist, n, 6), policies[i], warpsort::less<Key>{}, false,
                          "policy " + std::to_string(i) + " " + dist + " n=" + std::to_string(n));
}

// A policy whose version-5 blocks could not launch (over 1024 threads) is refused with a
// message naming the field, before anything runs; the query of storage refuses it too.
TEST(Pipeline, PolicyWhoseBlocksCannotLaunchIsRefused) {
  WARPSORT_REQUIRE_GPU();
  warpsort::policy p = warpsort::default_policy<Key>();
  p.group_capacity = 65536;
  std::size_t bytes = 0;
  try {
    warpsort::sort_keys<Key>(nullptr, bytes, nullptr, nullptr, std::size_t{1} << 24,
                             warpsort::less<Key>{}, 0, p);
    ADD_FAILURE() << "no error";
  } catch (const warpsort::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("group_capacity = 65536"), std::string::npos) << e.what();
  }
  p = warpsort::default_policy<Key>();
  p.block_sort_keys = 1 << 16;
  EXPECT_THROW(warpsort::sort_keys<Key>(nullptr, bytes, nullptr, nullptr, std::size_t{1} << 24,
                                        warpsort::less<Key>{}, 0, p),
               warpsort::input_error);
}

TEST(Pipeline, PolicyVariations) {
  WARPSORT_REQUIRE_GPU();
  std::vector<warpsort::ablation::design> policies(7, warpsort::ablation::v4_for(4));
  policies[0].max_sequences = 2;
  policies[0].max_ranked_samples = 0;  // step 3 always sorts the sample
  policies[1].max_sequences = 7;
  policies[1].max_ranked_samples = 1 << 30;  // step 3 always ranks it
  policies[1].oversampling = 8;
  policies[2].block_sort_keys = 256;
  policies[2].merge_block_keys = 512;
  policies[2].group_capacity = 1024;
  policies[3].max_sequences = 64;
  policies[3].oversampling = 64;
  policies[3].group_block_threads = 512;
  policies[3].block_threads = 128;
  policies[4].block_sort_keys = 1024;
  policies[4].merge_block_keys = 256;
  policies[4].max_sequences = 256;
  policies[4].oversampling = 16;
  policies[4].group_block_threads = 128;
  policies[5].warp_split_max_blocks = 0;  // a thread per split in every round
  policies[5].few_blocks = 0;
  policies[6].warp_split_max_blocks = 1 << 30;  // a warp per split in every round
  policies[6].few_blocks_threads = 1024;
  for (std::size_t i = 0; i < policies.size(); ++i)
    for (std::size_t n : capped({1000, 65537, 1299709}))
      for (const auto& dist : test_distributions())
        sort_and_validate(make_keys(dist, n, 6), policies[i], warpsort::less<Key>{}, false,
                          "policy " + std::to_string(i) + " " + dist + " n=" + std::to_string(n));
}

// The step times follow the plan: a step that runs work takes time, one that does not is zero,
// over sizes (and policies) whose plans run different sets of steps; the times sum to the
// total. The sizes are checked to cover every kind of plan, so the test cannot go vacuous when
// the tuning changes.
TEST(Pipeline, StepTimesFollowThePlan) {
  WARPSORT_REQUIRE_GPU();
  struct sized_case {
    std::size_t n;
    bool ablation;  // the ablation's sort with `design`, else the library's with `given`
    warpsort::policy given;
    warpsort::ablation::design design;
  };
  const warpsort::policy v5 = warpsort::default_policy<Key>();
  const warpsort::ablation::design v4 = warpsort::ablation::v4_for(sizeof(Key));
  std::vector<sized_case> cases;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{10000},
                        std::size_t{65537}, std::size_t{1} << 17, std::size_t{1} << 19,
                        (std::size_t{1} << 19) + 1, std::size_t{1} << 21})
    cases.push_back({n, false, v5, {}});
  for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 20}) cases.push_back({n, true, {}, v4});
  warpsort::policy many_rounds = v5;  // the rounds at every size, k = 2: several rounds
  many_rounds.pairwise_below_blocks = 0;
  many_rounds.max_sequences = 2;
  many_rounds.one_round_blocks = 0;
  cases.push_back({std::size_t{1} << 16, false, many_rounds, {}});

  // every combination of steps a plan can run, reached by some size above
  std::vector<std::string> covered;
  // A step that runs nothing: at most twice the timer's floor here and a microsecond (a step
  // that launches even one kernel takes several: 7 us and more with a step's times swapped).
  const float idle_step_ms = 2 * back_to_back_events_ms() + 0.001f;
  for (const auto& c : cases) {
    const std::size_t n = c.n;
    const warpsort::sized_plan sized = warpsort::plan_for(n, sizeof(Key), c.given, warpsort::device_limits_of());
    const bool pairwise = c.ablation || sized.pairwise;
    const warpsort::ablation::pairwise_plan pairs = warpsort::ablation::make_plan(
        n, warpsort::ablation::sized_for(c.ablation ? c.design : v4, n));
    const steps_run expected = pairwise ? steps_of(pairs) : steps_of(sized.plan);
    std::string kind = pairwise ? "v4:" : "v5:";
    for (bool s : expected.step) kind += s ? "1" : "0";
    if (std::find(covered.begin(), covered.end(), kind) == covered.end()) covered.push_back(kind);
    const std::string what = "n=" + std::to_string(n) + (c.ablation ? " ablation v4" : " library") +
                             " pairwise_rounds " + std::to_string(pairs.pairwise_rounds) + " groups " +
                             std::to_string(pairs.groups) + " rounds " +
                             std::to_string(sized.plan.round_count) + " (steps run: " + kind + ")";
    SCOPED_TRACE(what);
    const auto sort = [&](void* temp, std::size_t& bytes, const Key* from, Key* to,
                          warpsort::stage_times* times) {
      if (c.ablation)
        sort_with(temp, bytes, from, to, n, warpsort::less<Key>{}, c.design, times);
      else
        sort_with(temp, bytes, from, to, n, warpsort::less<Key>{}, c.given, times);
    };

    const auto input = make_keys("uniform", n, 7);
    auto in = to_device(input);
    auto out = poisoned<Key>(n);
    std::size_t temp_bytes = 0;
    sort(nullptr, temp_bytes, in.get(), out.get(), nullptr);
    // at least one byte: a null d_temp would make the call a query of storage, not a sort
    auto temp = poisoned<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
    // a first sort loads the kernels, so the timed one enqueues without pauses
    sort(temp.get(), temp_bytes, in.get(), out.get(), nullptr);
    WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
    // the device spins while the timed sort enqueues: its events then pass back to back
    spin_on_stream(0, 20.0f);
    warpsort::stage_times times;
    times.sort_chunks_ms = times.merge_sequences_ms = times.split_ms = times.merge_groups_ms = -1.0f;
    sort(temp.get(), temp_bytes, in.get(), out.get(), &times);
    WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
    const auto report = warpsort::validate_against_references(in.get(), out.get(), n,
                                                              warpsort::less<Key>{});
    ASSERT_TRUE(report.ok) << report.message();

    const float got[4] = {times.sort_chunks_ms, times.merge_sequences_ms, times.split_ms,
                          times.merge_groups_ms};
    const char* names[4] = {"step 1 (sort_chunks_ms)", "step 2 (merge_sequences_ms)",
                            "step 3 (split_ms)", "step 4 (merge_groups_ms)"};
    for (int i = 0; i < 4; ++i) {
      if (expected.step[i])
        EXPECT_GT(got[i], 0.0f) << names[i] << " runs work in this plan but took no time";
      else
        EXPECT_LE(got[i], idle_step_ms) << names[i] << " runs nothing in this plan but took time";
      EXPECT_GE(got[i], 0.0f) << names[i] << " was not recorded";
    }
  }
  // the pairwise path: nothing (n = 0), step 1 alone, steps 1 3 4, all four; the rounds: one
  // round, several rounds
  for (const char* kind : {"v4:0000", "v4:1000", "v4:1011", "v4:1111", "v5:1011", "v5:1111"})
    EXPECT_NE(std::find(covered.begin(), covered.end(), kind), covered.end())
        << "no size above has a plan of kind " << kind << "; choose sizes that reach it";
}

TEST(Pipeline, StepTimesCoverTheWholeSort) {
  WARPSORT_REQUIRE_GPU();
  // The four steps' times partition the sort's device time: events around the call (the
  // device kept busy while it is enqueued) measure the same span but for the host's wait after
  // it (the call waits for its own events), at 2^25 keys well under a tenth of it. A step timed
  // short, or work outside the four steps, leaves the sum short of the span.
  const auto sizes = capped({std::size_t{1} << 25});
  if (sizes.empty())
    GTEST_SKIP() << "skipped: WARPSORT_TEST_MAX_N is below the 2^25 keys this timing needs";
  const std::size_t n = sizes[0];
  const auto input = make_keys("uniform", n, 3);
  auto in = to_device(input);
  auto out = poisoned<Key>(n);
  cudaEvent_t start, stop;
  WARPSORT_CUDA_CHECK(cudaEventCreate(&start));
  WARPSORT_CUDA_CHECK(cudaEventCreate(&stop));
  const warpsort::policy library = warpsort::default_policy<Key>();
  const warpsort::ablation::design v4 = warpsort::ablation::v4_for(sizeof(Key));
  for (const bool ablation : {false, true}) {
    SCOPED_TRACE(ablation ? "the ablation's version 4" : "the library's sort");
    const auto sort = [&](void* temp, std::size_t& bytes, warpsort::stage_times* times) {
      if (ablation)
        sort_with(temp, bytes, in.get(), out.get(), n, warpsort::less<Key>{}, v4, times);
      else
        sort_with(temp, bytes, in.get(), out.get(), n, warpsort::less<Key>{}, library, times);
    };
    std::size_t temp_bytes = 0;
    sort(nullptr, temp_bytes, nullptr);
    auto temp = poisoned<unsigned char>(temp_bytes);
    sort(temp.get(), temp_bytes, nullptr);  // loads the kernels
    WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
    // Another process on the GPU can run between the steps' kernels: its time is in the span
    // but in no step. CTest runs this binary alone (SERIAL), scripts/gpu_check_binaries.sh
    // after the others, and the best of a few calls must cover the span.
    std::string shortest;
    bool covered = false;
    for (int attempt = 0; attempt < 5 && !covered; ++attempt) {
      spin_on_stream(0, 20.0f);
      warpsort::stage_times times;
      WARPSORT_CUDA_CHECK(cudaEventRecord(start, 0));
      sort(temp.get(), temp_bytes, &times);
      WARPSORT_CUDA_CHECK(cudaEventRecord(stop, 0));
      WARPSORT_CUDA_CHECK(cudaEventSynchronize(stop));
      float span_ms = 0;
      WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&span_ms, start, stop));
      const float steps_ms =
          times.sort_chunks_ms + times.merge_sequences_ms + times.split_ms + times.merge_groups_ms;
      EXPECT_LE(steps_ms, span_ms + 0.002f) << "the steps' times exceed the call's span";
      covered = steps_ms >= 0.9f * span_ms;
      shortest += "\n  the steps' times (" + std::to_string(steps_ms) +
                  " ms) leave out part of the call's span (" + std::to_string(span_ms) +
                  " ms): steps " + std::to_string(times.sort_chunks_ms) + " / " +
                  std::to_string(times.merge_sequences_ms) + " / " + std::to_string(times.split_ms) +
                  " / " + std::to_string(times.merge_groups_ms);
    }
    EXPECT_TRUE(covered) << "in every call:" << shortest;
    const auto report = warpsort::validate_against_references(in.get(), out.get(), n,
                                                              warpsort::less<Key>{});
    ASSERT_TRUE(report.ok) << report.message();
  }
  WARPSORT_CUDA_CHECK(cudaEventDestroy(start));
  WARPSORT_CUDA_CHECK(cudaEventDestroy(stop));
}

TEST(Pipeline, RejectsTooLittleTemporaryStorage) {
  WARPSORT_REQUIRE_GPU();
  auto in = to_device(make_keys("uniform", 5000, 1));
  auto out = poisoned<Key>(5000);
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key>(nullptr, temp_bytes, in.get(), out.get(), 5000);
  auto temp = poisoned<unsigned char>(temp_bytes);
  std::size_t too_small = temp_bytes - 1;
  EXPECT_THROW(warpsort::sort_keys<Key>(temp.get(), too_small, in.get(), out.get(), 5000),
               warpsort::input_error);
}

// A validation that cannot fail proves nothing: a corrupted output must be reported.
TEST(Validation, ReportsTheFirstMismatch) {
  WARPSORT_REQUIRE_GPU();
  auto input = make_keys("uniform", 1000, 2);
  auto sorted = input;
  std::sort(sorted.begin(), sorted.end());
  const Key expected = sorted[500];
  sorted[500] = sorted[500] + 1;
  auto in = to_device(input);
  auto out = to_device(sorted);
  const auto report = warpsort::validate_against_references(in.get(), out.get(), 1000, warpsort::less<Key>{});
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.index, 500u);
  EXPECT_EQ(report.expected, std::to_string(expected));
  EXPECT_EQ(report.got, std::to_string(expected + 1));
}
