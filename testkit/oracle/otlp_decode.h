// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The OTLP oracle: decompresses what stackrec wrote as OTLP, parses it with
// the classes generated from our copy of opentelemetry-proto v1.11.0
// (testkit/otlp/), and converts it back into pprof's model, written from the
// OTLP specification alone (not from stackrec's encoder), so that a test can
// compare it with the pprof stackrec writes of the same profile.
#ifndef STACKREC_TESTKIT_ORACLE_OTLP_DECODE_H_
#define STACKREC_TESTKIT_ORACLE_OTLP_DECODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "oracle/pprof_decode.h"

namespace stackrec_test {

namespace otlp = opentelemetry::proto::profiles::v1development;
using OtlpRequest =
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest;

// Decompresses and parses; fails the current test unless the bytes are a
// complete request with no field our copy of the schema lacks, and one that
// keeps the specification's rules (CheckOtlpConformance).
OtlpRequest DecodeOtlp(const std::string& bytes);

// Fails the current test unless `r` keeps the specification's rules
// (CheckOtlpConformance) and what stackrec promises besides: one resource
// with one scope, and a sample's attribute keys unique.
void CheckOtlpInvariants(const OtlpRequest& r);

// The request in pprof's model, as the specification relates the two:
//  - one sample type per Profile, in order, and a pprof sample per Sample
//    identity (stack, attributes, link) holding each Profile's value (0
//    where a Profile lacks it); a Sample with timestamps becomes one pprof
//    sample per timestamp, with the numeric label "end_timestamp_ns" last;
//  - a link as the string labels "trace_id" and "span_id" (the ids in
//    lowercase hex) after the attributes' labels;
//  - stacks' locations, leaf first, their lines callee first; functions;
//    mappings with the build id of "process.executable.build_id.gnu" and the
//    flags of "pprof.mapping.has_*";
//  - attributes as labels: a string value as a string label, an int value
//    as a numeric one with the attribute's unit;
//  - time, duration, period and period type of the Profiles (which must
//    agree), comments and drop/keep frames from the "pprof.profile.*"
//    attributes, the default sample type from the scope's
//    "pprof.scope.default_sample_type".
// Ids are the dictionary's indices; the string table holds exactly the
// strings the result refers to.
Profile OtlpToPprof(const OtlpRequest& r);

// A resource's or scope's attributes as "key=value" strings, in order.
std::vector<std::string> KeyValueStrings(
    const google::protobuf::RepeatedPtrField<opentelemetry::proto::common::v1::KeyValue>& kvs);

}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_ORACLE_OTLP_DECODE_H_
