// `warpsort dist`, one rank: joins the NCCL communicator, and for every (distribution, size)
// generates its share of the keys, runs the distributed sort (warm-ups, then timed runs, each
// on a fresh copy of the input), validates every run globally (each rank sorted, the ranks'
// boundaries in order, the multiset of keys unchanged: count and two 64-bit sums of hashed
// bits), times NCCL's own all-to-all of the same volume, and rank 0 times the single-GPU sort
// of the same total on its GPU (when it fits) and writes the results.
#include "cli/bench_config.hpp"
#include "cli/dist.hpp"
#include "cli/key_dispatch.hpp"
#include "cli/metadata.hpp"
#include "data/distributions.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/detail/distributed/order_bits.cuh>
#include <warpsort/detail/distributed/partition.hpp>
#include <warpsort/distributed.cuh>
#include <warpsort/warpsort.cuh>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace warpsort::cli {

namespace {

namespace dd = warpsort::distributed::detail;
using warpsort::detail::device_buffer;

ncclUniqueId from_hex(const std::string& hex) {
  ncclUniqueId id;
  if (hex.size() != 2 * sizeof id.internal) throw input_error("--nccl-id: wrong length");
  for (std::size_t i = 0; i < sizeof id.internal; ++i)
    id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

/// Every rank's `value`, in rank order, through the transport (a few bytes; waits).
template <class T>
std::vector<T> gather(distributed::transport& t, const T& value, cudaStream_t stream) {
  const std::size_t P = static_cast<std::size_t>(t.size());
  device_buffer<T> d(P + 1);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d.get() + P, &value, sizeof(T), cudaMemcpyHostToDevice, stream));
  t.all_gather(d.get() + P, d.get(), sizeof(T), stream);
  std::vector<T> all(P);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(all.data(), d.get(), P * sizeof(T), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return all;
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

/// Sums the hashes and counts the neighbours out of order (comp(k[i+1], k[i])).
template <class Key, class Comp>
__global__ void check_kernel(const Key* keys, std::size_t n, unsigned long long* sums) {
  using bits = typename dd::order_bits<Key, Comp>::bits;
  unsigned long long h1 = 0, h2 = 0, bad = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const bits w = cuda::std::bit_cast<bits>(keys[i]);
    h1 += mix(w, 0x9e3779b97f4a7c15ull);
    h2 += mix(w, 0x632be59bd9b4e019ull);
    if (i + 1 < n && Comp{}(keys[i + 1], keys[i])) ++bad;
  }
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

struct check_result {
  fingerprint print;
  unsigned long long out_of_order = 0;
};

template <class Key, class Comp>
check_result check_keys(const Key* keys, std::size_t n, cudaStream_t stream) {
  device_buffer<unsigned long long> sums(3);
  WARPSORT_CUDA_CHECK(cudaMemsetAsync(sums.get(), 0, 3 * sizeof(unsigned long long), stream));
  if (n > 0) {
    check_kernel<Key, Comp><<<132 * 8, 256, 0, stream>>>(keys, n, sums.get());
    WARPSORT_CHECK_LAUNCH();
  }
  unsigned long long host[3];
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(host, sums.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {{n, host[0], host[1]}, host[2]};
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
      generate_kernel<Key><<<132 * 8, 256, 0, stream>>>(to, n_, offset_, seed_);
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

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Per run, the slowest rank's numbers (every rank waits for the slowest).
struct run_times {
  double total = 0, local = 0, split = 0, exchange = 0, merge = 0, rebalance = 0;
};

/// One rank's work for one (distribution, total): returns rank 0's JSON record (others: null).
template <class Key, class Comp>
nlohmann::json run_one(distributed::transport& t, const dist_options& o, const std::string& dist,
                       std::size_t total, cudaStream_t stream, bool& all_valid) {
  const int P = t.size(), me = t.rank();
  const std::size_t offset = dd::balanced_prefix(me, P, total);
  const std::size_t n = dd::balanced_prefix(me + 1, P, total) - offset;
  distributed::options opts;
  opts.rebalance = o.rebalance;
  opts.timed = true;
  const std::size_t capacity =
      o.rebalance ? n : std::max(n, distributed::required_capacity(total, P, me, opts));
  const rank_input<Key> input(o, dist, n, offset, me);
  device_buffer<Key> keys(std::max<std::size_t>(capacity, 1));
  input.write(keys.get(), stream);
  fingerprint in = check_keys<Key, Comp>(keys.get(), n, stream).print;
  fingerprint whole_in;
  for (const fingerprint& f : gather(t, in, stream)) whole_in += f;

  std::vector<run_times> runs;
  std::vector<double> largest_over_mean;
  std::size_t sent_to_others = 0;
  std::string failure;
  cudaEvent_t start, stop;
  WARPSORT_CUDA_CHECK(cudaEventCreate(&start));
  WARPSORT_CUDA_CHECK(cudaEventCreate(&stop));
  for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
    if (rep > 0) input.write(keys.get(), stream);  // a fresh copy, not timed
    gather(t, 0, stream);                            // start together
    WARPSORT_CUDA_CHECK(cudaEventRecord(start, stream));
    const distributed::sort_result r =
        distributed::sort_keys<Key, Comp>(keys.get(), n, capacity, t, stream, Comp{}, opts);
    WARPSORT_CUDA_CHECK(cudaEventRecord(stop, stream));
    WARPSORT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    // validate: sorted here, in order across ranks, the same multiset overall
    const check_result c = check_keys<Key, Comp>(keys.get(), r.count, stream);
    using bits = typename dd::order_bits<Key, Comp>::bits;
    std::array<std::uint64_t, 3> ends{r.count, 0, 0};
    if (r.count) {
      Key first, last;
      WARPSORT_CUDA_CHECK(cudaMemcpy(&first, keys.get(), sizeof(Key), cudaMemcpyDeviceToHost));
      WARPSORT_CUDA_CHECK(cudaMemcpy(&last, keys.get() + r.count - 1, sizeof(Key), cudaMemcpyDeviceToHost));
      ends = {r.count, dd::order_bits<Key, Comp>::to(first), dd::order_bits<Key, Comp>::to(last)};
    }
    const auto all_ends = gather(t, ends, stream);
    const auto all_checks = gather(t, c, stream);
    const auto all_times = gather(t, std::array<float, 6>{ms, r.times.local_sort_ms,
                                                            r.times.splitters_ms, r.times.exchange_ms,
                                                            r.times.merge_ms, r.times.rebalance_ms},
                                  stream);
    fingerprint whole_out;
    unsigned long long out_of_order = 0;
    for (const auto& x : all_checks) {
      whole_out += x.print;
      out_of_order += x.out_of_order;
    }
    bool boundaries = true;
    bits prev_last = 0;
    bool any = false;
    for (const auto& e : all_ends) {
      if (e[0] == 0) continue;
      if (any && static_cast<bits>(e[1]) < prev_last) boundaries = false;
      prev_last = static_cast<bits>(e[2]);
      any = true;
    }
    if (out_of_order || !boundaries || !(whole_out == whole_in))
      failure = fmt::format("run {}: {} keys out of order within ranks, rank boundaries {}, "
                            "multiset {}", rep, out_of_order, boundaries ? "ordered" : "NOT ordered",
                            whole_out == whole_in ? "unchanged" : "CHANGED");
    if (rep < o.warmup) continue;
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
    for (int p = 0; p < P; ++p) sent_to_others = std::max(sent_to_others, r.keys_sent_to_others(p));
  }
  WARPSORT_CUDA_CHECK(cudaEventDestroy(start));
  WARPSORT_CUDA_CHECK(cudaEventDestroy(stop));
  if (!failure.empty()) all_valid = false;

  // NCCL's all-to-all of the same volume (each rank sends n (P - 1) / P keys to the others)
  double alltoall_ms = 0;
  if (P > 1 && n > 0) {
    std::vector<std::size_t> off(P), bytes(P);
    const std::size_t block = n / static_cast<std::size_t>(P) * sizeof(Key);
    for (int p = 0; p < P; ++p) {
      off[p] = static_cast<std::size_t>(p) * block;
      bytes[p] = block;
    }
    // send from the first half of the buffer's blocks, receive into the same layout: keys is
    // at least n long, and a copy of a block onto itself for the own rank is harmless
    std::vector<double> ms;
    cudaEvent_t a, b;
    WARPSORT_CUDA_CHECK(cudaEventCreate(&a));
    WARPSORT_CUDA_CHECK(cudaEventCreate(&b));
    device_buffer<Key> recv(n);
    for (int rep = 0; rep < 1 + o.reps; ++rep) {
      gather(t, 0, stream);
      WARPSORT_CUDA_CHECK(cudaEventRecord(a, stream));
      t.all_to_all(keys.get(), off, bytes, recv.get(), off, bytes, stream);
      WARPSORT_CUDA_CHECK(cudaEventRecord(b, stream));
      WARPSORT_CUDA_CHECK(cudaEventSynchronize(b));
      float x = 0;
      WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&x, a, b));
      double slowest = 0;
      for (float y : gather(t, x, stream)) slowest = std::max<double>(slowest, y);
      if (rep > 0) ms.push_back(slowest);
    }
    alltoall_ms = median(ms);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }

  if (me != 0) {
    gather(t, 0, stream);  // wait while rank 0 runs the single-GPU baseline
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
  j["generated_on"] = o.device_generate ? "device" : "host";
  j["reps"] = o.reps;
  j["ms"] = total_ms;
  j["keys_per_s"] = total_ms > 0 ? total / (total_ms * 1e-3) : 0;
  j["local_sort_ms"] = field(&run_times::local);
  j["splitters_ms"] = field(&run_times::split);
  j["exchange_ms"] = exchange_ms;
  j["merge_ms"] = field(&run_times::merge);
  j["rebalance_ms"] = field(&run_times::rebalance);
  j["largest_over_mean"] = median(largest_over_mean);
  j["largest_over_mean_max"] =
      largest_over_mean.empty() ? 0 : *std::max_element(largest_over_mean.begin(), largest_over_mean.end());
  j["exchange_bytes_per_gpu"] = sent_to_others * sizeof(Key);
  j["exchange_gb_s_per_gpu"] = exchange_ms > 0 ? sent_to_others * sizeof(Key) / (exchange_ms * 1e6) : 0;
  j["nccl_alltoall_ms"] = alltoall_ms;
  j["nccl_alltoall_gb_s_per_gpu"] =
      alltoall_ms > 0 ? (n / static_cast<std::size_t>(P) * sizeof(Key) * (P - 1)) / (alltoall_ms * 1e6) : 0;
  j["validated"] = failure.empty();
  if (!failure.empty()) j["failure"] = failure;

  // the single-GPU sort of the same total, on this GPU, after the distributed buffers are gone
  j["single_gpu_ms"] = nullptr;
  if (o.baseline) {
    keys = device_buffer<Key>();
    std::size_t temp_bytes = 0;
    sort_keys<Key, Comp>(nullptr, temp_bytes, nullptr, nullptr, total);
    std::size_t free_bytes = 0, all_bytes = 0;
    WARPSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &all_bytes));
    if (total * sizeof(Key) + temp_bytes + (std::size_t{1} << 28) > free_bytes) {
      j["single_gpu_note"] = fmt::format("does not fit one GPU ({} + {} bytes, {} free)",
                                         total * sizeof(Key), temp_bytes, free_bytes);
    } else {
      device_buffer<Key> all(std::max<std::size_t>(total, 1));
      device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
      // every rank's keys, as each rank generated them: drawn once, written before every run
      std::vector<rank_input<Key>> inputs;
      std::vector<std::size_t> starts;
      for (int r = 0; r < P; ++r) {
        starts.push_back(dd::balanced_prefix(r, P, total));
        inputs.emplace_back(o, dist, dd::balanced_prefix(r + 1, P, total) - starts.back(),
                            starts.back(), r);
      }
      const auto write_all = [&] {
        for (int r = 0; r < P; ++r) inputs[r].write(all.get() + starts[r], stream);
      };
      std::vector<double> ms;
      bool valid = true;
      cudaEvent_t a, b;
      WARPSORT_CUDA_CHECK(cudaEventCreate(&a));
      WARPSORT_CUDA_CHECK(cudaEventCreate(&b));
      for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
        write_all();
        WARPSORT_CUDA_CHECK(cudaEventRecord(a, stream));
        sort_keys<Key, Comp>(temp.get(), temp_bytes, all.get(), all.get(), total, Comp{}, stream);
        WARPSORT_CUDA_CHECK(cudaEventRecord(b, stream));
        WARPSORT_CUDA_CHECK(cudaEventSynchronize(b));
        float x = 0;
        WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&x, a, b));
        const check_result c = check_keys<Key, Comp>(all.get(), total, stream);
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
  gather(t, 0, stream);
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
      "gpus", "type", "order", "distribution", "n", "rebalance", "generated_on", "reps", "ms",
      "keys_per_s", "local_sort_ms", "splitters_ms", "exchange_ms", "merge_ms", "rebalance_ms",
      "largest_over_mean", "largest_over_mean_max", "exchange_bytes_per_gpu",
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

}  // namespace

