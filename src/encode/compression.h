// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A protobuf ZeroCopyOutputStream that compresses what is written through it
// (gzip through ISA-L's igzip, zstd, or nothing) into a std::string, so that
// the pprof encoder streams straight into the compressor without staging
// the uncompressed profile. With SerializeOptions::compress_threads 2, a
// helper thread compresses each full staging buffer while the encoder fills
// a second one: the output is the same, the compressor's time overlaps the
// encoder's, and the memory grows by one staging buffer.
#ifndef STACKREC_SRC_ENCODE_COMPRESSION_H_
#define STACKREC_SRC_ENCODE_COMPRESSION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "base/status.h"
#include "base/table_memory.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "input/serialize_options.h"

namespace stackrec {

class Codec;
class HelperThread;

class CompressingOutput final : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  // `options` must be valid; `out` receives the compressed bytes (appended).
  // The compressor is set up at the first flush, sized to the input when
  // that flush is the last (see Codec::Start).
  static std::unique_ptr<CompressingOutput> Create(const SerializeOptions& options,
                                                   TableString* out);
  ~CompressingOutput() override;

  bool Next(void** data, int* size) override;
  void BackUp(int count) override;
  int64_t ByteCount() const override { return total_ + used_; }

  // Compresses what is buffered and ends the stream. Call once, after the
  // last write (and after any CodedOutputStream on top has been destroyed).
  // The first failure of the compressor, if any, is what it returns.
  Status Finish();

 private:
  CompressingOutput(std::unique_ptr<Codec> codec, bool helper);
  bool Flush(bool finish);

  std::unique_ptr<Codec> codec_;
  std::unique_ptr<char[]> buffer_;
  int capacity_;  // of buffer_: doubles up to kBufferBytes, then stays
  int used_ = 0;
  int64_t total_ = 0;
  bool started_ = false;  // Codec::Start has run
  bool want_helper_;      // compress_threads 2, and no helper tried yet
  Status status_;         // the first failure; Next fails after it
  // The buffer the helper compresses, the bytes in it and whether they end
  // the stream: the owner's between the helper's Wait and its next Post.
  std::unique_ptr<char[]> lent_;
  size_t lent_used_ = 0;
  bool lent_finish_ = false;
  // Last, so that it is destroyed first: it waits for a running job, which
  // uses codec_ and lent_.
  std::unique_ptr<HelperThread> helper_;
};

// Writes a message through write(coded) into a compressor that appends to
// *out: the whole encoding of either format. *uncompressed_bytes is how
// much write wrote; the status is the stream's or the compressor's first
// failure.
Status WriteCompressed(const SerializeOptions& options, TableString* out,
                       absl::FunctionRef<void(google::protobuf::io::CodedOutputStream*)> write,
                       uint64_t* uncompressed_bytes);

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_COMPRESSION_H_
