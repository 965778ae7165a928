package capex_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"reflect"
	"strings"
	"testing"

	"tracker/api"
	"tracker/domain/capex"
)

func TestExportCSV(t *testing.T) {
	t.Parallel()
	w := setup(t)
	r := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03"), w.owner.Token, nil).Expect(t, 200)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %q", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="capitalization-2026-03.csv"` {
		t.Fatalf("content disposition %q", cd)
	}
	recs, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(capex.CSVHeader, ",") ||
		strings.Join(recs[0], ",") != "Period,Project,ProjectKey,Employee,Department,CostCenter,Hours,ActivityType,Phase,CapExOpEx,LoadedRate,Amount,Team,Tags,BudgetCents,SpentCents,Utilization" {
		t.Fatalf("header %v", recs[0])
	}
	var got []string
	for _, rec := range recs[1:] {
		got = append(got, strings.Join(rec, "|"))
	}
	// Ann and Bob share a display name ("member"); rows of one name order by user id.
	annFirst := w.ann.ID.String() < w.bob.ID.String()
	ann := "2026-03|Core|CORE|member|Research, Dev|CC-1|2.00|Coding|ApplicationDevelopment|CapEx|100.00|200.00|Platform|env:prod|100000|36000|36.00"
	annReview := "2026-03|Core|CORE|member|Research, Dev|CC-1|1.00|CodeReview|ApplicationDevelopment|CapEx|100.00|100.00|Platform|env:prod|100000|36000|36.00"
	bob := "2026-03|Core|CORE|member||CC-1|1.00|Coding|ApplicationDevelopment|CapEx|60.00|60.00|Platform|env:prod|100000|36000|36.00"
	core := []string{ann, annReview, bob}
	if !annFirst {
		core = []string{bob, ann, annReview}
	}
	want := append(core,
		"2026-03|Infra|INFRA|member||CC-2|1.50|Testing|Preliminary|OpEx|60.00|90.00|Infra|env:prod|100000|9000|9.00",
		"2026-03|Legacy|LEGACY|member|Research, Dev||0.50|BugFixing|PostImplementation|OpEx|100.00|50.00||env:legacy|50000|105000|210.00",
	)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !bytes.Contains(r.Body, []byte("\"Research, Dev\"")) || !bytes.HasSuffix(r.Body, []byte("\r\n")) {
		t.Fatalf("RFC 4180 quoting and CRLF: %q", r.Body)
	}

	t.Run("filters apply", func(t *testing.T) {
		r := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03", "tag", "dept:rnd", "format", "csv"), w.owner.Token, nil).Expect(t, 200)
		recs, _ := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		if len(recs) != 3 {
			t.Fatalf("bob's rows only: %q", r.Body)
		}
	})
	t.Run("422", func(t *testing.T) {
		for _, query := range []string{q("period", "2026-03", "format", "pdf"), q("period", "x"), "", q("period", "2026-03", "tag", ":x")} {
			w.env.Do("GET", "/api/v1/reports/capitalization/export?"+query, w.owner.Token, nil).Expect(t, 422)
		}
	})
}

func TestStoredExports(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()
	request := func(period string, want int) capex.Export {
		t.Helper()
		var e capex.Export
		r := w.env.Do("POST", "/api/v1/reports/capitalization/exports", w.admin.Token, map[string]any{"period": period, "org_id": org}).Expect(t, want)
		if want == 202 {
			r.Decode(t, &e)
			w.run.drain(t)
		}
		return e
	}
	list := func(query string) []capex.Export {
		t.Helper()
		var p api.Paginated[capex.Export]
		w.env.Do("GET", "/api/v1/reports/capitalization/exports?org_id="+org+query, w.owner.Token, nil).Expect(t, 200).Decode(t, &p)
		return p.Items
	}

	first := request("2026-03", 202)
	if first.Status != "Pending" || first.Period != "2026-03" || first.Trigger != "manual" || first.RequestedBy == nil || *first.RequestedBy != w.admin.ID {
		t.Fatalf("requested: %+v", first)
	}
	second := request("2026-03", 202)
	items := list("")
	if len(items) != 2 || items[0].ID != first.ID || items[1].ID != second.ID {
		t.Fatalf("each run is a new export: %+v", items)
	}
	for _, e := range items {
		if e.Status != "Completed" || e.SizeBytes == nil || *e.SizeBytes == 0 || e.FinishedAt == nil || e.OrgID != w.owner.OrgID {
			t.Fatalf("run: %+v", e)
		}
	}
	var one capex.Export
	w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String(), w.owner.Token, nil).Expect(t, 200).Decode(t, &one)
	if one.ID != first.ID || one.Status != "Completed" {
		t.Fatalf("get: %+v", one)
	}

	t.Run("download equals the on-the-fly CSV", func(t *testing.T) {
		d := w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String()+"/download", w.owner.Token, nil).Expect(t, 200)
		live := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03", "org_id", org), w.owner.Token, nil).Expect(t, 200)
		if !bytes.Equal(d.Body, live.Body) || int64(len(d.Body)) != *one.SizeBytes {
			t.Fatalf("stored %q\nlive %q", d.Body, live.Body)
		}
		if cd := d.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="capitalization-2026-03-`) {
			t.Fatalf("content disposition %q", cd)
		}
	})
	t.Run("the XLSX stored beside it equals the on-the-fly XLSX", func(t *testing.T) {
		d := w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String()+"/download?format=xlsx", w.owner.Token, nil).Expect(t, 200)
		stored := readXLSX(t, d.Body, d.Header, "capitalization-2026-03-"+first.ID.String()+".xlsx")
		live := w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03", "org_id", org, "format", "xlsx"), w.owner.Token, nil).Expect(t, 200)
		if !reflect.DeepEqual(stored, parseXLSX(t, live.Body)) || one.XLSXSizeBytes == nil || int64(len(d.Body)) != *one.XLSXSizeBytes {
			t.Fatalf("stored XLSX (%d bytes, recorded %v) differs from the live one", len(d.Body), one.XLSXSizeBytes)
		}
		checkLayout(t, stored, capex.XLSXHeader)
		w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String()+"/download?format=pdf", w.owner.Token, nil).Expect(t, 422)
		// A run completed before XLSX files were stored has only its CSV.
		w.exec(t, `UPDATE capitalization_exports SET xlsx = NULL, xlsx_size_bytes = NULL WHERE id = $1`, second.ID)
		r := w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+second.ID.String()+"/download?format=xlsx", w.owner.Token, nil).Expect(t, 409)
		if !strings.Contains(r.Error().Message, "no XLSX") {
			t.Fatalf("409 %s", r.Body)
		}
		w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+second.ID.String()+"/download", w.owner.Token, nil).Expect(t, 200)
	})
	t.Run("list by period", func(t *testing.T) {
		request("2026-02", 202)
		if got := list("&period=2026-02"); len(got) != 1 || got[0].Period != "2026-02" {
			t.Fatalf("by period: %+v", got)
		}
		if got := list("&limit=1"); len(got) != 1 {
			t.Fatalf("limit: %+v", got)
		}
		w.env.Do("GET", "/api/v1/reports/capitalization/exports?period=2026-2", w.owner.Token, nil).Expect(t, 422)
	})
	t.Run("422", func(t *testing.T) {
		request("2999-01", 422)
		request("2026-3", 422)
		w.env.Do("POST", "/api/v1/reports/capitalization/exports", w.admin.Token, map[string]any{}).Expect(t, 422)
	})
	t.Run("202 while no worker runs it: Pending, its job in the outbox", func(t *testing.T) {
		var e capex.Export
		w.env.Do("POST", "/api/v1/reports/capitalization/exports", w.admin.Token, map[string]any{"period": "2026-01", "org_id": org}).Expect(t, 202).Decode(t, &e)
		got := list("&period=2026-01")
		if len(got) != 1 || got[0].ID != e.ID || got[0].Status != "Pending" {
			t.Fatalf("pending run: %+v", got)
		}
		var jobs int
		if err := w.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE topic = $1
			AND dispatched_at IS NULL AND payload->>'export_id' = $2`, capex.TopicExport, e.ID.String()).Scan(&jobs); err != nil || jobs != 1 {
			t.Fatalf("%d jobs in the outbox (%v)", jobs, err)
		}
		r := w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+e.ID.String()+"/download", w.owner.Token, nil).Expect(t, 409)
		if !strings.Contains(r.Error().Message, "Pending") {
			t.Fatalf("409 must name the status: %s", r.Body)
		}
		w.run.drain(t)
		if got := list("&period=2026-01"); got[0].Status != "Completed" {
			t.Fatalf("after the worker ran it: %+v", got)
		}
	})
	t.Run("403 and 404 on a run", func(t *testing.T) {
		for _, suffix := range []string{"", "/download"} {
			w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String()+suffix, w.member.Token, nil).Expect(t, 403)
			w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String()+suffix, w.viewer.Token, nil).Expect(t, 403)
			w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+first.ID.String()+suffix, w.outsider.Token, nil).Expect(t, 404)
			w.env.Do("GET", "/api/v1/reports/capitalization/exports/not-an-id"+suffix, w.owner.Token, nil).Expect(t, 404)
		}
	})
}