int run_dist_rank(const dist_options& o, const std::string& nccl_id_hex) {
  if (o.world < 1 || o.rank < 0 || o.rank >= o.world)
    throw input_error(fmt::format("warpsort dist: rank {} of {}", o.rank, o.world));
  if (o.reps < 1 || o.warmup < 0) throw input_error("warpsort dist: --reps >= 1, --warmup >= 0");
  const std::vector<std::size_t> sizes = parse_size_list(o.sizes);
  const std::vector<std::string> dists =
      parse_name_list(o.dists, data::distribution_names(), "distribution");
  if (o.device_generate && (dists.size() != 1 || dists[0] != "uniform"))
    throw input_error("--device-generate draws uniform keys only (--dists uniform)");
  const data::key_type type = data::parse_key_type(o.type);
  int devices = 0;
  WARPSORT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  WARPSORT_CUDA_CHECK(cudaSetDevice(o.rank % devices));
  // The sort's temporary storage comes from the device's stream-ordered pool: keep what it
  // reserves between runs, or every run pays to map it again (about 1 ms a GiB).
  cudaMemPool_t pool;
  WARPSORT_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, o.rank % devices));
  std::uint64_t keep = UINT64_MAX;
  WARPSORT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  ncclComm_t comm;
  WARPSORT_NCCL_CHECK(ncclCommInitRank(&comm, o.world, from_hex(nccl_id_hex), o.rank));
  distributed::nccl_transport t(comm);
  cudaStream_t stream;
  WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nlohmann::json rows = nlohmann::json::array();
  bool valid = true;
  with_key_type(type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    const auto one = [&](auto comp) {
      using Comp = decltype(comp);
      for (const std::string& dist : dists)
        for (std::size_t total : sizes) {
          nlohmann::json j = run_one<Key, Comp>(t, o, dist, total, stream, valid);
          if (o.rank != 0) continue;
          fmt::print("dist {} GPUs {} {} n={}: {:.3f} ms ({:.2f} Gkeys/s) | local {:.3f} split {:.3f} "
                     "exchange {:.3f} ({:.0f} GB/s a GPU; NCCL all-to-all {:.0f}) merge {:.3f} "
                     "rebalance {:.3f} | largest/mean {:.4f} | one GPU {} | {}\n",
                     j["gpus"].get<int>(), j["type"].get<std::string>(), dist, total,
                     j["ms"].get<double>(), j["keys_per_s"].get<double>() * 1e-9,
                     j["local_sort_ms"].get<double>(), j["splitters_ms"].get<double>(),
                     j["exchange_ms"].get<double>(), j["exchange_gb_s_per_gpu"].get<double>(),
                     j["nccl_alltoall_gb_s_per_gpu"].get<double>(), j["merge_ms"].get<double>(),
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
  cudaStreamDestroy(stream);
  WARPSORT_NCCL_CHECK(ncclCommDestroy(comm));
  if (!valid) {
    fmt::print(stderr, "warpsort dist: validation FAILED\n");
    return 1;
  }
  return 0;
}

}  // namespace warpsort::cli
