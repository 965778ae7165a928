//go:build tools

// Package tools pins modules that features are about to use, so concurrent
// work does not race on go.mod.
package tools

import (
	_ "go.temporal.io/sdk/client"
	_ "go.temporal.io/sdk/testsuite"
	_ "go.temporal.io/sdk/worker"
	_ "go.temporal.io/sdk/workflow"
)
