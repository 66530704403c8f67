//go:build !amd64 || !linux

package main

import "fmt"

func main() { fmt.Println("ntstore measures streaming stores on linux/amd64 only") }
