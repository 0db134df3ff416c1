// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A C++ program that knows stackrec only as an installed CMake package
// (consumer/CMakeLists.txt builds it against stackrec::stackrec and
// stackrec::stackrec_static). STACKREC_PACKAGE_VERSION is the version
// find_package reported; STACKREC_EXPECTED_LIBDIR, in the shared build, is
// where the package said libstackrec.so is.
#include <stackrec/stackrec.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#ifdef STACKREC_EXPECTED_LIBDIR
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#endif

namespace {

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, \
                   stackrec_last_error());                                                         \
      return false;                                                                                \
    }                                                                                              \
  } while (0)

struct RecorderDeleter {
  void operator()(stackrec_recorder* r) const { stackrec_recorder_free(r); }
};
struct EncodedDeleter {
  void operator()(stackrec_encoded* e) const { stackrec_encoded_free(e); }
};

stackrec_str Str(const char* s) { return {s, std::strlen(s)}; }

#ifdef STACKREC_EXPECTED_LIBDIR
// The directory the dynamic loader took libstackrec.so.<major> from: the
// installed tree's, not a build tree's or the system's.
bool LoadedFromThePackage() {
  const std::string soname = "libstackrec.so." + std::to_string(STACKREC_VERSION_MAJOR);
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_NOLOAD);
  CHECK(handle != nullptr);
  struct link_map* map = nullptr;
  const bool found = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0;
  dlclose(handle);
  CHECK(found && map != nullptr);
  char loaded[PATH_MAX], expected[PATH_MAX];
  CHECK(realpath(map->l_name, loaded) != nullptr);
  CHECK(realpath(STACKREC_EXPECTED_LIBDIR, expected) != nullptr);
  std::string loaded_dir(loaded);
  loaded_dir.resize(loaded_dir.rfind('/'));
  if (loaded_dir != expected) {
    std::fprintf(stderr, "loaded %s, expected it from %s\n", loaded, expected);
    return false;
  }
  return true;
}
#endif

bool Run() {
  // The package, the header and the library are the same version.
  const std::string header_version = std::to_string(STACKREC_VERSION_MAJOR) + "." +
                                     std::to_string(STACKREC_VERSION_MINOR) + "." +
                                     std::to_string(STACKREC_VERSION_PATCH);
  CHECK(header_version == STACKREC_PACKAGE_VERSION);
  CHECK(stackrec_version_number() == STACKREC_VERSION_NUMBER);
#ifdef STACKREC_EXPECTED_LIBDIR
  CHECK(LoadedFromThePackage());
#endif

  const stackrec_value_type types[] = {{Str("wall-time"), Str("nanoseconds")}};
  stackrec_profile_options opts{};
  opts.sample_types = types;
  opts.sample_types_len = 1;
  stackrec_recorder* raw = nullptr;
  CHECK(stackrec_recorder_new(&opts, &raw) == STACKREC_OK);
  std::unique_ptr<stackrec_recorder, RecorderDeleter> recorder(raw);

  stackrec_location frames[2] = {};
  frames[0].function.name = Str("cmake_consumer_leaf");
  frames[1].function.name = Str("main");
  const int64_t values[] = {1000};
  const stackrec_sample sample{frames, 2, values, 1, nullptr, 0, 0, nullptr};
  CHECK(stackrec_recorder_record(recorder.get(), &sample) == STACKREC_OK);

  // gzip, the default.
  stackrec_encoded* out = nullptr;
  CHECK(stackrec_recorder_serialize(recorder.get(), nullptr, &out) == STACKREC_OK);
  std::unique_ptr<stackrec_encoded, EncodedDeleter> encoded(out);
  const uint8_t* data = stackrec_encoded_data(encoded.get());
  CHECK(stackrec_encoded_size(encoded.get()) > 18);
  CHECK(data[0] == 0x1f && data[1] == 0x8b);  // gzip's magic

  std::printf("CMake consumer (%s): stackrec %s, %zu bytes of gzip'd pprof\n",
#ifdef STACKREC_EXPECTED_LIBDIR
              "stackrec::stackrec",
#else
              "stackrec::stackrec_static",
#endif
              header_version.c_str(), stackrec_encoded_size(encoded.get()));
  return true;
}

}  // namespace

int main() { return Run() ? 0 : 1; }
