// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A host that owns perftools.profiles.Profile already: it links the classes
// protoc generated from profile.proto, and with them the full libprotobuf,
// whose generated pool registers the file at start-up, as another profiler
// or a gRPC service that forwards profiles would. If stackrec registered its
// own copy of profile.proto, protobuf would abort the process ("File already
// exists in database"); it must not, because its encoder uses protobuf-lite's
// CodedOutputStream only. Its output must then parse with the host's classes.
//
// Built twice: linked against libstackrec.so, and, with
// STACKREC_TEST_DLOPEN, loading argv[1] with dlopen(RTLD_NOW | RTLD_GLOBAL)
// after the host's descriptors are in use, as Ruby loads an extension.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#ifdef STACKREC_TEST_DLOPEN
#include <dlfcn.h>
#endif

#include "profile.pb.h"
#include "stackrec/stackrec.h"

namespace {

namespace pprof = perftools::profiles;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      return false;                                                                 \
    }                                                                               \
  } while (0)

// The C API calls this test makes, bound directly or through dlsym, so that
// the dlopen build has no link-time reference to libstackrec.so. A host that
// binds symbols binds the _sized entry points and passes its structs' sizes,
// as the header's inline functions do.
// (clang-format lays an X-macro list out differently on each run.)
// clang-format off
#define STACKREC_TEST_API(X)   \
  X(recorder_new_sized)        \
  X(recorder_record_sized)     \
  X(recorder_record_endpoint)  \
  X(recorder_serialize_sized)  \
  X(recorder_free)             \
  X(encoded_data)              \
  X(encoded_size)              \
  X(encoded_free)              \
  X(status_name)               \
  X(last_error)
// clang-format on

struct Api {
#define STACKREC_TEST_FIELD(f) decltype(&stackrec_##f) f = nullptr;
  STACKREC_TEST_API(STACKREC_TEST_FIELD)
#undef STACKREC_TEST_FIELD
};

bool Bind(Api* api, const char* path) {
#ifdef STACKREC_TEST_DLOPEN
  // Never dlclose()d, as hosts do not unload extensions.
  void* library = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) {
    std::fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
    return false;
  }
