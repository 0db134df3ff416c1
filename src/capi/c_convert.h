// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The C API's configuration and record structs converted into the core's
// types: profile and live-heap options, serialize options, upscaling rules,
// and the mappings and functions of the intern calls. Each is checked
// field by field first (c_checks.h), errors naming the field. None of this
// is on a sampler's path; c_sample.h is.
#ifndef STACKREC_SRC_CAPI_C_CONVERT_H_
#define STACKREC_SRC_CAPI_C_CONVERT_H_

#include <cstddef>

#include "base/status.h"
#include "input/live_heap_options.h"
#include "input/profile_options.h"
#include "input/sample_view.h"
#include "input/serialize_options.h"
#include "input/upscaling.h"
#include "stackrec/stackrec.h"

namespace stackrec {

// `opts` checked and made into ProfileOptions (MakeProfileOptions's rules).
Status ToOptions(const stackrec_profile_options* opts, ProfileOptions* out);

// The live-heap fields of `opts` (already checked by ToOptions), against
// its `sample_types` declared types.
Status ToLiveHeapOptions(const stackrec_profile_options* opts, size_t sample_types,
                         LiveHeapOptions* out);

// NULL is gzip pprof at the default level.
Status ToSerializeOptions(const stackrec_serialize_options* opts, SerializeOptions* out);

Status ToUpscalingRule(const stackrec_upscaling_rule* r, UpscalingRule* out);

// Views of the caller's strings, valid for the call.
Status ToMappingView(const stackrec_mapping* m, MappingView* out);
Status ToFunctionView(const stackrec_function* f, FunctionView* out);

}  // namespace stackrec

#endif  // STACKREC_SRC_CAPI_C_CONVERT_H_
