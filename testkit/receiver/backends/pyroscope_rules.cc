// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "receiver/backends/pyroscope_rules.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "oracle/decompress.h"
#include "profile.pb.h"

namespace stackrec_test {
namespace pyroscope {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// pkg/validation/limits.go:155-218@main (150-209@v1).
constexpr size_t kMaxProfileSizeBytes = size_t{4} << 20;
constexpr size_t kMaxSamples = 16000;
constexpr size_t kMaxSampleLabels = 100;
constexpr size_t kMaxLabelNames = 30;
constexpr size_t kMaxLabelNameLength = 1024;
constexpr size_t kMaxLabelValueLength = 2048;
constexpr uint64_t kBurstBytes = uint64_t{2} << 20;
constexpr int64_t kRejectOlderThanMs = 3600 * 1000;
constexpr int64_t kRejectNewerThanMs = 600 * 1000;

bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// api/model/labelset/validate.go:81-87 IsServiceNameRuneAllowed, :51-65
// ValidateLabelName's runes.
bool LabelRune(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool ServiceRune(char c) { return LabelRune(c) || c == '-' || c == '/'; }

// pkg/model/labels.go:351-365 LabelPairsString.
std::string LabelsString(const Labels& ls) {
  std::string out = "{";
  for (size_t i = 0; i < ls.size(); ++i) {
    if (i > 0) out += ", ";
    out += ls[i].first + "=\"" + ls[i].second + "\"";
  }
  return out + "}";
}

// pkg/validation/validate.go:130-202@main (131-201@v1) ValidateLabels;
// "" if valid. `ls` is sorted by name.
std::string ValidateLabels(Version v, Labels ls) {
  if (ls.empty()) return "error at least one label pair is required per profile";
  std::sort(ls.begin(), ls.end());
  if (ls.size() > kMaxLabelNames) {
    return "profile series '" + LabelsString(ls) + "' has " + std::to_string(ls.size()) +
           " label names; limit " + std::to_string(kMaxLabelNames);
  }
  auto get = [&](const char* name) {
    for (const auto& l : ls) {
      if (l.first == name) return l.second;
    }
    return std::string();
  };
  const std::string metric = get("__name__");
  if (metric.empty() || !ValidUtf8(metric)) {
    return "invalid labels '" + LabelsString(ls) + "' with error: invalid metric name";
  }
  if (get("service_name").empty()) {
    return "invalid labels '" + LabelsString(ls) + "' with error: service name is not provided";
  }
  std::string last;
  for (size_t i = 0; i < ls.size(); ++i) {
    std::string name = ls[i].first;
    const std::string& value = ls[i].second;
    if (name.size() > kMaxLabelNameLength) {
      return "profile with labels '" + LabelsString(ls) + "' has label name too long: '" + name +
             "'";
    }
    if (value.size() > kMaxLabelValueLength) {
      return "profile with labels '" + LabelsString(ls) + "' has label value too long: '" + value +
             "'";
    }
    if (v == Version::kV1) {
      // disable_label_sanitization is false at 1.x (limits.go:161@v1).
      std::string sanitized;
      if (!SanitizeLegacyLabelName(name, &sanitized)) {
        return "invalid labels '" + LabelsString(ls) + "' with error: invalid label name '" + name +
               "'";
      }
      name = sanitized;
    } else if (name.empty() || !ValidUtf8(name)) {  // true at main (limits.go:167@main)
      return "invalid labels '" + LabelsString(ls) + "' with error: invalid label name '" + name +
             "'";
    }
    if (!ValidUtf8(value)) {
      return "invalid labels '" + LabelsString(ls) + "' with error: invalid label value '" + value +
             "'";
    }
    if (name == last) {
      return "profile with labels '" + LabelsString(ls) + "' has duplicate label name: '" + name +
             "'";
    }
    last = name;
  }
  return "";
}

// pkg/og/convert/pprof/profile.go:172-206 metricName, with
// tree.DefaultSampleTypeMapping (pkg/og/storage/tree/pprof.go:40-82):
// "samples" displays as "cpu".
std::string MetricName(const perftools::profiles::Profile& p) {
  std::string st;
  for (const auto& t : p.sample_type()) {
    if (p.string_table(static_cast<int>(t.type())) == "wall") return "wall";
  }
  for (const auto& t : p.sample_type()) {
    st = p.string_table(static_cast<int>(t.type()));
    if (st == "samples") st = "cpu";
    if (st.find("cpu") != std::string::npos) return "process_cpu";
    if (st.find("alloc_") != std::string::npos || st.find("inuse_") != std::string::npos ||
        st == "space" || st == "objects") {
      return "memory";
    }
    if (st.find("mutex_") != std::string::npos) return "mutex";
    if (st.find("block_") != std::string::npos) return "block";
    if (st.find("goroutines") != std::string::npos) return "goroutines";
  }
  return st;
}

// pkg/validation/validate.go:321-401@main (320-400@v1) ValidateProfile, in
// its order; "" if valid. The window (P3) is on time_nanos, at millisecond
// precision, both ends exclusive.
std::string ValidateProfile(const perftools::profiles::Profile& p, size_t size, const Labels& ls,
                            int64_t now_ns) {
  const std::string where = "'" + LabelsString(ls) + "'";
  if (p.sample_type_size() == 0) return "empty profile";
  if (p.time_nanos() > 0) {
    const int64_t t = p.time_nanos() / 1000000, now = now_ns / 1000000;
    if (!(t > now - kRejectOlderThanMs) || !(t < now + kRejectNewerThanMs)) {
      return "profile with labels " + where + " is outside of ingestion window";
    }
  }
  if (size > kMaxProfileSizeBytes) {
    return "the profile with labels " + where + " exceeds the size limit (max_profile_size_byte, " +
           "actual: " + std::to_string(size) + ", limit: " + std::to_string(kMaxProfileSizeBytes) +
           ")";
  }
  if (static_cast<size_t>(p.sample_size()) > kMaxSamples) {
    return "the profile with labels " + where +
           " exceeds the samples count limit (max_profile_stacktrace_samples, actual: " +
           std::to_string(p.sample_size()) + ", limit: 16000)";
  }
  for (const auto& s : p.sample()) {
    if (static_cast<size_t>(s.label_size()) > kMaxSampleLabels) {
      return "the profile with labels " + where + " exceeds the sample labels limit";
    }
  }
  for (const auto& l : p.location()) {
    if (l.id() == 0) return "location id is 0";
  }
  for (const auto& f : p.function()) {
    if (f.id() == 0) return "function id is 0";
  }
  for (const auto& s : p.sample()) {
    if (s.value_size() != p.sample_type_size()) return "sample value length mismatch";
  }
  const int64_t strings = p.string_table_size();
  if (strings == 0 || !p.string_table(0).empty()) return "string 0 should be empty string";
  for (const auto& t : p.sample_type()) {
    if (t.type() >= strings) return "sample type type string index out of range";
  }
  for (const auto& s : p.sample()) {
    for (const auto& l : s.label()) {
      if (l.str() >= strings || l.key() >= strings) {
        return "sample label string index out of range";
      }
    }
  }
  for (const auto& f : p.function()) {
    if (f.name() >= strings || f.system_name() >= strings || f.filename() >= strings) {
      return "function string index out of range";
    }
  }
  for (const auto& m : p.mapping()) {
    if (m.filename() >= strings || m.build_id() >= strings) {
      return "mapping string index out of range";
    }
  }
  for (const auto& t : p.sample_type()) {
    if (p.string_table(static_cast<int>(t.type())).find('-') != std::string::npos) {
      return "sample type contains -";  // :389@main, :388@v1
    }
  }
  for (const auto& s : p.string_table()) {
    if (!ValidUtf8(s)) return "invalid utf8 string";
  }
  return "";
}

// pkg/og/util/attime/attime.go:16-56, for the all-digits forms.
int64_t ParseFromNs(const std::string& text, int64_t now_ns) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return now_ns;
  const int64_t n = std::stoll(text);
  switch (text.size()) {
    case 13:
      return n * 1000000;
    case 16:
      return n * 1000;
    case 19:
      return n;
    default:
      return n * 1000000000;
  }
}

Verdict Refuse(int status, std::string message) {
  Verdict v;
  v.status = status;
  v.message = std::move(message);
  return v;
}

}  // namespace

const char* VersionName(Version v) { return v == Version::kMain ? "main" : "1.21.1"; }

bool ParseName(const std::string& name, std::map<std::string, std::string>* labels,
               std::string* error) {
  labels->clear();
  enum { kName, kKey, kValue } state = kName;
  std::string app, key, value;
  const std::string text = name + "{";
  for (const char c : text) {
    switch (state) {
      case kName:
        if (c != '{') {
          app += c;
          break;
        }
        app = Trim(app);
        if (app.empty()) {
          *error = "service name is required";
          return false;
        }
        for (const char r : app) {
          if (!ServiceRune(r)) {
            *error = "invalid service name: " + app + ": character is not allowed: '" +
                     std::string(1, r) + "'";
            return false;
          }
        }
        (*labels)["__name__"] = app;
        state = kKey;
        break;
      case kKey:
        if (c == '}') {
          key.clear();  // a key without '=' is dropped; the tag state goes on
        } else if (c == '=') {
          state = kValue;
        } else {
          key += c;
        }
        break;
      case kValue:
        if (c != ',' && c != '}') {
          value += c;
          break;
        }
        key = Trim(key);
        if (key != "__name__") {
          if (key.empty()) {
            *error = "label name is required";
            return false;
          }
          for (const char r : key) {
            if (!LabelRune(r)) {
              *error = "invalid label name: " + key + ": character is not allowed: '" +
                       std::string(1, r) + "'";
              return false;
            }
          }
        }
        (*labels)[key] = Trim(value);
        key.clear();
        value.clear();
        state = kKey;
        break;
    }
  }
  return true;
}

bool SanitizeLegacyLabelName(const std::string& name, std::string* out) {
  // pkg/validation/validate.go:246-270@v1.
  if (name.empty()) return false;
  out->clear();
  for (size_t i = 0; i < name.size(); ++i) {
    const char b = name[i];
    if (b == '.') {
      out->push_back('_');
      continue;
    }
    const bool ok = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' ||
                    (b >= '0' && b <= '9' && i > 0);
    if (!ok) return false;
    out->push_back(b);
  }
  return true;
}

Verdict Ingest(Version v, const ReceivedRequest& req, int64_t now_ns) {
  if (req.method != "POST") return Refuse(405, "method not allowed");
  // pkg/ingester/pyroscope/ingest_handler.go:124-127@main: the name first.
  std::map<std::string, std::string> name_labels;
  std::string error;
  const auto name = req.query.find("name");
  if (!ParseName(name == req.query.end() ? "" : name->second, &name_labels, &error)) {
    return Refuse(400, "name: " + error);
  }
  // :183-246@main: the format picks the parser; only without one is a
  // multipart form read, and then only parts with a filename
  // (pkg/og/util/form/form.go:11-32).
  const auto format = req.query.find("format");
  std::string raw;
  if (format != req.query.end()) {
    if (format->second != "pprof") return Refuse(422, "format " + format->second + " not ported");
    raw = req.body;
  } else if (req.Header("content-type").find("multipart/form-data") != std::string::npos) {
    for (const MultipartPart& part : req.parts) {
      if (part.name == "prev_profile" && !part.filename.empty() && !part.data.empty()) {
        return Refuse(422, "unsupported client version");
      }
      if (part.name == "profile" && !part.filename.empty()) raw = part.data;
    }
  } else {
    return Refuse(422, "not a pprof request: the groups format is not ported");
  }
  // pkg/og/convert/pprof/profile.go:67-69: no profile, nothing stored.
  if (raw.empty()) return Verdict{};
  // pkg/pprof/pprof.go:66-142@main: gzip when its header is there, else the
  // bytes as they are; at most max_profile_size_bytes decompressed.
  std::string bytes = raw;
  if (DetectFormat(raw) == Format::kGzip && !DecompressAny(raw, &bytes)) {
    return Refuse(422, "parsing IngestInput-pprof failed: bad gzip");
  }
  if (bytes.size() > kMaxProfileSizeBytes) {
    return Refuse(422, "decompressed size exceeds maximum allowed size of " +
                           std::to_string(kMaxProfileSizeBytes) + " bytes");
  }
  perftools::profiles::Profile p;
  if (!p.ParseFromString(bytes)) return Refuse(422, "parsing IngestInput-pprof failed: proto");
  // profile.go:105-113 fixTime: a time of 0 or in 1970 is the query's from.
  if (p.time_nanos() < int64_t{365} * 86400 * 1000000000) {
    const auto from = req.query.find("from");
    p.set_time_nanos(ParseFromNs(from == req.query.end() ? "" : from->second, now_ns));
  }
  // profile.go:208-247 createLabels, then distributor.go:541-543@main.
  Labels series = {{"__name__", MetricName(p)}, {"__delta__", "false"}};
  const auto spy = req.query.find("spyName");
  series.emplace_back("pyroscope_spy", spy == req.query.end() ? "unknown" : spy->second);
  if (name_labels.count("service_name") == 0) {
    series.emplace_back("service_name", name_labels["__name__"]);
  }
  for (const auto& [k, value] : name_labels) {
    if (k.compare(0, 2, "__") == 0 && k != "__session_id__") continue;  // labels.go:187-197
    series.emplace_back(k, value);
  }
  // distributor.go:1097-1106@main (993-1002@v1): the rate limiter refuses a
  // request over its burst however long it waits; counted on the profile
  // as Pyroscope marshals it plus the series' label bytes.
  uint64_t size = p.ByteSizeLong();
  for (const auto& [k, value] : series) size += k.size() + value.size();
  if (size > kBurstBytes) {
    return Refuse(v == Version::kMain ? 429 : 422,
                  "push rate limit exceeded while adding " + std::to_string(size) + " bytes");
  }
  error = ValidateProfile(p, p.ByteSizeLong(), series, now_ns);
  if (!error.empty()) return Refuse(422, error);
  // pkg/model/pprofsplit/pprof_split.go:37-119: samples grouped by their
  // string labels but span_id (and trace_id at main); each group's series
  // gains them, the series' own value winning.
  Verdict out;
  for (const auto& s : p.sample()) {
    Labels ls = series;
    for (const auto& l : s.label()) {
      if (l.str() <= 0) continue;
      std::string key = p.string_table(static_cast<int>(l.key()));
      if (key == "profile_id") key = "span_id";
      if (key == "span_id" || (v == Version::kMain && key == "trace_id")) continue;
      const std::string& value = p.string_table(static_cast<int>(l.str()));
      if (value.empty()) continue;
      const bool taken = std::any_of(ls.begin(), ls.end(), [&](const auto& have) {
        return have.first == key && !have.second.empty();
      });
      if (!taken) ls.emplace_back(key, value);
    }
    error = ValidateLabels(v, ls);
    if (!error.empty()) return Refuse(422, error);
    std::sort(ls.begin(), ls.end());
    out.series.insert(LabelsString(ls));
  }
  // One profile type a sample type; the default relabeling files "cpu"
  // under a "wall" profile as process_cpu (pkg/validation/relabeling.go:13-55).
  const std::string metric = series[0].second;
  const auto& pt = p.period_type();
  const std::string period = p.has_period_type()
                                 ? p.string_table(static_cast<int>(pt.type())) + ":" +
                                       p.string_table(static_cast<int>(pt.unit()))
                                 : ":";
  for (const auto& t : p.sample_type()) {
    const std::string type = p.string_table(static_cast<int>(t.type()));
    const std::string name = metric == "wall" && type == "cpu" ? "process_cpu" : metric;
    out.profile_types.insert(name + ":" + type + ":" + p.string_table(static_cast<int>(t.unit())) +
                             ":" + period);
  }
  out.stored = p.sample_size() > 0;
  return out;
}

}  // namespace pyroscope
}  // namespace stackrec_test
