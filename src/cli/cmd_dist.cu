// `warpsort dist`, one rank: joins the NCCL communicator, and for every (distribution, size)
// generates its share of the keys, runs the distributed sort (warm-ups, then timed runs, each
// on a fresh copy of the input), validates every run globally (each rank sorted, the ranks'
// boundaries in order, the multiset of keys unchanged: count and two 64-bit sums of hashed
// bits), times NCCL's own all-to-all of the same volume, and rank 0 times the single-GPU sort
// of the same total on its GPU (when it fits) and writes the results. With --fuzz: sorts the
// fuzz's cases (cli/dist_fuzz.hpp) on one communicator, each validated on rank 0 against a host
// sort of the gathered keys. Every wait has a deadline; every rank makes the same collectives
// whatever its count.
#include "baselines/cub_descending.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "cli/bench_config.hpp"
#include "cli/dist.hpp"
#include "cli/dist_fuzz.hpp"
#include "cli/dist_reference.hpp"
#include "cli/key_dispatch.hpp"
#include "cli/metadata.hpp"
#include "data/distributions.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/distributed.cuh>
#include <warpsort/warpsort.cuh>

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <thread>
#include <type_traits>
#include <unistd.h>

namespace warpsort::cli {

namespace {

using warpsort::detail::device_buffer;

/// Blocks of the grid-stride kernels (generation, validation): eight an SM of this GPU.
unsigned spread_blocks() {
  int device = 0, sms = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return 8u * static_cast<unsigned>(sms);
}

/// Where each count starts (exclusive prefix sums; counts.size() + 1 entries).
std::vector<std::size_t> starts_of(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> starts(counts.size() + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), starts.begin() + 1);
  return starts;
}

ncclUniqueId from_hex(const std::string& hex) {
  ncclUniqueId id;
  if (hex.size() != 2 * sizeof id.internal) throw input_error("--nccl-id: wrong length");
  for (std::size_t i = 0; i < sizeof id.internal; ++i)
    id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

/// What a rank carries through the run: its transport, its deadline, where it reports its
/// phase (the launcher's watchdog reads it), and the test hook that stops it at a phase.
struct rank_context {
  distributed::transport& t;
  const dist_options& o;
  double timeout;
  int progress_fd = -1;
  bool stopped_once = false;

  /// Reports the phase and, in a test, stops here.
  void phase(const char* name) {
    if (progress_fd >= 0) {
      char line[32];
      std::memset(line, ' ', sizeof line);
      const std::size_t len = std::min(std::strlen(name), sizeof line - 2);
      std::memcpy(line, name, len);
      line[len] = '\n';
      if (pwrite(progress_fd, line, sizeof line, 0) < 0) progress_fd = -1;  // progress is optional
    }
    if (o.stall_rank == t.rank() && o.stall_phase == name && !stopped_once) {
      stopped_once = true;
      if (o.stall_action == "kill") std::raise(SIGKILL);
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // until stopped
    }
  }
  /// A collective of the command's own: its phase and a fresh deadline (times `allowance`).
  void arm(const char* name, double allowance = 1) {
    phase(name);
    t.set_phase(name);
    t.set_timeout(timeout * allowance);
  }
};

/// Every rank's `value`, in rank order, through the transport (a few bytes; waits within the
/// deadline, `allowance` deadlines where a rank may be busy alone meanwhile).
template <class T>
std::vector<T> gather(rank_context& ctx, const T& value, cudaStream_t stream,
                      const char* phase = "gather", double allowance = 1) {
  distributed::transport& t = ctx.t;
  ctx.arm(phase, allowance);
  const std::size_t P = static_cast<std::size_t>(t.size());
  device_buffer<T> d(P + 1);
  std::vector<T> all(P);
  distributed::gather_to_host(t, &value, all.data(), sizeof(T), d.get(), stream, phase);
  return all;
}

/// The sort's options every run shares: the deadline, and the phases reported.
distributed::options sort_options(rank_context& ctx, bool rebalance, bool timed) {
  distributed::options opts;
  opts.rebalance = rebalance;
  opts.exchange_parts = ctx.o.exchange_parts;
  opts.merge_oversampling = ctx.o.merge_oversampling;
  opts.merge_runs = ctx.o.merge_runs;
  opts.bucket_last_round = ctx.o.last_round == "bucketed";
  using path = distributed::options::exchange_path;
  opts.exchange = ctx.o.exchange == "nccl"           ? path::transport
                  : ctx.o.exchange == "copy_engines" ? path::copy_engines
                  : ctx.o.exchange == "sm_copies"    ? path::sm_copies
                                                     : path::automatic;
  opts.memory = ctx.o.memory_plan == "two_copies" ? distributed::options::memory_plan::two_copies
                                                  : distributed::options::memory_plan::automatic;
  using gather = distributed::options::gather_path;
  opts.gather_all = ctx.o.gather == "never"    ? gather::never
                    : ctx.o.gather == "always" ? gather::always
                                               : gather::automatic;
  opts.gather_pieces = ctx.o.gather_pieces;
  opts.local_sort = ctx.o.local == "cub_radix"   ? distributed::local_algorithm::cub_radix
                    : ctx.o.local == "cub_merge" ? distributed::local_algorithm::cub_merge
                                                 : distributed::local_algorithm::warpsort;
  opts.timed = timed;
  opts.timeout_seconds = ctx.timeout;
  opts.on_phase = [&ctx](const char* phase) { ctx.phase(phase); };
  return opts;
}

/// The multiset of a rank's keys, as bits: count and two sums of differently hashed words.
struct fingerprint {
  unsigned long long count = 0, h1 = 0, h2 = 0;
  fingerprint& operator+=(const fingerprint& o) {
    count += o.count;
    h1 += o.h1;
    h2 += o.h2;
    return *this;
  }
  bool operator==(const fingerprint& o) const { return count == o.count && h1 == o.h1 && h2 == o.h2; }
};

__host__ __device__ inline std::uint64_t mix(std::uint64_t x, std::uint64_t k) {
  x ^= k;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A warp's counters summed and added to the three device counters.
__device__ inline void add_warp_counts(unsigned long long h1, unsigned long long h2,
                                       unsigned long long bad, unsigned long long* sums) {
  for (int d = 16; d > 0; d /= 2) {
    h1 += __shfl_xor_sync(0xffffffffu, h1, d);
    h2 += __shfl_xor_sync(0xffffffffu, h2, d);
    bad += __shfl_xor_sync(0xffffffffu, bad, d);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(sums + 0, h1);
    atomicAdd(sums + 1, h2);
    atomicAdd(sums + 2, bad);
  }
}

/// Sums the hashes and counts the neighbours out of order (comp(k[i+1], k[i])).
template <class Key, class Comp>
__global__ void check_kernel(const Key* keys, std::size_t n, unsigned long long* sums) {
  using bits = typename warpsort::order_words_for<Key, Comp>::bits;
  unsigned long long h1 = 0, h2 = 0, bad = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const bits w = cuda::std::bit_cast<bits>(keys[i]);
    h1 += mix(w, 0x9e3779b97f4a7c15ull);
    h2 += mix(w, 0x632be59bd9b4e019ull);
    if (i + 1 < n && Comp{}(keys[i + 1], keys[i])) ++bad;
  }
  add_warp_counts(h1, h2, bad, sums);
}

struct check_result {
  fingerprint print;
  unsigned long long out_of_order = 0;
};

/// The three counters a check kernel adds into (two hashes, the neighbours out of order),
/// zeroed, `launch(counters)` run over n > 0 keys, and read back.
template <class Launch>
check_result read_check(std::size_t n, cudaStream_t stream, Launch launch) {
  device_buffer<unsigned long long> sums(3);
  WARPSORT_CUDA_CHECK(cudaMemsetAsync(sums.get(), 0, 3 * sizeof(unsigned long long), stream));
  if (n > 0) {
    launch(sums.get());
    WARPSORT_CHECK_LAUNCH();
  }
  unsigned long long host[3];
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(host, sums.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {{n, host[0], host[1]}, host[2]};
}

template <class Key, class Comp>
check_result check_keys(const Key* keys, std::size_t n, cudaStream_t stream) {
  return read_check(n, stream, [&](unsigned long long* sums) {
    check_kernel<Key, Comp><<<spread_blocks(), 256, 0, stream>>>(keys, n, sums);
  });
}

/// Uniform keys on the GPU: hashed global positions (a rank's keys continue its predecessors').
template <class Key>
__global__ void generate_kernel(Key* keys, std::size_t n, std::size_t offset, std::uint64_t seed) {
  using bits = cuda::std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    keys[i] = cuda::std::bit_cast<Key>(static_cast<bits>(mix(offset + i, seed * 0x2545f4914f6cdd1dull)));
}

/// A pairs run's values: each pair's global input index, so that both the pairing of keys and
/// values and the stability (equal keys in input order) can be checked.
template <class Value>
__global__ void index_values_kernel(Value* values, std::size_t n, std::size_t offset) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    values[i] = static_cast<Value>(offset + i);
}

template <class Value>
void write_index_values(Value* values, std::size_t n, std::size_t offset, cudaStream_t stream) {
  if (n == 0) return;
  index_values_kernel<Value><<<spread_blocks(), 256, 0, stream>>>(values, n, offset);
  WARPSORT_CHECK_LAUNCH();
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// Pairs: sums of two hashes of each (key, value), and the neighbours out of (key, value) order
/// (the order's words, then the value: a stable sort of values that are input indices).
template <class Key, class Comp, class Value>
__global__ void check_pairs_kernel(const Key* keys, const Value* values, std::size_t n,
                                   unsigned long long* sums) {
  using map = warpsort::order_words_for<Key, Comp>;
  unsigned long long h1 = 0, h2 = 0, bad = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::uint64_t w = map::to(keys[i]), v = static_cast<std::uint64_t>(values[i]);
    h1 += mix(w ^ mix(v, 0x2545f4914f6cdd1dull), 0x9e3779b97f4a7c15ull);
    h2 += mix(w + mix(v, 0xd6e8feb86659fd93ull), 0x632be59bd9b4e019ull);
    if (i + 1 < n) {
      const std::uint64_t u = map::to(keys[i + 1]);
      if (u < w || (u == w && static_cast<std::uint64_t>(values[i + 1]) < v)) ++bad;
    }
  }
  add_warp_counts(h1, h2, bad, sums);
}

/// Keys alone (Value = void) or pairs: the fingerprint and the neighbours out of order.
template <class Key, class Comp, class Value>
check_result check_run(const Key* keys, const void* values, std::size_t n, cudaStream_t stream) {
  if constexpr (std::is_void_v<Value>) {
    return check_keys<Key, Comp>(keys, n, stream);
  } else {
    return read_check(n, stream, [&](unsigned long long* sums) {
      check_pairs_kernel<Key, Comp, Value>
          <<<spread_blocks(), 256, 0, stream>>>(keys, static_cast<const Value*>(values), n, sums);
    });
  }
}

/// The single-GPU sort the distributed one is compared with, as its users would call it, in
/// the run's order: warpsort's sort_keys / sort_pairs in place, or the project's CUB baselines
/// (src/baselines, the ones `warpsort bench` times: radix sort through a DoubleBuffer, merge
/// sort in place, the stable merge sort for pairs). Its storage is held from prepare() on.
template <class Key, class Comp, class Value, class Word>
class single_gpu_sort {
  static constexpr bool pairs = !std::is_void_v<Value>;
  static constexpr bool descending = std::is_same_v<Comp, greater<Key>>;
  using pair_value = std::conditional_t<pairs, Value, std::uint32_t>;

 public:
  single_gpu_sort(const std::string& algorithm, std::size_t n) : n_(n) {
    if (algorithm == "warpsort") return;
    if constexpr (pairs)
      pairs_ = baselines::make_gpu_pair_baseline<Key, pair_value>(
          algorithm == "cub_radix" ? "cub_radix_pairs" : "cub_merge_stable_pairs");
    else
      keys_ = baselines::make_keys_sorter<Key>(algorithm, descending);
  }
  /// Device bytes prepare() takes.
  std::size_t temp_bytes() const {
    if (keys_) return keys_->temp_bytes(n_);
    if (pairs_) return pairs_->temp_bytes(n_);
    std::size_t bytes = 0;
    warpsort_sort(nullptr, bytes, nullptr, nullptr, 0);
    return bytes;
  }
  void prepare() {
    if (keys_) keys_->prepare(n_);
    else if (pairs_) pairs_->prepare(n_);
    else temp_ = device_buffer<unsigned char>(std::max<std::size_t>(temp_bytes(), 1));
  }
  /// Sorts keys[0..n) (and their values) in place.
  void sort(Key* keys, Word* values, cudaStream_t stream) {
    if (keys_) {
      keys_->sort(keys, n_, stream);
    } else if (pairs_) {
      if constexpr (pairs) pairs_->sort(keys, values, n_, descending, stream);
    } else {
      std::size_t bytes = temp_.size();
      warpsort_sort(temp_.get(), bytes, keys, values, stream);
    }
  }

 private:
  void warpsort_sort(void* temp, std::size_t& bytes, Key* keys, Word* values,
                     cudaStream_t stream) const {
    if constexpr (pairs)
      sort_pairs<Key, Value, Comp>(temp, bytes, keys, keys, values, values, n_, Comp{}, stream);
    else
      sort_keys<Key, Comp>(temp, bytes, keys, keys, n_, Comp{}, stream);
  }
  std::size_t n_;
  std::unique_ptr<baselines::gpu_sorter<Key>> keys_;
  std::unique_ptr<baselines::gpu_pair_sorter<Key, pair_value>> pairs_;
  device_buffer<unsigned char> temp_;
};

/// A pairs run's value type as `--values` names it ("none" for keys alone).
template <class Value>
const char* values_name() {
  if constexpr (std::is_void_v<Value>) return "none";
  else return sizeof(Value) == 4 ? "uint32" : "uint64";
}

/// A rank's input: generated on the host (then kept on the host to restore runs) or on the GPU.
template <class Key>
class rank_input {
 public:
  rank_input(const dist_options& o, const std::string& dist, std::size_t n, std::size_t offset,
             int rank)
      : device_(o.device_generate), n_(n), offset_(offset), seed_(o.seed) {
    if (!device_) {
      // rank r draws with seed + r; "zero" (all keys equal) shares its one key over the ranks
      const std::uint64_t seed = dist == "zero" ? o.seed : o.seed + static_cast<std::uint64_t>(rank);
      host_ = data::generate<Key>(dist, seed, n);
    }
  }
  void write(Key* to, cudaStream_t stream) const {
    if (n_ == 0) return;
    if (device_) {
      generate_kernel<Key><<<spread_blocks(), 256, 0, stream>>>(to, n_, offset_, seed_);
      WARPSORT_CHECK_LAUNCH();
    } else {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(to, host_.data(), n_ * sizeof(Key),
                                          cudaMemcpyHostToDevice, stream));
    }
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  bool device_;
  std::size_t n_, offset_;
  std::uint64_t seed_;
  std::vector<Key> host_;
};

/// The device's free bytes once the stream's work is done and the device's stream-ordered pool
/// has given back what it kept (the sorts' temporaries).
std::size_t free_after_pool_trim(cudaStream_t stream) {
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaMemPool_t pool;
  int device = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  WARPSORT_CUDA_CHECK(cudaDeviceGetMemPool(&pool, device));
  WARPSORT_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  std::size_t free_bytes = 0, all_bytes = 0;
  WARPSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &all_bytes));
  return free_bytes;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Per run, the slowest rank's numbers (every rank waits for the slowest).
struct run_times {
  double total = 0, local = 0, split = 0, exchange = 0, merge = 0, rebalance = 0;
};

/// One rank's work for one (distribution, total), keys alone (Value = void) or pairs whose
/// values are the input indices: returns rank 0's JSON record (others: null).
template <class Key, class Comp, class Value>
nlohmann::json run_one(rank_context& ctx, const std::string& dist, std::size_t total,
                       cudaStream_t stream, bool& all_valid) {
  distributed::transport& t = ctx.t;
  const dist_options& o = ctx.o;
  const int P = t.size(), me = t.rank();
  const std::size_t offset = distributed::balanced_start(me, P, total);
  const std::size_t n = distributed::balanced_start(me + 1, P, total) - offset;
  const distributed::options opts = sort_options(ctx, o.rebalance, true);
  const std::size_t capacity =
      o.rebalance ? n : std::max(n, distributed::required_capacity(total, P, me, opts));
  ctx.phase("generate");
  const rank_input<Key> input(o, dist, n, offset, me);
  device_buffer<Key> keys(std::max<std::size_t>(capacity, 1));
  constexpr bool pairs = !std::is_void_v<Value>;
  using value_word = std::conditional_t<pairs, Value, unsigned char>;
  constexpr std::size_t value_bytes = pairs ? sizeof(value_word) : 0;
  device_buffer<value_word> values(pairs ? std::max<std::size_t>(capacity, 1) : 1);
  const auto write_input = [&] {
    input.write(keys.get(), stream);
    if constexpr (pairs) write_index_values<Value>(values.get(), n, offset, stream);
  };
  write_input();
  fingerprint in = check_run<Key, Comp, Value>(keys.get(), values.get(), n, stream).print;
  fingerprint whole_in;
  for (const fingerprint& f : gather(ctx, in, stream, "validate")) whole_in += f;

  std::vector<run_times> runs;
  std::vector<std::vector<std::array<float, 7>>> rank_runs;  // each run's times on every rank
  std::vector<double> largest_over_mean;
  std::size_t sent_to_others = 0, exchange_rounds = 0;
  bool last_round_bucketed = false;  // this rank's (the others' alike but for uneven counts)
  bool copy_engines = false;         // alike on every rank
  bool sm_copies = false;            // rank 0's
  bool two_copies = false;           // alike on every rank
  bool gathered = false;             // alike on every rank
  std::size_t gather_pieces = 0;     // rank 0's
  std::size_t sorted_early_runs = 0;  // timed runs whose first range rank 0 sorted early
  std::string failure;
  cudaEvent_t start, stop;
  WARPSORT_CUDA_CHECK(cudaEventCreate(&start));
  WARPSORT_CUDA_CHECK(cudaEventCreate(&stop));
  for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
    if (rep > 0) write_input();  // a fresh copy, not timed
    gather(ctx, 0, stream);      // start together
    WARPSORT_CUDA_CHECK(cudaEventRecord(start, stream));
    distributed::sort_result r;
    if constexpr (pairs)
      r = distributed::sort_pairs<Key, Value, Comp>(keys.get(), values.get(), n, capacity, t,
                                                    stream, Comp{}, opts);
    else
      r = distributed::sort_keys<Key, Comp>(keys.get(), n, capacity, t, stream, Comp{}, opts);
    WARPSORT_CUDA_CHECK(cudaEventRecord(stop, stream));
    WARPSORT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    // validate: sorted here, in order across ranks, the same multiset overall
    const check_result c = check_run<Key, Comp, Value>(keys.get(), values.get(), r.count, stream);
    using bits = typename warpsort::order_words_for<Key, Comp>::bits;
    // count, first and last word, first and last value (pairs: equal words in value order)
    std::array<std::uint64_t, 5> ends{r.count, 0, 0, 0, 0};
    if (r.count) {
      Key first, last;
      WARPSORT_CUDA_CHECK(cudaMemcpy(&first, keys.get(), sizeof(Key), cudaMemcpyDeviceToHost));
      WARPSORT_CUDA_CHECK(cudaMemcpy(&last, keys.get() + r.count - 1, sizeof(Key), cudaMemcpyDeviceToHost));
      ends = {r.count, warpsort::order_words_for<Key, Comp>::to(first), warpsort::order_words_for<Key, Comp>::to(last), 0, 0};
      if constexpr (pairs) {
        value_word v0, v1;
        WARPSORT_CUDA_CHECK(cudaMemcpy(&v0, values.get(), sizeof v0, cudaMemcpyDeviceToHost));
        WARPSORT_CUDA_CHECK(cudaMemcpy(&v1, values.get() + r.count - 1, sizeof v1, cudaMemcpyDeviceToHost));
        ends[3] = v0;
        ends[4] = v1;
      }
    }
    const auto all_ends = gather(ctx, ends, stream, "validate");
    const auto all_checks = gather(ctx, c, stream, "validate");
    const auto all_times = gather(ctx, std::array<float, 7>{ms, r.times.local_sort_ms,
                                                              r.times.splitters_ms, r.times.exchange_ms,
                                                              r.times.merge_ms, r.times.rebalance_ms,
                                                              r.times.last_part_merge_ms},
                                  stream, "validate");
    fingerprint whole_out;
    unsigned long long out_of_order = 0;
    for (const auto& x : all_checks) {
      whole_out += x.print;
      out_of_order += x.out_of_order;
    }
    bool boundaries = true;
    bits prev_last = 0;
    std::uint64_t prev_last_value = 0;
    bool any = false;
    for (const auto& e : all_ends) {
      if (e[0] == 0) continue;
      if (any && (static_cast<bits>(e[1]) < prev_last ||
                  (pairs && static_cast<bits>(e[1]) == prev_last && e[3] < prev_last_value)))
        boundaries = false;
      prev_last = static_cast<bits>(e[2]);
      prev_last_value = e[4];
      any = true;
    }
    if (out_of_order || !boundaries || !(whole_out == whole_in))
      failure = fmt::format("run {}: {} keys out of order within ranks, rank boundaries {}, "
                            "multiset {}", rep, out_of_order, boundaries ? "ordered" : "NOT ordered",
                            whole_out == whole_in ? "unchanged" : "CHANGED");
    if (rep < o.warmup) continue;
    rank_runs.push_back(all_times);
    run_times rt;
    for (const auto& x : all_times) {
      rt.total = std::max<double>(rt.total, x[0]);
      rt.local = std::max<double>(rt.local, x[1]);
      rt.split = std::max<double>(rt.split, x[2]);
      rt.exchange = std::max<double>(rt.exchange, x[3]);
      rt.merge = std::max<double>(rt.merge, x[4]);
      rt.rebalance = std::max<double>(rt.rebalance, x[5]);
    }
    runs.push_back(rt);
    const std::size_t largest = *std::max_element(r.counts.begin(), r.counts.end());
    largest_over_mean.push_back(total ? static_cast<double>(largest) * P / static_cast<double>(total) : 1.0);
    sent_to_others = 0;
    exchange_rounds = r.exchange_rounds;
    last_round_bucketed = r.last_round_bucketed;
    copy_engines = r.copy_engines;
    sm_copies = r.sm_copies;
    two_copies = r.two_copies;
    gathered = r.gathered;
    gather_pieces = r.gather_pieces;
    if (r.sorted_before_agreement) ++sorted_early_runs;
    for (int p = 0; p < P; ++p) sent_to_others = std::max(sent_to_others, r.keys_sent_to_others(p));
  }
  WARPSORT_CUDA_CHECK(cudaEventDestroy(start));
  WARPSORT_CUDA_CHECK(cudaEventDestroy(stop));
  if (!failure.empty()) all_valid = false;

