// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The gzip compressors side by side on the heavy workload's own bytes, and
// what the chosen one gives a whole serialization next to zstd's.
//
//   build/release/bench/stackrec-bench-compression [--reps=5] [--serialize-only]
//
// The heavy workload (testkit/workloads/workload.h) is serialized once
// uncompressed, as pprof and as OTLP. Then each of those byte strings is
// gzipped by:
//   zlib-stream  zlib's level 1 as one stream, fed 128 KiB at a time, the
//                way stackrec gzipped before (the chunk size does not apply);
//   libdeflate   libdeflate_gzip_compress at levels 1 to 3, one call per
//                chunk, each chunk a gzip member of its own;
//   isal         ISA-L's igzip at levels 0 to 2, each chunk a run of raw
//                deflate blocks ended by a full flush (no match reaches back
//                into the chunk before), all under one gzip header and
//                trailer: one member, as any gzip reader expects;
// at chunk sizes 256 KiB to 8 MiB, on one thread and on two (each thread
// compresses every other chunk with a compressor of its own, the ceiling of
// what a second core can add). Each figure is the median wall time of
// --reps runs; "work KiB" is the compressors' state (counted by their
// allocation hooks, or their documented sizes) plus, per thread, one chunk
// of input and the compressor's bound for one chunk of output: what a
// serialization holds besides the output itself.
//
// Then whole serializations of the heavy workload through the C API, gzip
// level 1 against zstd level 1, each with compress_threads 1 and 2, taking
// turns in one process, median wall times: the figure the gzip target is
// stated in. --serialize-only runs these alone.
//
// Numbers mean something in the release build only.
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "stackrec/stackrec.h"
#include "workloads_harness.h"

namespace {

using stackrec_bench::Workload;

// Bytes the compressors allocate through hooks, now and at most.
std::atomic<int64_t> g_state_now{0}, g_state_peak{0};

void Count(int64_t delta) {
  const int64_t now = g_state_now.fetch_add(delta) + delta;
  int64_t peak = g_state_peak.load();
  while (now > peak && !g_state_peak.compare_exchange_weak(peak, now)) {
  }
}

void* CountedMalloc(size_t bytes) {
  auto* block = static_cast<size_t*>(std::malloc(bytes + 16));
  if (block == nullptr) return nullptr;
  *block = bytes;
  Count(static_cast<int64_t>(bytes));
  return reinterpret_cast<char*>(block) + 16;
}

void CountedFree(void* p) {
  if (p == nullptr) return;
  auto* block = reinterpret_cast<size_t*>(static_cast<char*>(p) - 16);
  Count(-static_cast<int64_t>(*block));
  std::free(block);
}

// One chunk compressed by one thread's compressor: appends to *out.
class Chunker {
 public:
  virtual ~Chunker() = default;
  virtual bool Compress(const char* in, size_t n, bool last, std::string* out) = 0;
  virtual size_t Bound(size_t n) const = 0;
};

class LibdeflateChunker final : public Chunker {
 public:
  explicit LibdeflateChunker(int level) : c_(libdeflate_alloc_compressor(level)) {}
  ~LibdeflateChunker() override { libdeflate_free_compressor(c_); }
  bool Compress(const char* in, size_t n, bool, std::string* out) override {
    const size_t at = out->size();
    out->resize(at + Bound(n));
    const size_t wrote = libdeflate_gzip_compress(c_, in, n, &(*out)[at], Bound(n));
    out->resize(at + wrote);
    return wrote != 0;
  }
  size_t Bound(size_t n) const override { return libdeflate_gzip_compress_bound(c_, n); }

