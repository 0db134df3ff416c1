// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/compression.h"

#include <isa-l/igzip_lib.h>
// For ZSTD_createCCtx_advanced: the compressor's memory from table memory.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

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

// The compressors' state (zstd's window and tables, up to a few MiB;
// igzip's about 360 KiB) also lives in table memory, so that what a serialization
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

// gzip through ISA-L's igzip: one stream, one gzip member, as every gzip
// reader expects, at several times zlib's speed for the same size at the
// fast levels (docs/performance.md#gzip). igzip has levels 0 to 3; the
// gzip levels 1 to 9 map onto 1 to 3 (IgzipLevel). Level 0 is left out:
// it skips match finding and writes about a fifth more.
class GzipCodec final : public Codec {
 public:
  GzipCodec(TableString* out, int level) : out_(out), gzip_level_(level) {}
  ~GzipCodec() override {
    CodecFree(level_buf_);
    CodecFree(stream_);
  }

  // gzip 1 -> igzip 1; 2-5 -> 2; 6-9 -> 3 (docs/format.md#compression).
  static int IgzipLevel(int level) { return level <= 1 ? 1 : level <= 5 ? 2 : 3; }

  Status Start(uint64_t whole) override {
    // Options are checked before they get here; this keeps a level that
    // slipped past from meaning anything.
    if (gzip_level_ < 1 || gzip_level_ > 9) {
      return Error(Code::kInternal, "igzip: gzip level %d is not 1-9", gzip_level_);
    }
    level_ = IgzipLevel(gzip_level_);
    // igzip's state is a fixed 80 KiB stream and a level buffer for its
    // hash and tokens. The buffer's minimum holds the hash and 1 KiB of
    // tokens, enough for an input known to be small; a large one gets the
    // default, whose larger token room means fewer passes.
    static constexpr uint32_t kMin[] = {ISAL_DEF_LVL1_MIN, ISAL_DEF_LVL2_MIN, ISAL_DEF_LVL3_MIN};
    static constexpr uint32_t kDefault[] = {ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
                                            ISAL_DEF_LVL3_DEFAULT};
    const bool small = whole != 0 && whole < uint64_t{kBufferBytes};
    level_buf_size_ = (small ? kMin : kDefault)[level_ - 1];
    stream_ = static_cast<isal_zstream*>(CodecAllocate(sizeof(isal_zstream)));
    level_buf_ = static_cast<uint8_t*>(CodecAllocate(level_buf_size_));
    if (stream_ == nullptr || level_buf_ == nullptr) {
      return Error(Code::kOutOfMemory, "igzip: no memory for the compressor");
    }
    isal_deflate_init(stream_);
    stream_->level = static_cast<uint32_t>(level_);
    stream_->level_buf = level_buf_;
    stream_->level_buf_size = level_buf_size_;
    stream_->gzip_flag = IGZIP_GZIP;
    // The gzip header and trailer, and a stored block's five bytes per
    // 64 KiB: what an incompressible input can take. Should igzip need
    // more, the loop in Write gives it more.
    if (whole != 0) step_ = static_cast<size_t>(whole + whole / 64 + 64);
    return OkStatus();
  }

  bool Write(const char* data, size_t size, bool finish) override {
    stream_->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data));
    stream_->avail_in = static_cast<uint32_t>(size);
    stream_->end_of_stream = finish ? 1 : 0;
    for (;;) {
      const size_t before = out_->size();
      char* dst = GrowOutput(out_, step_);
      stream_->next_out = reinterpret_cast<uint8_t*>(dst);
      stream_->avail_out = static_cast<uint32_t>(step_);
      const int rc = isal_deflate(stream_);
      out_->resize(before + (step_ - stream_->avail_out));
      step_ = kOutputStep;
      if (rc != COMP_OK) return false;
      // Room left over means igzip took all the input and wrote all it
      // could; at the end, it has also written the trailer.
      if (finish ? stream_->internal_state.state == ZSTATE_END
                 : stream_->avail_in == 0 && stream_->avail_out != 0) {
        return true;
      }
    }
  }

 private:
  TableString* out_;
  const int gzip_level_;  // 1 to 9
  int level_ = 1;         // igzip's, 1 to 3
  isal_zstream* stream_ = nullptr;
  uint8_t* level_buf_ = nullptr;
  uint32_t level_buf_size_ = 0;
  size_t step_ = kOutputStep;  // the room the next call gets
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