  // NCCL's all-to-all of the same volume (each rank sends about N (P - 1) / P^2 keys to the
  // others). The block comes from the total, which every rank knows alike, not from the rank's
  // own count (ranks' counts differ by one: their sends would not match the peers' receives),
  // and every rank takes part, one without keys too (sending and receiving nothing).
  // Its two buffers are allocated beside the sort's, which the largest totals leave no room
  // for: then every rank skips it alike and the record says so.
  double alltoall_ms = 0;
  const std::size_t floor_share = total / static_cast<std::size_t>(P);  // <= every rank's n
  // (pairs: the keys' and the values' bytes together)
  const std::size_t unit = sizeof(Key) + value_bytes;
  bool alltoall_fits = P > 1;
  if (P > 1) {
    // (the sort's temporaries, kept by the stream-ordered pool, go back first)
    const int fits_here =
        2 * floor_share * unit + (std::size_t{1} << 28) <= free_after_pool_trim(stream);
    for (int f : gather(ctx, fits_here, stream, "alltoall")) alltoall_fits = alltoall_fits && f;
  }
  if (alltoall_fits) {
    std::vector<std::size_t> off(P), bytes(P);
    const std::size_t block = floor_share / static_cast<std::size_t>(P) * unit;
    for (int p = 0; p < P; ++p) {
      off[p] = static_cast<std::size_t>(p) * block;
      bytes[p] = block;
    }
    // send from a buffer of the blocks, receive into the same layout
    std::vector<double> ms;
    cudaEvent_t a, b;
    WARPSORT_CUDA_CHECK(cudaEventCreate(&a));
    WARPSORT_CUDA_CHECK(cudaEventCreate(&b));
    device_buffer<unsigned char> send(std::max<std::size_t>(floor_share * unit, 1));
    device_buffer<unsigned char> recv(std::max<std::size_t>(floor_share * unit, 1));
    WARPSORT_CUDA_CHECK(cudaMemsetAsync(send.get(), 0, floor_share * unit, stream));
    for (int rep = 0; rep < 1 + o.reps; ++rep) {
      gather(ctx, 0, stream, "alltoall");
      WARPSORT_CUDA_CHECK(cudaEventRecord(a, stream));
      // the sizes agreed first: a mismatch is an error naming both ranks, not a hang
      distributed::checked_all_to_all(t, send.get(), off, bytes, recv.get(), off, bytes, stream,
                                      "alltoall");
      WARPSORT_CUDA_CHECK(cudaEventRecord(b, stream));
      t.wait(stream, "alltoall");
      float x = 0;
      WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&x, a, b));
      double slowest = 0;
      for (float y : gather(ctx, x, stream, "alltoall")) slowest = std::max<double>(slowest, y);
      if (rep > 0) ms.push_back(slowest);
    }
    alltoall_ms = median(ms);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }

  // rank 0 alone generates every rank's keys and sorts them: the others allow it longer
  const double baseline_allowance = o.baseline ? 4.0 + o.warmup + o.reps : 1.0;
  if (me != 0) {
    gather(ctx, 0, stream, "baseline", baseline_allowance);  // wait while rank 0 runs it
    return nullptr;
  }
  nlohmann::json j;
  const auto field = [&](double run_times::*m) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.*m);
    return median(v);
  };
  const double total_ms = field(&run_times::total);
  const double exchange_ms = field(&run_times::exchange);
  j["gpus"] = P;
  j["type"] = data::key_type_name(data::key_type_of<Key>());
  j["order"] = o.descending ? "descending" : "ascending";
  j["distribution"] = dist;
  j["n"] = total;
  j["rebalance"] = o.rebalance;
  j["values"] = values_name<Value>();
  j["local"] = o.local;
  j["exchange_parts"] = o.exchange_parts;
  j["merge_oversampling"] = o.merge_oversampling;
  j["merge_runs"] = o.merge_runs;
  j["generated_on"] = o.device_generate ? "device" : "host";
  j["reps"] = o.reps;
  j["ms"] = total_ms;
  j["keys_per_s"] = total_ms > 0 ? total / (total_ms * 1e-3) : 0;
  j["local_sort_ms"] = field(&run_times::local);
  j["splitters_ms"] = field(&run_times::split);
  j["exchange_ms"] = exchange_ms;
  j["merge_ms"] = field(&run_times::merge);
  j["rebalance_ms"] = field(&run_times::rebalance);
  // every rank's own phases (the fields above are the slowest rank's in each run), to tell a
  // rank that waits from one that works
  j["ranks"] = nlohmann::json::array();
  for (int p = 0; p < P; ++p) {
    const auto rank_median = [&](int i) {
      std::vector<double> v;
      for (const auto& run : rank_runs)
        v.push_back(run[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)]);
      return median(v);
    };
    j["ranks"].push_back({{"ms", rank_median(0)}, {"local_sort_ms", rank_median(1)},
                          {"splitters_ms", rank_median(2)}, {"exchange_ms", rank_median(3)},
                          {"merge_ms", rank_median(4)}, {"last_part_merge_ms", rank_median(6)},
                          {"rebalance_ms", rank_median(5)}});
  }
  j["largest_over_mean"] = median(largest_over_mean);
  j["largest_over_mean_max"] =
      largest_over_mean.empty() ? 0 : *std::max_element(largest_over_mean.begin(), largest_over_mean.end());
  const std::size_t pair_bytes = sizeof(Key) + value_bytes;
  j["exchange_bytes_per_gpu"] = sent_to_others * pair_bytes;
  j["exchange_rounds"] = exchange_rounds;
  j["last_round"] = last_round_bucketed ? "bucketed" : "local";
  j["exchange"] = sm_copies ? "sm_copies" : copy_engines ? "copy_engines" : "nccl";
  j["memory_plan"] = two_copies ? "two_copies" : "apart";
  j["gathered"] = gathered;
  j["gather_pieces"] = gather_pieces;
  j["sorted_early_runs"] = sorted_early_runs;
  j["exchange_gb_s_per_gpu"] = exchange_ms > 0 ? sent_to_others * pair_bytes / (exchange_ms * 1e6) : 0;
  if (alltoall_fits || P == 1) {
    j["nccl_alltoall_ms"] = alltoall_ms;
    j["nccl_alltoall_gb_s_per_gpu"] =
        alltoall_ms > 0 ? (floor_share / static_cast<std::size_t>(P) * pair_bytes * (P - 1)) / (alltoall_ms * 1e6) : 0;
  } else {
    j["nccl_alltoall_ms"] = nullptr;
    j["nccl_alltoall_gb_s_per_gpu"] = nullptr;
    j["nccl_alltoall_note"] = "its two buffers do not fit beside the sort's";
  }
  j["validated"] = failure.empty();
  if (!failure.empty()) j["failure"] = failure;

  // the single-GPU sort of the same total, on this GPU, after the distributed buffers are gone
  j["single_gpu_ms"] = nullptr;
  if (o.baseline) {
    keys = device_buffer<Key>();
    values = device_buffer<value_word>();
    single_gpu_sort<Key, Comp, Value, value_word> one_gpu(o.local, total);
    const std::size_t temp_bytes = one_gpu.temp_bytes();
    // the pool's memory kept from the distributed runs goes back: the baseline uses cudaMalloc
    const std::size_t free_bytes = free_after_pool_trim(stream);
    if (total * (sizeof(Key) + value_bytes) + temp_bytes + (std::size_t{1} << 28) > free_bytes ||
        (pairs && total >= (std::size_t{1} << 32))) {
      j["single_gpu_note"] = fmt::format("does not fit one GPU ({} + {} bytes, {} free)",
                                         total * (sizeof(Key) + value_bytes), temp_bytes, free_bytes);
    } else {
      device_buffer<Key> all(std::max<std::size_t>(total, 1));
      device_buffer<value_word> all_values(pairs ? std::max<std::size_t>(total, 1) : 1);
      one_gpu.prepare();
      // every rank's keys, as each rank generated them: drawn once, written before every run
      std::vector<rank_input<Key>> inputs;
      std::vector<std::size_t> starts;
      for (int r = 0; r < P; ++r) {
        starts.push_back(distributed::balanced_start(r, P, total));
        inputs.emplace_back(o, dist, distributed::balanced_start(r + 1, P, total) - starts.back(),
                            starts.back(), r);
      }
      const auto write_all = [&] {
        for (int r = 0; r < P; ++r) inputs[r].write(all.get() + starts[r], stream);
        if constexpr (pairs) write_index_values<Value>(all_values.get(), total, 0, stream);
      };
      std::vector<double> ms;
      bool valid = true;
      cudaEvent_t a, b;
      WARPSORT_CUDA_CHECK(cudaEventCreate(&a));
      WARPSORT_CUDA_CHECK(cudaEventCreate(&b));
      for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
        ctx.phase("baseline");
        write_all();
        WARPSORT_CUDA_CHECK(cudaEventRecord(a, stream));
        one_gpu.sort(all.get(), all_values.get(), stream);
        WARPSORT_CUDA_CHECK(cudaEventRecord(b, stream));
        WARPSORT_CUDA_CHECK(cudaEventSynchronize(b));
        float x = 0;
        WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&x, a, b));
        const check_result c =
            check_run<Key, Comp, Value>(all.get(), all_values.get(), total, stream);
        if (c.out_of_order || !(c.print == whole_in)) valid = false;
        if (rep >= o.warmup) ms.push_back(x);
      }
      cudaEventDestroy(a);
      cudaEventDestroy(b);
      j["single_gpu_ms"] = median(ms);
      j["single_gpu_validated"] = valid;
      j["speedup_vs_single_gpu"] = median(ms) / total_ms;
      if (!valid) all_valid = false;
    }
  }
  gather(ctx, 0, stream, "baseline", baseline_allowance);
  return j;
}

