// Input distributions (data/README.md documents each, with its formula and source).
//
// Every distribution is first defined on W-bit unsigned "words" u in [0, 2^W), W = 8*sizeof(Key),
// and then mapped to the key type by a monotone (order-preserving) map:
//   unsigned: u;  signed: u - 2^(W-1) (two's complement of u with the top bit flipped);
//   float/double: u truncated to its 24/53 leading significant bits, times 2^-W, in [0, 1).
// The duplicate distributions define small integer values v instead, stored as Key(v).
//
// Randomness is counter based: draw s of key i is splitmix64's output number i of a state
// derived from (seed, s), so key i depends only on (name, seed, i, n), never on the threads.
#include "data/distributions.hpp"

#include "warpsort/error.hpp"
#include "warpsort/key_types.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <thread>
#include <type_traits>
#include <utility>

namespace warpsort::data {

namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

// ---- counter-based random numbers -------------------------------------------------------------

constexpr u64 kGolden = 0x9E3779B97F4A7C15ull;

constexpr u64 mix64(u64 z) {  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Stream ids: independent sequences of one seed.
enum stream_id : u64 {
  s_draw0 = 0,  // s_draw0 + d (d < 5): the d-th uniform draw of key i
  s_zero = 16,
  s_swap_a = 17,
  s_swap_b = 18,
  s_rd_count = 19,
  s_rd_value = 20,
};

struct stream {
  u64 base;
  stream(u64 seed, u64 id) : base(mix64(seed ^ mix64((id + 1) * 0xD1B54A32D192ED03ull))) {}
  u64 operator()(u64 i) const { return mix64(base + (i + 1) * kGolden); }
};

// ---- words and the map to keys ---------------------------------------------------------------

template <class Key>
using word_t = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;

template <class Key>
constexpr int word_bits = 8 * sizeof(Key);

// A W-bit uniform word from a 64-bit draw (the high bits for W = 32).
template <class Key>
word_t<Key> to_word(u64 r) {
  return static_cast<word_t<Key>>(r >> (64 - word_bits<Key>));
}

inline int leading_zeros(std::uint32_t x) { return x ? __builtin_clz(x) : 32; }
inline int leading_zeros(std::uint64_t x) { return x ? __builtin_clzll(x) : 64; }

// Monotone map from words to keys (see the file comment).
template <class Key>
Key word_to_key(word_t<Key> u) {
  using U = word_t<Key>;
  constexpr int W = word_bits<Key>;
  if constexpr (std::is_floating_point_v<Key>) {
    constexpr int M = std::numeric_limits<Key>::digits;  // 24 or 53
    const int significant = W - leading_zeros(u);
    if (significant > M) u &= ~((U(1) << (significant - M)) - 1);  // truncate: exact below
    const Key scale = Key(1) / (Key(4294967296.0) * (W == 64 ? Key(4294967296.0) : Key(1)));
    return static_cast<Key>(u) * scale;  // in [0, 1 - 2^-M]
  } else if constexpr (std::is_signed_v<Key>) {
    const U v = u ^ (U(1) << (W - 1));
    Key k;
    std::memcpy(&k, &v, sizeof k);
    return k;
  } else {
    return u;
  }
}

// ---- parallel loops --------------------------------------------------------------------------

std::atomic<unsigned> g_max_threads{0};

unsigned max_threads() {
  unsigned t = g_max_threads.load(std::memory_order_relaxed);
  if (t == 0) t = std::thread::hardware_concurrency();
  return t == 0 ? 1 : t;
}

constexpr std::size_t kMinPerThread = std::size_t(1) << 15;

// Calls body(begin, end) on contiguous ranges covering [0, n), one per thread.
template <class Body>
void parallel_ranges(std::size_t n, Body body) {
  const std::size_t want = (n + kMinPerThread - 1) / kMinPerThread;
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(max_threads(), want));
  if (threads <= 1) {
    if (n) body(std::size_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(body, n * t / threads, n * (t + 1) / threads);
  body(std::size_t(0), n / threads);
  for (auto& th : pool) th.join();
}

// out[i] = f(i) for i in [0, n).
template <class Key, class F>
void fill(Key* out, std::size_t n, F f) {
  parallel_ranges(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = f(static_cast<u64>(i));
  });
}

// ---- block structure -------------------------------------------------------------------------

// Index of the piece holding key i when [0, n) is cut into `pieces` near-equal contiguous
// pieces: floor(i * pieces / n). Piece b starts at ceil(b * n / pieces).
inline u64 piece_of(u64 i, u64 pieces, u64 n) {
  return static_cast<u64>(static_cast<u128>(i) * pieces / n);
}
inline u64 piece_start(u64 b, u64 pieces, u64 n) {
  return static_cast<u64>((static_cast<u128>(b) * n + pieces - 1) / pieces);
}

// A word uniform in sub-range b of hbj_p equal sub-ranges of [0, 2^W).
template <class Key>
word_t<Key> in_bucket(u64 b, word_t<Key> r) {
  using U = word_t<Key>;
  constexpr int W = word_bits<Key>;
  return static_cast<U>((static_cast<U>(b) << (W - hbj_log2_p)) | (r >> hbj_log2_p));
}

inline int floor_log2(u64 x) { return 63 - __builtin_clzll(x); }

// ---- the distributions -----------------------------------------------------------------------

enum class dist {
  uniform, gaussian, zero, sorted, reverse_sorted, nearly_sorted, bucket_sorted, staggered,
  g_group, deterministic_duplicates, randomized_duplicates, entropy_0_811, entropy_0_544,
  entropy_0_337, entropy_0_201
};

const std::vector<std::pair<std::string, dist>>& table() {
  static const std::vector<std::pair<std::string, dist>> t = {
      {"uniform", dist::uniform},
      {"gaussian", dist::gaussian},
      {"zero", dist::zero},
      {"sorted", dist::sorted},
      {"reverse_sorted", dist::reverse_sorted},
      {"nearly_sorted", dist::nearly_sorted},
      {"bucket_sorted", dist::bucket_sorted},
      {"staggered", dist::staggered},
      {"g_group", dist::g_group},
      {"deterministic_duplicates", dist::deterministic_duplicates},
      {"randomized_duplicates", dist::randomized_duplicates},
      {"entropy_0.811", dist::entropy_0_811},
      {"entropy_0.544", dist::entropy_0_544},
      {"entropy_0.337", dist::entropy_0_337},
      {"entropy_0.201", dist::entropy_0_201},
  };
  return t;
}

dist lookup(const std::string& name) {
  for (const auto& [n, d] : table())
    if (n == name) return d;
  std::string valid;
  for (const auto& [n, d] : table()) valid += (valid.empty() ? "" : ", ") + n;
  throw input_error("unknown distribution '" + name + "'; valid names: " + valid);
}

template <class Key>
void gen_uniform_and(std::uint64_t seed, Key* out, std::size_t n, int k) {
  std::array<stream, 5> s = {stream(seed, s_draw0), stream(seed, s_draw0 + 1),
                             stream(seed, s_draw0 + 2), stream(seed, s_draw0 + 3),
                             stream(seed, s_draw0 + 4)};
  fill(out, n, [&](u64 i) {
    u64 r = s[0](i);
    for (int d = 1; d < k; ++d) r &= s[d](i);
    return word_to_key<Key>(to_word<Key>(r));
  });
}

// The uniform keys in ascending order, by one pass of bucket sort: the words are uniform, so
// their top B bits spread them evenly over 2^B buckets. Count per thread and bucket, scatter
// (regenerating the words, which costs less than storing them), then sort each small bucket.
// The result is the sorted multiset, identical whatever the number of threads.
template <class Key>
void gen_sorted(std::uint64_t seed, Key* out, std::size_t n) {
  constexpr int W = word_bits<Key>;
  const stream s0(seed, s_draw0);
  const int bits = std::clamp(floor_log2(n) - 4, 0, 16);
  const std::size_t buckets = std::size_t(1) << bits;
  const auto bucket = [&](word_t<Key> w) {
    return bits == 0 ? std::size_t(0) : static_cast<std::size_t>(w >> (W - bits));
  };
  const std::size_t want = (n + kMinPerThread - 1) / kMinPerThread;
  const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(want, 1, max_threads()));
  const auto range = [&](unsigned t) { return std::pair(n * t / threads, n * (t + 1) / threads); };
  const auto run = [&](auto&& body) {  // body(t) on `threads` threads
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(body, t);
    body(0u);
    for (auto& th : pool) th.join();
  };

  std::vector<std::vector<std::size_t>> offset(threads, std::vector<std::size_t>(buckets, 0));
  run([&](unsigned t) {
    auto [b, e] = range(t);
    for (std::size_t i = b; i < e; ++i) ++offset[t][bucket(to_word<Key>(s0(i)))];
  });
  std::vector<std::size_t> bucket_start(buckets + 1, 0);
  std::size_t total = 0;
  for (std::size_t k = 0; k < buckets; ++k) {
    bucket_start[k] = total;
    for (unsigned t = 0; t < threads; ++t) {
      const std::size_t c = offset[t][k];
      offset[t][k] = total;
      total += c;
    }
  }
  bucket_start[buckets] = total;
  run([&](unsigned t) {
    auto [b, e] = range(t);
    std::vector<std::size_t>& next = offset[t];
    for (std::size_t i = b; i < e; ++i) {
      const word_t<Key> w = to_word<Key>(s0(i));
      out[next[bucket(w)]++] = word_to_key<Key>(w);
    }
  });
  // Sort the buckets; thread t takes the buckets starting in its share of the keys.
  run([&](unsigned t) {
    auto [b, e] = range(t);
    std::size_t k = std::lower_bound(bucket_start.begin(), bucket_start.end() - 1, b) -
                    bucket_start.begin();
    for (; k < buckets && bucket_start[k] < e; ++k)
      if (bucket_start[k] >= b) std::sort(out + bucket_start[k], out + bucket_start[k + 1]);
  });
}

// Reverses out[0, n) in place, in parallel.
template <class Key>
void parallel_reverse(Key* out, std::size_t n) {
  parallel_ranges(n / 2, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) std::swap(out[i], out[n - 1 - i]);
  });
}

