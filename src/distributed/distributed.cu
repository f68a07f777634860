// The distributed sort's library part: the NCCL transport, and sort_keys for every key type in
// both orders, each mapped onto the sort of unsigned words (instantiated twice, 32 and 64 bits).
#include <warpsort/detail/distributed/sort_impl.cuh>
#include <warpsort/distributed.cuh>
#include <warpsort/key_types.hpp>

namespace warpsort::distributed {

nccl_transport::nccl_transport(ncclComm_t comm) : comm_(comm) {
  if (comm == nullptr) throw input_error("warpsort::distributed: null NCCL communicator");
  WARPSORT_NCCL_CHECK(ncclCommUserRank(comm, &rank_));
  WARPSORT_NCCL_CHECK(ncclCommCount(comm, &size_));
}

void nccl_transport::all_gather(const void* send, void* recv, std::size_t bytes,
                                cudaStream_t stream) {
  WARPSORT_NCCL_CHECK(ncclAllGather(send, recv, bytes, ncclUint8, comm_, stream));
}

void nccl_transport::all_to_all(const void* send, const std::vector<std::size_t>& send_offsets,
                                const std::vector<std::size_t>& send_bytes, void* recv,
                                const std::vector<std::size_t>& recv_offsets,
                                const std::vector<std::size_t>& recv_bytes, cudaStream_t stream) {
  const auto* from = static_cast<const unsigned char*>(send);
  auto* to = static_cast<unsigned char*>(recv);
  const std::size_t self = static_cast<std::size_t>(rank_);
  if (send_bytes[self] != recv_bytes[self])
    throw input_error("warpsort::distributed: a rank's own range must keep its size");
  if (send_bytes[self] > 0)  // its own range: a copy, not a message
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(to + recv_offsets[self], from + send_offsets[self],
                                        send_bytes[self], cudaMemcpyDeviceToDevice, stream));
  WARPSORT_NCCL_CHECK(ncclGroupStart());
  for (int p = 0; p < size_; ++p) {
    const std::size_t q = static_cast<std::size_t>(p);
    if (q == self) continue;
    if (send_bytes[q] > 0)
      WARPSORT_NCCL_CHECK(ncclSend(from + send_offsets[q], send_bytes[q], ncclUint8, p, comm_, stream));
    if (recv_bytes[q] > 0)
      WARPSORT_NCCL_CHECK(ncclRecv(to + recv_offsets[q], recv_bytes[q], ncclUint8, p, comm_, stream));
  }
  WARPSORT_NCCL_CHECK(ncclGroupEnd());
}

void nccl_transport::abort() noexcept { ncclCommAbort(comm_); }

std::size_t sort_result::keys_sent_to_others(int rank) const {
  const std::size_t P = counts.size(), r = static_cast<std::size_t>(rank);
  std::size_t sum = 0;
  for (std::size_t q = 0; q < P; ++q)
    if (q != r) sum += sent[r * P + q];
  return sum;
}

std::size_t required_capacity(std::size_t total, int ranks, int rank, const options& o) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw input_error("warpsort::distributed::required_capacity: rank " + std::to_string(rank) +
                      " of " + std::to_string(ranks));
  const std::size_t share = detail::balanced_prefix(rank + 1, ranks, total) -
                            detail::balanced_prefix(rank, ranks, total);
  const std::size_t stride = detail::sample_stride(total, ranks, o.oversampling);
  const std::size_t bound = detail::bucket_bound(share, stride, ranks);
  return bound < total ? bound : total;
}

namespace detail {

template <class Key, class Comp>
__global__ void to_words_kernel(Key* keys, std::size_t n) {
  using map = order_bits<Key, Comp>;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) reinterpret_cast<typename map::bits*>(keys)[i] = map::to(keys[i]);
}

template <class Key, class Comp>
__global__ void from_words_kernel(Key* keys, std::size_t n) {
  using map = order_bits<Key, Comp>;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = map::from(reinterpret_cast<typename map::bits*>(keys)[i]);
}

}  // namespace detail

