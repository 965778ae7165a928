package customfield_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	cf "tracker/domain/customfield"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/projectdb"
	"tracker/store/storetest"
)

// benchOrg is an org with five fields (select, number, text, date,
// checkbox), a project, its owner, and a request's values of all five.
type benchOrg struct {
	db      *store.DB
	p       domain.Principal
	org     uuid.UUID
	proj    projectdb.Row
	tickets *ticket.Service
	values  cf.Values
}

func newBenchOrg(b *testing.B) benchOrg {
	ctx := context.Background()
	db := storetest.New(b)
	owner := testfactory.User(b, db, testfactory.UserOpts{})
	org := testfactory.Org(b, db, owner.ID, testfactory.OrgOpts{})
	proj := testfactory.Project(b, db, org.ID, testfactory.ProjectOpts{Key: "BEN"})
	p := domain.Principal{UserID: owner.ID}
	s := cf.New(db, domain.SystemClock{})
	o := func(n string) cf.OptionIn { return cf.OptionIn{Name: &n} }
	for _, in := range []cf.Input{
		{Name: domain.Some("Severity"), Type: domain.Some("select"), Options: domain.Some([]cf.OptionIn{o("Low"), o("High")})},
		{Name: domain.Some("Story points"), Type: domain.Some("number")},
		{Name: domain.Some("Customer"), Type: domain.Some("text")},
		{Name: domain.Some("Shipped on"), Type: domain.Some("date")},
		{Name: domain.Some("Flag"), Type: domain.Some("checkbox")},
	} {
		if _, err := s.Create(ctx, p, org.ID, in); err != nil {
			b.Fatal(err)
		}
	}
	return benchOrg{db: db, p: p, org: org.ID, proj: proj, tickets: ticket.New(db, domain.SystemClock{}),
		values: cf.Values{"severity": json.RawMessage(`"High"`), "story_points": json.RawMessage(`5`),
			"customer": json.RawMessage(`"ACME"`), "shipped_on": json.RawMessage(`"2026-12-01"`), "flag": json.RawMessage(`true`)}}
}

