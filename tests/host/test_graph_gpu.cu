// GPU tests: sort_keys, sort_pairs and argsort captured into a CUDA graph (global capture mode, which
// fails on any synchronization or allocation inside the sort) and replayed on new inputs written
// into the same buffers; every replay's output against the references. And no kernel of a sort
// is a programmatic dependent launch (what CUB's merge sort in CCCL before 3.2 did, racing).
#include "common/gpu_sorts.cuh"
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/detail/cub_merge_sort.cuh>
#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace warpsort::testing;

/// A stream with a captured graph of everything `enqueue` puts on it, instantiated.
class captured_graph {
 public:
  template <class Enqueue>
  explicit captured_graph(Enqueue&& enqueue) {
    // the buffers' set-up (poisoning memsets on the legacy stream) done before a non-blocking
    // stream can run anything
    WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
    WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WARPSORT_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    enqueue(stream_);
    WARPSORT_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
    WARPSORT_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~captured_graph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  captured_graph(const captured_graph&) = delete;
  captured_graph& operator=(const captured_graph&) = delete;
  /// The stream the graph was captured on and is replayed on.
  cudaStream_t stream() const { return stream_; }
  /// Launches the graph and waits for it.
  void replay() {
    WARPSORT_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  std::size_t nodes() const {
    std::size_t count = 0;
    WARPSORT_CUDA_CHECK(cudaGraphGetNodes(graph_, nullptr, &count));
    return count;
  }
  /// Edges along which a kernel may start before the one it follows has finished (a launch
  /// with programmatic stream serialization, captured).
  std::size_t programmatic_edges() const {
    std::size_t count = 0;
    WARPSORT_CUDA_CHECK(cudaGraphGetEdges(graph_, nullptr, nullptr, nullptr, &count));
    std::vector<cudaGraphNode_t> from(count), to(count);
    std::vector<cudaGraphEdgeData> data(count);
    if (count > 0)
      WARPSORT_CUDA_CHECK(cudaGraphGetEdges(graph_, from.data(), to.data(), data.data(), &count));
    std::size_t programmatic = 0;
    for (const cudaGraphEdgeData& e : data)
      programmatic += e.type == cudaGraphDependencyTypeProgrammatic ||
                      e.from_port != cudaGraphKernelNodePortDefault;
    return programmatic;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// Sizes whose plans differ (plan_for: the pairwise path below a few blocks; one round of steps 3
/// and 4, and several).
std::vector<std::size_t> graph_sizes() { return capped({1000, 100003, (std::size_t{1} << 21) + 5}); }

template <class Key>
void keys_replayed(const std::string& dist) {
  for (std::size_t n : graph_sizes()) {
    SCOPED_TRACE(dist + " n=" + std::to_string(n));
    auto in = poisoned<Key>(n);
    auto out = poisoned<Key>(n);
    std::size_t temp_bytes = 0;
    warpsort::sort_keys<Key>(nullptr, temp_bytes, in.get(), out.get(), n);
    auto temp = poisoned<unsigned char>(temp_bytes);
    captured_graph graph([&](cudaStream_t s) {
      warpsort::sort_keys<Key>(temp.get(), temp_bytes, in.get(), out.get(), n,
                               warpsort::less<Key>{}, s);
    });
    EXPECT_GT(graph.nodes(), 0u);
    EXPECT_EQ(graph.programmatic_edges(), 0u);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {  // new keys in the same buffer each time
      const auto input = make_typed_keys<Key>(dist, n, seed * 1000 + n);
      // on the graph's stream: the replay reads the new keys, not a copy still in flight
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(in.get(), input.data(), n * sizeof(Key),
                                          cudaMemcpyHostToDevice, graph.stream()));
      graph.replay();
      const auto report = warpsort::validate_against_references(in.get(), out.get(), n);
      ASSERT_TRUE(report.ok) << "replay " << seed << ": " << report.message();
    }
  }
}

template <class Key, class Value>
void pairs_replayed(const std::string& dist) {
  for (std::size_t n : graph_sizes()) {
    SCOPED_TRACE(dist + " n=" + std::to_string(n));
    auto keys_in = poisoned<Key>(n);
    auto keys_out = poisoned<Key>(n);
    std::vector<Value> indices(n);
    std::iota(indices.begin(), indices.end(), Value{0});
    auto values_in = to_device(indices);
    auto values_out = poisoned<Value>(n);
    std::size_t temp_bytes = 0;
    warpsort::sort_pairs<Key, Value>(nullptr, temp_bytes, keys_in.get(), keys_out.get(),
                                     values_in.get(), values_out.get(), n);
    auto temp = poisoned<unsigned char>(temp_bytes);
    captured_graph graph([&](cudaStream_t s) {
      warpsort::sort_pairs<Key, Value>(temp.get(), temp_bytes, keys_in.get(), keys_out.get(),
                                       values_in.get(), values_out.get(), n,
                                       warpsort::less<Key>{}, s);
    });
    EXPECT_EQ(graph.programmatic_edges(), 0u);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const auto input = make_typed_keys<Key>(dist, n, seed * 7000 + n);
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys_in.get(), input.data(), n * sizeof(Key),
                                          cudaMemcpyHostToDevice, graph.stream()));
      graph.replay();
      const auto report = warpsort::validate_pairs_against_references(
          keys_in.get(), values_in.get(), keys_out.get(), values_out.get(), n);
      ASSERT_TRUE(report.ok) << "replay " << seed << ": " << report.message();
    }
  }
}

