// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "receiver/receiver.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace stackrec_test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollMs = 5;
constexpr size_t kMaxRequestBytes = size_t{64} << 20;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

// A chunked body from `in` at `at`: true with the body and the end offset
// once complete; false while incomplete or on error (then `error` is set).
bool Dechunk(const std::string& in, size_t at, std::string* body, size_t* end, std::string* error) {
  body->clear();
  for (;;) {
    const size_t eol = in.find("\r\n", at);
    if (eol == std::string::npos) return false;
    char* stop = nullptr;
    const std::string size_text = in.substr(at, eol - at);
    const unsigned long size = std::strtoul(size_text.c_str(), &stop, 16);
    if (stop == size_text.c_str()) {
      *error = "bad chunk size line '" + size_text + "'";
      return false;
    }
    at = eol + 2;
    if (size == 0) {
      const size_t trailer_end = in.find("\r\n", at);
      if (trailer_end == std::string::npos) return false;
      *end = trailer_end + 2;
      return true;
    }
    if (in.size() < at + size + 2) return false;
    body->append(in, at, size);
    if (in.compare(at + size, 2, "\r\n") != 0) {
      *error = "a chunk does not end with CRLF";
      return false;
    }
    at += size + 2;
  }
}

}  // namespace

struct Receiver::Conn {
  int fd = -1;
  std::string in;
  bool have_head = false;
  size_t head_end = 0;
  bool chunked = false;
  size_t content_length = 0;
  ReceivedRequest req;
  Response resp;
  bool waiting = false;  // a complete request, its answer due at respond_at
  Clock::time_point respond_at;
};

std::string ReceivedRequest::Header(const std::string& lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return "";
}

bool ReceivedRequest::Has(const std::string& lower_name) const {
  for (const auto& h : headers) {
    if (h.first == lower_name) return true;
  }
  return false;
}

const MultipartPart* ReceivedRequest::Part(const std::string& name) const {
  for (const MultipartPart& p : parts) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool PercentDecode(const std::string& in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') {
      out->push_back(' ');
    } else if (in[i] == '%') {
      if (i + 2 >= in.size() || !std::isxdigit(static_cast<unsigned char>(in[i + 1])) ||
          !std::isxdigit(static_cast<unsigned char>(in[i + 2]))) {
        return false;
      }
      out->push_back(static_cast<char>(std::stoi(in.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out->push_back(in[i]);
    }
  }
  return true;
}

bool ParseMultipart(const std::string& content_type, const std::string& body,
                    std::vector<MultipartPart>* parts, std::string* error) {
  const std::string lower = Lower(content_type);
  const size_t b = lower.find("boundary=");
  if (lower.rfind("multipart/form-data", 0) != 0 || b == std::string::npos) {
    *error = "Content-Type '" + content_type + "' is not multipart/form-data with a boundary";
    return false;
  }
  std::string boundary = content_type.substr(b + 9);
  if (!boundary.empty() && boundary.front() == '"')
    boundary = boundary.substr(1, boundary.size() - 2);
  const std::string delimiter = "--" + boundary;
  if (body.compare(0, delimiter.size() + 2, delimiter + "\r\n") != 0) {
    *error = "the body does not start with the boundary";
    return false;
  }
  size_t at = delimiter.size() + 2;
  for (;;) {
    const size_t head_end = body.find("\r\n\r\n", at);
    if (head_end == std::string::npos) {
      *error = "a part has no end of headers";
      return false;
    }
    MultipartPart part;
    size_t line_start = at;
    while (line_start < head_end + 2) {
      const size_t eol = body.find("\r\n", line_start);
      const std::string line = body.substr(line_start, eol - line_start);
      line_start = eol + 2;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) {
        *error = "a part's header line has no colon: '" + line + "'";
        return false;
      }
      const std::string name = Lower(line.substr(0, colon));
      const std::string value = Trim(line.substr(colon + 1));
      if (name == "content-type") {
        part.content_type = value;
      } else if (name == "content-disposition") {
        if (value.rfind("form-data", 0) != 0) {
          *error = "a part's disposition is not form-data: '" + value + "'";
          return false;
        }
        for (const char* key : {"name", "filename"}) {
          const std::string needle = std::string("; ") + key + "=\"";
          const size_t k = value.find(needle);
          if (k == std::string::npos) continue;
          const size_t v = k + needle.size();
          const size_t q = value.find('"', v);
          if (q == std::string::npos) {
            *error = "an unterminated quoted parameter in '" + value + "'";
            return false;
          }
          (std::strcmp(key, "name") == 0 ? part.name : part.filename) = value.substr(v, q - v);
        }
      }
    }
    const size_t next = body.find("\r\n" + delimiter, head_end + 4);
    if (next == std::string::npos) {
      *error = "a part is not followed by the boundary";
      return false;
    }
    part.data = body.substr(head_end + 4, next - head_end - 4);
    if (part.name.empty()) {
      *error = "a part has no name";
      return false;
    }
    parts->push_back(std::move(part));
    at = next + 2 + delimiter.size();
    if (body.compare(at, 2, "--") == 0) {
      if (body.size() != at + 4 || body.compare(at + 2, 2, "\r\n") != 0) {
        *error = "bytes after the closing boundary";
        return false;
      }
      return true;
    }
    if (body.compare(at, 2, "\r\n") != 0) {
      *error = "a boundary is not followed by CRLF";
      return false;
    }
    at += 2;
  }
}

Receiver::Receiver() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listen_fd_, 64) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(listen_fd_);
    throw std::runtime_error("bind/listen on 127.0.0.1 failed");
  }
  fcntl(listen_fd_, F_SETFL, O_NONBLOCK);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread(&Receiver::Run, this);
}