 private:
  libdeflate_compressor* c_;
};

class IsalChunker final : public Chunker {
 public:
  explicit IsalChunker(int level) : level_(level) {
    static const uint32_t kLevelBuf[] = {ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT,
                                         ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT};
    level_buf_size_ = kLevelBuf[level];
    Count(static_cast<int64_t>(sizeof(isal_zstream) + level_buf_size_));
    level_buf_.reset(new uint8_t[level_buf_size_ + 1]);
  }
  ~IsalChunker() override { Count(-static_cast<int64_t>(sizeof(isal_zstream) + level_buf_size_)); }
  bool Compress(const char* in, size_t n, bool last, std::string* out) override {
    isal_deflate_init(&s_);
    s_.level = static_cast<uint32_t>(level_);
    s_.level_buf = level_buf_.get();
    s_.level_buf_size = level_buf_size_;
    s_.flush = FULL_FLUSH;
    s_.end_of_stream = last ? 1 : 0;
    s_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in));
    s_.avail_in = static_cast<uint32_t>(n);
    const size_t at = out->size();
    out->resize(at + Bound(n));
    s_.next_out = reinterpret_cast<uint8_t*>(&(*out)[at]);
    s_.avail_out = static_cast<uint32_t>(Bound(n));
    const int rc = isal_deflate(&s_);
    out->resize(out->size() - s_.avail_out);
    return rc == COMP_OK && s_.avail_in == 0;
  }
  size_t Bound(size_t n) const override { return n + n / 16 + 1024; }

 private:
  int level_;
  uint32_t level_buf_size_;
  std::unique_ptr<uint8_t[]> level_buf_;
  isal_zstream s_;
};

// A whole stream, fed 128 KiB at a time: appends the gzip to *out.
using Stream = std::function<bool(const std::string& in, std::string* out)>;

struct Method {
  std::string name;
  Stream stream;                                   // if set, chunks do not apply
  std::function<std::unique_ptr<Chunker>()> make;  // else one compressor per thread
  bool one_member;  // chunks are raw deflate under one header and trailer
};

constexpr size_t kStep = 128 * 1024;

// zlib level 1 as stackrec used it: one stream, 128 KiB at a time.
bool ZlibStream(const std::string& in, std::string* out) {
  z_stream z{};
  z.zalloc = [](voidpf, uInt items, uInt size) -> voidpf {
    return CountedMalloc(size_t{items} * size);
  };
  z.zfree = [](voidpf, voidpf p) { CountedFree(p); };
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  for (size_t at = 0; at < in.size();) {
    const size_t n = std::min(kStep, in.size() - at);
    const bool finish = at + n == in.size();
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + at));
    z.avail_in = static_cast<uInt>(n);
    int rc;
    do {
      const size_t before = out->size();
      out->resize(before + 64 * 1024);
      z.next_out = reinterpret_cast<Bytef*>(&(*out)[before]);
      z.avail_out = 64 * 1024;
      rc = deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
      out->resize(out->size() - z.avail_out);
    } while (finish ? rc != Z_STREAM_END : z.avail_out == 0);
    at += n;
  }
  deflateEnd(&z);
  return true;
}

// ISA-L's igzip at `level` as one stream, 128 KiB at a time.
bool IsalStream(int level, const std::string& in, std::string* out) {
  static const uint32_t kLevelBuf[] = {ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT,
                                       ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT};
  auto s = std::make_unique<isal_zstream>();
  const uint32_t level_buf_size = kLevelBuf[level];
  std::unique_ptr<uint8_t[]> level_buf(new uint8_t[level_buf_size + 1]);
  Count(static_cast<int64_t>(sizeof(isal_zstream) + level_buf_size));
  isal_deflate_init(s.get());
  s->level = static_cast<uint32_t>(level);
  s->level_buf = level_buf.get();
  s->level_buf_size = level_buf_size;
  s->gzip_flag = IGZIP_GZIP;
  bool ok = true;
  for (size_t at = 0; at < in.size() && ok;) {
    const size_t n = std::min(kStep, in.size() - at);
    s->end_of_stream = at + n == in.size() ? 1 : 0;
    s->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data() + at));
    s->avail_in = static_cast<uint32_t>(n);
    do {
      const size_t before = out->size();
      out->resize(before + 64 * 1024);
      s->next_out = reinterpret_cast<uint8_t*>(&(*out)[before]);
      s->avail_out = 64 * 1024;
      ok = isal_deflate(s.get()) == COMP_OK;
      out->resize(out->size() - s->avail_out);
    } while (ok && s->avail_out == 0);
    at += n;
  }
  Count(-static_cast<int64_t>(sizeof(isal_zstream) + level_buf_size));
  return ok && s->internal_state.state == ZSTATE_END;
}

