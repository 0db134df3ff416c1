// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The field numbers of the OpenTelemetry profiles messages stackrec writes,
// copied from the specification it is pinned to: opentelemetry-proto
// v1.11.0, package opentelemetry.proto.profiles.v1development (profiles.proto),
// with common/v1/common.proto and resource/v1/resource.proto, and the
// collector's ExportProfilesServiceRequest
// (collector/profiles/v1development/profiles_service.proto). Only the fields
// written are here. The tests decode the output with classes generated from
// their own copy of those messages (testkit/otlp/), so a number copied wrong
// here fails them.
#ifndef STACKREC_SRC_ENCODE_OTLP_OTLP_FIELDS_H_
#define STACKREC_SRC_ENCODE_OTLP_OTLP_FIELDS_H_

#include <cstdint>

namespace stackrec {
namespace otlp {

// collector.profiles.v1development.ExportProfilesServiceRequest
constexpr uint32_t kRequestResourceProfiles = 1, kRequestDictionary = 2;

// profiles.v1development.ResourceProfiles, ScopeProfiles
constexpr uint32_t kResourceProfilesResource = 1, kResourceProfilesScopeProfiles = 2;
constexpr uint32_t kScopeProfilesScope = 1, kScopeProfilesProfiles = 2;

// resource.v1.Resource; common.v1.InstrumentationScope, KeyValue, AnyValue,
// ArrayValue
constexpr uint32_t kResourceAttributes = 1;
constexpr uint32_t kScopeName = 1, kScopeVersion = 2, kScopeAttributes = 3;
constexpr uint32_t kKeyValueKey = 1, kKeyValueValue = 2;
constexpr uint32_t kAnyValueString = 1, kAnyValueBool = 2, kAnyValueInt = 3, kAnyValueArray = 5;
constexpr uint32_t kArrayValueValues = 1;

// profiles.v1development.Profile
constexpr uint32_t kProfileSampleType = 1, kProfileSamples = 2, kProfileTimeUnixNano = 3,
                   kProfileDurationNano = 4, kProfilePeriodType = 5, kProfilePeriod = 6,
                   kProfileAttributeIndices = 11;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleStackIndex = 1, kSampleAttributeIndices = 2, kSampleLinkIndex = 3,
                   kSampleValues = 4, kSampleTimestamps = 5;

// profiles.v1development.ProfilesDictionary and its entries
constexpr uint32_t kDictionaryMappings = 1, kDictionaryLocations = 2, kDictionaryFunctions = 3,
                   kDictionaryLinks = 4, kDictionaryStrings = 5, kDictionaryAttributes = 6,
                   kDictionaryStacks = 7;
constexpr uint32_t kMappingMemoryStart = 1, kMappingMemoryLimit = 2, kMappingFileOffset = 3,
                   kMappingFilename = 4, kMappingAttributeIndices = 5;
constexpr uint32_t kLocationMapping = 1, kLocationAddress = 2, kLocationLines = 3;
constexpr uint32_t kLineFunction = 1, kLineLine = 2;
constexpr uint32_t kFunctionName = 1, kFunctionSystemName = 2, kFunctionFilename = 3,
                   kFunctionStartLine = 4;
constexpr uint32_t kLinkTraceId = 1, kLinkSpanId = 2;
constexpr uint32_t kKeyValueAndUnitKey = 1, kKeyValueAndUnitValue = 2, kKeyValueAndUnitUnit = 3;
constexpr uint32_t kStackLocationIndices = 1;

}  // namespace otlp
}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_OTLP_OTLP_FIELDS_H_
