// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/compression.h"

#include <zlib.h>
// For ZSTD_createCCtx_advanced: the compressor's memory from table memory.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace stackrec {
namespace {

// The staging buffer starts small and doubles until nothing has been
// flushed yet and it holds kBufferBytes: a small profile allocates about
// its own size, and one that fits reaches the compressor whole (see
// Codec::Start). Full-grown it is big enough that the compressors'
// per-call overhead vanishes and small enough to stay in L2.
constexpr int kFirstBufferBytes = 4 * 1024;
constexpr int kBufferBytes = 128 * 1024;
// The room the compressors get at a time.
constexpr size_t kOutputStep = 64 * 1024;

// The compressors' state (zstd's window and tables, up to a few MiB; zlib's
// about 270 KiB) also lives in table memory, so that what a serialization
// allocates goes back where the next interval's tables grow, not into
// malloc's heap (table_memory.h). Their free callbacks pass no size: a
// header before each block keeps it.
constexpr size_t kCodecHeader = 16;  // keeps the block's alignment

void* CodecAllocate(size_t bytes) noexcept {
  if (bytes > std::numeric_limits<size_t>::max() - kCodecHeader) return nullptr;
  try {
    auto* block = static_cast<char*>(table_memory::Allocate(bytes + kCodecHeader));
    std::memcpy(block, &bytes, sizeof bytes);
    return block + kCodecHeader;
  } catch (const std::bad_alloc&) {
    return nullptr;  // both compressors report it
  }
}

void CodecFree(void* p) noexcept {
  if (p == nullptr) return;
  char* const block = static_cast<char*>(p) - kCodecHeader;
  size_t bytes;
  std::memcpy(&bytes, block, sizeof bytes);
  table_memory::Deallocate(block, bytes + kCodecHeader);
}

// Makes `want` bytes of room at the end of *out and returns where they
// start; the caller trims back to what it wrote. Steps are bounded
// (kOutputStep, or the compressor's bound for an input known whole),
// because resize() zero-fills what it exposes (a step proportional to the
// output would make the zero-filling quadratic); the capacity grows
// geometrically, so reallocations stay logarithmic. By half, not double:
// a reallocation holds the old and the new buffer at once, and the output
// is the largest single allocation of a serialization.
char* GrowOutput(TableString* out, size_t want) {
  const size_t old = out->size();
  if (out->capacity() < old + want) {
    out->reserve(std::max(out->capacity() + out->capacity() / 2, old + want));
  }
  out->resize(old + want);
  return &(*out)[old];
}

// The smallest b with 2^b >= n (0 for n <= 1).
int CeilLog2(uint64_t n) {
  int b = 0;
  while (b < 63 && (uint64_t{1} << b) < n) ++b;
  return b;
}

}  // namespace

class Codec {
 public:
  virtual ~Codec() = default;
  // Called once, before the first Write. `whole` is the size of the whole
  // input when it is known (a profile that fits the staging buffer arrives
  // in one finishing Write), 0 otherwise: the compressor then sizes its
  // state to the input instead of to its largest window, so a small
  // profile costs kilobytes rather than megabytes of compressor memory.
  virtual Status Start(uint64_t whole) = 0;
  // Compresses [data, data + size); `finish` ends the stream.
  virtual bool Write(const char* data, size_t size, bool finish) = 0;
};

namespace {

class NoneCodec final : public Codec {
 public:
  explicit NoneCodec(TableString* out) : out_(out) {}
  Status Start(uint64_t whole) override {
    out_->reserve(out_->size() + whole);
    return OkStatus();
  }
  bool Write(const char* data, size_t size, bool) override {
    out_->append(data, size);
    return true;
  }

 private:
  TableString* out_;
};

class GzipCodec final : public Codec {
 public:
  GzipCodec(TableString* out, int level) : out_(out), level_(level) {
    std::memset(&z_, 0, sizeof(z_));
    z_.zalloc = [](voidpf, uInt items, uInt size) -> voidpf {
      return CodecAllocate(size_t{items} * size);
    };
    z_.zfree = [](voidpf, voidpf p) { CodecFree(p); };
  }
  ~GzipCodec() override {
    if (started_) deflateEnd(&z_);
  }

  Status Start(uint64_t whole) override {
    // A window no larger than the input finds the same matches; zlib
    // takes 2^9 to 2^15. The hash (memLevel) shrinks with it: its full
    // size is meant for inputs of many windows.
    int window_bits = 15, mem_level = 8;
    if (whole != 0) {
      window_bits = std::min(15, std::max(9, CeilLog2(whole)));
      mem_level = std::min(8, std::max(1, window_bits - 6));
    }
    // windowBits + 16: a gzip header and trailer rather than zlib's.
    if (deflateInit2(&z_, level_, Z_DEFLATED, window_bits + 16, mem_level, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      return Error(Code::kOutOfMemory, "zlib: deflateInit2 failed");
    }
    started_ = true;
    if (whole != 0) step_ = deflateBound(&z_, static_cast<uLong>(whole));
    return OkStatus();
  }

  bool Write(const char* data, size_t size, bool finish) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z_.avail_in = static_cast<uInt>(size);
    for (;;) {
      const size_t before = out_->size();
      char* dst = GrowOutput(out_, step_);
      z_.next_out = reinterpret_cast<Bytef*>(dst);
      z_.avail_out = static_cast<uInt>(step_);
      const int rc = deflate(&z_, finish ? Z_FINISH : Z_NO_FLUSH);
      out_->resize(before + (step_ - z_.avail_out));
      step_ = kOutputStep;
      if (rc == Z_STREAM_ERROR) return false;
      if (finish ? rc == Z_STREAM_END : z_.avail_in == 0 && z_.avail_out != 0) {
        return true;
      }
    }
  }