// BenchmarkTicketCreate compares a plain create with one setting five
// custom values (the target: within 10% of the plain throughput).
// The org has the five fields in both cases, as a real org would.
func BenchmarkTicketCreate(b *testing.B) {
	ctx := context.Background()
	w := newBenchOrg(b)
	tickets, p, proj, values := w.tickets, w.p, w.proj, w.values
	for _, c := range []struct {
		name   string
		values cf.Values
	}{{"plain", nil}, {"five_values", values}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				in := ticket.NewTicket{Content: ticket.Content{Title: "bench " + uuid.NewString()[:8]}, CustomFields: c.values}
				if _, err := tickets.Create(ctx, p, proj.ID, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTicketPatch compares a PATCH of the title with one that also
// sets five custom values (read, checked, upserted, recorded in the trail).
func BenchmarkTicketPatch(b *testing.B) {
	ctx := context.Background()
	w := newBenchOrg(b)
	t, err := w.tickets.Create(ctx, w.p, w.proj.ID, ticket.NewTicket{Content: ticket.Content{Title: "patched"}})
	if err != nil {
		b.Fatal(err)
	}
	five := func(i int) cf.Values { // a change every time: five new values
		v := cf.Values{}
		for k, raw := range w.values {
			v[k] = raw
		}
		v["story_points"] = json.RawMessage(strconv.Itoa(i))
		v["customer"] = json.RawMessage(strconv.Quote("ACME " + strconv.Itoa(i)))
		v["flag"] = json.RawMessage(strconv.FormatBool(i%2 == 0))
		v["shipped_on"] = json.RawMessage(`"2026-12-` + fmt.Sprintf("%02d", 1+i%28) + `"`)
		v["severity"] = json.RawMessage([]string{`"High"`, `"Low"`}[i%2])
		return v
	}
	for _, c := range []struct {
		name   string
		values func(int) cf.Values
	}{{"plain", func(int) cf.Values { return nil }}, {"five_values", five}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				title := "patched " + strconv.Itoa(i)
				pt := ticket.Patch{Content: domain.PatchWith(ticket.Content{Title: title}, "title"), CustomFields: c.values(i)}
				if _, err := w.tickets.Update(ctx, w.p, t.ID, pt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTicketListJSON compares a project's first page of 20 tickets,
// read and encoded as the API answers it, without custom values and with
// five values on every ticket (the same org, the same five fields).
func BenchmarkTicketListJSON(b *testing.B) {
	ctx := context.Background()
	w := newBenchOrg(b)
	bare := testfactory.Project(b, w.db, w.org, testfactory.ProjectOpts{Key: "BARE"})
	for i := 0; i < 20; i++ {
		for _, c := range []struct {
			proj   uuid.UUID
			values cf.Values
		}{{bare.ID, nil}, {w.proj.ID, w.values}} {
			in := ticket.NewTicket{Content: ticket.Content{Title: "listed " + strconv.Itoa(i), Description: testfactory.Ptr("A ticket as a list shows it.")},
				CustomFields: c.values}
			if _, err := w.tickets.Create(ctx, w.p, c.proj, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name string
		proj uuid.UUID
	}{{"plain", bare.ID}, {"five_values", w.proj.ID}} {
		b.Run(c.name, func(b *testing.B) {
			var size int
			for i := 0; i < b.N; i++ {
				page, err := w.tickets.List(ctx, w.p, c.proj, ticket.Filter{}, domain.Page{Limit: 20})
				if err != nil {
					b.Fatal(err)
				}
				out, err := json.Marshal(page)
				if err != nil || len(page.Items) != 20 {
					b.Fatal(len(page.Items), err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "bytes/page")
		})
	}
}

// interleave runs plain and five once each per iteration, in turns first,
// and reports each one's mean and the median of the iterations' ratios
// (five over plain): a change of the machine's load during the run falls
// on both alike, which separate sub-benchmarks cannot promise.
func interleave(b *testing.B, plain, five func(i int)) {
	ratios := make([]float64, 0, b.N)
	var tp, tf time.Duration
	for i := 0; i < b.N; i++ {
		var dp, df time.Duration
		if i%2 == 0 {
			t0 := time.Now()
			plain(i)
			t1 := time.Now()
			five(i)
			dp, df = t1.Sub(t0), time.Since(t1)
		} else {
			t0 := time.Now()
			five(i)
			t1 := time.Now()
			plain(i)
			df, dp = t1.Sub(t0), time.Since(t1)
		}
		tp, tf = tp+dp, tf+df
		ratios = append(ratios, float64(df)/float64(dp))
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(tp.Microseconds())/float64(b.N), "plain-us/op")
	b.ReportMetric(float64(tf.Microseconds())/float64(b.N), "five-us/op")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}

// BenchmarkTicketInterleaved is BenchmarkTicketCreate, BenchmarkTicketPatch
// and BenchmarkTicketListJSON with the plain and the five-value operation
// alternating within one run (interleave).
func BenchmarkTicketInterleaved(b *testing.B) {
	ctx := context.Background()
	w := newBenchOrg(b)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	create := func(values cf.Values) func(int) {
		return func(int) {
			in := ticket.NewTicket{Content: ticket.Content{Title: "bench " + uuid.NewString()[:8]}, CustomFields: values}
			_, err := w.tickets.Create(ctx, w.p, w.proj.ID, in)
			must(err)
		}
	}
	b.Run("create", func(b *testing.B) { interleave(b, create(nil), create(w.values)) })

	patched := func() uuid.UUID {
		t, err := w.tickets.Create(ctx, w.p, w.proj.ID, ticket.NewTicket{Content: ticket.Content{Title: "patched"}})
		must(err)
		return t.ID
	}
	pt, ft := patched(), patched()
	b.Run("patch", func(b *testing.B) {
		interleave(b, func(i int) {
			_, err := w.tickets.Update(ctx, w.p, pt, ticket.Patch{Content: domain.PatchWith(ticket.Content{Title: "patched " + strconv.Itoa(i)}, "title")})
			must(err)
		}, func(i int) {
			v := cf.Values{"severity": json.RawMessage([]string{`"High"`, `"Low"`}[i%2]), "story_points": json.RawMessage(strconv.Itoa(i)),
				"customer": json.RawMessage(strconv.Quote("ACME " + strconv.Itoa(i))), "flag": json.RawMessage(strconv.FormatBool(i%2 == 0)),
				"shipped_on": json.RawMessage(`"2026-12-` + fmt.Sprintf("%02d", 1+i%28) + `"`)}
			_, err := w.tickets.Update(ctx, w.p, ft, ticket.Patch{Content: domain.PatchWith(ticket.Content{Title: "patched " + strconv.Itoa(i)}, "title"),
				CustomFields: v})
			must(err)
		})
	})

	bare := testfactory.Project(b, w.db, w.org, testfactory.ProjectOpts{Key: "BARE"})
	full := testfactory.Project(b, w.db, w.org, testfactory.ProjectOpts{Key: "FULL"})
	for i := 0; i < 20; i++ {
		for _, c := range []struct {
			proj   uuid.UUID
			values cf.Values
		}{{bare.ID, nil}, {full.ID, w.values}} {
			in := ticket.NewTicket{Content: ticket.Content{Title: "listed " + strconv.Itoa(i), Description: testfactory.Ptr("A ticket as a list shows it.")},
				CustomFields: c.values}
			_, err := w.tickets.Create(ctx, w.p, c.proj, in)
			must(err)
		}
	}
	list := func(proj uuid.UUID) func(int) {
		return func(int) {
			page, err := w.tickets.List(ctx, w.p, proj, ticket.Filter{}, domain.Page{Limit: 20})
			must(err)
			out, err := json.Marshal(page)
			if err != nil || len(page.Items) != 20 || len(out) == 0 {
				b.Fatal(len(page.Items), err)
			}
		}
	}
	b.Run("list", func(b *testing.B) { interleave(b, list(bare.ID), list(full.ID)) })
}