// Compresses `in` by `m` in chunks of `chunk` bytes on `threads` threads;
// the bytes into *out, the working memory into *work.
bool Run(const Method& m, const std::string& in, size_t chunk, int threads, std::string* out,
         int64_t* work) {
  g_state_peak = g_state_now.load();
  const int64_t base = g_state_now.load();
  out->clear();
  if (m.stream) {
    const bool ok = m.stream(in, out);
    *work = g_state_peak.load() - base + kStep + 64 * 1024;
    return ok;
  }
  // As a serialization would: each thread compresses into a scratch buffer
  // of its own, and the chunks are appended to the output in order.
  const size_t chunks = (in.size() + chunk - 1) / chunk;
  std::vector<std::unique_ptr<Chunker>> compressors;
  for (int t = 0; t < threads; ++t) compressors.push_back(m.make());
  const size_t bound = compressors[0]->Bound(chunk);
  if (m.one_member) {
    static const char kHeader[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, '\x03'};
    out->append(kHeader, sizeof kHeader);
  }
  std::atomic<size_t> turn{0};  // the chunk whose bytes are appended next
  std::atomic<bool> ok{true};
  uLong crc = 0;
  auto work_on = [&](int t) {
    std::string scratch;
    scratch.reserve(bound);
    for (size_t i = static_cast<size_t>(t); i < chunks; i += static_cast<size_t>(threads)) {
      const char* p = in.data() + i * chunk;
      const size_t n = std::min(chunk, in.size() - i * chunk);
      scratch.clear();
      if (!compressors[static_cast<size_t>(t)]->Compress(p, n, i + 1 == chunks, &scratch)) {
        ok = false;
      }
      const uint32_t part_crc =
          m.one_member ? crc32_gzip_refl(0, reinterpret_cast<const uint8_t*>(p), n) : 0;
      while (turn.load(std::memory_order_acquire) != i) std::this_thread::yield();
      out->append(scratch);
      if (m.one_member) crc = crc32_combine(crc, part_crc, static_cast<z_off_t>(n));
      turn.store(i + 1, std::memory_order_release);
    }
  };
  std::thread helper;
  if (threads == 2) helper = std::thread(work_on, 1);
  work_on(0);
  if (helper.joinable()) helper.join();
  *work = g_state_peak.load() - base + threads * static_cast<int64_t>(chunk + bound);
  if (m.one_member) {
    const uint32_t trailer[2] = {static_cast<uint32_t>(crc), static_cast<uint32_t>(in.size())};
    out->append(reinterpret_cast<const char*>(trailer), sizeof trailer);
  }
  return ok;
}

