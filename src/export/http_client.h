// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The transport: one request at a time over libcurl, which does all of
// HTTP and TLS. One easy handle is reused so that its connection is kept
// alive between requests; it runs inside a multi handle so that the wait
// for the network is a curl_multi_poll that another thread can cut short
// (Wakeup) when the exporter shuts down, and the progress callback aborts
// the transfer itself once the stop flag is up. Only the exporter's thread
// calls Perform.
#ifndef STACKREC_SRC_EXPORT_HTTP_CLIENT_H_
#define STACKREC_SRC_EXPORT_HTTP_CLIENT_H_

#include <curl/curl.h>

#include <atomic>
#include <string>

#include "export/export_config.h"
#include "export/request.h"

namespace stackrec_export {

struct Outcome {
  CURLcode code = CURLE_OK;
  long status = 0;          // the HTTP status, 0 without an answer
  std::string retry_after;  // the answer's Retry-After header, as sent
  std::string body;         // the answer's body (its first 64 KiB)
  std::string error;        // curl's description of a failure
};

class HttpClient {
 public:
  // `stop` is read by the progress callback and after every wait; it must
  // outlive the client. Throws std::bad_alloc when curl has no handle.
  HttpClient(const Config& config, const std::atomic<bool>* stop);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `r` and waits for the answer, a failure, or the stop flag.
  Outcome Perform(const HttpRequest& r);

  // Cuts the current wait short, from any thread.
  void Wakeup();

 private:
  const Config& config_;
  const std::atomic<bool>* stop_;
  CURLM* multi_ = nullptr;
  CURL* easy_ = nullptr;
  // curl keeps the pointer and may write to it whenever it fails, even
  // while closing a cached connection in curl_easy_cleanup: it lives as long
  // as the handle.
  char error_[CURL_ERROR_SIZE] = "";
};

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_HTTP_CLIENT_H_
