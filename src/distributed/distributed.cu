// The distributed sort's library part: the NCCL transport, and sort_keys for every key type in
// both orders, each mapped onto the sort of unsigned words (instantiated twice, 32 and 64 bits).
#include "ipc_peer_memory.hpp"

#include <warpsort/detail/distributed/sort_impl.cuh>
#include <warpsort/detail/stages/word_map.cuh>
#include <warpsort/distributed.cuh>
#include <warpsort/key_types.hpp>

#include <cuda/std/cmath>

#include <algorithm>

namespace warpsort::distributed {

namespace {

/// A call on a communicator that may be non-blocking: ncclInProgress is not a failure (the
/// caller settles it before the next call).
void check_queued(ncclResult_t code, const char* expr, const char* file, int line) {
  if (code != ncclSuccess && code != ncclInProgress)
    throw_nccl_error(code, expr, file, line);
}
#define WARPSORT_NCCL_QUEUE(expr) check_queued((expr), #expr, __FILE__, __LINE__)

}  // namespace

nccl_transport::nccl_transport(ncclComm_t comm, bool arenas) : comm_(comm), arenas_(arenas) {
  if (comm == nullptr) throw input_error("warpsort::distributed: null NCCL communicator");
  WARPSORT_NCCL_CHECK(ncclCommUserRank(comm, &rank_));
  WARPSORT_NCCL_CHECK(ncclCommCount(comm, &size_));
}

nccl_transport::~nccl_transport() {
  if (aborted_) (void)peers_.release();  // its peers are gone with the communicator: leak, do not wait
}

peer_memory* nccl_transport::peers() {
  if (!arenas_) return nullptr;
  if (!peers_) peers_ = std::make_unique<detail::ipc_peer_memory>(*this);
  return peers_.get();
}

bool nccl_transport::gathers_on_host(std::size_t bytes) const {
  return peers_ && peers_->mailbox() && detail::host_mailbox::fits(bytes);
}

void nccl_transport::host_all_gather(const void* mine, void* all, std::size_t bytes,
                                     const char* phase) {
  detail::host_mailbox& box = *peers_->mailbox();
  box.post(mine, bytes);
  poll_until([&] { return box.arrived(); }, phase);
  box.collect(all, bytes);
}

void nccl_transport::settle(const char* phase) { poll_until([&] { return idle(); }, phase); }

void nccl_transport::wait(cudaStream_t stream, const char* phase) {
  // an NCCL kernel whose peer never comes keeps the stream busy: the communicator's error
  // state is read too, so that a failure NCCL detects ends the wait at once
  poll_until([&] { return idle() && ready(stream); }, phase);
}

bool nccl_transport::idle() {
  ncclResult_t state = ncclSuccess;
  WARPSORT_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
  if (state != ncclSuccess && state != ncclInProgress)
    throw_nccl_error(state, "ncclCommGetAsyncError", __FILE__, __LINE__);
  return state == ncclSuccess;
}

void nccl_transport::all_gather(const void* send, void* recv, std::size_t bytes,
                                cudaStream_t stream) {
  WARPSORT_NCCL_QUEUE(ncclAllGather(send, recv, bytes, ncclUint8, comm_, stream));
  settle(phase());
}

void nccl_transport::exchange(const std::vector<send_piece>& sends,
                              const std::vector<receive_piece>& receives, cudaStream_t stream) {
  for (const auto& s : sends)
    if (s.peer < 0 || s.peer >= size_) throw input_error("warpsort::distributed: a piece's peer is not a rank");
  for (const auto& r : receives)
    if (r.peer < 0 || r.peer >= size_) throw input_error("warpsort::distributed: a piece's peer is not a rank");
  // a rank's pieces to itself: copies, matched in order
  std::vector<const send_piece*> own_sends;
  std::vector<const receive_piece*> own_receives;
  for (const auto& s : sends)
    if (s.peer == rank_ && s.bytes > 0) own_sends.push_back(&s);
  for (const auto& r : receives)
    if (r.peer == rank_ && r.bytes > 0) own_receives.push_back(&r);
  if (own_sends.size() != own_receives.size())
    throw input_error("warpsort::distributed: a rank's pieces to itself must match its own");
  for (std::size_t i = 0; i < own_sends.size(); ++i) {
    if (own_sends[i]->bytes != own_receives[i]->bytes)
      throw input_error("warpsort::distributed: a rank's pieces to itself must keep their sizes");
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(own_receives[i]->to, own_sends[i]->from,
                                        own_sends[i]->bytes, cudaMemcpyDeviceToDevice, stream));
  }
  WARPSORT_NCCL_QUEUE(ncclGroupStart());
  try {
    for (const auto& s : sends)
      if (s.peer != rank_ && s.bytes > 0)
        WARPSORT_NCCL_QUEUE(ncclSend(s.from, s.bytes, ncclUint8, s.peer, comm_, stream));
    for (const auto& r : receives)
      if (r.peer != rank_ && r.bytes > 0)
        WARPSORT_NCCL_QUEUE(ncclRecv(r.to, r.bytes, ncclUint8, r.peer, comm_, stream));
  } catch (...) {
    (void)ncclGroupEnd();  // the group must close even when a call in it failed
    throw;
  }
  WARPSORT_NCCL_QUEUE(ncclGroupEnd());
  settle(phase());
}

