package main

import (
	"strings"
	"testing"
)

// The OTLP endpoint: the service's variable wins over the standard one,
// either alone turns tracing on, neither leaves it off, and an endpoint
// that is not http(s) stops the start.
func TestTracingConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		service, standard string
		want, wantErr     string
	}{
		"neither: off":             {},
		"the standard variable":    {standard: "http://collector:4318", want: "http://collector:4318"},
		"the service's variable":   {service: "http://svc:4318", want: "http://svc:4318"},
		"the service's one wins":   {service: "http://svc:4318", standard: "http://std:4318", want: "http://svc:4318"},
		"not http(s): refused":     {service: "ftp://collector:21", wantErr: "SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT"},
		"standard not http(s) too": {standard: "grpc://collector:4317", wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT (SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT is unset)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SERVICE_PROFILE", "development")
			t.Setenv("SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT", tc.service)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tc.standard)
			c, _, err := loadConfig()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || c.OTLPEndpoint != tc.want {
				t.Fatalf("endpoint %q, err %v; want %q", c.OTLPEndpoint, err, tc.want)
			}
		})
	}
}