Receiver::~Receiver() {
  stop_.store(true);
  thread_.join();
  close(listen_fd_);
}

std::string Receiver::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void Receiver::Script(std::vector<Response> responses) {
  std::lock_guard<std::mutex> l(mu_);
  for (Response& r : responses) script_.push_back(std::move(r));
}

void Receiver::SetDefault(Response r) {
  std::lock_guard<std::mutex> l(mu_);
  default_ = std::move(r);
}

std::vector<ReceivedRequest> Receiver::Requests() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_;
}

size_t Receiver::RequestCount() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_.size();
}

size_t Receiver::Resets() const {
  std::lock_guard<std::mutex> l(mu_);
  return resets_;
}

std::vector<std::string> Receiver::errors() const {
  std::lock_guard<std::mutex> l(mu_);
  return errors_;
}

bool Receiver::WaitForRequests(size_t n, int timeout_ms) const {
  std::unique_lock<std::mutex> l(mu_);
  return answered_cv_.wait_for(l, std::chrono::milliseconds(timeout_ms),
                               [&] { return requests_.size() >= n; });
}

// Parses what has arrived on `c`; false when the connection is to close.
bool Receiver::Advance(Conn* c) {
  std::string error;
  if (!c->have_head) {
    const size_t end = c->in.find("\r\n\r\n");
    if (end == std::string::npos) return c->in.size() < (1 << 20);
    c->have_head = true;
    c->head_end = end + 4;
    c->req = ReceivedRequest();
    const size_t eol = c->in.find("\r\n");
    const std::string line = c->in.substr(0, eol);
    const size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
    if (sp1 == std::string::npos || sp2 == sp1 || line.compare(sp2 + 1, 5, "HTTP/") != 0) {
      error = "bad request line '" + line + "'";
    } else {
      c->req.method = line.substr(0, sp1);
      c->req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    }
    size_t at = eol + 2;
    while (error.empty() && at < end + 2) {
      const size_t e = c->in.find("\r\n", at);
      const std::string h = c->in.substr(at, e - at);
      at = e + 2;
      const size_t colon = h.find(':');
      if (colon == std::string::npos || colon == 0) {
        error = "bad header line '" + h + "'";
        break;
      }
      c->req.headers.emplace_back(Lower(h.substr(0, colon)), Trim(h.substr(colon + 1)));
    }
    c->chunked = Lower(c->req.Header("transfer-encoding")) == "chunked";
    c->content_length = c->req.Has("content-length")
                            ? std::strtoull(c->req.Header("content-length").c_str(), nullptr, 10)
                            : 0;
    {
      std::lock_guard<std::mutex> l(mu_);
      c->resp = next_script_ < script_.size() ? script_[next_script_++] : default_;
      if (!error.empty()) errors_.push_back(error);
      if (c->resp.reset_mid_body && error.empty()) {
        ++resets_;
        // SO_LINGER 0: close() sends RST, as a crashed or overloaded
        // server's kernel would.
        linger lg{1, 0};
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
        return false;
      }
    }
    if (!error.empty()) c->resp = Response{400, {}, error};
    if (c->content_length > kMaxRequestBytes) return false;
  }
  size_t end = 0;
  if (c->chunked) {
    if (!Dechunk(c->in, c->head_end, &c->req.body, &end, &error)) {
      if (error.empty()) return true;
      std::lock_guard<std::mutex> l(mu_);
      errors_.push_back(error);
      return false;
    }
  } else {
    if (c->in.size() < c->head_end + c->content_length) return true;
    c->req.body = c->in.substr(c->head_end, c->content_length);
    end = c->head_end + c->content_length;
  }
  c->in.erase(0, end);
  c->have_head = false;
  // The parts of the request the backends look at.
  const size_t q = c->req.target.find('?');
  c->req.path = c->req.target.substr(0, q);
  if (q != std::string::npos) {
    const std::string query = c->req.target.substr(q + 1);
    size_t at = 0;
    while (at <= query.size()) {
      size_t amp = query.find('&', at);
      if (amp == std::string::npos) amp = query.size();
      const std::string pair = query.substr(at, amp - at);
      const size_t eq = pair.find('=');
      std::string key, value;
      if (eq == std::string::npos || !PercentDecode(pair.substr(0, eq), &key) ||
          !PercentDecode(pair.substr(eq + 1), &value)) {
        error = "bad query parameter '" + pair + "'";
      } else {
        c->req.query[key] = value;
      }
      at = amp + 1;
    }
  }
  if (Lower(c->req.Header("content-type")).rfind("multipart/", 0) == 0 &&
      !ParseMultipart(c->req.Header("content-type"), c->req.body, &c->req.parts, &error)) {
    error = "multipart: " + error;
  }
  if (!error.empty()) {
    std::lock_guard<std::mutex> l(mu_);
    errors_.push_back(error);
    c->resp = Response{400, {}, error};
  }
  c->waiting = true;
  c->respond_at = Clock::now() + std::chrono::milliseconds(c->resp.delay_ms);
  return true;
}

