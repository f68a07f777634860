// GPU tests: sort_keys and sort_pairs captured into a CUDA graph (global capture mode, which
// fails on any synchronization or allocation inside the sort) and replayed on new inputs written
// into the same buffers; every replay's output against the references.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

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

 private:
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// Sizes whose plans differ (sized_for: version 4 below a few blocks; version 5 in one round
/// and in several).
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

}  // namespace

TEST(Graph, SortKeysCapturedAndReplayedOnNewInputs) {
  WARPSORT_REQUIRE_GPU();
  keys_replayed<std::uint32_t>("uniform");
  keys_replayed<std::uint64_t>("uniform");
  keys_replayed<float>("specials");
}

TEST(Graph, SortPairsCapturedAndReplayedOnNewInputs) {
  WARPSORT_REQUIRE_GPU();
  pairs_replayed<std::uint32_t, std::uint32_t>("uniform");          // packed 64-bit words
  pairs_replayed<std::uint64_t, std::uint64_t>("eight_distinct");   // (key, value, index) items
}