template <class Key>
void gen(dist d, std::uint64_t seed, Key* out, std::size_t n) {
  using U = word_t<Key>;
  const stream s0(seed, s_draw0);
  const u64 N = n;
  switch (d) {
    case dist::uniform: gen_uniform_and(seed, out, n, 1); return;
    case dist::entropy_0_811: gen_uniform_and(seed, out, n, 2); return;
    case dist::entropy_0_544: gen_uniform_and(seed, out, n, 3); return;
    case dist::entropy_0_337: gen_uniform_and(seed, out, n, 4); return;
    case dist::entropy_0_201: gen_uniform_and(seed, out, n, 5); return;

    case dist::gaussian: {
      const stream s1(seed, s_draw0 + 1), s2(seed, s_draw0 + 2), s3(seed, s_draw0 + 3);
      fill(out, n, [&](u64 i) {
        const U w[4] = {to_word<Key>(s0(i)), to_word<Key>(s1(i)), to_word<Key>(s2(i)),
                        to_word<Key>(s3(i))};
        // floor((w0 + w1 + w2 + w3) / 4) without overflow, exact for W = 32 and 64.
        U q = 0, low = 0;
        for (U x : w) {
          q += x >> 2;
          low += x & 3;
        }
        return word_to_key<Key>(static_cast<U>(q + (low >> 2)));
      });
      return;
    }

    case dist::zero: {
      const Key v = word_to_key<Key>(to_word<Key>(stream(seed, s_zero)(0)));
      fill(out, n, [&](u64) { return v; });
      return;
    }

    case dist::sorted: gen_sorted(seed, out, n); return;

    case dist::reverse_sorted:
      gen_sorted(seed, out, n);
      parallel_reverse(out, n);
      return;

    case dist::nearly_sorted: {
      gen_sorted(seed, out, n);
      if (n < 2) return;
      const u64 swaps = (N + nearly_sorted_swaps_per - 1) / nearly_sorted_swaps_per;
      const stream sa(seed, s_swap_a), sb(seed, s_swap_b);
      for (u64 j = 0; j < swaps; ++j) {
        const u64 a = static_cast<u64>((static_cast<u128>(sa(j)) * N) >> 64);
        const u64 b = static_cast<u64>((static_cast<u128>(sb(j)) * N) >> 64);
        std::swap(out[a], out[b]);
      }
      return;
    }

    case dist::bucket_sorted:
      // Block ("processor") q = 0..p-1 holds n/p keys in p sub-blocks of n/p^2; sub-block b
      // draws from sub-range b of p.
      fill(out, n, [&](u64 i) {
        const u64 b = piece_of(i, u64(hbj_p) * hbj_p, N) % hbj_p;
        return word_to_key<Key>(in_bucket<Key>(b, to_word<Key>(s0(i))));
      });
      return;

    case dist::staggered:
      // Block q < p/2 draws from sub-range 2q+1, block q >= p/2 from sub-range 2q-p.
      fill(out, n, [&](u64 i) {
        const u64 q = piece_of(i, hbj_p, N);
        const u64 b = q < hbj_p / 2 ? 2 * q + 1 : 2 * q - hbj_p;
        return word_to_key<Key>(in_bucket<Key>(b, to_word<Key>(s0(i))));
      });
      return;

    case dist::g_group:
      // Block q (group j = q / g) holds g sub-blocks of n/(p g) keys; sub-block k draws from
      // sub-range (j g + p/2 + k) mod p.
      fill(out, n, [&](u64 i) {
        const u64 piece = piece_of(i, u64(hbj_p) * g_group_g, N);
        const u64 q = piece / g_group_g, k = piece % g_group_g, j = q / g_group_g;
        const u64 b = (j * g_group_g + hbj_p / 2 + k) % hbj_p;
        return word_to_key<Key>(in_bucket<Key>(b, to_word<Key>(s0(i))));
      });
      return;

    case dist::deterministic_duplicates: {
      // Keys with i/n in [1 - 2^-t, 1 - 2^-(t+1)) are floor(log2 n) - t: the first half
      // floor(log2 n), the next quarter one less, ..., the last key 0.
      const int lg = floor_log2(N);
      fill(out, n, [&](u64 i) {
        const u64 m = N - i;  // keys from i to the end, >= 1
        int t = lg - floor_log2(m);
        if ((m << t) > N) --t;  // now t = floor(log2(n / m))
        return static_cast<Key>(lg - t);
      });
      return;
    }

    case dist::randomized_duplicates: {
      // Each block q draws T[0..range) uniform in [0, range), S = sum T; its keys are cut into
      // `range` consecutive segments, segment k of length ~ T[k]/S of the block, each set to
      // one random value in [0, range).
      constexpr unsigned R = rd_range;
      const stream sc(seed, s_rd_count), sv(seed, s_rd_value);
      std::vector<std::array<u64, R + 1>> prefix(hbj_p);  // prefix[q][k] = T[0] + ... + T[k-1]
      std::vector<std::array<Key, R>> value(hbj_p);
      for (u64 q = 0; q < hbj_p; ++q) {
        prefix[q][0] = 0;
        for (u64 k = 0; k < R; ++k) {
          prefix[q][k + 1] = prefix[q][k] + sc(q * R + k) % R;
          value[q][k] = static_cast<Key>(sv(q * R + k) % R);
        }
        if (prefix[q][R] == 0)  // all T[k] = 0: equal segments
          for (u64 k = 0; k <= R; ++k) prefix[q][k] = k;
      }
      fill(out, n, [&](u64 i) {
        const u64 q = piece_of(i, hbj_p, N);
        const u64 start = piece_start(q, hbj_p, N);
        const u64 len = piece_start(q + 1, hbj_p, N) - start;
        const u128 o1 = static_cast<u128>(i - start + 1);
        const u64 S = prefix[q][R];
        // Segment k starts at floor(prefix[k] * len / S); key o is in the last segment whose
        // start is <= o, i.e. the last k with prefix[k] * len < (o + 1) * S.
        unsigned lo = 0, hi = R;  // answer in [0, R)
        while (hi - lo > 1) {
          const unsigned mid = (lo + hi) / 2;
          if (static_cast<u128>(prefix[q][mid]) * len < o1 * S) lo = mid;
          else hi = mid;
        }
        return value[q][lo];
      });
      return;
    }
  }
}

}  // namespace

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& entry : table()) v.push_back(entry.first);
    return v;
  }();
  return names;
}

bool is_distribution(const std::string& name) {
  for (const auto& entry : table())
    if (entry.first == name) return true;
  return false;
}

void set_generation_threads(unsigned threads) {
  g_max_threads.store(threads, std::memory_order_relaxed);
}

template <class Key>
void generate(const std::string& name, std::uint64_t seed, Key* out, std::size_t n) {
  const dist d = lookup(name);  // throws for an unknown name, even when n == 0
  if (n == 0) return;
  if (out == nullptr) throw input_error("generate: null output pointer for " + std::to_string(n) +
                                        " keys");
  gen<Key>(d, seed, out, n);
}

#define WARPSORT_INSTANTIATE_GENERATE(name, Key) \
  template void generate<Key>(const std::string&, std::uint64_t, Key*, std::size_t);
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_GENERATE)
#undef WARPSORT_INSTANTIATE_GENERATE

}  // namespace warpsort::data
