// Tests of .npy and raw dataset I/O: round trips for every key type, every malformed input, and a
// cross-check against NumPy itself where /usr/bin/python3 has numpy.
#include "data/dataset_io.hpp"
#include "data/distributions.hpp"
#include "data/key_types.hpp"
#include "common/key_type_lists.hpp"

#include "warpsort/error.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace wd = warpsort::data;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed afterwards.
class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("warpsort_io_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
            info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A .npy file by hand: magic, version, header length (2 or 4 bytes), the header (padded to 64
// with a final '\n' unless pad is false), then `data`.
std::string make_npy(const std::string& dict, const std::string& data, int major = 1,
                     bool pad = true) {
  std::string header = dict;
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (pad) {
    const std::size_t unpadded = 8 + len_bytes + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
  }
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  for (std::size_t b = 0; b < len_bytes; ++b)
    out.push_back(static_cast<char>((header.size() >> (8 * b)) & 0xff));
  return out + header + data;
}

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

std::string u32_bytes(std::initializer_list<std::uint32_t> values) {
  std::string s;
  for (std::uint32_t v : values)
    for (int b = 0; b < 4; ++b) s.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
  return s;
}

// Expects read_npy(path) to throw input_error whose message names the file and contains every
// one of `parts`.
void expect_npy_error(const std::string& path, std::initializer_list<std::string> parts) {
  try {
    (void)wd::read_npy(path);
    ADD_FAILURE() << "no exception reading " << path;
  } catch (const warpsort::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "missing '" << p << "' in: " << what;
  }
}

bool numpy_available() {
  return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

}  // namespace

// ---- key types ----------------------------------------------------------------------------------

TEST(KeyTypes, NamesSizesAndDescrs) {
  using wd::key_type;
  const key_type all[] = {key_type::uint32, key_type::int32, key_type::float32,
                          key_type::uint64, key_type::int64, key_type::float64};
  const char* names[] = {"uint32", "int32", "float32", "uint64", "int64", "float64"};
  const char* descrs[] = {"<u4", "<i4", "<f4", "<u8", "<i8", "<f8"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(wd::key_type_name(all[i]), names[i]);
    EXPECT_EQ(wd::parse_key_type(names[i]), all[i]);
    EXPECT_EQ(wd::npy_descr(all[i]), descrs[i]);
    EXPECT_EQ(wd::key_type_size(all[i]), i < 3 ? 4u : 8u);
  }
  // the enum, the data layer's list and the library's list are one list (key_types.hpp)
  EXPECT_EQ(wd::all_key_types(), std::vector<key_type>(std::begin(all), std::end(all)));
  static_assert(std::is_same_v<warpsort::key_types, warpsort::type_list<std::uint32_t, std::int32_t, float,
                                                                        std::uint64_t, std::int64_t, double>>);
  EXPECT_EQ(wd::parse_key_type("float"), key_type::float32);
  EXPECT_EQ(wd::parse_key_type("double"), key_type::float64);
  EXPECT_EQ(wd::parse_key_type("UINT64"), key_type::uint64);
  static_assert(wd::key_type_of<float>() == key_type::float32);
  static_assert(wd::key_type_of<std::int64_t>() == key_type::int64);
  try {
    (void)wd::parse_key_type("int16");
    FAIL();
  } catch (const warpsort::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("int16"), std::string::npos);
    EXPECT_NE(what.find("float64"), std::string::npos);
  }
}

// ---- round trips --------------------------------------------------------------------------------

template <class Key>
class RoundTrip : public TempDir {};
TYPED_TEST_SUITE(RoundTrip, warpsort::testing::all_key_types);

TYPED_TEST(RoundTrip, NpyAndRawEverySize) {
  using Key = TypeParam;
  const wd::key_type t = wd::key_type_of<Key>();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(1000),
                        std::size_t(65537)}) {
    const std::vector<Key> keys = wd::generate<Key>("uniform", n + 1, n);
    const std::string npy = this->path("k_" + std::to_string(n) + ".npy");
    const std::string raw = this->path("k_" + std::to_string(n) + ".bin");
    wd::write_npy(npy, t, keys.data(), n);
    wd::write_raw(raw, t, keys.data(), n);

    for (const wd::dataset& d :
         {wd::read_npy(npy), wd::read_dataset(npy, std::nullopt), wd::read_dataset(npy, t),
          wd::read_raw(raw, t), wd::read_dataset(raw, t)}) {
      ASSERT_EQ(d.type, t);
      ASSERT_EQ(d.n, n);
      ASSERT_EQ(d.bytes.size(), n * sizeof(Key));
      if (n) {
        EXPECT_EQ(std::memcmp(d.keys<Key>(), keys.data(), n * sizeof(Key)), 0);
      }
    }
    EXPECT_EQ(fs::file_size(raw), n * sizeof(Key));

    // The header as NumPy writes it: version 1.0, padded to a multiple of 64, ending in '\n'.
    const std::string bytes = read_file(npy);
    ASSERT_GE(bytes.size(), 10u);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t hl = static_cast<unsigned char>(bytes[8]) |
                           (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    EXPECT_EQ((10 + hl) % 64, 0u);
    EXPECT_EQ(bytes[10 + hl - 1], '\n');
    EXPECT_EQ(bytes.size(), 10 + hl + n * sizeof(Key));
    EXPECT_NE(bytes.find("'shape': (" + std::to_string(n) + ",)"), std::string::npos);
    EXPECT_NE(bytes.find("'descr': '" + wd::npy_descr(t) + "'"), std::string::npos);

    // write_dataset dispatches on the extension like read_dataset.
    const std::string npy2 = this->path("d.NPY"), raw2 = this->path("d.keys");
    wd::write_dataset(npy2, t, keys.data(), n);
    wd::write_dataset(raw2, t, keys.data(), n);
    EXPECT_EQ(read_file(npy2), bytes);
    EXPECT_EQ(read_file(raw2), read_file(raw));
  }
}

