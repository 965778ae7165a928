package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/xuri/excelize/v2"

	"tracker/cmd/internal/benchkit"
	"tracker/internal/heappeak"
)

// The file exports: the drill-down of every entry of the
// month as CSV and as XLSX, and the capitalization XLSX. Each request's
// body is streamed to io.Discard (the client holds none of it), and with
// -self, where the API runs in this process, the heap is sampled every 2 ms
// during each request: "peak heap" is the most it rose above the heap at
// the request's start (runtime/metrics, live and not yet swept objects).
// Target: the drill-down XLSX's p95 under 2 s. Afterwards one XLSX is read
// back with excelize and must hold a row per entry plus header and total.

// fileTarget is the p95 target of the drill-down XLSX.
const fileTarget = 2 * time.Second

type fileTiming struct {
	name          string
	p50, p95, max time.Duration
	bytes         int64
	peak          uint64 // bytes; 0 without -self
}

func measureFiles(ctx context.Context, c config, w world) (bool, error) {
	base := url.Values{"period": {c.Period}, "org_id": {w.orgID.String()}}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range base {
			q[kk] = vv
		}
		q.Set(k, v)
		return q.Encode()
	}
	const entries, export = "/api/v1/reports/capitalization/entries?", "/api/v1/reports/capitalization/export?"
	files := []struct{ name, path string }{
		{"drill-down csv (all)", entries + with("format", "csv")},
		{"drill-down xlsx (all)", entries + with("format", "xlsx")},
		{"capitalization xlsx", export + with("format", "xlsx")},
	}
	var out []fileTiming
	for _, f := range files {
		if !c.selected(f.name) {
			continue
		}
		if _, err := download(ctx, c.URL, f.path, w.token, io.Discard); err != nil { // warm-up
			return false, err
		}
		var ds []time.Duration
		t := fileTiming{name: f.name}
		for i := 0; i < c.Runs; i++ {
			var n int64
			var err error
			start := time.Now()
			peak := heapPeak(c.Self, func() { n, err = download(ctx, c.URL, f.path, w.token, io.Discard) })
			ds = append(ds, time.Since(start))
			if err != nil {
				return false, err
			}
			t.bytes, t.peak = n, max(t.peak, peak)
		}
		slices.Sort(ds)
		t.p50, t.p95, t.max = benchkit.Pct(ds, 50), benchkit.Pct(ds, 95), ds[len(ds)-1]
		out = append(out, t)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\nfile export\tp50 ms\tp95 ms\tmax ms\tbytes\tpeak heap MB\t")
	for _, t := range out {
		peak := "n/a (not -self)"
		if c.Self {
			peak = fmt.Sprintf("%.1f", float64(t.peak)/(1<<20))
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%d\t%s\t\n", t.name, benchkit.Ms(t.p50), benchkit.Ms(t.p95), benchkit.Ms(t.max), t.bytes, peak)
	}
	_ = tw.Flush()
	var x *fileTiming
	for i := range out {
		if out[i].name == files[1].name {
			x = &out[i]
		}
	}
	if x == nil {
		return true, nil // the drill-down xlsx was not measured (-only)
	}

	// The workbook is what it claims: a row per entry, header and total.
	var buf bytes.Buffer
	if _, err := download(ctx, c.URL, files[1].path, w.token, &buf); err != nil {
		return false, err
	}
	rows, err := countRows(buf.Bytes())
	if err != nil {
		return false, err
	}
	if rows != c.Entries+2 {
		return false, fmt.Errorf("drill-down xlsx has %d rows, want %d entries + header + total", rows, c.Entries)
	}
	ok := x.p95 < fileTarget
	verdict := "PASS"
	if !ok {
		verdict = "FAIL"
	}
	fmt.Printf("%s: drill-down xlsx p95 %.1f ms (target < %.0f ms, %d runs; %d rows read back with excelize)\n",
		verdict, benchkit.Ms(x.p95), benchkit.Ms(fileTarget), c.Runs, rows)
	return ok, nil
}

// download streams a GET's body into dst and returns its size.
func download(ctx context.Context, base, path, token string, dst io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := benchkit.HTTP.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
		return 0, fmt.Errorf("GET %s: %d %s", path, res.StatusCode, b)
	}
	return io.Copy(dst, res.Body)
}

// heapPeak runs f and, when sample is set, returns how far the heap rose
// above its level at the start while f ran (sampled every 2 ms).
func heapPeak(sample bool, f func()) uint64 {
	if !sample {
		f()
		return 0
	}
	return heappeak.Measure(2*time.Millisecond, f)
}

// countRows counts the rows of the workbook's only sheet, streaming.
func countRows(book []byte) (int, error) {
	f, err := excelize.OpenReader(bytes.NewReader(book))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rows, err := f.Rows(f.GetSheetList()[0])
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Error()
}
