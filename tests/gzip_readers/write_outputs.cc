// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes the outputs the gzip reader test decodes: pprof and OTLP, a small
// profile and one of several MiB (many staging buffers), gzipped on the
// calling thread and with a helper thread, each beside its bytes as zlib's
// inflate gives them back, so that every other reader's result can be
// compared byte for byte. (Not a second, uncompressed serialization: each
// serialization stamps its own end time.)
//
//   gzip_readers_write_outputs <dir>
// writes <dir>/<name>_threads<n>.gz and <dir>/<name>_threads<n>.raw.
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "stackrec/stackrec.h"

namespace {

stackrec_str S(const std::string& s) { return stackrec_str{s.data(), s.size()}; }

bool WriteFile(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

// zlib's inflate, one gzip member that must end the input.
bool Inflate(const std::string& in, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc;
  do {
    char buf[1 << 16];
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out->append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  return rc == Z_STREAM_END && z.avail_in == 0;
}

// A profile of `stacks` distinct stacks, 24 frames each, every function
// and file name its own: about 1.3 KiB of pprof per stack.
bool Fill(stackrec_profile* p, int stacks) {
  std::vector<std::string> names(24), files(24);
  std::vector<stackrec_location> frames(24);
  const int64_t values[1] = {10000000};
  for (int s = 0; s < stacks; ++s) {
    for (int d = 0; d < 24; ++d) {
      names[d] = "app/module_" + std::to_string(d) + ".Function_" + std::to_string(s * 7 + d);
      files[d] = "/src/app/module_" + std::to_string(d) + "/file_" + std::to_string(s) + ".go";
      frames[d] = stackrec_location{};
      frames[d].function.name = S(names[d]);
      frames[d].function.filename = S(files[d]);
      frames[d].line = 10 + d;
    }
    stackrec_sample sample{};
    sample.locations = frames.data();
    sample.locations_len = frames.size();
    sample.values = values;
    sample.values_len = 1;
    if (stackrec_profile_add(p, &sample) != STACKREC_OK) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::string cpu = "cpu", ns = "nanoseconds";
  const stackrec_value_type types[1] = {{S(cpu), S(ns)}};
  struct Size {
    const char* name;
    int stacks;
  } sizes[2] = {{"small", 10}, {"large", 6000}};
  for (const Size& size : sizes) {
    stackrec_profile_options opts{};
    opts.sample_types = types;
    opts.sample_types_len = 1;
    stackrec_profile* p = nullptr;
    if (stackrec_profile_new(&opts, &p) != STACKREC_OK || !Fill(p, size.stacks)) return 1;
    for (stackrec_format format : {STACKREC_FORMAT_PPROF, STACKREC_FORMAT_OTLP}) {
      const std::string base =
          dir + "/" + (format == STACKREC_FORMAT_PPROF ? "pprof" : "otlp") + "_" + size.name;
      stackrec_serialize_options o{};
      o.format = format;
      o.compression = STACKREC_COMPRESSION_GZIP;
      for (int threads : {1, 2}) {
        o.compress_threads = threads;
        stackrec_encoded* e = nullptr;
        if (stackrec_profile_serialize(p, &o, &e) != STACKREC_OK) return 1;
        const std::string gz(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                             stackrec_encoded_size(e));
        stackrec_encoded_free(e);
        std::string raw;
        const std::string name = base + "_threads" + std::to_string(threads);
        if (!Inflate(gz, &raw)) {
          std::fprintf(stderr, "%s.gz: zlib cannot inflate it\n", name.c_str());
          return 1;
        }
        if (!WriteFile(name + ".gz", gz) || !WriteFile(name + ".raw", raw)) return 1;
      }
    }
    stackrec_profile_free(p);
  }
  return 0;
}