void write_results(const dist_options& o, const nlohmann::json& rows) {
  if (o.out.empty()) return;
  std::filesystem::create_directories(o.out);
  nlohmann::json doc;
  std::string command;
  for (const auto& a : o.self) command += (command.empty() ? "" : " ") + a;
  doc["metadata"] = run_metadata(command, o.seed);
  doc["results"] = rows;
  std::ofstream(o.out + "/dist.json") << doc.dump(2) << "\n";
  const std::vector<std::string> cols{
      "gpus", "type", "order", "distribution", "n", "rebalance", "values", "local", "generated_on", "reps", "ms",
      "keys_per_s", "local_sort_ms", "splitters_ms", "exchange_ms", "merge_ms", "rebalance_ms",
      "largest_over_mean", "largest_over_mean_max", "exchange_rounds", "last_round", "exchange", "memory_plan", "gathered", "gather_pieces",
      "sorted_early_runs", "exchange_bytes_per_gpu",
      "exchange_gb_s_per_gpu", "nccl_alltoall_ms", "nccl_alltoall_gb_s_per_gpu", "single_gpu_ms",
      "speedup_vs_single_gpu", "validated"};
  std::ofstream csv(o.out + "/dist.csv");
  for (std::size_t i = 0; i < cols.size(); ++i) csv << (i ? "," : "") << cols[i];
  csv << "\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const auto it = r.find(cols[i]);
      std::string v;
      if (it != r.end() && !it->is_null()) v = it->is_string() ? it->get<std::string>() : it->dump();
      csv << (i ? "," : "") << v;
    }
    csv << "\n";
  }
}