TYPED_TEST(RoundTrip, TypeMismatchAndMissingType) {
  using Key = TypeParam;
  const wd::key_type t = wd::key_type_of<Key>();
  const std::vector<Key> keys = wd::generate<Key>("uniform", 1, 8);
  const std::string npy = this->path("k.npy");
  wd::write_npy(npy, t, keys.data(), keys.size());
  const wd::key_type other = t == wd::key_type::uint32 ? wd::key_type::int32 : wd::key_type::uint32;
  try {
    (void)wd::read_dataset(npy, other);
    FAIL() << "no exception for a type mismatch";
  } catch (const warpsort::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(wd::key_type_name(t)), std::string::npos) << what;
    EXPECT_NE(what.find(wd::key_type_name(other)), std::string::npos) << what;
  }
  const std::string raw = this->path("k.raw");
  wd::write_raw(raw, t, keys.data(), keys.size());
  EXPECT_THROW((void)wd::read_dataset(raw, std::nullopt), warpsort::input_error);
}

// ---- malformed files ----------------------------------------------------------------------------

using NpyErrors = TempDir;

TEST_F(NpyErrors, MissingFile) {
  expect_npy_error(path("nope.npy"), {"cannot open"});
  EXPECT_THROW((void)wd::read_raw(path("nope.bin"), wd::key_type::uint32), warpsort::input_error);
}

TEST_F(NpyErrors, BadMagicAndShortFiles) {
  write_file(path("magic.npy"), make_npy(dict("<u4", "(1,)"), u32_bytes({1})).replace(1, 5, "NUMPZ"));
  expect_npy_error(path("magic.npy"), {"magic"});
  write_file(path("text.npy"), "hello, this is not numpy at all\n");
  expect_npy_error(path("text.npy"), {"magic"});
  write_file(path("empty.npy"), "");
  expect_npy_error(path("empty.npy"), {"preamble"});
  write_file(path("short.npy"), "\x93NUM");
  expect_npy_error(path("short.npy"), {"preamble"});
  write_file(path("nolen.npy"), std::string("\x93NUMPY\x01\x00\x10", 9));
  expect_npy_error(path("nolen.npy"), {"truncated"});
}

TEST_F(NpyErrors, UnsupportedVersion) {
  std::string f = make_npy(dict("<u4", "(1,)"), u32_bytes({1}));
  f[6] = 4;
  write_file(path("v4.npy"), f);
  expect_npy_error(path("v4.npy"), {"version 4.0"});
  f[6] = 1;
  f[7] = 1;
  write_file(path("v11.npy"), f);
  expect_npy_error(path("v11.npy"), {"version 1.1"});
}

TEST_F(NpyErrors, Versions2And3AreRead) {
  for (int major : {2, 3}) {
    const std::string p = path("v" + std::to_string(major) + ".npy");
    write_file(p, make_npy(dict("<u4", "(3,)"), u32_bytes({7, 8, 9}), major));
    const wd::dataset d = wd::read_npy(p);
    ASSERT_EQ(d.n, 3u);
    EXPECT_EQ(d.keys<std::uint32_t>()[0], 7u);
    EXPECT_EQ(d.keys<std::uint32_t>()[2], 9u);
  }
}

