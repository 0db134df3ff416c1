// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "compression.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace stackrec {
namespace {

// Big enough that per-call overhead of the compressors vanishes, small
// enough to stay in L2.
constexpr int kBufferBytes = 128 * 1024;
// The room the compressors get at a time.
constexpr size_t kOutputStep = 64 * 1024;

// Makes kOutputStep bytes of room at the end of *out and returns where
// they start; the caller trims back to what it wrote. The step is fixed,
// because resize() zero-fills what it exposes (a step proportional to the
// output would make the zero-filling quadratic); the capacity grows
// geometrically, so reallocations stay logarithmic. By half, not double:
// a reallocation holds the old and the new buffer at once, and the output
// is the largest single allocation of a serialization.
char* GrowOutput(std::string* out, size_t* room) {
  const size_t old = out->size();
  *room = kOutputStep;
  if (out->capacity() < old + *room) {
    out->reserve(std::max(out->capacity() + out->capacity() / 2, old + *room));
  }
  out->resize(old + *room);
  return &(*out)[old];
}

}  // namespace

class Codec {
 public:
  virtual ~Codec() = default;
  // Compresses [data, data + size); `finish` ends the stream.
  virtual bool Write(const char* data, size_t size, bool finish) = 0;
};

namespace {

class NoneCodec final : public Codec {
 public:
  explicit NoneCodec(std::string* out) : out_(out) {}
  bool Write(const char* data, size_t size, bool) override {
    out_->append(data, size);
    return true;
  }

 private:
  std::string* out_;
};

class GzipCodec final : public Codec {
 public:
  GzipCodec(std::string* out, int level) : out_(out) {
    std::memset(&z_, 0, sizeof(z_));
    // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
    ok_ = deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8,
                       Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~GzipCodec() override {
    if (ok_) deflateEnd(&z_);
  }
  bool ok() const { return ok_; }

  bool Write(const char* data, size_t size, bool finish) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z_.avail_in = static_cast<uInt>(size);
    for (;;) {
      size_t room;
      const size_t before = out_->size();
      char* dst = GrowOutput(out_, &room);
      z_.next_out = reinterpret_cast<Bytef*>(dst);
      z_.avail_out = static_cast<uInt>(room);
      const int rc = deflate(&z_, finish ? Z_FINISH : Z_NO_FLUSH);
      out_->resize(before + (room - z_.avail_out));
      if (rc == Z_STREAM_ERROR) return false;
      if (finish ? rc == Z_STREAM_END : z_.avail_in == 0 && z_.avail_out != 0) {
        return true;
      }
    }
  }

 private:
  std::string* out_;
  z_stream z_;
  bool ok_ = false;
};

class ZstdCodec final : public Codec {
 public:
  ZstdCodec(std::string* out, int level) : out_(out), cctx_(ZSTD_createCCtx()) {
    ok_ = cctx_ != nullptr &&
          !ZSTD_isError(
              ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level)) &&
          !ZSTD_isError(ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1));
  }
  ~ZstdCodec() override { ZSTD_freeCCtx(cctx_); }
  bool ok() const { return ok_; }

  bool Write(const char* data, size_t size, bool finish) override {
    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
      size_t room;
      const size_t before = out_->size();
      char* dst = GrowOutput(out_, &room);
      ZSTD_outBuffer o{dst, room, 0};
      const size_t rc = ZSTD_compressStream2(
          cctx_, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
      out_->resize(before + o.pos);
      if (ZSTD_isError(rc)) return false;
      // e_end is done when nothing is left to flush; e_continue when the
      // input is consumed (zstd keeps the rest buffered internally).
      if (finish ? rc == 0 : in.pos == in.size) return true;
    }
  }

 private:
  std::string* out_;
  ZSTD_CCtx* cctx_;
  bool ok_ = false;
};

}  // namespace

Status ValidateSerializeOptions(const SerializeOptions& options) {
  switch (options.compression) {
    case Compression::kNone:
      if (options.level != 0) {
        return Error(Code::kInvalidArgument,
                     "opts.level is %d but compression NONE takes level 0",
                     options.level);
      }
      return OkStatus();
    case Compression::kGzip:
      if (options.level < 0 || options.level > 9) {
        return Error(Code::kInvalidArgument,
                     "opts.level is %d; gzip takes 0 (default) or 1-9",
                     options.level);
      }
      return OkStatus();
    case Compression::kZstd:
      if (options.level < 0 || options.level > 19) {
        return Error(Code::kInvalidArgument,
                     "opts.level is %d; zstd takes 0 (default) or 1-19",
                     options.level);
      }
      return OkStatus();
  }
  return Error(Code::kInvalidArgument,
               "opts.compression is %d, not a stackrec_compression value",
               static_cast<int>(options.compression));
}

Status CompressingOutput::Create(const SerializeOptions& options,
                                 std::string* out,
                                 std::unique_ptr<CompressingOutput>* result) {
  std::unique_ptr<Codec> codec;
  switch (options.compression) {
    case Compression::kNone:
      codec = std::make_unique<NoneCodec>(out);
      break;
    case Compression::kGzip: {
      auto gzip = std::make_unique<GzipCodec>(
          out, options.level == 0 ? kDefaultGzipLevel : options.level);
      if (!gzip->ok()) return Error(Code::kOutOfMemory, "zlib: deflateInit2 failed");
      codec = std::move(gzip);
      break;
    }
    case Compression::kZstd: {
      auto zstd = std::make_unique<ZstdCodec>(
          out, options.level == 0 ? kDefaultZstdLevel : options.level);
      if (!zstd->ok()) return Error(Code::kOutOfMemory, "zstd: context set-up failed");
      codec = std::move(zstd);
      break;
    }
  }
  result->reset(new CompressingOutput(std::move(codec)));
  return OkStatus();
}

CompressingOutput::CompressingOutput(std::unique_ptr<Codec> codec)
    : codec_(std::move(codec)), buffer_(new char[kBufferBytes]) {}

CompressingOutput::~CompressingOutput() = default;

bool CompressingOutput::Flush(bool finish) {
  if (failed_) return false;
  if (!codec_->Write(buffer_.get(), static_cast<size_t>(used_), finish)) {
    failed_ = true;
    return false;
  }
  total_ += used_;
  used_ = 0;
  return true;
}

bool CompressingOutput::Next(void** data, int* size) {
  if (used_ == kBufferBytes && !Flush(false)) return false;
  *data = buffer_.get() + used_;
  *size = kBufferBytes - used_;
  used_ = kBufferBytes;
  return true;
}

void CompressingOutput::BackUp(int count) { used_ -= count; }

Status CompressingOutput::Finish() {
  if (!Flush(true)) {
    return Error(Code::kInternal, "the compressor failed while encoding");
  }
  return OkStatus();
}

}  // namespace stackrec