void nccl_transport::abort() noexcept {
  if (aborted_) return;
  aborted_ = true;
  // no peer is left waiting in the mailbox either
  if (peers_) peers_->abort();
  (void)ncclCommAbort(comm_);
}

void checked_all_to_all(transport& t, const void* send,
                        const std::vector<std::size_t>& send_offsets,
                        const std::vector<std::size_t>& send_bytes, void* recv,
                        const std::vector<std::size_t>& recv_offsets,
                        const std::vector<std::size_t>& recv_bytes, cudaStream_t stream,
                        const char* phase) {
  const std::size_t P = static_cast<std::size_t>(t.size());
  if (send_offsets.size() != P || send_bytes.size() != P || recv_offsets.size() != P ||
      recv_bytes.size() != P)
    throw input_error("warpsort::distributed::checked_all_to_all: one offset and size a rank");
  t.set_phase(phase);
  // every rank's sizes, both sides, gathered by all: every rank reaches the same verdict
  std::vector<std::uint64_t> mine(2 * P);
  for (std::size_t p = 0; p < P; ++p) {
    mine[p] = send_bytes[p];
    mine[P + p] = recv_bytes[p];
  }
  void* block = nullptr;
  const std::size_t row = 2 * P * sizeof(std::uint64_t);
  WARPSORT_CUDA_CHECK(cudaMallocAsync(&block, row * (P + 1), stream));
  std::vector<std::uint64_t> all(2 * P * P);
  try {
    gather_to_host(t, mine.data(), all.data(), row, block, stream, phase);
  } catch (...) {
    cudaFreeAsync(block, stream);
    throw;
  }
  WARPSORT_CUDA_CHECK(cudaFreeAsync(block, stream));
  std::vector<std::size_t> sends(P * P), receives(P * P);
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t q = 0; q < P; ++q) {
      sends[p * P + q] = all[p * 2 * P + q];
      receives[p * P + q] = all[p * 2 * P + P + q];
    }
  const std::string why = detail::count_disagreement(sends, receives, t.size(), phase, "bytes");
  if (!why.empty()) throw disagreement_error("warpsort::distributed::checked_all_to_all: " + why);
  t.all_to_all(send, send_offsets, send_bytes, recv, recv_offsets, recv_bytes, stream);
}

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
  // the larger of the two cuts' bounds: which one a call takes depends on every rank's count
  std::size_t bound = 0;
  for (const bool bucketed : {false, true}) {
    const std::size_t sequences = detail::cut_sequences_bound(ranks, bucketed);
    const std::size_t stride = detail::sample_stride(total, ranks, o.oversampling, sequences);
    bound = std::max(bound, detail::bucket_bound(share, stride, sequences));
  }
  return bound < total ? bound : total;
}

std::size_t balanced_start(int rank, int ranks, std::size_t total) {
  if (ranks < 1 || rank < 0 || rank > ranks)
    throw input_error("warpsort::distributed::balanced_start: rank " + std::to_string(rank) +
                      " of " + std::to_string(ranks));
  return detail::balanced_prefix(rank, ranks, total);
}

