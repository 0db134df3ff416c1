// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.

// Go's compress/gzip, the reader under go tool pprof, on gzip outputs: each
// <name>.gz must give back <name>.raw exactly. Standard library only, so
// that it builds offline.
//
//	go run gunzip_check.go <file.gz> <file.raw> [<file.gz> <file.raw> ...]
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

func check(gz, raw string) error {
	want, err := os.ReadFile(raw)
	if err != nil {
		return err
	}
	f, err := os.Open(gz)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %v", gz, err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %v", gz, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s: %d bytes, not the %d of %s", gz, len(got), len(want), raw)
	}
	return nil
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 || len(args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: gunzip_check <file.gz> <file.raw> ...")
		os.Exit(2)
	}
	for i := 0; i < len(args); i += 2 {
		if err := check(args[i], args[i+1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