/// A fuzz case's keys on rank `rank`: drawn with the case's seed + rank ("zero" shares its one
/// key over the ranks); rank 0 draws every rank's again to build the reference.
template <class Key>
std::vector<Key> fuzz_rank_keys(const dist_fuzz_case& c, int rank, std::size_t n) {
  const std::string& dist = dist_fuzz_distributions()[static_cast<std::size_t>(c.distribution)];
  return data::generate<Key>(dist, dist == "zero" ? c.seed : c.seed + static_cast<std::uint64_t>(rank), n);
}

struct fuzz_outcome {
  bool validated = false;
  double seconds = 0;
  std::string failure;
};

/// One fuzz case on every rank; rank 0 gathers the output (and values) and compares it with a
/// host sort of every rank's input: keys in the order's words, pairs with their global input
/// index (a stable sort: equal keys keep the ranks' input order).
template <class Key, class Comp, class Value>
fuzz_outcome fuzz_one(rank_context& ctx, const dist_fuzz_case& c, cudaStream_t stream) {
  constexpr bool pairs = !std::is_same_v<Value, void>;
  using V = std::conditional_t<pairs, Value, std::uint32_t>;  // a placeholder for keys alone
  using map = warpsort::order_words_for<Key, Comp>;
  distributed::transport& t = ctx.t;
  const int P = t.size(), me = t.rank();
  const std::size_t Pz = static_cast<std::size_t>(P);
  const std::vector<std::size_t> counts = dist_fuzz_counts(c, P);
  const std::vector<std::size_t> starts = starts_of(counts);
  const std::size_t n = counts[static_cast<std::size_t>(me)];
  ctx.phase("generate");
  const std::vector<Key> input = fuzz_rank_keys<Key>(c, me, n);
  const distributed::options opts = sort_options(ctx, c.rebalance, false);
  const std::size_t capacity =
      c.rebalance ? n : std::max(n, distributed::required_capacity(c.total, P, me, opts));
  device_buffer<Key> keys(std::max<std::size_t>(capacity, 1));
  device_buffer<V> values(pairs ? std::max<std::size_t>(capacity, 1) : 1);
  if (n > 0) {
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), input.data(), n * sizeof(Key),
                                        cudaMemcpyHostToDevice, stream));
    if constexpr (pairs) {
      std::vector<V> index(n);
      for (std::size_t i = 0; i < n; ++i) index[i] = static_cast<V>(starts[static_cast<std::size_t>(me)] + i);
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values.get(), index.data(), n * sizeof(V),
                                          cudaMemcpyHostToDevice, stream));
    }
  }
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));  // this GPU's copies only

  fuzz_outcome out;
  const auto began = std::chrono::steady_clock::now();
  distributed::sort_result r;
  if constexpr (pairs)
    r = distributed::sort_pairs<Key, V, Comp>(keys.get(), values.get(), n, capacity, t, stream,
                                              Comp{}, opts);
  else
    r = distributed::sort_keys<Key, Comp>(keys.get(), n, capacity, t, stream, Comp{}, opts);
  // with a deadline the call returns when its work is done
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();

  // every rank's output to rank 0 (sizes agreed first), keys then values
  const std::vector<std::size_t> out_starts = starts_of(r.counts);
  const std::size_t total = c.total;
  device_buffer<Key> all_keys(me == 0 ? std::max<std::size_t>(total, 1) : 1);
  device_buffer<V> all_values(me == 0 && pairs ? std::max<std::size_t>(total, 1) : 1);
  const auto to_rank0 = [&](const void* from, void* to, std::size_t width) {
    std::vector<std::size_t> send_off(Pz, 0), send_bytes(Pz, 0), recv_off(Pz, 0), recv_bytes(Pz, 0);
    send_bytes[0] = r.count * width;
    if (me == 0)
      for (std::size_t p = 0; p < Pz; ++p) {
        recv_off[p] = out_starts[p] * width;
        recv_bytes[p] = r.counts[p] * width;
      }
    ctx.arm("gather");
    distributed::checked_all_to_all(t, from, send_off, send_bytes, to, recv_off, recv_bytes,
                                    stream, "gather");
    t.wait(stream, "gather");
  };
  to_rank0(keys.get(), all_keys.get(), sizeof(Key));
  if constexpr (pairs) to_rank0(values.get(), all_values.get(), sizeof(V));
  if (me != 0) return out;

  ctx.phase("validate");
  std::string why;
  if (out_starts[Pz] != total)
    why = fmt::format("the ranks hold {} keys, {} went in", out_starts[Pz], total);
  for (std::size_t p = 0; p < Pz && why.empty(); ++p) {
    if (c.rebalance && r.counts[p] != counts[p])
      why = fmt::format("rebalanced, rank {} holds {} keys, its input count is {}", p, r.counts[p],
                        counts[p]);
    else if (!c.rebalance && total > 0 &&
             r.counts[p] > distributed::required_capacity(total, P, static_cast<int>(p), opts))
      why = fmt::format("rank {} holds {} keys, over the bound {}", p, r.counts[p],
                        distributed::required_capacity(total, P, static_cast<int>(p), opts));
  }
  if (why.empty()) {
    std::vector<Key> got(total);
    std::vector<V> got_values(pairs ? total : 0);
    if (total > 0) {
      WARPSORT_CUDA_CHECK(cudaMemcpy(got.data(), all_keys.get(), total * sizeof(Key), cudaMemcpyDeviceToHost));
      if constexpr (pairs)
        WARPSORT_CUDA_CHECK(cudaMemcpy(got_values.data(), all_values.get(), total * sizeof(V),
                                       cudaMemcpyDeviceToHost));
    }
    // the reference: every rank's input, in rank order, sorted on the host
    std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
    expected.reserve(total);
    for (int p = 0; p < P; ++p) {
      const std::vector<Key> in = p == me ? input : fuzz_rank_keys<Key>(c, p, counts[static_cast<std::size_t>(p)]);
      for (std::size_t i = 0; i < in.size(); ++i)
        expected.emplace_back(map::to(in[i]), pairs ? starts[static_cast<std::size_t>(p)] + i : 0);
    }
    sort_reference(expected);  // indices are unique: a stable sort by key
    for (std::size_t i = 0; i < total; ++i) {
      const std::uint64_t w = map::to(got[i]);
      const std::uint64_t v = pairs ? static_cast<std::uint64_t>(got_values[i]) : 0;
      if (w != expected[i].first || v != expected[i].second) {
        why = fmt::format("position {} of {}: key word {} value {}, expected {} value {}", i, total,
                          static_cast<std::uint64_t>(w), v,
                          static_cast<std::uint64_t>(expected[i].first), expected[i].second);
        break;
      }
    }
  }
  out.validated = why.empty();
  out.failure = why;
  return out;
}