namespace detail {

/// Both calls: map the keys to their order's words once every rank has agreed, sort the words
/// (with their values), map back; a failure where peers may wait on this rank aborts.
template <class Key, class Comp, class Value>
sort_result sort_mapped(Key* d_keys, Value* d_values, std::size_t n, std::size_t capacity,
                        transport& t, cudaStream_t stream, const options& o) {
  using map = order_bits<Key, Comp>;
  using bits = typename map::bits;
  const policy local = o.local ? *o.local : default_policy<Key>();
  const unsigned threads = 256;
  const auto map_in = [&](cudaStream_t s) {
    if constexpr (!map::identity) {
      if (n == 0) return;
      to_words_kernel<Key, Comp>
          <<<static_cast<unsigned>(stages::ceil_div(n, threads)), threads, 0, s>>>(d_keys, n);
      WARPSORT_CHECK_LAUNCH();
    }
  };
  const auto map_out = [&](std::size_t count, cudaStream_t s) {
    if constexpr (!map::identity) {
      if (count == 0) return;
      from_words_kernel<Key, Comp>
          <<<static_cast<unsigned>(stages::ceil_div(count, threads)), threads, 0, s>>>(d_keys,
                                                                                      count);
      WARPSORT_CHECK_LAUNCH();
    }
  };
  try {
    return sort_words<bits, Value>(t, reinterpret_cast<bits*>(d_keys), d_values, n, capacity,
                                   stream, o, local, map_in, map_out);
  } catch (const input_error&) {
    throw;  // every rank refused alike, before any work
  } catch (const agreed_failure&) {
    throw;  // every rank learned of it and stops alike
  } catch (...) {
    t.abort();  // the peers may wait on this rank
    throw;
  }
}

}  // namespace detail

template <class Key, class Comp>
sort_result sort_keys(Key* d_keys, std::size_t n, std::size_t capacity, transport& t,
                      cudaStream_t stream, Comp, const options& o) {
  return detail::sort_mapped<Key, Comp, detail::no_values>(d_keys, nullptr, n, capacity, t,
                                                           stream, o);
}

template <class Key, class Value, class Comp>
sort_result sort_pairs(Key* d_keys, Value* d_values, std::size_t n, std::size_t capacity,
                       transport& t, cudaStream_t stream, Comp, const options& o) {
  return detail::sort_mapped<Key, Comp, Value>(d_keys, d_values, n, capacity, t, stream, o);
}

#define WARPSORT_INSTANTIATE_DISTRIBUTED_(name, Key)                                          \
  template sort_result sort_keys<Key, less<Key>>(Key*, std::size_t, std::size_t, transport&,   \
                                                 cudaStream_t, less<Key>, const options&);     \
  template sort_result sort_keys<Key, greater<Key>>(Key*, std::size_t, std::size_t, transport&, \
                                                    cudaStream_t, greater<Key>, const options&);
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_DISTRIBUTED_)
#undef WARPSORT_INSTANTIATE_DISTRIBUTED_

#define WARPSORT_INSTANTIATE_DISTRIBUTED_PAIRS_(Key, Value)                                     \
  template sort_result sort_pairs<Key, Value, less<Key>>(Key*, Value*, std::size_t, std::size_t, \
                                                         transport&, cudaStream_t, less<Key>,    \
                                                         const options&);                        \
  template sort_result sort_pairs<Key, Value, greater<Key>>(Key*, Value*, std::size_t,          \
                                                            std::size_t, transport&,            \
                                                            cudaStream_t, greater<Key>,          \
                                                            const options&);
WARPSORT_FOR_EACH_KEY_VALUE(WARPSORT_INSTANTIATE_DISTRIBUTED_PAIRS_)
#undef WARPSORT_INSTANTIATE_DISTRIBUTED_PAIRS_

}  // namespace warpsort::distributed
