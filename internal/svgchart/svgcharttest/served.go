package svgcharttest

import (
	"net/http"
	"strings"
	"testing"
)

// Served reads back a chart the API answered (api.SendSVG): it fails the
// test unless the response is image/svg+xml, private to the caller
// (Cache-Control private: the chart is the org's data) and marked nosniff,
// then parses the chart and recovers its value scale (labels read with
// Number).
func Served(t testing.TB, header http.Header, body []byte) (Chart, Scale) {
	t.Helper()
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "image/svg+xml") {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := header.Get("Cache-Control"); !strings.Contains(cc, "private") {
		t.Errorf("Cache-Control %q: the chart is the org's data", cc)
	}
	if header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("no nosniff")
	}
	c, err := Parse(body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	sc, err := c.Scale(Number)
	if err != nil {
		t.Fatal(err)
	}
	return c, sc
}
