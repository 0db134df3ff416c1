// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A small HTTP/1.1 server for the exporter's tests: the exporter is tested
// against real sockets and real libcurl, not a mock of either. It binds
// 127.0.0.1 on a port the system picks (never another interface), serves
// from one thread with poll(), so connections kept alive by curl, a forked
// child's connection and a delayed answer can all be in progress at once,
// and reads every request completely (request line, headers, a
// Content-Length or chunked body) before it answers. Each request gets the
// next scripted Response, in arrival order, then the default one; a
// Response can also be a fault: a slow answer, or a reset in the middle of
// the body. Every wait is bounded, and the destructor stops the thread.
//
// It also parses what it received as the backends would: the query string,
// multipart/form-data parts. Anything malformed is answered 400 and noted
// in errors(), which tests check is empty.
#ifndef STACKREC_TESTKIT_RECEIVER_RECEIVER_H_
#define STACKREC_TESTKIT_RECEIVER_RECEIVER_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace stackrec_test {

struct MultipartPart {
  std::string name, filename, content_type, data;
};

struct ReceivedRequest {
  std::string method, target, path;
  std::map<std::string, std::string> query;                  // percent-decoded
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;                                          // de-chunked
  std::vector<MultipartPart> parts;                          // for multipart/form-data
  int answered = 0;                                          // the status it was answered with

  // The value of header `lower_name`, "" if absent; Has says which.
  std::string Header(const std::string& lower_name) const;
  bool Has(const std::string& lower_name) const;
  // The part called `name`; null if none.
  const MultipartPart* Part(const std::string& name) const;
};

struct Response {
  Response() = default;
  explicit Response(int s, std::vector<std::string> h = {}, std::string b = {})
      : status(s), headers(std::move(h)), body(std::move(b)) {}

  int status = 200;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  int delay_ms = 0;             // answer this much later
  bool reset_mid_body = false;  // read the head (and what came with it), then RST, no answer
};

class Receiver {
 public:
  Receiver();
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  int port() const { return port_; }
  std::string url() const;  // "http://127.0.0.1:<port>"

  // Appends answers for the next requests, in arrival order.
  void Script(std::vector<Response> responses);
  void SetDefault(Response r);

  std::vector<ReceivedRequest> Requests() const;
  size_t RequestCount() const;
  size_t Resets() const;  // reset_mid_body faults carried out
  std::vector<std::string> errors() const;
  // Waits until `n` requests were answered, up to `timeout_ms`.
  bool WaitForRequests(size_t n, int timeout_ms) const;

 private:
  struct Conn;
  void Run();
  bool Advance(Conn* c);  // false: close the connection
  void Answer(Conn* c);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  mutable std::condition_variable answered_cv_;
  std::vector<Response> script_;
  size_t next_script_ = 0;
  Response default_;
  std::vector<ReceivedRequest> requests_;
  std::vector<std::string> errors_;
  size_t resets_ = 0;
  std::thread thread_;
};

// Parses a multipart/form-data body whose Content-Type is `content_type`;
// false with `error` set if it is not well formed.
bool ParseMultipart(const std::string& content_type, const std::string& body,
                    std::vector<MultipartPart>* parts, std::string* error);

// "a%20b+c" -> "a b c" (query strings use '+' for a space); false on a bad
// escape.
bool PercentDecode(const std::string& in, std::string* out);

}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_RECEIVER_RECEIVER_H_
