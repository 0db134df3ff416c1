// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What an attempt's outcome means, and how long to wait before the next.
// Kept apart from the transport and the thread so the rules a backend sees
// (which answers are retried, the backoff, Retry-After) are written once
// and tested without a network.
//
// Retried: no answer for a transient reason (refused or timed-out
// connections, a reset or an empty reply) and the answers that ask for a
// later try (429, 502, 503, 504). Everything else is final: a 4xx will not
// change by sending the same bytes again, and a 413 needs a smaller part.
#ifndef STACKREC_SRC_EXPORT_RETRY_POLICY_H_
#define STACKREC_SRC_EXPORT_RETRY_POLICY_H_

#include <curl/curl.h>

#include <cstdint>
#include <random>
#include <string>

namespace stackrec_export {

enum class Verdict {
  kSent,        // 2xx
  kRetry,       // transient: try again while retries remain
  kHttp4xx,     // refused: 4xx but 413 and 429, or 1xx/3xx
  kTooLarge,    // 413
  kHttp5xx,     // a 5xx that is not retried
  kConnection,  // no answer, for a reason retrying will not fix (TLS, DNS, ...)
  kAborted,     // stopped by shutdown
};

// The verdict on an attempt that ended with `code` and, when the server
// answered, HTTP `status`.
Verdict Classify(CURLcode code, long status);

// Full jitter: a uniform draw from [0, min(max_ms, initial_ms * 2^retry)],
// retry counting from 0.
uint32_t BackoffMs(int retry, uint32_t initial_ms, uint32_t max_ms, std::mt19937_64* rng);

// A Retry-After value as milliseconds from now (`now_s`, Unix seconds):
// delta seconds, or an HTTP date (parsed by curl_getdate); a date in the
// past is 0. -1 when the value is neither.
int64_t RetryAfterMs(const std::string& value, int64_t now_s);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_RETRY_POLICY_H_