TEST_F(NpyErrors, BigEndianRefusedNamingTheDtype) {
  write_file(path("be.npy"), make_npy(dict(">u4", "(1,)"), u32_bytes({1})));
  expect_npy_error(path("be.npy"), {"'>u4'", "big-endian"});
  write_file(path("be8.npy"), make_npy(dict(">f8", "(1,)"), std::string(8, '\0')));
  expect_npy_error(path("be8.npy"), {"'>f8'", "big-endian"});
}

TEST_F(NpyErrors, UnsupportedDtypes) {
  const std::pair<const char*, std::size_t> bad[] = {
      {"<f2", 2}, {"<i2", 2}, {"<u2", 2}, {"|u1", 1}, {"|i1", 1}, {"|b1", 1}, {"|O", 8},
      {"<c8", 8}, {"<f16", 16}, {"<U4", 16}, {"<M8[ns]", 8}, {"u4", 4}};
  for (const auto& [descr, size] : bad) {
    const std::string p = path(std::string("dtype_") + std::to_string(size) + ".npy");
    write_file(p, make_npy(dict(descr, "(2,)"), std::string(2 * size, '\0')));
    expect_npy_error(p, {"unsupported dtype", std::string("'") + descr + "'"});
  }
  // A structured dtype: 'descr' is a list.
  write_file(path("struct.npy"),
             make_npy("{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (1,), }",
                      u32_bytes({1})));
  expect_npy_error(path("struct.npy"), {"structured"});
}

TEST_F(NpyErrors, NativeByteOrderAccepted) {
  write_file(path("native.npy"), make_npy(dict("=i4", "(2,)"), u32_bytes({5, 0xffffffffu})));
  const wd::dataset d = wd::read_npy(path("native.npy"));
  EXPECT_EQ(d.type, wd::key_type::int32);
  EXPECT_EQ(d.keys<std::int32_t>()[1], -1);
}

TEST_F(NpyErrors, ShapesOtherThan1D) {
  write_file(path("scalar.npy"), make_npy(dict("<u4", "()"), u32_bytes({1})));
  expect_npy_error(path("scalar.npy"), {"shape ()", "1-D"});
  write_file(path("2d.npy"), make_npy(dict("<u4", "(2, 3)"), u32_bytes({1, 2, 3, 4, 5, 6})));
  expect_npy_error(path("2d.npy"), {"shape (2,3)", "1-D"});
  write_file(path("2d1.npy"), make_npy(dict("<u4", "(3, 1)"), u32_bytes({1, 2, 3})));
  expect_npy_error(path("2d1.npy"), {"shape (3,1)"});
  write_file(path("3d.npy"), make_npy(dict("<u4", "(1, 1, 1)"), u32_bytes({1})));
  expect_npy_error(path("3d.npy"), {"3-D"});
}

TEST_F(NpyErrors, FortranOrderRefused) {
  write_file(path("f.npy"), make_npy(dict("<u4", "(2,)", true), u32_bytes({1, 2})));
  expect_npy_error(path("f.npy"), {"fortran_order"});
}

TEST_F(NpyErrors, TruncatedAndTrailingData) {
  write_file(path("trunc.npy"), make_npy(dict("<u4", "(10,)"), u32_bytes({1, 2, 3, 4, 5, 6, 7, 8, 9})));
  expect_npy_error(path("trunc.npy"), {"truncated", "10 keys"});
  write_file(path("half.npy"), make_npy(dict("<u8", "(1,)"), "abcd"));
  expect_npy_error(path("half.npy"), {"truncated"});
  write_file(path("trail.npy"), make_npy(dict("<u4", "(2,)"), u32_bytes({1, 2}) + "x"));
  expect_npy_error(path("trail.npy"), {"1 trailing bytes"});
  // Header length pointing past the end of the file.
  std::string f = make_npy(dict("<u4", "(0,)"), "");
  f[8] = static_cast<char>(0xff);
  write_file(path("hdr.npy"), f);
  expect_npy_error(path("hdr.npy"), {"truncated", "header"});
  // A shape too large for memory (overflowing n * size).
  write_file(path("huge.npy"), make_npy(dict("<u8", "(18446744073709551615,)"), ""));
  expect_npy_error(path("huge.npy"), {"truncated"});
}

