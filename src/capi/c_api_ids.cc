// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exported functions of stackrec.h's "Pre-interned frames" part: the
// intern calls, add_ids / record_ids and forget_ids, as thin wrappers like
// c_api.cc's.
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "base/status.h"
#include "capi/c_checks.h"
#include "capi/c_convert.h"
#include "capi/c_handles.h"
#include "capi/c_sample.h"
#include "profile/dictionary.h"
#include "profile/profile.h"
#include "recorder/recorder.h"
#include "stackrec/stackrec.h"

using stackrec::Error;
using stackrec::Guard;
using stackrec::NullArgument;
using stackrec::OkStatus;
using stackrec::Status;

namespace stackrec {
namespace {

// The four intern calls, for a profile's or a recorder's dictionary:
// `intern(args...)` runs on the dictionary the way the owner guards it.
template <typename Intern>
stackrec_status InternMappingWith(const void* owner, const char* owner_name,
                                  const stackrec_mapping* mapping, uint32_t* id, Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    MappingView view;
    STACKREC_RETURN_IF_ERROR(ToMappingView(mapping, &view));
    return intern(view, id);
  });
}

template <typename Intern>
stackrec_status InternFunctionWith(const void* owner, const char* owner_name,
                                   const stackrec_function* function, uint32_t* id, Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    FunctionView view;
    STACKREC_RETURN_IF_ERROR(ToFunctionView(function, &view));
    return intern(view, id);
  });
}

template <typename Intern>
stackrec_status InternLocationWith(const void* owner, const char* owner_name,
                                   const stackrec_interned_location* location, uint32_t* id,
                                   Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    if (location == nullptr) return NullArgument("location");
    return intern(*location, id);
  });
}

template <typename Intern>
stackrec_status InternStackWith(const void* owner, const char* owner_name,
                                const uint32_t* location_ids, size_t len, uint32_t* id,
                                Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    STACKREC_RETURN_IF_ERROR(CheckArray(location_ids, len, "location_ids", STACKREC_MAX_STACK_LEN));
    return intern(absl::MakeConstSpan(location_ids, len), id);
  });
}

template <typename Intern>
stackrec_status InternLabelsWith(const void* owner, const char* owner_name,
                                 const stackrec_label* labels, size_t len, uint32_t* id,
                                 Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    STACKREC_RETURN_IF_ERROR(CheckArray(labels, len, "labels"));
    absl::Span<const LabelView> views;
    LabelRoom room;
    STACKREC_RETURN_IF_ERROR(ToLabels(labels, len, /*link=*/nullptr, "labels", "", &room, &views));
    return intern(views, id);
  });
}

}  // namespace
}  // namespace stackrec

extern "C" {

stackrec_status stackrec_profile_intern_mapping(stackrec_profile* profile,
                                                const stackrec_mapping* mapping, uint32_t* id) {
  return stackrec::InternMappingWith(
      profile, "profile", mapping, id, [&](const auto& view, uint32_t* out) {
        return stackrec::DictionaryOf(profile).InternMapping(view, out);
      });
}

stackrec_status stackrec_profile_intern_function(stackrec_profile* profile,
                                                 const stackrec_function* function, uint32_t* id) {
  return stackrec::InternFunctionWith(
      profile, "profile", function, id, [&](const auto& view, uint32_t* out) {
        return stackrec::DictionaryOf(profile).InternFunction(view, out);
      });
}

stackrec_status stackrec_profile_intern_location(stackrec_profile* profile,
                                                 const stackrec_interned_location* location,
                                                 uint32_t* id) {
  return stackrec::InternLocationWith(
      profile, "profile", location, id, [&](const auto& l, uint32_t* out) {
        return stackrec::DictionaryOf(profile).InternLocation(l.mapping_id, l.function_id,
                                                              l.address, l.line, l.inlined, out);
      });
}

stackrec_status stackrec_profile_intern_stack(stackrec_profile* profile,
                                              const uint32_t* location_ids, size_t location_ids_len,
                                              uint32_t* id) {
  return stackrec::InternStackWith(profile, "profile", location_ids, location_ids_len, id,
                                   [&](absl::Span<const uint32_t> ids, uint32_t* out) {
                                     stackrec::Dictionary& dict = stackrec::DictionaryOf(profile);
                                     STACKREC_RETURN_IF_ERROR(dict.InternStack(ids, out));
                                     profile->impl->ImportInterned(
                                         dict, stackrec::Profile::Interned::kStack, *out);
                                     return OkStatus();
                                   });
}

stackrec_status stackrec_profile_intern_labels(stackrec_profile* profile,
                                               const stackrec_label* labels, size_t labels_len,
                                               uint32_t* id) {
  return stackrec::InternLabelsWith(
      profile, "profile", labels, labels_len, id,
      [&](absl::Span<const stackrec::LabelView> views, uint32_t* out) {
        stackrec::Dictionary& dict = stackrec::DictionaryOf(profile);
        STACKREC_RETURN_IF_ERROR(dict.InternLabels(views, out));
        profile->impl->ImportInterned(dict, stackrec::Profile::Interned::kLabelSet, *out);
        return OkStatus();
      });
}

stackrec_status stackrec_profile_add_ids_sized(stackrec_profile* profile,
                                               const stackrec_id_sample* host_sample,
                                               size_t sample_size) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    stackrec_id_sample copy;
    const stackrec_id_sample* sample;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample));
    stackrec::IdSampleView view;
    stackrec::LabelRoom room;
    STACKREC_RETURN_IF_ERROR(stackrec::ToIdSample(sample, &room, &view));
    stackrec::Dictionary& dict = stackrec::DictionaryOf(profile);
    return profile->impl->AddIds(
        view, dict.generation(),
        [&](absl::FunctionRef<Status(const stackrec::Dictionary&)> import) {
          return import(dict);
        });
  });
}

