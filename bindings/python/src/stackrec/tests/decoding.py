# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""Profiles decoded into plain values for the tests, with python3-protobuf
and the classes protoc generates from stackrec's own .proto files: the
library's output is checked by a decoder it does not share code with."""

import collections
import gzip

try:
    import profile_pb2
    from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2
except ImportError as error:
    raise ImportError(
        f"{error}: the tests decode with classes generated from stackrec's testkit/pprof and "
        "testkit/otlp protos; generate them with protoc --python_out and put that folder on "
        "PYTHONPATH (stackrec's bindings/python/README.md)") from error


class Decoded:
    """A pprof resolved into plain values: sample_types [(type, unit)] and
    samples [(frames [(name, file, line)], values {type: int}, labels {key: str or int})]."""

    def __init__(self, pprof, compressed=True):
        profile = profile_pb2.Profile()
        profile.ParseFromString(gzip.decompress(pprof) if compressed else pprof)
        self.profile = profile
        strings = profile.string_table
        assert strings[0] == "", "string_table[0] must be empty"
        functions = {f.id: (strings[f.name], strings[f.filename]) for f in profile.function}
        locations = {l.id: [(*functions[line.function_id], line.line) for line in l.line]
                     for l in profile.location}
        self.sample_types = [(strings[t.type], strings[t.unit]) for t in profile.sample_type]
        names = [t for t, _ in self.sample_types]
        self.samples = []
        for s in profile.sample:
            frames = [frame for location_id in s.location_id for frame in locations[location_id]]
            values = dict(zip(names, s.value, strict=True))
            labels = {strings[l.key]: (strings[l.str] if l.str else l.num) for l in s.label}
            self.samples.append((frames, values, labels))
        self.time_nanos = profile.time_nanos
        self.duration_nanos = profile.duration_nanos
        self.strings = strings

    def totals(self):
        sums = collections.Counter()
        for _, values, _ in self.samples:
            sums.update(values)
        return sums


def decode_otlp(data):
    """An ExportProfilesServiceRequest from uncompressed bytes."""
    request = profiles_service_pb2.ExportProfilesServiceRequest()
    request.ParseFromString(data)
    return request
