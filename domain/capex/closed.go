package capex

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"tracker/store"
	"tracker/store/capexdb"

	"github.com/google/uuid"
)

// closed is a month's close in force with its snapshot document: the report
// and CSV of a closed month are computed from it alone.
type closed struct {
	info capexdb.Close
	doc  snapshot
	file []byte
}

// closedOf reads the close in force of (org, period); ok is false when the
// month is open.
func closedOf(ctx context.Context, q store.Querier, orgID uuid.UUID, per Period) (closed, bool, error) {
	c, err := capexdb.InForce(ctx, q, orgID, per.String())
	if errors.Is(err, store.ErrNotFound) {
		return closed{}, false, nil
	}
	if err != nil {
		return closed{}, false, err
	}
	js, file, err := capexdb.Files(ctx, q, c.ID)
	if err != nil {
		return closed{}, false, err
	}
	out := closed{info: c, file: file}
	if err := json.Unmarshal(js, &out.doc); err != nil {
		return closed{}, false, err
	}
	return out, true, nil
}

// report builds the report of qr from the snapshot, with the close's
// metadata.
func (c closed) report(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter) (Report, error) {
	lines, err := c.classified(ctx, q, f, GroupingFor(qr), c.doc.Policy)
	if err != nil {
		return Report{}, err
	}
	r := build(lines, qr, c.doc.Spent, c.doc.Policy)
	info := toCloseInfo(c.info)
	r.Close = &info
	return r, nil
}

// csv is the stored file when f selects the whole month, else the CSV of
// f's rows rendered from the snapshot.
func (c closed) csv(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter) ([]byte, error) {
	if whole(f) {
		return c.file, nil
	}
	lines, err := c.classified(ctx, q, f, capexdb.Grouping{Full: true}, c.doc.Policy)
	if err != nil {
		return nil, err
	}
	return WriteCSV(qr.Period, lines, CSVExtras{ProjectTags: c.doc.ProjectTags, Departments: c.doc.Departments, Spent: c.doc.Spent})
}

// classified is the package's classified over the close's entries under
// pol: a snapshot has no rollup to start from, so its entries are read once,
// each classed in the query by pol's decisions (its project's first
// capitalized day, from the columns frozen at close, and its ticket's
// decision).
func (c closed) classified(ctx context.Context, q store.Querier, f capexdb.Filter, g capexdb.Grouping,
	pol *PolicyRef) ([]capexdb.Line, error) {
	if pol == nil {
		return c.aggregate(ctx, q, f, g)
	}
	opex := pol.opexTickets()
	if pol.Framework == FrameworkASC35040 && len(opex) == 0 {
		return c.aggregate(ctx, q, f, g)
	}
	projects := make([]capexdb.Line, 0, len(c.doc.Frozen.Projects))
	for _, l := range c.doc.Frozen.Projects {
		projects = append(projects, l)
	}
	from, _ := capitalizedFrom(pol.Framework, projects, f)
	cl := &capexdb.Classing{Projects: make([]uuid.UUID, 0, len(from)), From: make([]time.Time, 0, len(from)), OpEx: opex}
	if cl.OpEx == nil {
		cl.OpEx = []uuid.UUID{}
	}
	for id, day := range from {
		cl.Projects, cl.From = append(cl.Projects, id), append(cl.From, day)
	}
	cf := f
	cf.Class = cl
	return c.aggregate(ctx, q, cf, g)
}

// aggregate is AggregateClosed over the close's entries with its frozen
// columns.
func (c closed) aggregate(ctx context.Context, q store.Querier, f capexdb.Filter, g capexdb.Grouping) ([]capexdb.Line, error) {
	return capexdb.AggregateClosed(ctx, q, c.info.ID, f, g, c.doc.Frozen)
}

// whole reports whether f has no filter beyond org and month.
func whole(f capexdb.Filter) bool {
	return f.UserID == uuid.Nil && f.TeamID == uuid.Nil && f.CostCenterID == "" && f.ActivityType == "" &&
		len(f.Tags) == 0 && !f.Restricted
}
