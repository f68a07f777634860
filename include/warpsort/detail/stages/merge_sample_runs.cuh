#pragma once
// Step 3's samples of runs of any lengths (any_runs: the run merge, the gathered path) ordered
// without a sort. Gathered in position order, each run's samples are already sorted, so the
// stable sort by key that sort_samples makes is a merge of the runs' sample lists: a record's
// place is its index in its own run plus, in every other run, the samples before it (an earlier
// run's equal keys first). A block ranks a tile of one run's samples, a warp each other run:
// a 32-way search finds where the tile starts in that run, the warp stages the next window of
// it in shared memory, and each lane finds its four consecutive samples there, the first by a
// binary search and each next by galloping on from the one before (past the window, where
// runs are uneven, a binary search where they lie). Each record is then
// written at its place: the stable sort's order in one launch, where CUB's radix sort takes
// six of a few blocks each (docs/performance.md, "the runs' samples merged, not sorted").
#include "index_math.hpp"
#include "launch.hpp"
#include "warp_network.cuh"

#include <warpsort/error.hpp>
#include <warpsort/order.cuh>
#include <warpsort/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpsort::stages {

/// A block's tile of one run's samples and its threads (a warp an other run, two where there
/// are more than 32 runs); a warp stages run_window samples of the run it searches.
constexpr int sample_tile = 128, sample_tile_threads = 1024;  // 4 samples a lane
constexpr unsigned run_window = 192;

/// The runs of samples, with 32-bit positions (fewer than 2^32 samples): run i is
/// [start[i], start[i + 1]) and its tiles are first_tile[i] .. first_tile[i + 1] - 1.
struct sample_runs {
  int runs = 0;
  unsigned start[runs_shape::max_runs + 1] = {};
  unsigned first_tile[runs_shape::max_runs + 1] = {};
};

inline sample_runs sample_runs_of(const runs_shape& r) {
  sample_runs s;
  s.runs = r.runs;
  for (int i = 0; i < r.runs; ++i) {
    const unsigned len = static_cast<unsigned>(r.sample_start[i + 1] - r.sample_start[i]);
    s.start[i + 1] = static_cast<unsigned>(r.sample_start[i + 1]);
    s.first_tile[i + 1] = s.first_tile[i] + (len + sample_tile - 1) / sample_tile;
  }
  return s;
}

/// Shared memory of a block of merge_sample_runs_kernel: the tile's keys, the warps' windows,
/// the tile's places.
template <class Key>
constexpr std::size_t merge_sample_runs_smem() {
  const std::size_t warps = sample_tile_threads / policy::warp_threads;
  return (sample_tile + warps * run_window) * sizeof(Key) + sample_tile * sizeof(unsigned);
}

/// Whether `x` comes before the key `a` of another run: an earlier run's equal keys do, a later
/// run's do not (the stable sort's order: by key, then index), as step 3 cuts a sequence at a
/// splitter (before_cut).
template <class Key>
__device__ __forceinline__ bool sample_precedes(Key x, Key a, bool earlier_run) {
  return before_cut(x, a, earlier_run, less<Key>{});
}

/// The records' keys, indexable as a sequence (cut_other_sequence).
template <class Record>
struct record_keys {
  const Record* records;
  __device__ auto operator[](unsigned i) const { return records[i].key; }
};

/// The first position of [lo, hi) of the records whose key does not come before `a`, hi if
/// none: each step the lanes probe 32 evenly spaced records and keep the stretch where the
/// answer lies, then one window of at most 32 is counted. Whole warp; lo, hi and a uniform.
template <class Record, class Key>
__device__ __forceinline__ unsigned warp_lower_place(const Record* in, unsigned lo, unsigned hi,
                                                    Key a, bool earlier_run) {
  constexpr unsigned lanes = policy::warp_threads;
  const unsigned lane = threadIdx.x % lanes;
  while (hi - lo > lanes) {
    const unsigned step = (hi - lo + lanes - 1) / lanes;
    const unsigned probe = lo + (lane + 1) * step - 1;  // no wrap: below hi + step < 2^32
    const bool before = probe < hi && sample_precedes(in[probe].key, a, earlier_run);
    const unsigned t = static_cast<unsigned>(__popc(__ballot_sync(full_warp, before)));
    // probes 0 .. t - 1 come before a, probe t (or hi) does not
    const unsigned next_hi = min(hi, lo + (t + 1) * step - 1);
    lo += t * step;
    hi = next_hi;
  }
  const bool before = lo + lane < hi && sample_precedes(in[lo + lane].key, a, earlier_run);
  return lo + static_cast<unsigned>(__popc(__ballot_sync(full_warp, before)));
}