 private:
  TableString* out_;
  const int level_;
  z_stream z_;
  bool started_ = false;
  size_t step_ = kOutputStep;  // the room the next deflate call gets
};

class ZstdCodec final : public Codec {
 public:
  ZstdCodec(TableString* out, int level) : out_(out), level_(level) {}
  ~ZstdCodec() override { ZSTD_freeCCtx(cctx_); }

  Status Start(uint64_t whole) override {
    cctx_ = ZSTD_createCCtx_advanced({[](void*, size_t bytes) { return CodecAllocate(bytes); },
                                      [](void*, void* p) { CodecFree(p); }, nullptr});
    // zstd fits its window and tables to the input by itself when the
    // whole input comes in one ZSTD_e_end call, as a known size does.
    if (cctx_ == nullptr ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level_)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1))) {
      return Error(Code::kOutOfMemory, "zstd: context set-up failed");
    }
    if (whole != 0) step_ = ZSTD_compressBound(static_cast<size_t>(whole));
    return OkStatus();
  }

  bool Write(const char* data, size_t size, bool finish) override {
    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
      const size_t before = out_->size();
      char* dst = GrowOutput(out_, step_);
      ZSTD_outBuffer o{dst, step_, 0};
      const size_t rc = ZSTD_compressStream2(cctx_, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
      out_->resize(before + o.pos);
      step_ = kOutputStep;
      if (ZSTD_isError(rc)) return false;
      // e_end is done when nothing is left to flush; e_continue when the
      // input is consumed (zstd keeps the rest buffered internally).
      if (finish ? rc == 0 : in.pos == in.size) return true;
    }
  }

 private:
  TableString* out_;
  const int level_;
  ZSTD_CCtx* cctx_ = nullptr;
  size_t step_ = kOutputStep;  // the room the next call gets
};

}  // namespace

std::unique_ptr<CompressingOutput> CompressingOutput::Create(const SerializeOptions& options,
                                                             TableString* out) {
  std::unique_ptr<Codec> codec;
  switch (options.compression) {
    case Compression::kNone:
      codec = std::make_unique<NoneCodec>(out);
      break;
    case Compression::kGzip:
      codec =
          std::make_unique<GzipCodec>(out, options.level == 0 ? kDefaultGzipLevel : options.level);
      break;
    case Compression::kZstd:
      codec =
          std::make_unique<ZstdCodec>(out, options.level == 0 ? kDefaultZstdLevel : options.level);
      break;
  }
  return std::unique_ptr<CompressingOutput>(new CompressingOutput(std::move(codec)));
}

Status WriteCompressed(const SerializeOptions& options, TableString* out,
                       absl::FunctionRef<void(google::protobuf::io::CodedOutputStream*)> write,
                       uint64_t* uncompressed_bytes) {
  const std::unique_ptr<CompressingOutput> sink = CompressingOutput::Create(options, out);
  {
    // Destroyed before Finish: it hands back what it did not fill.
    google::protobuf::io::CodedOutputStream coded(sink.get());
    write(&coded);
    coded.Trim();
    if (coded.HadError()) return sink->Finish();
  }
  *uncompressed_bytes = static_cast<uint64_t>(sink->ByteCount());
  return sink->Finish();
}

CompressingOutput::CompressingOutput(std::unique_ptr<Codec> codec)
    : codec_(std::move(codec)),
      buffer_(new char[kFirstBufferBytes]),
      capacity_(kFirstBufferBytes) {}

CompressingOutput::~CompressingOutput() = default;

bool CompressingOutput::Flush(bool finish) {
  if (!status_.ok()) return false;
  if (!started_) {
    // The whole input is known when the first flush is the last one.
    status_ = codec_->Start(finish ? static_cast<uint64_t>(used_) : 0);
    started_ = true;
    if (!status_.ok()) return false;
  }
  if (!codec_->Write(buffer_.get(), static_cast<size_t>(used_), finish)) {
    status_ = Error(Code::kInternal, "the compressor failed while encoding");
    return false;
  }
  total_ += used_;
  used_ = 0;
  return true;
}

bool CompressingOutput::Next(void** data, int* size) {
  if (used_ == capacity_) {
    if (capacity_ < kBufferBytes) {
      // Only before the first flush: capacity_ reaches kBufferBytes first.
      std::unique_ptr<char[]> grown(new char[2 * capacity_]);
      std::memcpy(grown.get(), buffer_.get(), static_cast<size_t>(used_));
      buffer_ = std::move(grown);
      capacity_ *= 2;
    } else if (!Flush(false)) {
      return false;
    }
  }
  *data = buffer_.get() + used_;
  *size = capacity_ - used_;
  used_ = capacity_;
  return true;
}

void CompressingOutput::BackUp(int count) { used_ -= count; }

Status CompressingOutput::Finish() {
  Flush(true);
  return status_;
}

}  // namespace stackrec