TEST_F(NpyErrors, MalformedHeaders) {
  const std::pair<const char*, const char*> bad[] = {
      {"garbage", "expected '{'"},
      {"{'descr': '<u4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (1,)}", "missing key 'descr'"},
      {"{'descr': '<u4', 'shape': (1,)}", "missing key 'fortran_order'"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<u4, 'fortran_order': False, 'shape': (1,)}", "malformed"},
      {"{'descr': '<u4', 'fortran_order': false, 'shape': (1,)}", "True or False"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (-1,)}", "non-negative integers"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (1,}", "malformed"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (1,) 'x'}", "expected ',' or '}'"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (1,)} trailing", "after the dictionary"},
      {"{'descr': 4, 'fortran_order': False, 'shape': (1,)}", "'descr' is not a string"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (1 2,)}", "expected ',' or ')'"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "too large"},
      {"{'descr': '<u4', 'fortran_order': False, 'shape': (1,)", "malformed"},
  };
  int i = 0;
  for (const auto& [header, message] : bad) {
    const std::string p = path("h" + std::to_string(i++) + ".npy");
    write_file(p, make_npy(header, u32_bytes({1})));
    expect_npy_error(p, {"malformed .npy header", message});
  }
  std::string nul = make_npy(dict("<u4", "(1,)"), u32_bytes({1}));
  nul[20] = '\0';
  write_file(path("nul.npy"), nul);
  expect_npy_error(path("nul.npy"), {"NUL"});
}

TEST_F(NpyErrors, HeaderVariantsNumPyMayWriteAreAccepted) {
  const char* ok[] = {
      "{\"descr\": \"<u4\", \"fortran_order\": False, \"shape\": (2,)}",  // double quotes
      "{'shape': (2,), 'fortran_order': False, 'descr': '<u4'}",         // other key order
      "{'descr':'<u4','fortran_order':False,'shape':(2L,)}",               // Python 2 long
      "{'descr': '<u4', 'fortran_order': False, 'shape': ( 2 , ), }",
  };
  int i = 0;
  for (const char* header : ok) {
    const std::string p = path("ok" + std::to_string(i++) + ".npy");
    write_file(p, make_npy(header, u32_bytes({3, 4}), 1, /*pad=*/i % 2 == 0));
    const wd::dataset d = wd::read_npy(p);
    ASSERT_EQ(d.n, 2u) << header;
    EXPECT_EQ(d.keys<std::uint32_t>()[1], 4u);
  }
  // An empty 1-D array.
  write_file(path("empty.npy"), make_npy(dict("<f8", "(0,)"), ""));
  EXPECT_EQ(wd::read_npy(path("empty.npy")).n, 0u);
}

TEST_F(NpyErrors, RawSizeMustBeAMultipleOfTheKeySize) {
  write_file(path("k.bin"), std::string(10, 'x'));
  try {
    (void)wd::read_raw(path("k.bin"), wd::key_type::uint64);
    FAIL();
  } catch (const warpsort::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path("k.bin")), std::string::npos);
    EXPECT_NE(what.find("not a whole number"), std::string::npos) << what;
  }
  EXPECT_THROW((void)wd::read_raw(path("k.bin"), wd::key_type::float32), warpsort::input_error);
  write_file(path("k12.bin"), std::string(12, 'x'));
  EXPECT_EQ(wd::read_raw(path("k12.bin"), wd::key_type::uint32).n, 3u);
  EXPECT_THROW((void)wd::read_raw(path("k12.bin"), wd::key_type::int64), warpsort::input_error);
  write_file(path("empty.bin"), "");
  EXPECT_EQ(wd::read_raw(path("empty.bin"), wd::key_type::float64).n, 0u);
}

TEST_F(NpyErrors, UnwritablePath) {
  const std::uint32_t k = 1;
  EXPECT_THROW(wd::write_npy(path("no/such/dir/k.npy"), wd::key_type::uint32, &k, 1),
               warpsort::input_error);
  EXPECT_THROW(wd::write_raw(path("no/such/dir/k.bin"), wd::key_type::uint32, &k, 1),
               warpsort::input_error);
}

// ---- cross-check with NumPy ---------------------------------------------------------------------

using NumPyCrossCheck = TempDir;

