// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Internal status codes and the per-thread error message.
//
// Why not absl::Status: the sampler's hot path must not allocate to report an
// error, and the C boundary only needs a code plus one message per thread. So
// a Status is just a code; the message goes into a fixed thread-local buffer
// when the error is made, which is also what stackrec_last_error() returns.
#ifndef STACKREC_SRC_BASE_STATUS_H_
#define STACKREC_SRC_BASE_STATUS_H_

namespace stackrec {

// Mirrors stackrec_status value for value (c_api.cc static_asserts it).
enum class Code : int {
  kOk = 0,
  kInvalidArgument = 1,
  kOutOfMemory = 2,
  kLimitExceeded = 3,
  kBusy = 4,
  kInternal = 5,
  kUnsupported = 6,
  kTimedOut = 7,
};

class [[nodiscard]] Status {
 public:
  constexpr Status() = default;
  constexpr explicit Status(Code code) : code_(code) {}
  constexpr bool ok() const { return code_ == Code::kOk; }
  constexpr Code code() const { return code_; }

 private:
  Code code_ = Code::kOk;
};

inline constexpr Status OkStatus() { return Status(); }

// The size of the per-thread message buffer, its terminating NUL included:
// what a message is cut to wherever it is built.
inline constexpr int kErrorMessageBytes = 512;

// Formats the message into this thread's buffer (truncated to fit) and
// returns a Status carrying `code`.
Status Error(Code code, const char* format, ...) __attribute__((format(printf, 2, 3)));

// This thread's last error message; "" if none. Never null.
const char* LastErrorMessage();

// Makes `message` (copied, truncated to fit; null is "") this thread's last
// error message, for the libraries that report through stackrec's.
void SetLastErrorMessage(const char* message);

#define STACKREC_RETURN_IF_ERROR(expr)   \
  do {                                   \
    ::stackrec::Status status_ = (expr); \
    if (!status_.ok()) return status_;   \
  } while (0)

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_STATUS_H_