stackrec_status stackrec_profile_forget_ids(stackrec_profile* profile) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    // Even a dictionary not created yet moves on a generation, so ids
    // (of a garbage value) keep being reported as stale the same way.
    stackrec::DictionaryOf(profile).Forget();
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_intern_mapping(stackrec_recorder* recorder,
                                                 const stackrec_mapping* mapping, uint32_t* id) {
  return stackrec::InternMappingWith(
      recorder, "recorder", mapping, id,
      [&](const auto& view, uint32_t* out) { return recorder->impl->InternMapping(view, out); });
}

stackrec_status stackrec_recorder_intern_function(stackrec_recorder* recorder,
                                                  const stackrec_function* function, uint32_t* id) {
  return stackrec::InternFunctionWith(
      recorder, "recorder", function, id,
      [&](const auto& view, uint32_t* out) { return recorder->impl->InternFunction(view, out); });
}

stackrec_status stackrec_recorder_intern_location(stackrec_recorder* recorder,
                                                  const stackrec_interned_location* location,
                                                  uint32_t* id) {
  return stackrec::InternLocationWith(
      recorder, "recorder", location, id, [&](const auto& l, uint32_t* out) {
        return recorder->impl->InternLocation(l.mapping_id, l.function_id, l.address, l.line,
                                              l.inlined, out);
      });
}

stackrec_status stackrec_recorder_intern_stack(stackrec_recorder* recorder,
                                               const uint32_t* location_ids,
                                               size_t location_ids_len, uint32_t* id) {
  return stackrec::InternStackWith(recorder, "recorder", location_ids, location_ids_len, id,
                                   [&](absl::Span<const uint32_t> ids, uint32_t* out) {
                                     return recorder->impl->InternStack(ids, out);
                                   });
}

stackrec_status stackrec_recorder_intern_labels(stackrec_recorder* recorder,
                                                const stackrec_label* labels, size_t labels_len,
                                                uint32_t* id) {
  return stackrec::InternLabelsWith(
      recorder, "recorder", labels, labels_len, id,
      [&](absl::Span<const stackrec::LabelView> views, uint32_t* out) {
        return recorder->impl->InternLabels(views, out);
      });
}

stackrec_status stackrec_recorder_record_ids_sized(stackrec_recorder* recorder,
                                                   const stackrec_id_sample* host_sample,
                                                   size_t sample_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec::IdSampleView view;
    stackrec::LabelRoom room;
    stackrec_id_sample copy;
    const stackrec_id_sample* sample;
    Status converted = stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample);
    if (converted.ok()) converted = stackrec::ToIdSample(sample, &room, &view);
    if (!converted.ok()) {
      recorder->impl->CountRejected();
      return converted;
    }
    return recorder->impl->RecordIds(view);
  });
}

stackrec_status stackrec_recorder_forget_ids(stackrec_recorder* recorder) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    recorder->impl->ForgetIds();
    return OkStatus();
  });
}

}  // extern "C"