// gunzip through zlib, every member, to check each method's output.
bool Gunzip(const std::string& in, std::string* out) {
  out->clear();
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  char buf[1 << 16];
  while (rc != Z_STREAM_END || z.avail_in != 0) {
    if (rc == Z_STREAM_END && inflateReset(&z) != Z_OK) break;
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out->append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END && z.avail_in == 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double WallMs(const std::function<bool()>& f, bool* ok) {
  const auto start = std::chrono::steady_clock::now();
  *ok = f() && *ok;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

bool Serialize(stackrec_profile* p, const stackrec_serialize_options& o, size_t* bytes) {
  stackrec_encoded* e = nullptr;
  if (stackrec_profile_serialize(p, &o, &e) != STACKREC_OK) return false;
  *bytes = stackrec_encoded_size(e);
  stackrec_encoded_free(e);
  return true;
}

// Whole serializations of `p` as `format`: zstd 1 and gzip on one thread
// and two, taking turns within each repetition.
bool RunSerializations(stackrec_profile* p, stackrec_format format, const char* name, int reps) {
  struct Case {
    const char* name;
    stackrec_compression compression;
    int threads;
    std::vector<double> ms;
    size_t bytes = 0;
  } cases[] = {{"zstd 1", STACKREC_COMPRESSION_ZSTD, 1, {}},
               {"zstd 1", STACKREC_COMPRESSION_ZSTD, 2, {}},
               {"gzip 1", STACKREC_COMPRESSION_GZIP, 1, {}},
               {"gzip 1", STACKREC_COMPRESSION_GZIP, 2, {}}};
  bool ok = true;
  for (int r = 0; r < reps; ++r) {
    for (Case& c : cases) {
      stackrec_serialize_options o = stackrec_bench::SerializeWith(c.compression, format);
      o.compress_threads = c.threads;
      c.ms.push_back(WallMs([&] { return Serialize(p, o, &c.bytes); }, &ok));
    }
  }
  const double zstd_ms = Median(cases[0].ms);
  std::printf("\n## whole serializations, %s, median wall ms of %d\n\n", name, reps);
  std::printf("| compression | compress_threads | ms | vs zstd 1, one thread | bytes |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    std::printf("| %s | %d | %.1f | %.2fx | %zu |\n", c.name, c.threads, Median(c.ms),
                Median(c.ms) / zstd_ms, c.bytes);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool codecs = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--reps=", 7) == 0) {
      reps = std::max(1, std::atoi(argv[i] + 7));
    } else if (std::strcmp(argv[i], "--serialize-only") == 0) {
      codecs = false;
    } else {
      std::fprintf(stderr, "usage: %s [--reps=N] [--serialize-only]\n", argv[0]);
      return 2;
    }
  }
  libdeflate_set_memory_allocator(CountedMalloc, CountedFree);

  stackrec_profile* p = nullptr;
  const stackrec_profile_options popts = stackrec_bench::ProfileOptions();
  if (stackrec_profile_new(&popts, &p) != STACKREC_OK) return 1;
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner(p, stackrec_profile_free);
  {
    const Workload w(stackrec_bench::HeavySpec());
    if (!stackrec_bench::FillProfile(w, p)) return 1;
  }
  struct Input {
    const char* name;
    std::string bytes;
  } inputs[2] = {{"pprof", {}}, {"otlp", {}}};
  for (int f = 0; f < 2; ++f) {
    stackrec_serialize_options o = stackrec_bench::SerializeWith(
        STACKREC_COMPRESSION_NONE, f == 0 ? STACKREC_FORMAT_PPROF : STACKREC_FORMAT_OTLP);
    stackrec_encoded* e = nullptr;
    if (stackrec_profile_serialize(p, &o, &e) != STACKREC_OK) return 1;
    inputs[f].bytes.assign(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                           stackrec_encoded_size(e));
    stackrec_encoded_free(e);
  }

  std::vector<Method> methods = {{"zlib-stream 1", ZlibStream, nullptr, false}};
  for (int level : {0, 1, 2, 3}) {
    methods.push_back(
        {"isal-stream " + std::to_string(level),
         [level](const std::string& in, std::string* out) { return IsalStream(level, in, out); },
         nullptr, false});
  }
  for (int level : {1, 2, 3}) {
    methods.push_back({"libdeflate " + std::to_string(level), nullptr,
                       [level] { return std::make_unique<LibdeflateChunker>(level); }, false});
  }
  for (int level : {1, 2}) {
    methods.push_back({"isal " + std::to_string(level), nullptr,
                       [level] { return std::make_unique<IsalChunker>(level); }, true});
  }

  bool ok = true;
  std::string out, back;
  for (const Input& input : inputs) {
    if (!codecs) break;
    std::printf("\n## %s: %.1f MB uncompressed, median of %d\n\n", input.name,
                static_cast<double>(input.bytes.size()) / 1e6, reps);
    std::printf("| method | chunk | threads | ms | MB/s | bytes | vs zlib | work KiB |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    size_t zlib_bytes = 0;
    for (const Method& m : methods) {
      for (size_t chunk : {size_t{256} << 10, size_t{1} << 20, size_t{8} << 20}) {
        for (int threads : {1, 2}) {
          if (m.stream && (chunk != (size_t{256} << 10) || threads != 1)) continue;
          std::vector<double> ms;
          int64_t work = 0;
          for (int r = 0; r < reps; ++r) {
            ms.push_back(
                WallMs([&] { return Run(m, input.bytes, chunk, threads, &out, &work); }, &ok));
          }
          if (!Gunzip(out, &back) || back != input.bytes) {
            std::fprintf(stderr, "%s: output does not gunzip to the input\n", m.name.c_str());
            ok = false;
          }
          if (m.name == "zlib-stream 1") zlib_bytes = out.size();
          const double med = Median(ms);
          std::printf(
              "| %s | %s | %d | %.1f | %.0f | %zu | %+.1f%% | %lld |\n", m.name.c_str(),
              !m.stream ? (std::to_string(chunk >> 10) + " KiB").c_str() : "-", threads, med,
              static_cast<double>(input.bytes.size()) / 1e3 / med, out.size(),
              100.0 * (static_cast<double>(out.size()) / static_cast<double>(zlib_bytes) - 1.0),
              static_cast<long long>(work / 1024));
        }
      }
    }
  }
  ok = RunSerializations(p, STACKREC_FORMAT_PPROF, "pprof", reps) && ok;
  ok = RunSerializations(p, STACKREC_FORMAT_OTLP, "OTLP", reps) && ok;
  return ok ? 0 : 1;
}