void Receiver::Answer(Conn* c) {
  const Response& r = c->resp;
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + Reason(r.status) + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  for (const std::string& h : r.headers) out += h + "\r\n";
  out += "\r\n" + r.body;
  // Recorded before the answer goes out, so a test that saw the answer
  // (through the exporter's stats) also sees the request.
  c->req.answered = r.status;
  c->waiting = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    requests_.push_back(std::move(c->req));
  }
  answered_cv_.notify_all();
  // Small answers to a client that waits for them: a blocking send with a
  // bounded timeout is simpler than a write queue and cannot hang.
  const int flags = fcntl(c->fd, F_GETFL);
  fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK);
  timeval tv{1, 0};
  setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  size_t sent = 0;
  while (sent < out.size()) {
    const ssize_t n = send(c->fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the client gave up (a timeout test): it will retry
    sent += static_cast<size_t>(n);
  }
  fcntl(c->fd, F_SETFL, flags);
}

void Receiver::Run() {
  std::vector<std::unique_ptr<Conn>> conns;
  while (!stop_.load()) {
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const auto& c : conns)
      fds.push_back({c->fd, static_cast<short>(c->waiting ? 0 : POLLIN), 0});
    poll(fds.data(), fds.size(), kPollMs);
    if (fds[0].revents & POLLIN) {
      for (;;) {
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        auto c = std::make_unique<Conn>();
        c->fd = fd;
        conns.push_back(std::move(c));
      }
    }
    for (size_t i = 1; i < fds.size() && i - 1 < conns.size(); ++i) {
      Conn* c = conns[i - 1].get();
      bool keep = true;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[64 << 10];
        const ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
        if (n <= 0) {
          keep = false;
        } else {
          c->in.append(buf, static_cast<size_t>(n));
          keep = Advance(c);
        }
      }
      if (!keep) {
        close(c->fd);
        c->fd = -1;
      }
    }
    const auto now = Clock::now();
    for (auto& c : conns) {
      if (c->fd >= 0 && c->waiting && now >= c->respond_at) {
        Answer(c.get());
        // A pipelined request may already be in the buffer.
        if (!c->in.empty() && !Advance(c.get())) {
          close(c->fd);
          c->fd = -1;
        }
      }
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const auto& c) { return c->fd < 0; }),
                conns.end());
  }
  for (auto& c : conns) close(c->fd);
}

}  // namespace stackrec_test