/// Each replay's indices are the values that sort_pairs with the indices 0..n-1 (validated)
/// carries.
template <class Key, class Index>
void argsort_replayed(const std::string& dist) {
  for (std::size_t n : graph_sizes()) {
    SCOPED_TRACE(dist + " n=" + std::to_string(n));
    auto keys = poisoned<Key>(n);
    auto indices = poisoned<Index>(n);
    std::size_t temp_bytes = 0;
    warpsort::argsort<Key, Index>(nullptr, temp_bytes, keys.get(), indices.get(), n);
    auto temp = poisoned<unsigned char>(temp_bytes);
    captured_graph graph([&](cudaStream_t s) {
      warpsort::argsort<Key, Index>(temp.get(), temp_bytes, keys.get(), indices.get(), n,
                                    warpsort::less<Key>{}, s);
    });
    EXPECT_EQ(graph.programmatic_edges(), 0u);
    std::vector<Index> iota(n);
    std::iota(iota.begin(), iota.end(), Index{0});
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const auto input = make_typed_keys<Key>(dist, n, seed * 9000 + n);
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), input.data(), n * sizeof(Key),
                                          cudaMemcpyHostToDevice, graph.stream()));
      graph.replay();
      const auto want = sort_pairs_on_gpu<Key, Index, warpsort::less<Key>>(input, iota);
      const auto report = warpsort::validate_pairs_against_references(
          want.keys_in.get(), want.values_in.get(), want.keys_out.get(), want.values_out.get(), n);
      ASSERT_TRUE(report.ok) << "replay " << seed << ": " << report.message();
      ASSERT_EQ(to_host(indices.get(), n), to_host(want.values_out.get(), n)) << "replay " << seed;
    }
  }
}

}  // namespace

TEST(Graph, SortKeysCapturedAndReplayedOnNewInputs) {
  WARPSORT_REQUIRE_GPU();
  keys_replayed<std::uint32_t>("uniform");
  keys_replayed<std::uint64_t>("uniform");
  keys_replayed<float>("specials");
}

TEST(Graph, SortPairsCapturedAndReplayedOnNewInputs) {
  WARPSORT_REQUIRE_GPU();
  pairs_replayed<std::uint32_t, std::uint32_t>("uniform");          // one pass of index words
  pairs_replayed<std::uint64_t, std::uint64_t>("eight_distinct");   // two passes
}

TEST(Graph, ArgsortCapturedAndReplayedOnNewInputs) {
  WARPSORT_REQUIRE_GPU();
  argsort_replayed<float, std::uint64_t>("specials");
  argsort_replayed<std::int64_t, std::uint32_t>("uniform");
}

// CUB's merge sort as the library calls it (step 3's and the distributed sort's samples, the
// pairs' stable reference): CCCL before 3.2 launched its passes as programmatic dependents and
// its merge kernel read a pass's partitions before waiting for the kernel that wrote them
// (NVIDIA/cccl#5456); with other streams busy it read stale ones and faulted
// (cub_merge_sort.cuh). Captured, no edge is programmatic; replayed, the order is right.
TEST(Graph, LibraryMergeSortsLaunchNoProgrammaticDependents) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint64_t;
  namespace ms = warpsort::detail::cub_merge_sort;
  for (std::size_t n : capped({5000, 300007})) {  // one merge pass, and several
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<Key> input(n);
    for (std::size_t i = 0; i < n; ++i) input[i] = (i * 2654435761u) % 1009;  // duplicates
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::vector<std::uint32_t> expected = order;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return input[a] < input[b]; });
    std::vector<Key> sorted = input;
    std::sort(sorted.begin(), sorted.end());
    auto staged = to_device(input);
    auto staged_order = to_device(order);
    auto keys = poisoned<Key>(n);
    auto copy = poisoned<Key>(n);
    auto values = poisoned<std::uint32_t>(n);
    const auto items = static_cast<std::int64_t>(n);
    const warpsort::less<Key> comp{};
    std::size_t pairs_bytes = 0, keys_bytes = 0, copy_bytes = 0;
    WARPSORT_CUDA_CHECK(
        ms::stable_sort_pairs(nullptr, pairs_bytes, keys.get(), values.get(), items, comp));
    WARPSORT_CUDA_CHECK(ms::sort_keys(nullptr, keys_bytes, keys.get(), items, comp));
    WARPSORT_CUDA_CHECK(
        ms::sort_keys_copy(nullptr, copy_bytes, staged.get(), copy.get(), items, comp));
    auto temp = poisoned<unsigned char>(std::max({pairs_bytes, keys_bytes, copy_bytes}));
    const auto fresh = [&](cudaStream_t s) {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), staged.get(), n * sizeof(Key),
                                          cudaMemcpyDeviceToDevice, s));
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values.get(), staged_order.get(),
                                          n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, s));
    };
    {
      captured_graph graph([&](cudaStream_t s) {
        fresh(s);
        WARPSORT_CUDA_CHECK(ms::stable_sort_pairs(temp.get(), pairs_bytes, keys.get(), values.get(),
                                                  items, comp, s));
      });
      EXPECT_EQ(graph.programmatic_edges(), 0u) << "stable_sort_pairs";
      graph.replay();
      EXPECT_EQ(to_host(values.get(), n), expected) << "stable_sort_pairs";
    }
    {
      captured_graph graph([&](cudaStream_t s) {
        fresh(s);
        WARPSORT_CUDA_CHECK(ms::sort_keys(temp.get(), keys_bytes, keys.get(), items, comp, s));
        WARPSORT_CUDA_CHECK(ms::sort_keys_copy(temp.get(), copy_bytes, staged.get(), copy.get(),
                                               items, comp, s));
      });
      EXPECT_EQ(graph.programmatic_edges(), 0u) << "sort_keys, sort_keys_copy";
      graph.replay();
      EXPECT_EQ(to_host(keys.get(), n), sorted) << "sort_keys";
      EXPECT_EQ(to_host(copy.get(), n), sorted) << "sort_keys_copy";
    }
  }
}
