package tensorcast

import (
	"fmt"
	"strings"
)

// RoundMode selects how values are rounded to FLOAT8E8M0, ONNX's round_mode
// attribute (Cast-24). Other targets always round to nearest, ties to even.
type RoundMode uint8

const (
	// RoundUp rounds up to the next power of two unless the value is one
	// already. It is the zero value because "up" is ONNX's default.
	RoundUp RoundMode = iota
	// RoundDown rounds down to the power of two at or below the value.
	RoundDown
	// RoundNearest rounds to the nearer power of two: up when the
	// significand is 1.5 or more (ties go up), as in ONNX's table.
	RoundNearest
)

// String returns ONNX's attribute spelling: "up", "down" or "nearest".
func (m RoundMode) String() string {
	switch m {
	case RoundUp:
		return "up"
	case RoundDown:
		return "down"
	case RoundNearest:
		return "nearest"
	}
	return fmt.Sprintf("RoundMode(%d)", uint8(m))
}

// ParseRoundMode parses ONNX's round_mode attribute value ("up", "down",
// "nearest"; case-insensitive).
func ParseRoundMode(s string) (RoundMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "up":
		return RoundUp, nil
	case "down":
		return RoundDown, nil
	case "nearest":
		return RoundNearest, nil
	}
	return 0, fmt.Errorf("tensorcast: unknown round mode %q (want up, down or nearest)", s)
}

// Options carries ONNX Cast's attributes. The zero value is ONNX's default:
// saturate=1, round_mode="up".
type Options struct {
	// NoSaturate is ONNX's saturate=0. It matters only for float8 and
	// FLOAT8E8M0 targets: with it, overflow gives NaN or Inf instead of the
	// largest finite value. Other targets accept and ignore it.
	NoSaturate bool
	// RoundMode is used only when the target is Float8E8M0; other targets
	// accept and ignore it.
	RoundMode RoundMode
}

func (o Options) validate() error {
	if o.RoundMode > RoundNearest {
		return fmt.Errorf("tensorcast: invalid %v", o.RoundMode)
	}
	return nil
}