/// The fuzz on this rank: every case of the list, one communicator; rank 0 writes
/// DIR/dist_fuzz.csv and a summary. Returns the count of wrong results (rank 0).
int run_fuzz(rank_context& ctx, cudaStream_t stream) {
  const dist_options& o = ctx.o;
  const int P = ctx.t.size(), me = ctx.t.rank();
  const std::vector<dist_fuzz_case> cases =
      dist_fuzz_cases(dist_fuzz_totals(o.seed, 300, 1, o.fuzz_max_k, o.fuzz_random), o.seed);
  std::ofstream csv;
  if (me == 0 && !o.out.empty()) {
    std::filesystem::create_directories(o.out);
    csv.open(o.out + "/dist_fuzz.csv");
    if (!csv) throw input_error("cannot write " + o.out + "/dist_fuzz.csv");
    csv << "ranks,n,type,values,order,rebalance,ended,validated,seconds\n";
  }
  const auto row = [&](const dist_fuzz_case& c, bool ended, bool validated, double seconds) {
    if (!csv.is_open()) return;
    csv << P << ',' << c.total << ',' << dist_fuzz_type_names()[static_cast<std::size_t>(c.type)] << ','
        << (c.value_bytes == 0 ? "none" : c.value_bytes == 4 ? "uint32" : "uint64") << ','
        << (c.descending ? "descending" : "ascending") << ',' << (c.rebalance ? "true" : "false")
        << ',' << (ended ? "true" : "false") << ',' << (validated ? "true" : "false") << ','
        << fmt::format("{:.6f}", seconds) << '\n';
    csv.flush();
  };
  const auto began = std::chrono::steady_clock::now();
  int wrong = 0;
  double slowest = 0;
  for (const dist_fuzz_case& c : cases) {
    fuzz_outcome r;
    const auto case_began = std::chrono::steady_clock::now();
    try {
      with_key_type(data::parse_key_type(dist_fuzz_type_names()[static_cast<std::size_t>(c.type)]),
                    [&](auto tag) {
        using Key = typename decltype(tag)::type;
        const auto order = [&](auto comp) {
          using Comp = decltype(comp);
          if (c.value_bytes == 4) r = fuzz_one<Key, Comp, std::uint32_t>(ctx, c, stream);
          else if (c.value_bytes == 8) r = fuzz_one<Key, Comp, std::uint64_t>(ctx, c, stream);
          else r = fuzz_one<Key, Comp, void>(ctx, c, stream);
        };
        if (c.descending) order(greater<Key>{});
        else order(less<Key>{});
      });
    } catch (const distributed::timeout_error&) {
      row(c, false, false,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - case_began).count());
      throw;
    }
    if (me != 0) continue;
    slowest = std::max(slowest, r.seconds);
    row(c, true, r.validated, r.seconds);
    if (!r.validated) {
      ++wrong;
      fmt::print("dist fuzz WRONG: {} ranks, n {}, {} {} values {}, {}, rebalance {}, layout {}, "
                 "seed {}: {}\n", P, c.total, dist_fuzz_type_names()[static_cast<std::size_t>(c.type)],
                 dist_fuzz_distributions()[static_cast<std::size_t>(c.distribution)], c.value_bytes,
                 c.descending ? "descending" : "ascending", c.rebalance,
                 dist_layout_name(c.layout), c.seed, r.failure);
      std::fflush(stdout);
    }
  }
  if (me == 0) {
    std::size_t largest = 0;
    for (const auto& c : cases) largest = std::max(largest, c.total);
    fmt::print("dist fuzz: {} ranks, {} runs, totals 0..{}, ended {}, hangs 0, wrong {}, slowest "
               "run {:.3f} s, {:.1f} s in all (deadline {} s a wait)\n",
               P, cases.size(), largest, cases.size(), wrong, slowest,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(),
               ctx.timeout);
    std::fflush(stdout);
  }
  return wrong;
}

