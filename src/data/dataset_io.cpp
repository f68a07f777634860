// Dataset files: NumPy .npy (format 1.0/2.0/3.0, 1-D, C order, little-endian) and raw binary.
#include "data/dataset_io.hpp"

#include "warpsort/error.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

namespace warpsort::data {

namespace {

static_assert(sizeof(float) == 4 && sizeof(double) == 8, "IEEE-754 float and double expected");

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw input_error(path + ": " + what);
}

struct file_closer {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

file_ptr open_for_read(const std::string& path) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(path, std::string("cannot open for reading: ") + std::strerror(errno));
  return file_ptr(f);
}

// Size of an open file in bytes (64-bit offsets).
std::uint64_t file_size(std::FILE* f, const std::string& path) {
  if (fseeko(f, 0, SEEK_END) != 0) fail(path, std::string("cannot seek: ") + std::strerror(errno));
  const off_t size = ftello(f);
  if (size < 0) fail(path, std::string("cannot get the file size: ") + std::strerror(errno));
  if (fseeko(f, 0, SEEK_SET) != 0) fail(path, std::string("cannot seek: ") + std::strerror(errno));
  return static_cast<std::uint64_t>(size);
}

// Reads `count` bytes with one fread.
void read_exact(std::FILE* f, void* dst, std::size_t count, const std::string& path,
                const char* what) {
  if (count == 0) return;
  const std::size_t got = std::fread(dst, 1, count, f);
  if (got != count) {
    if (std::ferror(f)) fail(path, std::string("read error in ") + what + ": " + std::strerror(errno));
    fail(path, std::string("file is truncated: ") + what + " needs " + std::to_string(count) +
                   " bytes but only " + std::to_string(got) + " could be read");
  }
}

// Reads `n` keys of `type` from the current position of f into a dataset.
dataset read_keys(std::FILE* f, key_type type, std::uint64_t n, const std::string& path) {
  const std::size_t size = key_type_size(type);
  if (n > std::numeric_limits<std::size_t>::max() / size)
    fail(path, std::to_string(n) + " keys of " + key_type_name(type) + " do not fit in memory");
  dataset d;
  d.type = type;
  d.n = static_cast<std::size_t>(n);
  d.bytes.resize(d.n * size);
  read_exact(f, d.bytes.data(), d.bytes.size(), path, "the key data");
  return d;
}

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_npy_extension(const std::string& path) {
  return path.size() >= 4 && to_lower(path.substr(path.size() - 4)) == ".npy";
}

// ---- .npy header: a Python dict literal -------------------------------------------------------

struct npy_header {
  std::string descr;
  bool have_descr = false, have_order = false, have_shape = false;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
};

class header_parser {
 public:
  header_parser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  npy_header parse() {
    npy_header h;
    skip_ws();
    expect('{');
    skip_ws();
    while (peek() != '}') {
      const std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[')
          bad("'descr' is a list (a structured dtype); only plain numeric arrays are supported");
        if (peek() != '\'' && peek() != '"') bad("'descr' is not a string");
        h.descr = parse_string();
        h.have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = parse_bool();
        h.have_order = true;
      } else if (key == "shape") {
        h.shape = parse_tuple();
        h.have_shape = true;
      } else {
        bad("unexpected key '" + key + "' (expected only 'descr', 'fortran_order', 'shape')");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != '}') {
        bad("expected ',' or '}' after the value of '" + key + "'");
      }
    }
    ++pos_;  // '}'
    skip_ws();
    if (pos_ != s_.size()) bad("unexpected characters after the dictionary");
    if (!h.have_descr || !h.have_order || !h.have_shape)
      bad(std::string("missing key '") +
          (!h.have_descr ? "descr" : !h.have_order ? "fortran_order" : "shape") + "'");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    std::string shown = s_.substr(0, 200);
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.pop_back();
    fail(path_, "malformed .npy header (" + what + "): " + shown + (s_.size() > 200 ? "..." : ""));
  }
  char peek() const {
    if (pos_ >= s_.size()) bad("unexpected end");
    return s_[pos_];
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string() {
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    ++pos_;
    const std::size_t end = s_.find(q, pos_);
    if (end == std::string::npos) bad("unterminated string");
    std::string out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  bool parse_bool() {
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    bad("'fortran_order' is not True or False");
  }
  std::vector<std::uint64_t> parse_tuple() {
    std::vector<std::uint64_t> dims;
    expect('(');
    skip_ws();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        bad("'shape' holds something other than non-negative integers");
      std::uint64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        const unsigned digit = static_cast<unsigned>(s_[pos_] - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
          bad("a dimension of 'shape' is too large");
        v = v * 10 + digit;
        ++pos_;
      }
      if (pos_ < s_.size() && (s_[pos_] == 'L' || s_[pos_] == 'l')) ++pos_;  // Python 2 long
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != ')') {
        bad("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;
    return dims;
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

key_type type_from_descr(const std::string& descr, const std::string& path) {
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '=')) {
    for (key_type t : all_key_types())
      if (npy_descr(t).substr(1) == descr.substr(1)) return t;
  }
  if (!descr.empty() && descr[0] == '>')
    fail(path, "big-endian dtype '" + descr +
                   "' is not supported; convert it to little-endian first, e.g. "
                   "np.save(path, a.astype(a.dtype.newbyteorder('<')))");
  std::string supported;
  for (key_type t : all_key_types())
    supported += (supported.empty() ? "'" : ", '") + npy_descr(t) + "' (" + key_type_name(t) + ")";
  fail(path, "unsupported dtype '" + descr + "'; supported: " + supported);
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += std::to_string(shape[i]) + ",";
  if (shape.size() > 1) s.pop_back();
  return s + ")";
}

void write_all(std::FILE* f, const void* data, std::size_t count, const std::string& path) {
  if (count == 0) return;
  if (std::fwrite(data, 1, count, f) != count)
    fail(path, std::string("write failed: ") + std::strerror(errno));
}

file_ptr open_for_write(const std::string& path) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail(path, std::string("cannot open for writing: ") + std::strerror(errno));
  return file_ptr(f);
}

void close_written(file_ptr f, const std::string& path) {
  std::FILE* raw = f.release();
  if (std::fclose(raw) != 0) fail(path, std::string("write failed on close: ") + std::strerror(errno));
}

void check_keys_ptr(const void* keys, std::size_t n, const std::string& path) {
  if (n > 0 && keys == nullptr) fail(path, "null key pointer for " + std::to_string(n) + " keys");
}

}  // namespace

dataset read_npy(const std::string& path) {
  if (!host_is_little_endian()) fail(path, "reading .npy files needs a little-endian host");
  file_ptr f = open_for_read(path);
  const std::uint64_t size = file_size(f.get(), path);

  static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
  unsigned char pre[8];
  if (size < 8) fail(path, "not a .npy file (shorter than the 8-byte preamble)");
  read_exact(f.get(), pre, 8, path, "the preamble");
  if (std::memcmp(pre, magic, 6) != 0) fail(path, "not a .npy file (bad magic string)");
  const unsigned major = pre[6], minor = pre[7];
  if (minor != 0 || major < 1 || major > 3)
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");

  std::uint64_t header_len;
  std::uint64_t preamble;
  if (major == 1) {
    unsigned char b[2];
    if (size < 10) fail(path, "file is truncated inside the .npy header length");
    read_exact(f.get(), b, 2, path, "the header length");
    header_len = b[0] | (std::uint64_t(b[1]) << 8);
    preamble = 10;
  } else {
    unsigned char b[4];
    if (size < 12) fail(path, "file is truncated inside the .npy header length");
    read_exact(f.get(), b, 4, path, "the header length");
    header_len = b[0] | (std::uint64_t(b[1]) << 8) | (std::uint64_t(b[2]) << 16) |
                 (std::uint64_t(b[3]) << 24);
    preamble = 12;
  }
  if (header_len > size - preamble)
    fail(path, "file is truncated: the .npy header should be " + std::to_string(header_len) +
                   " bytes but only " + std::to_string(size - preamble) + " follow");
  if (header_len > (std::uint64_t(1) << 20))
    fail(path, "malformed .npy header: its length field says " + std::to_string(header_len) +
                   " bytes, implausibly long for a 1-D array");
  std::string text(static_cast<std::size_t>(header_len), '\0');
  read_exact(f.get(), text.data(), text.size(), path, "the header");
  if (text.find('\0') != std::string::npos)
    fail(path, "malformed .npy header (it contains a NUL byte)");

  const npy_header h = header_parser(text, path).parse();
  const key_type type = type_from_descr(h.descr, path);
  if (h.shape.size() != 1)
    fail(path, "array has shape " + shape_text(h.shape) + " (" + std::to_string(h.shape.size()) +
                   "-D); a 1-D array of keys is required (save a.ravel())");
  if (h.fortran_order)
    fail(path, "fortran_order is True; only C-order arrays are supported (save np.ascontiguousarray(a))");

  const std::uint64_t n = h.shape[0];
  const std::uint64_t key_size = key_type_size(type);
  const std::uint64_t data_bytes = size - preamble - header_len;
  if (n > std::numeric_limits<std::uint64_t>::max() / key_size || n * key_size > data_bytes)
    fail(path, "file is truncated: the header says " + std::to_string(n) + " keys of " +
                   h.descr + " (" + std::to_string(n * key_size) + " bytes) but only " +
                   std::to_string(data_bytes) + " bytes of data follow");
  if (n * key_size < data_bytes)
    fail(path, "file has " + std::to_string(data_bytes - n * key_size) +
                   " trailing bytes after the " + std::to_string(n) + " keys of " + h.descr +
                   " the header describes");
  return read_keys(f.get(), type, n, path);
}

dataset read_raw(const std::string& path, key_type type) {
  if (!host_is_little_endian()) fail(path, "reading raw little-endian keys needs a little-endian host");
  file_ptr f = open_for_read(path);
  const std::uint64_t size = file_size(f.get(), path);
  const std::uint64_t key_size = key_type_size(type);
  if (size % key_size != 0)
    fail(path, "raw file of " + std::to_string(size) + " bytes is not a whole number of " +
                   key_type_name(type) + " keys (" + std::to_string(key_size) + " bytes each)");
  return read_keys(f.get(), type, size / key_size, path);
}

dataset read_dataset(const std::string& path, std::optional<key_type> type) {
  if (has_npy_extension(path)) {
    dataset d = read_npy(path);
    if (type && *type != d.type)
      fail(path, "the file holds " + key_type_name(d.type) + " keys (dtype '" + npy_descr(d.type) +
                     "') but key type " + key_type_name(*type) + " was requested");
    return d;
  }
  if (!type)
    fail(path, "a raw (non-.npy) file needs its key type given (uint32, int32, float32, uint64, "
               "int64 or float64)");
  return read_raw(path, *type);
}

void write_npy(const std::string& path, key_type type, const void* keys, std::size_t n) {
  if (!host_is_little_endian()) fail(path, "writing .npy files needs a little-endian host");
  check_keys_ptr(keys, n, path);
  // As NumPy writes it: the dict, padded with spaces so that magic + version + length + header
  // is a multiple of 64 bytes, ending in '\n'.
  std::string header = "{'descr': '" + npy_descr(type) +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 65535) fail(path, "npy header too long");  // cannot happen

  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           static_cast<unsigned char>(header.size() & 0xff),
                           static_cast<unsigned char>(header.size() >> 8)};
  file_ptr f = open_for_write(path);
  write_all(f.get(), pre, sizeof pre, path);
  write_all(f.get(), header.data(), header.size(), path);
  write_all(f.get(), keys, n * key_type_size(type), path);
  close_written(std::move(f), path);
}

void write_raw(const std::string& path, key_type type, const void* keys, std::size_t n) {
  if (!host_is_little_endian()) fail(path, "writing raw little-endian keys needs a little-endian host");
  check_keys_ptr(keys, n, path);
  file_ptr f = open_for_write(path);
  write_all(f.get(), keys, n * key_type_size(type), path);
  close_written(std::move(f), path);
}

void write_dataset(const std::string& path, key_type type, const void* keys, std::size_t n) {
  if (has_npy_extension(path)) write_npy(path, type, keys, n);
  else write_raw(path, type, keys, n);
}

}  // namespace warpsort::data
