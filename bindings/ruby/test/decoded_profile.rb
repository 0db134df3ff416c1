# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# A pprof (gzip'd, zstd'd or plain), decoded with Debian's
# ruby-google-protobuf and the classes protoc generates from
# testkit/pprof/profile.proto (profile_pb.rb, written into the build tree),
# and resolved into plain Ruby values for assertions.
require "zlib"
require "profile_pb"

# The bytes of a serialization, decompressed by their magic number: gzip,
# zstd (with the zstd program, which cmake/install-deps.sh installs), or
# none.
def decompress_profile(bytes)
  if bytes.start_with?("\x1f\x8b".b)
    Zlib.gunzip(bytes)
  elsif bytes.start_with?("\x28\xb5\x2f\xfd".b)
    IO.popen(%w[zstd -dc], "r+b") do |zstd|
      writer = Thread.new { zstd.write(bytes); zstd.close_write }
      plain = zstd.read
      writer.join
      plain
    end
  else
    bytes
  end
end

class DecodedProfile
  # frames: [[function name, filename, line], ...], leaf first
  # values: {"sample type" => Integer}
  # labels: {"key" => String or Integer}
  Sample = Struct.new(:frames, :values, :labels, keyword_init: true)

  attr_reader :sample_types, :samples, :time_nanos, :duration_nanos, :message, :strings

  def initialize(bytes)
    profile = Perftools::Profiles::Profile.decode(decompress_profile(bytes))
    @message = profile
    # As an Array: google-protobuf's RepeatedField forwards #fetch to a fresh
    # #to_a on every call.
    strings = profile.string_table.to_a
    @strings = strings
    raise "string_table[0] is #{strings[0].inspect}, not \"\"" unless strings[0] == ""

    functions = profile.function.to_h do |f|
      [f.id, [strings.fetch(f.name), strings.fetch(f.filename)]]
    end
    locations = profile.location.to_h do |l|
      [l.id, l.line.map { |line| [*functions.fetch(line.function_id), line.line] }]
    end
    @sample_types = profile.sample_type.map { |t| [strings.fetch(t.type), strings.fetch(t.unit)] }
    names = @sample_types.map(&:first)
    @samples = profile.sample.map do |s|
      raise "a sample has #{s.value.size} values for #{names.size} types" unless s.value.size == names.size

      Sample.new(
        frames: s.location_id.flat_map { |id| locations.fetch(id) },
        values: names.zip(s.value).to_h,
        labels: s.label.to_h { |l| [strings.fetch(l.key), l.str.zero? ? l.num : strings.fetch(l.str)] },
      )
    end
    @time_nanos = profile.time_nanos
    @duration_nanos = profile.duration_nanos
  end

  # {"sample type" => sum over all samples}
  def totals
    @samples.each_with_object(Hash.new(0)) do |sample, sums|
      sample.values.each { |type, value| sums[type] += value }
    end
  end
end
