// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/http_client.h"

#include <strings.h>

#include <algorithm>
#include <memory>
#include <new>

namespace stackrec_export {
namespace {

constexpr size_t kMaxResponseBytes = 64 << 10;
// The longest a wait lasts without looking at the stop flag, should a
// wakeup be missed.
constexpr int kPollMs = 100;

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<Outcome*>(user);
  const size_t bytes = size * n;
  if (out->body.size() < kMaxResponseBytes) {
    out->body.append(data, std::min(bytes, kMaxResponseBytes - out->body.size()));
  }
  return bytes;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<Outcome*>(user);
  const size_t bytes = size * n;
  const std::string line(data, bytes);
  if (line.compare(0, 5, "HTTP/") == 0) {
    out->retry_after.clear();  // a new answer (after a 1xx) starts over
  } else if (line.size() > 12 && strncasecmp(line.c_str(), "retry-after:", 12) == 0) {
    size_t end = line.size();
    while (end > 12 && (line[end - 1] == '\r' || line[end - 1] == '\n')) --end;
    out->retry_after = line.substr(12, end - 12);
  }
  return bytes;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* stop = static_cast<const std::atomic<bool>*>(user);
  return stop->load(std::memory_order_acquire) ? 1 : 0;  // non-zero aborts the transfer
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct MimeDeleter {
  void operator()(curl_mime* m) const { curl_mime_free(m); }
};

}  // namespace

HttpClient::HttpClient(const Config& config, const std::atomic<bool>* stop)
    : config_(config), stop_(stop) {
  multi_ = curl_multi_init();
  easy_ = curl_easy_init();
  if (multi_ == nullptr || easy_ == nullptr) {
    curl_easy_cleanup(easy_);
    curl_multi_cleanup(multi_);
    throw std::bad_alloc();
  }
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(easy_);
  curl_multi_cleanup(multi_);
}

void HttpClient::Wakeup() { curl_multi_wakeup(multi_); }

Outcome HttpClient::Perform(const HttpRequest& r) {
  Outcome out;
  error_[0] = '\0';
  // Options start from scratch each time; the connection cache survives.
  curl_easy_reset(easy_);
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const std::string& h : r.headers) {
    curl_slist* next = curl_slist_append(headers.get(), h.c_str());
    if (next == nullptr) throw std::bad_alloc();
    (void)headers.release();
    headers.reset(next);
  }
  std::unique_ptr<curl_mime, MimeDeleter> mime;
  curl_easy_setopt(easy_, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout_ms));
  curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.timeout_ms));
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, error_);
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &out);
  curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, &out);
  curl_easy_setopt(easy_, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy_, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(easy_, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(stop_));
  // TLS: verification is libcurl's default; only an explicit opt-out lifts it.
  curl_easy_setopt(easy_, CURLOPT_SSL_VERIFYPEER, config_.insecure ? 0L : 1L);
  curl_easy_setopt(easy_, CURLOPT_SSL_VERIFYHOST, config_.insecure ? 0L : 2L);
  if (!config_.ca_file.empty()) curl_easy_setopt(easy_, CURLOPT_CAINFO, config_.ca_file.c_str());
  if (!config_.basic_user.empty()) {
    curl_easy_setopt(easy_, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    curl_easy_setopt(easy_, CURLOPT_USERNAME, config_.basic_user.c_str());
    curl_easy_setopt(easy_, CURLOPT_PASSWORD, config_.basic_password.c_str());
  } else if (!config_.bearer_token.empty()) {
    curl_easy_setopt(easy_, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BEARER));
    curl_easy_setopt(easy_, CURLOPT_XOAUTH2_BEARER, config_.bearer_token.c_str());
  }
  if (r.body != nullptr) {
    curl_easy_setopt(easy_, CURLOPT_POST, 1L);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, r.body->data());
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body->size()));
  } else {
    mime.reset(curl_mime_init(easy_));
    if (mime == nullptr) throw std::bad_alloc();
    for (const MimePart& p : r.parts) {
      curl_mimepart* part = curl_mime_addpart(mime.get());
      if (part == nullptr || curl_mime_name(part, p.name.c_str()) != CURLE_OK ||
          curl_mime_filename(part, p.filename.c_str()) != CURLE_OK ||
          curl_mime_type(part, p.content_type.c_str()) != CURLE_OK ||
          curl_mime_data(part, p.bytes().data(), p.bytes().size()) != CURLE_OK) {
        throw std::bad_alloc();
      }
    }
    curl_easy_setopt(easy_, CURLOPT_MIMEPOST, mime.get());
  }

  if (curl_multi_add_handle(multi_, easy_) != CURLM_OK) throw std::bad_alloc();
  bool done = false;
  while (!done) {
    int running = 0;
    curl_multi_perform(multi_, &running);
    int queued = 0;
    while (CURLMsg* m = curl_multi_info_read(multi_, &queued)) {
      if (m->msg == CURLMSG_DONE && m->easy_handle == easy_) {
        out.code = m->data.result;
        done = true;
      }
    }
    if (done) break;
    if (stop_->load(std::memory_order_acquire)) {
      out.code = CURLE_ABORTED_BY_CALLBACK;
      break;
    }
    curl_multi_poll(multi_, nullptr, 0, kPollMs, nullptr);
  }
  curl_multi_remove_handle(multi_, easy_);
  if (out.code == CURLE_OK) {
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &out.status);
  } else {
    out.error = error_[0] != '\0' ? error_ : curl_easy_strerror(out.code);
  }
  return out;
}

}  // namespace stackrec_export
