package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"tracker/cmd/internal/benchkit"
)

type mode struct {
	name, path string
	query      url.Values
}

func modes(c config, w world) []mode {
	base := func(kv ...string) url.Values {
		v := url.Values{"period": {c.Period}, "org_id": {w.orgID.String()}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	const report, export = "/api/v1/reports/capitalization", "/api/v1/reports/capitalization/export"
	const entries = "/api/v1/reports/capitalization/entries"
	return []mode{
		{"default", report, base()},
		{"include_budget+users", report, base("include_budget", "true", "include_users", "true")},
		{"group_by=team", report, base("group_by", "team")},
		{"group_by=user", report, base("group_by", "user")},
		{"tag filter", report, base("tag", w.tag)},
		{"tag filter, ticket tag", report, base("tag", w.ticketTag)},
		{"csv export", export, base()},
		{"drill-down page+users", entries, base("include_users", "true", "limit", "100")},
		{"drill-down csv (all)", entries, base("format", "csv")},
		{"people report", "/api/v1/reports/capitalization/people", base()},
	}
}

type timing struct {
	mode          string
	p50, p95, max time.Duration
	bytes         int
}

func measureAll(ctx context.Context, c config, w world) (bool, error) {
	var out []timing
	for _, m := range modes(c, w) {
		if !c.Drill && m.name == "drill-down csv (all)" || !c.selected(m.name) {
			continue
		}
		path := m.path + "?" + m.query.Encode()
		var size int
		for i := 0; i < 3; i++ { // warm-up: connections, plans, caches
			if _, _, err := benchkit.Send(ctx, c.URL, "GET", path, w.token, nil); err != nil {
				return false, err
			}
		}
		var ds []time.Duration
		for i := 0; i < c.Runs; i++ {
			start := time.Now()
			_, b, err := benchkit.Send(ctx, c.URL, "GET", path, w.token, nil)
			if err != nil {
				return false, err
			}
			ds = append(ds, time.Since(start))
			size = len(b)
		}
		slices.Sort(ds)
		out = append(out, timing{mode: m.name, p50: benchkit.Pct(ds, 50), p95: benchkit.Pct(ds, 95), max: ds[len(ds)-1], bytes: size})
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tp50 ms\tp95 ms\tmax ms\tbytes\t")
	for _, t := range out {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%d\t\n", t.mode, benchkit.Ms(t.p50), benchkit.Ms(t.p95), benchkit.Ms(t.max), t.bytes)
	}
	_ = tw.Flush()
	closeOK := true
	if c.Close && c.selected("close") {
		d, err := timeClose(ctx, c, w)
		if err != nil {
			return false, err
		}
		closeOK = d < 30*time.Second
		fmt.Printf("close of %s (snapshot of every entry, hashed): %.1f ms (target < 30 s)\n", c.Period, benchkit.Ms(d))
	}
	if len(out) == 0 || out[0].mode != "default" {
		return closeOK, nil // the target's mode was not measured (-only)
	}
	ok := benchkit.Ms(out[0].p95) < c.Target && closeOK
	verdict := "PASS"
	if !ok {
		verdict = "FAIL"
	}
	fmt.Printf("\n%s: default report p95 %.1f ms (target < %.0f ms, %d runs)\n", verdict, benchkit.Ms(out[0].p95), c.Target, c.Runs)
	return ok, nil
}

// timeClose closes the month once (the snapshot of every entry under the
// policy, hashed) and reopens it, so the database stays reusable.
func timeClose(ctx context.Context, c config, w world) (time.Duration, error) {
	base := "/api/v1/orgs/" + w.orgID.String() + "/periods/" + c.Period
	// A close may take longer than the HTTP client's minute: the
	// request's own deadline says when to give up.
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	saved := benchkit.HTTP.Timeout
	benchkit.HTTP.Timeout = 0
	start := time.Now()
	code, body, err := benchkit.Send(cctx, c.URL, "POST", base+"/close", w.token, nil)
	d := time.Since(start)
	benchkit.HTTP.Timeout = saved
	if err != nil {
		return d, err
	}
	if code != 201 {
		return d, fmt.Errorf("close: %d %s", code, body)
	}
	// The closed month is read from its snapshot: one request of each
	// kind, to see it stays in reach (not a measured mode).
	for _, path := range []string{"/api/v1/reports/capitalization", "/api/v1/reports/capitalization/people"} {
		start := time.Now()
		if _, _, err := benchkit.Send(cctx, c.URL, "GET", path+"?period="+c.Period+"&org_id="+w.orgID.String(), w.token, nil); err != nil {
			return d, err
		}
		fmt.Printf("closed month, %s: %.1f ms\n", path, benchkit.Ms(time.Since(start)))
	}
	if code, body, err = benchkit.Send(ctx, c.URL, "POST", base+"/reopen", w.token,
		map[string]string{"reason": "benchmark"}); err != nil || code != 200 {
		return d, fmt.Errorf("reopen: %d %s %v", code, body, err)
	}
	return d, nil
}