namespace detail {

/// Which zeros the float keys hold (zero_sign bits, or'ed into *signs): a grid-stride pass, one
/// atomic a warp at most (keys that are all zeros must not queue on one address).
template <class Key>
__global__ void zero_signs_kernel(const Key* keys, std::size_t n, std::int32_t* signs) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned found = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    if (keys[i] == Key{0}) found |= cuda::std::signbit(keys[i]) ? zero_minus : zero_plus;
  found = __reduce_or_sync(0xffffffffu, found);
  if (found != 0 && threadIdx.x % 32 == 0)
    atomicOr(reinterpret_cast<int*>(signs), static_cast<int>(found));
}


/// Both calls: map the keys to their order's words once every rank has agreed, sort the words
/// (with their values), map back; a failure where peers may wait on this rank aborts.
template <class Key, class Comp, class Value>
sort_result sort_mapped(Key* d_keys, Value* d_values, std::size_t n, std::size_t capacity,
                        transport& t, cudaStream_t stream, const options& o) {
  using map = order_words_for<Key, Comp>;
  using bits = typename map::bits;
  const policy local = o.local ? *o.local : default_policy<Key>();
  const unsigned threads = 256;
  bits* const words = reinterpret_cast<bits*>(d_keys);
  // the keys' words from `from` into `to` (in place where they are equal); whether a pass ran
  const auto map_in = [&](const bits* from, bits* to, cudaStream_t s) {
    using to_word = stages::key_to_order_word<Key, Comp>;
    stages::map_words<to_word>(from, to, n, s);
    return !to_word::identity;
  };
  const auto map_out = [&](std::size_t count, cudaStream_t s) {
    stages::map_words<stages::order_word_to_key<Key, Comp>>(words, words, count, s);
  };
  try {
    // pairs of float keys: which zeros they hold (both signs anywhere: every rank refuses)
    std::int32_t zero_signs = 0;
    if constexpr (has_values<Value> && cuda::std::is_floating_point_v<Key>) {
      if (t.size() > 1 && n > 0 && n <= capacity && d_keys != nullptr) {
        stream_allocation flag(sizeof(std::int32_t), stream);
        if (!flag.ok())
          throw cuda_error(cudaErrorMemoryAllocation, "warpsort::distributed::sort_pairs: no device "
                                                      "memory for the zeros' check");
        auto* d_signs = static_cast<std::int32_t*>(flag.get());
        WARPSORT_CUDA_CHECK(cudaMemsetAsync(d_signs, 0, sizeof(std::int32_t), stream));
        const std::size_t blocks = std::min<std::size_t>(stages::ceil_div(n, threads), 4096);
        zero_signs_kernel<Key><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(d_keys, n,
                                                                                    d_signs);
        WARPSORT_CHECK_LAUNCH();
        WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&zero_signs, d_signs, sizeof zero_signs,
                                            cudaMemcpyDeviceToHost, stream));
        WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
      }
    }
    // one rank: the single-GPU sort in place; pairs of float keys by the comparator itself,
    // which holds -0.0 and +0.0 equal (their words would not), the rest as words
    const auto sort_one_rank = [&](void* temp, std::size_t bytes, cudaStream_t s) -> std::size_t {
      if constexpr (has_values<Value> && cuda::std::is_floating_point_v<Key>) {
        return sort_whole<Key, Value, Comp>(o.local_sort, true, temp, bytes, d_keys, d_keys,
                                            d_values, d_values, n, s, local);
      } else {
        if (temp == nullptr)
          return sort_whole_bytes<bits, Value>(o.local_sort, true, n, local);
        map_in(words, words, s);
        sort_whole<bits, Value>(o.local_sort, true, temp, bytes, words, words, d_values, d_values,
                                n, s, local);
        map_out(n, s);
        return bytes;
      }
    };
    return sort_words<bits, Value>(t, reinterpret_cast<bits*>(d_keys), d_values, n, capacity,
                                   stream, o, local, map_in, map_out, sort_one_rank, zero_signs);
  } catch (const input_error&) {
    throw;  // every rank refused alike, before any work
  } catch (const agreed_failure&) {
    throw;  // every rank learned of it and stops alike
  } catch (const disagreement_error&) {
    throw;  // every rank found it alike, before posting the exchange
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
