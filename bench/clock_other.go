//go:build !linux

package main

const threadClockOK = false

func threadNanos() int64 { panic("thread CPU clock is only wired on Linux") }