#define STACKREC_TEST_BIND(f)                                                  \
  api->f = reinterpret_cast<decltype(api->f)>(dlsym(library, "stackrec_" #f)); \
  CHECK(api->f != nullptr);
#else
  (void)path;
#define STACKREC_TEST_BIND(f) api->f = &stackrec_##f;
#endif
  STACKREC_TEST_API(STACKREC_TEST_BIND)
#undef STACKREC_TEST_BIND
  return true;
}

stackrec_str Str(const char* s) { return {s, std::strlen(s)}; }

bool Ok(const Api& api, stackrec_status status, const char* call) {
  if (status == STACKREC_OK) return true;
  std::fprintf(stderr, "%s: %s: %s\n", call, api.status_name(status), api.last_error());
  return false;
}

bool Gunzip(const uint8_t* data, size_t size, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  char buffer[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof(buffer);
    rc = inflate(&z, Z_NO_FLUSH);
    out->append(buffer, sizeof(buffer) - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END;
}

constexpr int kStacks = 3;
constexpr int kRecordsPerStack = 100;
constexpr uint64_t kSpan = 77;

bool Run(const char* library_path) {
  // The host's descriptors are built and in use before stackrec arrives.
  const google::protobuf::Descriptor* host_descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
          "perftools.profiles.Profile");
  CHECK(host_descriptor != nullptr);
  CHECK(host_descriptor == pprof::Profile::descriptor());

  Api api;
  if (!Bind(&api, library_path)) return false;

  // cpu-time and cpu-samples, with alloc-samples declared but disabled.
  const stackrec_value_type types[] = {{Str("cpu-time"), Str("nanoseconds")},
                                       {Str("cpu-samples"), Str("count")},
                                       {Str("alloc-samples"), Str("count")}};
  const bool enabled[] = {true, true, false};
  stackrec_profile_options opts{};
  opts.sample_types = types;
  opts.sample_types_len = 3;
  opts.sample_types_enabled = enabled;
  stackrec_recorder* recorder = nullptr;
  if (!Ok(api, api.recorder_new_sized(&opts, &recorder, sizeof(opts)), "stackrec_recorder_new")) {
    return false;
  }

  const char* leaves[kStacks] = {"Users#show", "Orders#index", "Jobs#perform"};
  int64_t cpu_total = 0;
  bool ok = true;
  for (int s = 0; s < kStacks && ok; s++) {
    stackrec_location frames[2] = {};
    frames[0].function.name = Str(leaves[s]);
    frames[0].function.filename = Str("app.rb");
    frames[0].line = 10 + s;
    frames[1].function.name = Str("<main>");
    stackrec_label span{};
    span.key = Str("local root span id");
    span.num = static_cast<int64_t>(kSpan);
    for (int i = 0; i < kRecordsPerStack && ok; i++) {
      const int64_t values[3] = {1000 * (s + 1), 1, 5};
      stackrec_sample sample{frames, 2, values, 3, &span, s == 0 ? 1u : 0u, 0, nullptr};
      ok = Ok(api, api.recorder_record_sized(recorder, &sample, sizeof(sample)),
              "stackrec_recorder_record");
      cpu_total += values[0];
    }
  }
  ok = ok && Ok(api, api.recorder_record_endpoint(recorder, kSpan, Str("GET /users")),
                "stackrec_recorder_record_endpoint");
  stackrec_encoded* encoded = nullptr;
  ok = ok && Ok(api,
                api.recorder_serialize_sized(recorder, nullptr, &encoded,
                                             sizeof(stackrec_serialize_options)),
                "stackrec_recorder_serialize");
  std::string bytes;
  ok = ok && Gunzip(api.encoded_data(encoded), api.encoded_size(encoded), &bytes);
  api.encoded_free(encoded);
  api.recorder_free(recorder);
  CHECK(ok);

  // Parsed by the host's own classes.
  pprof::Profile profile;
  CHECK(profile.ParseFromString(bytes));
  const auto& strings = profile.string_table();
  auto str = [&](int64_t i) -> std::string {
    return i >= 0 && i < strings.size() ? strings.Get(static_cast<int>(i))
                                        : std::string("<bad index>");
  };
  CHECK(strings.size() > 0 && strings.Get(0).empty());
  CHECK(profile.sample_type_size() == 2);
  CHECK(str(profile.sample_type(0).type()) == "cpu-time");
  CHECK(str(profile.sample_type(1).type()) == "cpu-samples");
  CHECK(profile.sample_size() == kStacks);

  std::map<uint64_t, std::string> functions;
  for (const auto& f : profile.function()) functions[f.id()] = str(f.name());
  std::map<uint64_t, uint64_t> location_function;
  for (const auto& l : profile.location()) {
    CHECK(l.line_size() == 1);
    location_function[l.id()] = l.line(0).function_id();
  }
  int64_t cpu = 0, count = 0;
  for (const auto& sample : profile.sample()) {
    CHECK(sample.value_size() == 2);
    cpu += sample.value(0);
    count += sample.value(1);
    CHECK(sample.location_id_size() == 2);
    const std::string leaf = functions[location_function[sample.location_id(0)]];
    bool has_endpoint = false;
    for (const auto& label : sample.label()) {
      if (str(label.key()) == "trace endpoint") {
        CHECK(str(label.str()) == "GET /users");
        has_endpoint = true;
      }
    }
    CHECK(has_endpoint == (leaf == "Users#show"));
  }
  CHECK(cpu == cpu_total);
  CHECK(count == kStacks * kRecordsPerStack);

  // Still the host's one registration.
  CHECK(google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
            "perftools.profiles.Profile") == host_descriptor);
  std::printf(
      "the host's profile.proto and stackrec coexist: %d samples, "
      "cpu-time %lld ns, parsed by the host's classes\n",
      profile.sample_size(), static_cast<long long>(cpu));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef STACKREC_TEST_DLOPEN
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/libstackrec.so\n", argv[0]);
    return 2;
  }
  const char* library_path = argv[1];
#else
  (void)argc;
  (void)argv;
  const char* library_path = nullptr;
#endif
  const bool ok = Run(library_path);
  google::protobuf::ShutdownProtobufLibrary();
  return ok ? 0 : 1;
}
