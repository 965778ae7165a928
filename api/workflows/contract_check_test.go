package workflows_test

import "tracker/api/apitest"

// Every request and response of this package's HTTP tests is held to
// docs/openapi.yaml (api/apitest/contract.go).
func init() { apitest.CheckContract = true }
