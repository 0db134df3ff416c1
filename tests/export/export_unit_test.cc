// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exporter's parts that need no network, through the static library:
// the JSON escaper (its output read back by a strict parser), RFC 3339
// times, the OTLP answer reader (against the generated classes), the retry
// rules, the queue and the redaction.
#include <random>
#include <string>

#include "base/utf8.h"
#include "catch2/catch.hpp"
#include "export/export_config.h"
#include "export/json.h"
#include "export/otlp_response.h"
#include "export/retry_policy.h"
#include "export/send_queue.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "receiver/json_reader.h"

namespace stackrec_export {
namespace {

std::string Escaped(const std::string& s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST_CASE("the JSON escaper escapes quotes, backslashes and control characters") {
  CHECK(Escaped("plain") == "\"plain\"");
  CHECK(Escaped("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(Escaped("\n\r\t\b\f") == "\"\\n\\r\\t\\b\\f\"");
  CHECK(Escaped(std::string("\x01\x1f\x7f", 3)) == "\"\\u0001\\u001f\\u007f\"");
  CHECK(Escaped(std::string("nul\0!", 5)) == "\"nul\\u0000!\"");
  CHECK(Escaped("h\xc3\xa9llo \xf0\x9f\x94\xa5") == "\"h\xc3\xa9llo \xf0\x9f\x94\xa5\"");
  CHECK(Escaped("</script>") == "\"</script>\"");
}

TEST_CASE("every escaped string parses back to itself") {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      switch (rng() % 4) {
        case 0:
          s.push_back(static_cast<char>(rng() % 0x20));
          break;
        case 1:
          s.push_back("\"\\/'"[rng() % 4]);
          break;
        case 2:
          s += "\xc3\xa9";
          break;
        default:
          s.push_back(static_cast<char>(0x20 + rng() % 0x5f));
          break;
      }
    }
    stackrec_test::Json j;
    std::string error;
    const std::string text = Escaped(s);
    INFO(text);
    REQUIRE(stackrec_test::ParseJson(text, &j, &error));
    CHECK(j.text == s);
  }
}

TEST_CASE("UTF-8 validation refuses overlongs, surrogates and truncation") {
  CHECK(stackrec::IsValidUtf8(""));
  CHECK(stackrec::IsValidUtf8("ascii"));
  CHECK(stackrec::IsValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5"));
  CHECK_FALSE(stackrec::IsValidUtf8("\xc0\x80"));          // overlong NUL
  CHECK_FALSE(stackrec::IsValidUtf8("\xe0\x80\x80"));      // overlong
  CHECK_FALSE(stackrec::IsValidUtf8("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(stackrec::IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(stackrec::IsValidUtf8("\xc3"));              // truncated
  CHECK_FALSE(stackrec::IsValidUtf8("\x80"));              // a lone continuation byte
}

TEST_CASE("RFC 3339 times have nine digits of nanoseconds, in UTC") {
  CHECK(Rfc3339Nanos(0) == "1970-01-01T00:00:00.000000000Z");
  CHECK(Rfc3339Nanos(1767323045123456789) == "2026-01-02T03:04:05.123456789Z");
  CHECK(Rfc3339Nanos(1767323045000000001) == "2026-01-02T03:04:05.000000001Z");
  CHECK(Rfc3339Nanos(-5) == "1970-01-01T00:00:00.000000000Z");
}

TEST_CASE("partial_success is read from a collector's answer, other fields skipped") {
  opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceResponse r;
  PartialSuccess p;
  REQUIRE(ParsePartialSuccess("", &p));
  CHECK(p.rejected_profiles == 0);
  r.mutable_partial_success()->set_rejected_profiles(12);
  r.mutable_partial_success()->set_error_message("dropped: no samples");
  std::string bytes = r.SerializeAsString();
  bytes += std::string("\x10\x05", 2);    // an unknown varint field 2
  bytes += std::string("\x1a\x02hi", 4);  // an unknown bytes field 3
  REQUIRE(ParsePartialSuccess(bytes, &p));
  CHECK(p.rejected_profiles == 12);
  CHECK(p.error_message == "dropped: no samples");
  CHECK_FALSE(ParsePartialSuccess(bytes.substr(0, bytes.size() - 6 - 3), &p));
  CHECK_FALSE(ParsePartialSuccess(std::string("\x0a\x7f", 2), &p));  // longer than the body
}

TEST_CASE("only transient failures and 429/502/503/504 are retried") {
  CHECK(Classify(CURLE_OK, 200) == Verdict::kSent);
  CHECK(Classify(CURLE_OK, 204) == Verdict::kSent);
  for (long s : {429L, 502L, 503L, 504L}) CHECK(Classify(CURLE_OK, s) == Verdict::kRetry);
  CHECK(Classify(CURLE_OK, 413) == Verdict::kTooLarge);
  CHECK(Classify(CURLE_OK, 400) == Verdict::kHttp4xx);
  CHECK(Classify(CURLE_OK, 401) == Verdict::kHttp4xx);
  CHECK(Classify(CURLE_OK, 301) == Verdict::kHttp4xx);
  CHECK(Classify(CURLE_OK, 500) == Verdict::kHttp5xx);
  CHECK(Classify(CURLE_OK, 501) == Verdict::kHttp5xx);
  for (CURLcode c : {CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR,
                     CURLE_RECV_ERROR, CURLE_GOT_NOTHING}) {
    CHECK(Classify(c, 0) == Verdict::kRetry);
  }
  CHECK(Classify(CURLE_PEER_FAILED_VERIFICATION, 0) == Verdict::kConnection);
  CHECK(Classify(CURLE_ABORTED_BY_CALLBACK, 0) == Verdict::kAborted);
}

TEST_CASE("backoff is a full-jitter draw under a doubling cap") {
  std::mt19937_64 rng(1);
  for (int retry = 0; retry < 12; ++retry) {
    uint32_t most = 0;
    for (int i = 0; i < 200; ++i) {
      const uint32_t b = BackoffMs(retry, 10, 1000, &rng);
      const uint32_t cap = std::min<uint32_t>(1000, 10u << retry);
      CHECK(b <= cap);
      most = std::max(most, b);
    }
    CHECK(most > 0);
  }
}

TEST_CASE("Retry-After is delta seconds or an HTTP date") {
  CHECK(RetryAfterMs("3", 1000) == 3000);
  CHECK(RetryAfterMs(" 0 ", 1000) == 0);
  CHECK(RetryAfterMs("Sun, 06 Nov 1994 08:49:37 GMT", 784111767) == 10000);
  CHECK(RetryAfterMs("Sun, 06 Nov 1994 08:49:37 GMT", 784111787) == 0);  // past
  CHECK(RetryAfterMs("soon", 1000) == -1);
  CHECK(RetryAfterMs("", 1000) == -1);
}

TEST_CASE("the queue drops the oldest parts to fit its bounds") {
  auto part = [](size_t bytes, char tag) {
    auto p = std::make_unique<Payload>();
    p->body.assign(bytes, tag);
    return p;
  };
  SendQueue by_count(1000, 2);
  CHECK(by_count.Push(part(1, 'a')) == 0);
  CHECK(by_count.Push(part(1, 'b')) == 0);
  CHECK(by_count.Push(part(1, 'c')) == 1);
  CHECK(by_count.Pop()->body == "b");
  SendQueue by_bytes(10, 100);
  CHECK(by_bytes.Push(part(4, 'a')) == 0);
  CHECK(by_bytes.Push(part(4, 'b')) == 0);
  CHECK(by_bytes.Push(part(6, 'c')) == 1);  // 'a' goes; 4 + 6 fits
  CHECK(by_bytes.size() == 2);
  CHECK(by_bytes.Push(part(7, 'd')) == 2);
  CHECK(by_bytes.Push(part(11, 'e')) == 1);  // alone over the bound
  CHECK(by_bytes.Pop()->body == "ddddddd");
  CHECK(by_bytes.Pop() == nullptr);
}

TEST_CASE("redaction replaces every occurrence of every secret") {
  CHECK(Redact("key=abc and abc again", {"abc", ""}) == "key=[redacted] and [redacted] again");
  CHECK(Redact("nothing", {"", "zzz"}) == "nothing");
}

}  // namespace
}  // namespace stackrec_export
