#pragma once
// What the distributed sort needs of a communicator: an all-gather and an all-to-all of byte
// ranges between device buffers, stream-ordered. nccl_transport (warpsort/distributed.cuh) is
// the one the library gives; the tests add one that runs several ranks on one GPU.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace warpsort::distributed {

class transport {
 public:
  virtual ~transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank's `bytes` bytes at `send`, in rank order, into recv (size() x bytes), on stream.
  virtual void all_gather(const void* send, void* recv, std::size_t bytes,
                          cudaStream_t stream) = 0;
  /// Sends send_bytes[p] bytes at send + send_offsets[p] to every rank p and receives
  /// recv_bytes[p] bytes from it at recv + recv_offsets[p] (one entry a rank, own included).
  virtual void all_to_all(const void* send, const std::vector<std::size_t>& send_offsets,
                          const std::vector<std::size_t>& send_bytes, void* recv,
                          const std::vector<std::size_t>& recv_offsets,
                          const std::vector<std::size_t>& recv_bytes, cudaStream_t stream) = 0;
  /// After this rank failed where its peers may wait on it: ends the communicator.
  virtual void abort() noexcept = 0;
};

}  // namespace warpsort::distributed