/// Block b ranks tile b and writes each of its records at its place in `out`.
template <class Record>
__global__ void __launch_bounds__(sample_tile_threads, 2)
    merge_sample_runs_kernel(const Record* in, Record* out, sample_runs sr) {
  using Key = decltype(Record{}.key);
  constexpr unsigned lanes = policy::warp_threads;
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned warps = blockDim.x / lanes, warp = threadIdx.x / lanes, lane = threadIdx.x % lanes;
  Key* const tile_keys = reinterpret_cast<Key*>(smem);
  Key* const window = tile_keys + sample_tile + warp * run_window;
  unsigned* const place = reinterpret_cast<unsigned*>(tile_keys + sample_tile + warps * run_window);

  int run = 0;
  while (sr.first_tile[run + 1] <= blockIdx.x) ++run;  // uniform
  const unsigned run_start = sr.start[run];
  const unsigned first = run_start + (blockIdx.x - sr.first_tile[run]) * sample_tile;
  const int count = static_cast<int>(min(static_cast<unsigned>(sample_tile), sr.start[run + 1] - first));
  for (int t = threadIdx.x; t < count; t += blockDim.x) {
    tile_keys[t] = in[first + t].key;
    place[t] = first + t - run_start;
  }
  __syncthreads();

  // a lane's samples: per_lane consecutive ones of the tile, each found from the one before
  constexpr int per_lane = sample_tile / policy::warp_threads;
  const int mine = static_cast<int>(lane) * per_lane;
  unsigned added[per_lane] = {};
  for (int other = static_cast<int>(warp); other < sr.runs; other += static_cast<int>(warps)) {
    const unsigned s = sr.start[other], e = sr.start[other + 1];
    if (other == run || s == e) continue;
    const bool earlier = other < run;
    const unsigned from = warp_lower_place(in, s, e, tile_keys[0], earlier);
    const unsigned valid = min(run_window, e - from);
    __syncwarp();  // the window's last readers are done
    for (unsigned j = lane; j < valid; j += lanes) window[j] = in[from + j].key;
    __syncwarp();
    unsigned c = 0, at = from;  // the previous sample's place: in the window, and in the run
#pragma unroll
    for (int j = 0; j < per_lane; ++j) {
      if (mine + j >= count) break;
      const Key a = tile_keys[mine + j];
      if (c < valid) {
        // galloping from the previous sample's place: the next is usually a step or two on
        unsigned lo = c, hi = valid;
        for (unsigned step = 1; j > 0 && lo + step - 1 < valid; step *= 2) {
          if (!sample_precedes(window[lo + step - 1], a, earlier)) {
            hi = lo + step - 1;
            break;
          }
          lo += step;
        }
        c = cut_other_sequence(window, lo, hi, earlier, a, less<Key>{});
        at = from + c;
      }
      if (c == valid && at < e)  // past the window
        at = cut_other_sequence(record_keys<Record>{in}, at, e, earlier, a, less<Key>{});
      added[j] += at - s;
    }
  }
#pragma unroll
  for (int j = 0; j < per_lane; ++j)
    if (mine + j < count) atomicAdd(&place[mine + j], added[j]);
  __syncthreads();
  for (int t = threadIdx.x; t < count; t += blockDim.x) out[place[t]] = in[first + t];
}

/// Writes the records in[0, r.samples), each run's (by r.sample_start) sorted by key, to out in
/// the order of a stable sort by key. Keys: any type that < orders, compared as they are.
/// Shared memory: merge_sample_runs_smem, which the caller makes sure the device has.
template <class Record>
void merge_sample_runs(const Record* in, Record* out, const runs_shape& r, cudaStream_t stream) {
  using Key = decltype(Record{}.key);
  if (r.samples >= (std::size_t{1} << 32) - sample_tile)
    throw input_error("warpsort: step 3 merges fewer than 2^32 - " + std::to_string(sample_tile) +
                      " samples; these runs have " + std::to_string(r.samples));
  const sample_runs s = sample_runs_of(r);
  const unsigned tiles = s.first_tile[s.runs];
  if (tiles == 0) return;
  constexpr std::size_t smem = merge_sample_runs_smem<Key>();
  allow_dynamic_smem(merge_sample_runs_kernel<Record>, smem);
  merge_sample_runs_kernel<Record><<<tiles, sample_tile_threads, smem, stream>>>(in, out, s);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages
