# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Runs the examples of the gem's guide, bindings/ruby/README.md, as
# written, so that the guide a user copies from cannot rot:
#
#   ruby doc_examples.rb GUIDE REPOSITORY WORK_DIR PREFIX
#
# Each example is the fenced block (sh or ruby) that follows a line
# "<!-- ruby-example: NAME -->"; they run in the order they appear, sh from
# the repository's root and ruby from WORK_DIR, and each must succeed. The
# guide puts everything under /tmp, and the stackrec install in
# /tmp/stackrec; here /tmp/ is WORK_DIR/tmp/, whose stackrec is a link to
# PREFIX (the build's scratch install), and HOME and GEM_HOME are in
# WORK_DIR too, so a run leaves nothing outside it.
#
# OTLP_PROFILES_ENDPOINT (the profiles URL) and OTEL_EXPORTER_OTLP_ENDPOINT
# (the base URL Stackrec::Exporter takes) point at a receiver in this
# process, which takes each POST, checks that its body is gzip, and answers
# 200; the examples that name either must send every request there.
require "fileutils"
require "rbconfig"
require "socket"
require "zlib"

doc, repository, work, prefix = ARGV
abort "usage: ruby doc_examples.rb GUIDE REPOSITORY WORK_DIR PREFIX" unless prefix

guide = File.read(doc)
examples = guide.scan(/^<!-- ruby-example: ([\w-]+) -->\n```(sh|ruby)\n(.*?)^```$/m)
abort "#{doc} marks no example" if examples.empty?
marked = guide.scan(/^<!-- ruby-example: /).size
abort "#{doc}: #{marked} markers but #{examples.size} examples follow one" unless marked == examples.size

FileUtils.rm_rf(work)
%w[tmp home gems].each { |dir| FileUtils.mkdir_p(File.join(work, dir)) }
File.symlink(prefix, File.join(work, "tmp", "stackrec"))

# The receiver: HTTP/1.1 POSTs, one per connection, answered 200.
received = Queue.new
server = TCPServer.new("127.0.0.1", 0)
Thread.new do
  loop do
    client = server.accept
    request_line = client.gets
    headers = {}
    while (line = client.gets) && line != "\r\n"
      name, value = line.split(":", 2)
      headers[name.downcase] = value.strip
    end
    body = client.read(Integer(headers.fetch("content-length", "0")))
    gzip = headers["content-encoding"] == "gzip" && !Zlib.gunzip(body).empty?
    received << [request_line.split.first(2), gzip]
    client.write("HTTP/1.1 #{gzip ? '200 OK' : '400 Bad Request'}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    client.close
  end
end

environment = {
  "HOME" => File.join(work, "home"),
  "GEM_HOME" => File.join(work, "gems"),
  "GEM_PATH" => nil,
  "OTLP_PROFILES_ENDPOINT" => "http://127.0.0.1:#{server.addr[1]}/v1development/profiles",
  "OTEL_EXPORTER_OTLP_ENDPOINT" => "http://127.0.0.1:#{server.addr[1]}",
}

examples.each do |name, language, code|
  code = code.gsub("/tmp/", File.join(work, "tmp", ""))
  puts "---- #{name} (#{language})", code
  ok = if language == "sh"
    # The shell examples run gem and the compiler, never stackrec: they
    # go without the sanitizer runtime the test may preload for Ruby.
    system(environment.merge("LD_PRELOAD" => nil), "bash", "-euo", "pipefail", "-c", code,
           chdir: repository)
  else
    script = File.join(work, "#{name}.rb")
    File.write(script, code)
    system(environment, RbConfig.ruby, script, chdir: work)
  end
  abort "the example #{name} failed (#{$?})" unless ok

  requests = []
  requests << received.pop until received.empty?
  next unless code.include?("OTLP_PROFILES_ENDPOINT") || code.include?("OTEL_EXPORTER_OTLP_ENDPOINT")

  abort "the example #{name} sent nothing" if requests.empty?
  requests.each do |(method, path), gzip|
    abort "the example #{name} sent #{method} #{path}" unless method == "POST" && path == "/v1development/profiles"
    abort "the example #{name} sent a body that is not gzip" unless gzip
  end
  puts "(#{requests.size} requests received)"
end
puts "#{examples.size} examples ran: #{examples.map(&:first).join(', ')}"