/// Joins the communicator, non-blocking (NCCL's calls never block the host, so every wait can
/// have a deadline), within the deadline.
ncclComm_t join_communicator(const dist_options& o, const std::string& nccl_id_hex, double timeout) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  // WARPSORT_NCCL_BLOCKING=1: a blocking communicator, only to measure what non-blocking costs
  // (a blocking call can then wait past the deadline)
  const char* blocking = std::getenv("WARPSORT_NCCL_BLOCKING");
  config.blocking = blocking != nullptr && std::string(blocking) == "1" ? 1 : 0;
  ncclComm_t comm = nullptr;
  const ncclResult_t started =
      ncclCommInitRankConfig(&comm, o.world, from_hex(nccl_id_hex), o.rank, &config);
  if (started != ncclSuccess && started != ncclInProgress)
    distributed::throw_nccl_error(started, "ncclCommInitRankConfig", __FILE__, __LINE__);
  using clock = std::chrono::steady_clock;
  const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(
                                        std::chrono::duration<double>(timeout));
  ncclResult_t state = ncclInProgress;
  for (;;) {
    const ncclResult_t polled = ncclCommGetAsyncError(comm, &state);
    if (polled != ncclSuccess) state = polled;
    if (state != ncclInProgress) break;
    if (timeout > 0 && clock::now() >= until) {
      ncclCommAbort(comm);
      throw distributed::timeout_error(o.rank, "init", timeout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (state != ncclSuccess) {
    ncclCommAbort(comm);
    distributed::throw_nccl_error(state, "ncclCommInitRankConfig", __FILE__, __LINE__);
  }
  return comm;
}

/// A rank's whole run, given its communicator.
int rank_body(rank_context& ctx, cudaStream_t stream) {
  const dist_options& o = ctx.o;
  if (o.fuzz) return run_fuzz(ctx, stream) > 0 ? 1 : 0;
  const std::vector<std::size_t> sizes = dist_totals(o);
  const std::vector<std::string> dists =
      parse_name_list(o.dists, data::distribution_names(), "distribution");
  const data::key_type type = data::parse_key_type(o.type);
  nlohmann::json rows = nlohmann::json::array();
  bool valid = true;
  with_key_type(type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    const auto one = [&](auto comp) {
      using Comp = decltype(comp);
      for (const std::string& dist : dists)
        for (std::size_t total : sizes) {
          nlohmann::json j =
              o.values == "uint32"   ? run_one<Key, Comp, std::uint32_t>(ctx, dist, total, stream, valid)
              : o.values == "uint64" ? run_one<Key, Comp, std::uint64_t>(ctx, dist, total, stream, valid)
                                     : run_one<Key, Comp, void>(ctx, dist, total, stream, valid);
          if (o.rank != 0) continue;
          fmt::print("dist {} GPUs {}{} {}{} n={}: {:.3f} ms ({:.2f} Gkeys/s) | local {:.3f} split {:.3f} "
                     "exchange {:.3f} ({} rounds{}{}, {}, {:.0f} GB/s a GPU; NCCL all-to-all {}) merge {:.3f} "
                     "rebalance {:.3f} | largest/mean {:.4f} | one GPU {} | {}\n",
                     j["gpus"].get<int>(), j["type"].get<std::string>(),
                     o.values.empty() ? std::string() : " + " + o.values + " values",
                     o.local == "warpsort" ? std::string() : "(local " + o.local + ") ", dist, total,
                     j["ms"].get<double>(), j["keys_per_s"].get<double>() * 1e-9,
                     j["local_sort_ms"].get<double>(), j["splitters_ms"].get<double>(),
                     j["exchange_ms"].get<double>(), j["exchange_rounds"].get<std::size_t>(),
                     j["last_round"] == "bucketed" ? ", last round bucketed" : "",
                     j["memory_plan"] == "two_copies" ? ", two copies"
                     : j["gathered"].get<bool>()
                         ? fmt::format(", gathered in {} pieces", j["gather_pieces"].get<std::size_t>())
                         : "",
                     j["exchange"].get<std::string>(),
                     j["exchange_gb_s_per_gpu"].get<double>(),
                     j["nccl_alltoall_gb_s_per_gpu"].is_null()
                         ? std::string("did not fit")
                         : fmt::format("{:.0f}", j["nccl_alltoall_gb_s_per_gpu"].get<double>()),
                     j["merge_ms"].get<double>(),
                     j["rebalance_ms"].get<double>(), j["largest_over_mean_max"].get<double>(),
                     j["single_gpu_ms"].is_null()
                         ? j.value("single_gpu_note", std::string("skipped"))
                         : fmt::format("{:.3f} ms, {:.2f}x", j["single_gpu_ms"].get<double>(),
                                       j["speedup_vs_single_gpu"].get<double>()),
                     j["validated"].get<bool>() ? "valid" : j["failure"].get<std::string>());
          std::fflush(stdout);
          rows.push_back(j);
          write_results(o, rows);  // after every row: a long sweep keeps what it has
        }
    };
    if (o.descending) one(greater<Key>{});
    else one(less<Key>{});
  });
  if (!valid) {
    if (o.rank == 0) fmt::print("warpsort dist: validation FAILED\n");
    return 1;
  }
  return 0;
}

}  // namespace

