// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exported functions of stackrec/export.h: check the C arguments, call
// the Exporter, and turn any exception into a status (Guard), so nothing
// ever unwinds into C.
#include <curl/curl.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

#include "export/export_config.h"
#include "export/export_status.h"
#include "export/exporter.h"
#include "export/periodic_job.h"
#include "stackrec/export.h"

// The handle owns the Exporter through a pointer, so that reset_after_fork
// can walk away from the parent's one (its lock may be held by a thread the
// child does not have) without running its destructor.
struct stackrec_exporter {
  stackrec_export::Exporter* impl = nullptr;
};

namespace {

using stackrec_export::Fail;
using stackrec_export::Guard;

// curl_global_init must run once before any other curl call. It is not
// thread-safe on every libcurl build (only those reporting
// CURL_VERSION_THREADSAFE), and it also initialises the TLS library, so a
// host that uses libcurl itself should call it before starting threads; the
// call_once keeps the exporters' own calls from racing each other. It is
// never undone: a host's other curl users may still need it.
stackrec_status InitCurlOnce() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    return Fail(STACKREC_INTERNAL, "curl_global_init failed: %s", curl_easy_strerror(result));
  }
  return STACKREC_OK;
}

stackrec_status CheckExporter(const stackrec_exporter* exporter) {
  if (exporter == nullptr) return Fail(STACKREC_INVALID_ARGUMENT, "exporter is NULL");
  return STACKREC_OK;
}

}  // namespace

extern "C" {

stackrec_status stackrec_exporter_new_sized(const stackrec_exporter_options* opts,
                                            stackrec_exporter** out, size_t opts_size) {
  return Guard([&]() -> stackrec_status {
    if (out == nullptr) return Fail(STACKREC_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    stackrec_status st = InitCurlOnce();
    if (st != STACKREC_OK) return st;
    stackrec_export::Config config;
    st = stackrec_export::ReadConfig(opts, opts_size, &config);
    if (st != STACKREC_OK) return st;
    auto handle = std::make_unique<stackrec_exporter>();
    handle->impl = new stackrec_export::Exporter(std::move(config));
    *out = handle.release();
    return STACKREC_OK;
  });
}

stackrec_status stackrec_exporter_send(stackrec_exporter* exporter,
                                       const stackrec_encoded* encoded) {
  return Guard([&]() -> stackrec_status {
    stackrec_status st = CheckExporter(exporter);
    if (st != STACKREC_OK) return st;
    if (encoded == nullptr) return Fail(STACKREC_INVALID_ARGUMENT, "encoded is NULL");
    return exporter->impl->Send(encoded);
  });
}

stackrec_status stackrec_exporter_flush(stackrec_exporter* exporter, uint32_t timeout_ms) {
  return Guard([&]() -> stackrec_status {
    const stackrec_status st = CheckExporter(exporter);
    if (st != STACKREC_OK) return st;
    return exporter->impl->Flush(timeout_ms);
  });
}

stackrec_status stackrec_exporter_start_periodic_sized(stackrec_exporter* exporter,
                                                       stackrec_recorder* recorder,
                                                       const stackrec_serialize_options* opts,
                                                       uint32_t period_ms, size_t opts_size) {
  return Guard([&]() -> stackrec_status {
    stackrec_status st = CheckExporter(exporter);
    if (st != STACKREC_OK) return st;
    std::unique_ptr<stackrec_export::PeriodicJob> job;
    st = stackrec_export::MakePeriodicJob(exporter->impl->config().protocol, recorder, opts,
                                          opts_size, period_ms, &job);
    if (st != STACKREC_OK) return st;
    return exporter->impl->StartPeriodic(std::move(job));
  });
}

stackrec_status stackrec_exporter_stats_sized(const stackrec_exporter* exporter,
                                              stackrec_export_stats* out, size_t out_size) {
  return Guard([&]() -> stackrec_status {
    const stackrec_status st = CheckExporter(exporter);
    if (st != STACKREC_OK) return st;
    if (out == nullptr) return Fail(STACKREC_INVALID_ARGUMENT, "out is NULL");
    if (out_size == 0 || out_size % alignof(stackrec_export_stats) != 0 || out_size > 4096) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "out_size %zu is not the size of a version of the struct (a multiple of %zu, "
                  "at most 4096)",
                  out_size, alignof(stackrec_export_stats));
    }
    stackrec_export_stats stats;
    exporter->impl->Stats(&stats);
    // An older host's shorter struct gets what it has room for; a newer
    // one's fields this library does not know are 0.
    auto* bytes = reinterpret_cast<unsigned char*>(out);
    std::memcpy(bytes, &stats, out_size < sizeof(stats) ? out_size : sizeof(stats));
    if (out_size > sizeof(stats)) std::memset(bytes + sizeof(stats), 0, out_size - sizeof(stats));
    return STACKREC_OK;
  });
}

stackrec_status stackrec_exporter_shutdown(stackrec_exporter* exporter, uint32_t timeout_ms) {
  return Guard([&]() -> stackrec_status {
    const stackrec_status st = CheckExporter(exporter);
    if (st != STACKREC_OK) return st;
    return exporter->impl->Shutdown(timeout_ms);
  });
}

stackrec_status stackrec_exporter_reset_after_fork(stackrec_exporter* exporter) {
  return Guard([&]() -> stackrec_status {
    const stackrec_status st = CheckExporter(exporter);
    if (st != STACKREC_OK) return st;
    // The parent's Exporter is abandoned, never destroyed: its mutex may be
    // held by a thread that does not exist here, its std::thread is not ours
    // to join, and its curl handles share sockets with the parent. Only its
    // config, immutable since creation, is read.
    exporter->impl = new stackrec_export::Exporter(exporter->impl->config());
    return STACKREC_OK;
  });
}

void stackrec_exporter_free(stackrec_exporter* exporter) {
  if (exporter == nullptr) return;
  if (!exporter->impl->shut_down()) (void)stackrec_exporter_shutdown(exporter, 1000);
  delete exporter->impl;
  delete exporter;
}

}  // extern "C"
