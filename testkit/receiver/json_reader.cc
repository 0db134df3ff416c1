// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "receiver/json_reader.h"

#include <cstdlib>

namespace stackrec_test {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  bool Document(Json* out, std::string* error) {
    if (!Value(out, 0) || (Space(), at_ != s_.size())) {
      if (error_.empty()) error_ = "bytes after the value";
      *error = error_ + " at offset " + std::to_string(at_);
      return false;
    }
    return true;
  }

 private:
  void Space() {
    while (at_ < s_.size() &&
           (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r'))
      ++at_;
  }
  bool Fail(const char* why) {
    if (error_.empty()) error_ = why;
    return false;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (s_.compare(at_, w.size(), w) != 0) return Fail("bad literal");
    at_ += w.size();
    return true;
  }
  static void AppendUtf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  bool Hex4(unsigned* v) {
    if (at_ + 4 > s_.size()) return Fail("short \\u escape");
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[at_++];
      *v <<= 4;
      if (c >= '0' && c <= '9') {
        *v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        *v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        *v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        return Fail("bad \\u escape");
      }
    }
    return true;
  }
  bool String(std::string* out) {
    if (at_ >= s_.size() || s_[at_] != '"') return Fail("expected a string");
    ++at_;
    for (;;) {
      if (at_ >= s_.size()) return Fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[at_++]);
      if (c == '"') return true;
      if (c < 0x20) return Fail("a control character in a string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      if (at_ >= s_.size()) return Fail("unterminated escape");
      const char e = s_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          // Zero first: GCC at -O1 cannot see that Hex4 sets them when it
          // returns true.
          unsigned cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned low = 0;
            if (s_.compare(at_, 2, "\\u") != 0) return Fail("a lone high surrogate");
            at_ += 2;
            if (!Hex4(&low) || low < 0xDC00 || low > 0xDFFF) return Fail("a bad low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail("a lone low surrogate");
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Fail("an unknown escape");
      }
    }
  }
  bool Number(std::string* out) {
    const size_t start = at_;
    if (at_ < s_.size() && s_[at_] == '-') ++at_;
    if (at_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[at_])))
      return Fail("bad number");
    if (s_[at_] == '0' && at_ + 1 < s_.size() &&
        std::isdigit(static_cast<unsigned char>(s_[at_ + 1]))) {
      return Fail("a leading zero");
    }
    while (at_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[at_])) || s_[at_] == '.' || s_[at_] == 'e' ||
            s_[at_] == 'E' || s_[at_] == '+' || s_[at_] == '-')) {
      ++at_;
    }
    *out = s_.substr(start, at_ - start);
    return true;
  }
  bool Value(Json* out, int depth) {
    if (depth > 64) return Fail("nested too deep");
    Space();
    if (at_ >= s_.size()) return Fail("expected a value");
    const char c = s_[at_];
    if (c == '{') {
      out->type = Json::Type::kObject;
      ++at_;
      Space();
      if (at_ < s_.size() && s_[at_] == '}') return ++at_, true;
      for (;;) {
        Space();
        std::string key;
        if (!String(&key)) return false;
        if (out->Get(key) != nullptr) return Fail("a duplicate key");
        Space();
        if (at_ >= s_.size() || s_[at_] != ':') return Fail("expected ':'");
        ++at_;
        Json v;
        if (!Value(&v, depth + 1)) return false;
        out->members.emplace_back(std::move(key), std::move(v));
        Space();
        if (at_ < s_.size() && s_[at_] == ',') {
          ++at_;
          continue;
        }
        if (at_ < s_.size() && s_[at_] == '}') return ++at_, true;
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      out->type = Json::Type::kArray;
      ++at_;
      Space();
      if (at_ < s_.size() && s_[at_] == ']') return ++at_, true;
      for (;;) {
        Json v;
        if (!Value(&v, depth + 1)) return false;
        out->items.push_back(std::move(v));
        Space();
        if (at_ < s_.size() && s_[at_] == ',') {
          ++at_;
          continue;
        }
        if (at_ < s_.size() && s_[at_] == ']') return ++at_, true;
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      out->type = Json::Type::kString;
      return String(&out->text);
    }
    if (c == 't' || c == 'f') {
      out->type = Json::Type::kBool;
      out->boolean = c == 't';
      return Literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') return Literal("null");
    out->type = Json::Type::kNumber;
    return Number(&out->text);
  }

  const std::string& s_;
  size_t at_ = 0;
  std::string error_;
};

}  // namespace

const Json* Json::Get(const std::string& key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool ParseJson(const std::string& text, Json* out, std::string* error) {
  *out = Json();
  return Parser(text).Document(out, error);
}

}  // namespace stackrec_test