// One thread that runs one job at a time for its owner, so that the owner
// can go on with other work meanwhile: here, compressing one staging buffer
// while the encoder fills the next. The job is fixed at construction; what
// it works on is the owner's to hand over.
//
// Memory ordering: everything the owner wrote before Post() is visible to
// the job, and everything the job wrote is visible to the owner after
// Wait() returns, because both pass through the same mutex. Between a Post()
// and its Wait() the owner must not touch what the job reads or writes.
// The thread starts only when asked (Start), so a host that must not start
// threads never gets one, and a failure to start is an answer, not an
// exception: the owner then does the work itself.
class HelperThread {
 public:
  // `job` runs on the helper thread, once per Post(); its result is what
  // the matching Wait() returns.
  explicit HelperThread(std::function<bool()> job);
  // Waits for a posted job, then stops and joins the thread.
  ~HelperThread();
  HelperThread(const HelperThread&) = delete;
  HelperThread& operator=(const HelperThread&) = delete;

  // Starts the thread; false if the system refused one. Call once.
  bool Start();
  bool started() const { return thread_.joinable(); }

  // Runs the job once on the thread. The previous one must have been
  // waited for.
  void Post();
  // Waits for the posted job and returns its result; true if none was posted.
  bool Wait();

 private:
  void Loop();

  const std::function<bool()> job_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  bool posted_ = false;  // a job waits to run or runs
  bool stop_ = false;    // the thread is to end
  bool result_ = true;   // of the last job
};

HelperThread::HelperThread(std::function<bool()> job) : job_(std::move(job)) {}

HelperThread::~HelperThread() {
  if (!thread_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !posted_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool HelperThread::Start() {
  try {
    thread_ = std::thread([this] { Loop(); });
  } catch (const std::system_error&) {
    return false;  // no thread to be had: the owner works alone
  }
  return true;
}

void HelperThread::Post() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    posted_ = true;
  }
  cv_.notify_all();
}

bool HelperThread::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !posted_; });
  return result_;
}

void HelperThread::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return posted_ || stop_; });
    if (!posted_) return;  // stop_, with nothing left to run
    // The job runs unlocked: the owner may call Wait (and block on cv_)
    // meanwhile, but touches nothing the job uses until Wait returns.
    lock.unlock();
    const bool result = job_();
    lock.lock();
    result_ = result;
    posted_ = false;
    cv_.notify_all();
  }
}

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
  return std::unique_ptr<CompressingOutput>(
      new CompressingOutput(std::move(codec), options.compress_threads == 2));
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

CompressingOutput::CompressingOutput(std::unique_ptr<Codec> codec, bool helper)
    : codec_(std::move(codec)),
      buffer_(new char[kFirstBufferBytes]),
      capacity_(kFirstBufferBytes),
      want_helper_(helper) {}

CompressingOutput::~CompressingOutput() = default;

bool CompressingOutput::Flush(bool finish) {
  if (!status_.ok()) return false;
  if (!started_) {
    // The whole input is known when the first flush is the last one.
    status_ = codec_->Start(finish ? static_cast<uint64_t>(used_) : 0);
    started_ = true;
    if (!status_.ok()) return false;
  }
  // The helper starts at the first flush that is not the last, so that a
  // profile that fits the staging buffer never starts a thread.
  if (want_helper_ && !finish) {
    want_helper_ = false;
    helper_ = std::make_unique<HelperThread>(
        [this] { return codec_->Write(lent_.get(), lent_used_, lent_finish_); });
    if (helper_->Start()) {
      lent_.reset(new char[capacity_]);
    } else {
      helper_.reset();  // no thread to be had: compress here
    }
  }
  bool ok;
  if (helper_ != nullptr) {
    // The helper compresses the buffer just filled while the encoder fills
    // the one it compressed before (lent_, free once Wait returns).
    ok = helper_->Wait();
    if (ok) {
      std::swap(buffer_, lent_);
      lent_used_ = static_cast<size_t>(used_);
      lent_finish_ = finish;
      helper_->Post();
      if (finish) ok = helper_->Wait();
    }
  } else {
    ok = codec_->Write(buffer_.get(), static_cast<size_t>(used_), finish);
  }
  if (!ok) {
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