int run_dist_rank(const dist_options& o, const std::string& nccl_id_hex) {
  if (o.world < 1 || o.rank < 0 || o.rank >= o.world)
    throw input_error(fmt::format("warpsort dist: rank {} of {}", o.rank, o.world));
  // A failure is reported once: under the launcher, in the report directory (the launcher
  // prints the first failing rank's); alone, on standard error with the rank's number.
  const auto report = [&](const std::string& message) {
    if (!o.report_dir.empty()) {
      std::ofstream(o.report_dir + "/rank_" + std::to_string(o.rank) + ".error") << message << "\n";
    } else {
      std::fflush(stdout);
      fmt::print(stderr, "warpsort: error: rank {}: {}\n", o.rank, message);
    }
  };
  int progress_fd = -1;
  if (!o.report_dir.empty())
    progress_fd = open((o.report_dir + "/rank_" + std::to_string(o.rank) + ".phase").c_str(),
                       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ncclComm_t comm = nullptr;
  std::unique_ptr<distributed::nccl_transport> t;
  cudaStream_t stream = nullptr;
  int code = 0;
  try {
    const double timeout = dist_timeout(o);
    int devices = 0;
    WARPSORT_CUDA_CHECK(cudaGetDeviceCount(&devices));
    WARPSORT_CUDA_CHECK(cudaSetDevice(o.rank % devices));
    // The sort's temporary storage comes from the device's stream-ordered pool: keep what it
    // reserves between runs, or every run pays to map it again (about 1 ms a GiB).
    cudaMemPool_t pool;
    WARPSORT_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, o.rank % devices));
    std::uint64_t keep = UINT64_MAX;
    WARPSORT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    if (progress_fd >= 0) {
      const char init[] = "init\n";
      if (pwrite(progress_fd, init, sizeof init - 1, 0) < 0) progress_fd = -1;
    }
    // joining waits for every rank to start (a CUDA context each): at least a minute for it
    comm = join_communicator(o, nccl_id_hex, std::max(timeout, 60.0));
    t = std::make_unique<distributed::nccl_transport>(comm);
    rank_context ctx{*t, o, timeout, progress_fd};
    WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    code = rank_body(ctx, stream);
    WARPSORT_CUDA_CHECK(cudaStreamDestroy(stream));
    stream = nullptr;
    // a non-blocking communicator ends in two steps: finalize (settled within the deadline)
    t->set_timeout(timeout);
    const ncclResult_t finalized = ncclCommFinalize(comm);
    if (finalized != ncclSuccess && finalized != ncclInProgress)
      distributed::throw_nccl_error(finalized, "ncclCommFinalize", __FILE__, __LINE__);
    t->settle("finish");
    const ncclResult_t destroyed = ncclCommDestroy(comm);
    comm = nullptr;
    if (destroyed != ncclSuccess && destroyed != ncclInProgress)
      distributed::throw_nccl_error(destroyed, "ncclCommDestroy", __FILE__, __LINE__);
  } catch (const std::exception& e) {
    // the peers may wait on this rank: end the communicator so they fail too, not hang
    if (comm != nullptr) {
      if (t) t->abort();
      else ncclCommAbort(comm);
    }
    if (stream) cudaStreamDestroy(stream);
    report(e.what());
    code = 1;
  }
  if (progress_fd >= 0) close(progress_fd);
  return code;
}

}  // namespace warpsort::cli