TEST_F(NumPyCrossCheck, FilesAgreeWithNumPy) {
  if (!numpy_available())
    GTEST_SKIP() << "/usr/bin/python3 with numpy is not available (apt install python3-numpy)";
  const std::string d = dir_.string();
  // 1. NumPy writes every dtype (and sizes 0 and 1) plus the same values raw; we read both.
  const std::string py_write =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "for t in ['<u4','<i4','<f4','<u8','<i8','<f8']:\n"
      "    dt = np.dtype(t)\n"
      "    if dt.kind == 'f':\n"
      "        a = (np.arange(1001, dtype=np.float64) * 0.37 - 100.5).astype(dt)\n"
      "    else:\n"
      "        info = np.iinfo(dt)\n"
      "        a = np.random.default_rng(0).integers(info.min, info.max, size=1001, dtype=dt, endpoint=True)\n"
      "        a[0], a[1] = info.min, info.max\n"
      "    for n in [0, 1, 1001]:\n"
      "        np.save(f'{d}/np_{t[1:]}_{n}.npy', a[:n])\n"
      "        a[:n].tofile(f'{d}/np_{t[1:]}_{n}.bin')\n"
      "np.save(f'{d}/np_be.npy', np.arange(4, dtype='>u4'))\n"
      "np.save(f'{d}/np_2d.npy', np.zeros((2, 3), dtype='<u4'))\n"
      "np.save(f'{d}/np_f2.npy', np.zeros(4, dtype='<f2'))\n"
      "np.save(f'{d}/np_i2.npy', np.zeros(4, dtype='<i2'))\n";
  write_file(path("write.py"), py_write);
  ASSERT_EQ(std::system(("/usr/bin/python3 '" + path("write.py") + "' '" + d + "'").c_str()), 0);

  const std::pair<const char*, wd::key_type> types[] = {
      {"u4", wd::key_type::uint32}, {"i4", wd::key_type::int32}, {"f4", wd::key_type::float32},
      {"u8", wd::key_type::uint64}, {"i8", wd::key_type::int64}, {"f8", wd::key_type::float64}};
  for (const auto& [code, t] : types) {
    for (int n : {0, 1, 1001}) {
      const std::string base = d + "/np_" + code + "_" + std::to_string(n);
      const wd::dataset a = wd::read_npy(base + ".npy");
      const wd::dataset b = wd::read_raw(base + ".bin", t);
      EXPECT_EQ(a.type, t) << base;
      EXPECT_EQ(a.n, static_cast<std::size_t>(n)) << base;
      EXPECT_EQ(a.bytes, b.bytes) << base;
    }
  }
  expect_npy_error(d + "/np_be.npy", {"big-endian", "'>u4'"});
  expect_npy_error(d + "/np_2d.npy", {"shape (2,3)"});
  expect_npy_error(d + "/np_f2.npy", {"'<f2'"});
  expect_npy_error(d + "/np_i2.npy", {"'<i2'"});

  // 2. We write every type (and sizes 0 and 1); NumPy loads them and compares with the raw file.
  for (const auto& [code, t] : types) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(777)}) {
      const std::string base = d + "/ws_" + code + "_" + std::to_string(n);
      std::vector<unsigned char> bytes(n * wd::key_type_size(t));
      switch (t) {
        case wd::key_type::uint32: wd::generate("uniform", 3, reinterpret_cast<std::uint32_t*>(bytes.data()), n); break;
        case wd::key_type::int32: wd::generate("uniform", 3, reinterpret_cast<std::int32_t*>(bytes.data()), n); break;
        case wd::key_type::float32: wd::generate("gaussian", 3, reinterpret_cast<float*>(bytes.data()), n); break;
        case wd::key_type::uint64: wd::generate("uniform", 3, reinterpret_cast<std::uint64_t*>(bytes.data()), n); break;
        case wd::key_type::int64: wd::generate("uniform", 3, reinterpret_cast<std::int64_t*>(bytes.data()), n); break;
        case wd::key_type::float64: wd::generate("uniform", 3, reinterpret_cast<double*>(bytes.data()), n); break;
      }
      wd::write_npy(base + ".npy", t, bytes.data(), n);
      wd::write_raw(base + ".bin", t, bytes.data(), n);
    }
  }
  const std::string py_read =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "for t in ['<u4','<i4','<f4','<u8','<i8','<f8']:\n"
      "    for n in [0, 1, 777]:\n"
      "        base = f'{d}/ws_{t[1:]}_{n}'\n"
      "        a = np.load(base + '.npy', allow_pickle=False)\n"
      "        b = np.fromfile(base + '.bin', dtype=t)\n"
      "        assert a.dtype == np.dtype(t), (base, a.dtype)\n"
      "        assert a.shape == (n,), (base, a.shape)\n"
      "        assert a.flags['C_CONTIGUOUS']\n"
      "        assert a.tobytes() == b.tobytes(), base\n"
      "        if n and t[1] != 'f':\n"
      "            assert a.min() < a.max() or n == 1\n"
      "print('numpy read all files')\n";
  write_file(path("read.py"), py_read);
  EXPECT_EQ(std::system(("/usr/bin/python3 '" + path("read.py") + "' '" + d + "'").c_str()), 0);
}
