// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/retry_policy.h"

#include <cctype>
#include <ctime>

namespace stackrec_export {

Verdict Classify(CURLcode code, long status) {
  switch (code) {
    case CURLE_OK:
      break;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
      return Verdict::kRetry;
    case CURLE_ABORTED_BY_CALLBACK:
      return Verdict::kAborted;
    default:
      return Verdict::kConnection;
  }
  if (status >= 200 && status < 300) return Verdict::kSent;
  if (status == 413) return Verdict::kTooLarge;
  if (status == 429 || status == 502 || status == 503 || status == 504) return Verdict::kRetry;
  if (status >= 500) return Verdict::kHttp5xx;
  return Verdict::kHttp4xx;
}

uint32_t BackoffMs(int retry, uint32_t initial_ms, uint32_t max_ms, std::mt19937_64* rng) {
  uint64_t cap = initial_ms;
  for (int i = 0; i < retry && cap < max_ms; ++i) cap *= 2;
  if (cap > max_ms) cap = max_ms;
  return static_cast<uint32_t>(std::uniform_int_distribution<uint64_t>(0, cap)(*rng));
}

int64_t RetryAfterMs(const std::string& value, int64_t now_s) {
  size_t begin = 0, end = value.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(value[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(value[end - 1]))) --end;
  if (begin == end) return -1;
  bool digits = true;
  for (size_t i = begin; i < end; ++i) {
    digits = digits && std::isdigit(static_cast<unsigned char>(value[i]));
  }
  if (digits) {
    if (end - begin > 9) return int64_t{999999999} * 1000;  // capped by the caller anyway
    return std::stoll(value.substr(begin, end - begin)) * 1000;
  }
  const time_t when = curl_getdate(value.substr(begin, end - begin).c_str(), nullptr);
  if (when == -1) return -1;
  return when <= now_s ? 0 : (static_cast<int64_t>(when) - now_s) * 1000;
}

}  // namespace stackrec_export
