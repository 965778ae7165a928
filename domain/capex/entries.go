package capex

import (
	"cmp"
	"context"
	"encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// The drill-down: the approved entries behind a report line, as auditors
// ask for them. Each entry is priced exactly as the report prices it (the
// rate in effect on its date, rounded half up to a cent per entry), so the
// entries of a line add up to the line; a closed month is read from its
// snapshot with the projects' columns frozen at close.

// EntryLine is one entry of the drill-down.
type EntryLine struct {
	EntryID         uuid.UUID `json:"entry_id"`
	Date            string    `json:"date"`
	UserID          uuid.UUID `json:"user_id"`
	DisplayName     string    `json:"display_name"`
	TicketID        uuid.UUID `json:"ticket_id"`
	TicketRef       string    `json:"ticket_ref"`
	TicketTitle     string    `json:"ticket_title"`
	ProjectID       uuid.UUID `json:"project_id"`
	ProjectKey      string    `json:"project_key"`
	ActivityType    string    `json:"activity_type"`
	DurationMinutes int64     `json:"duration_minutes"`
	Hours           Decimal2  `json:"hours"`
	RateCents       *int64    `json:"rate_cents"` // null: no rate in effect on the date (priced at 0)
	AmountCents     int64     `json:"amount_cents"`
	CapExOpEx       string    `json:"capex_opex"`
	// Under a policy: the entry's classification, what decided it
	// ("framework": the policy's framework read from the project's facts)
	// and why, for the auditor; absent without one.
	Classification string `json:"classification,omitempty"`
	RuleID         string `json:"rule_id,omitempty"`
	Reason         string `json:"reason,omitempty"`
}

// EntryUser is one person's share of the drill-down's entries
// (include_users): capex_pct is the capitalized part of their amount, in
// percent with two decimals (null when their amount is 0).
type EntryUser struct {
	UserID           uuid.UUID `json:"user_id"`
	DisplayName      string    `json:"display_name"`
	TotalHours       Decimal2  `json:"total_hours"`
	TotalAmountCents int64     `json:"total_amount_cents"`
	CapExAmountCents int64     `json:"capex_amount_cents"`
	OpExAmountCents  int64     `json:"opex_amount_cents"`
	CapExPct         *Decimal2 `json:"capex_pct"`
}

// Entries is one page of the drill-down with the totals of every entry it
// selects (the report line's numbers).
type Entries struct {
	Period    string     `json:"period"`
	ProjectID *uuid.UUID `json:"project_id"`
	Totals
	TotalEntries int64        `json:"total_entries"`
	Users        *[]EntryUser `json:"users,omitempty"`
	Items        []EntryLine  `json:"items"`
	Close        *CloseInfo   `json:"close,omitempty"`
	// Next is the entry id to continue after, when more follow.
	Next *uuid.UUID `json:"-"`
}

// EntriesQuery is the report's query narrowed to one project (optional).
type EntriesQuery struct {
	Query
	ProjectID uuid.UUID
}

// drill is a prepared drill-down: the authorized filter, where its entries
// are read, and the aggregate lines of the same selection.
type drill struct {
	f      capexdb.Filter
	src    capexdb.EntrySource
	lines  []capexdb.Line
	cols   map[uuid.UUID]capexdb.Line // project columns (live, or frozen at close)
	names  map[uuid.UUID]string       // frozen names of a closed month
	closed *CloseInfo
	pol    *PolicyRef // the policy the month is classified under (nil: none)
}

// The aggregate is as coarse as the answer allows: (project, activity type)
// lines for the totals and the projects' columns, plus (project, user)
// lines for include_users.
func (s *Service) prepareDrill(ctx context.Context, q store.Querier, p domain.Principal, eq *EntriesQuery) (drill, error) {
	f, err := s.filterFor(ctx, q, p, &eq.Query)
	if err != nil {
		return drill{}, err
	}
	f.ProjectID = eq.ProjectID
	d := drill{f: f, cols: map[uuid.UUID]capexdb.Line{}}
	cl, ok, err := closedOf(ctx, q, eq.OrgID, eq.Period)
	if err != nil {
		return drill{}, err
	}
	if ok {
		d.src, d.pol = capexdb.EntrySource{CloseID: cl.info.ID, Frozen: &cl.doc.Frozen}, cl.doc.Policy
		d.lines, err = cl.classified(ctx, q, f, capexdb.Grouping{WithUsers: eq.IncludeUsers}, d.pol)
		info := toCloseInfo(cl.info)
		d.closed, d.names = &info, cl.doc.Frozen.Names
	} else {
		d.pol, d.lines, err = inForce(ctx, q, capexdb.Aggregate, f, capexdb.Grouping{WithUsers: eq.IncludeUsers},
			eq.OrgID, eq.Period, s.now())
	}
	if err != nil {
		return drill{}, err
	}
	for _, l := range d.lines {
		l.Class = "" // a project's columns; its entries are classified by date
		d.cols[l.ProjectID] = l
	}
	return d, nil
}

// line renders one entry with its classification: its project's, dated
// by the entry under a policy's framework.
func (d drill) line(r capexdb.EntryRow) EntryLine {
	pc := d.cols[r.ProjectID]
	name := r.DisplayName
	if n, ok := d.names[r.UserID]; ok {
		name = n
	}
	l := d.plain(r, &pc, name)
	if d.pol != nil {
		l.Classification, l.RuleID, l.Reason = d.pol.decide(&pc, r.TicketID, r.Date)
		l.CapExOpEx = l.Classification
	}
	return l
}

// RuleID of an entry the framework classified (no rule or override did).
const RuleFramework = "framework"

func (d drill) plain(r capexdb.EntryRow, pc *capexdb.Line, name string) EntryLine {
	return EntryLine{EntryID: r.ID, Date: r.Date.Format("2006-01-02"), UserID: r.UserID, DisplayName: name,
		TicketID: r.TicketID, TicketRef: r.TicketRef, TicketTitle: r.TicketTitle, ProjectID: r.ProjectID,
		ProjectKey: pc.ProjectKey, ActivityType: r.ActivityType, DurationMinutes: r.Minutes, Hours: HoursOf(r.Minutes),
		RateCents: r.RateCents, AmountCents: r.AmountCents, CapExOpEx: classOn(d.pol.framework(), pc, r.Date)}
}

// users sums the selection per person, with their capitalized share.
func (d drill) users() []EntryUser {
	per := map[uuid.UUID]*EntryUser{}
	minutes := map[uuid.UUID]int64{}
	var order []uuid.UUID
	for _, l := range byUser(refs(d.lines)) {
		u, ok := per[l.UserID]
		if !ok {
			u = &EntryUser{UserID: l.UserID, DisplayName: l.DisplayName}
			per[l.UserID] = u
			order = append(order, l.UserID)
		}
		minutes[l.UserID] += l.Minutes
		u.TotalAmountCents += l.AmountCents
		if classOf(l) == CapEx {
			u.CapExAmountCents += l.AmountCents
		} else {
			u.OpExAmountCents += l.AmountCents
		}
	}
	out := make([]EntryUser, 0, len(order))
	for _, id := range order {
		u := per[id]
		u.TotalHours = HoursOf(minutes[id])
		u.CapExPct = UtilizationPct(u.CapExAmountCents, u.TotalAmountCents)
		out = append(out, *u)
	}
	slices.SortStableFunc(out, func(a, b EntryUser) int {
		return cmp.Or(cmp.Compare(a.DisplayName, b.DisplayName), cmpID(a.UserID, b.UserID))
	})
	return out
}

// Entries pages the approved entries behind a report line (Admin, as the
// report): the report's filters plus an optional project, in entry id order;
// the totals cover every selected entry, so they equal the report's line.
func (s *Service) Entries(ctx context.Context, p domain.Principal, eq EntriesQuery, page domain.Page) (Entries, error) {
	q := s.DB.Q()
	d, err := s.prepareDrill(ctx, q, p, &eq)
	if err != nil {
		return Entries{}, err
	}
	out := Entries{Period: eq.Period.String(), Totals: totalsOf(d.lines), Items: []EntryLine{}, Close: d.closed}
	if eq.ProjectID != uuid.Nil {
		out.ProjectID = &eq.ProjectID
	}
	for _, l := range byActivity(refs(d.lines)) {
		out.TotalEntries += l.Entries
	}
	if eq.IncludeUsers {
		us := d.users()
		out.Users = &us
	}
	err = capexdb.EachEntry(ctx, q, d.src, d.f, page.After, page.Limit+1, func(r capexdb.EntryRow) error {
		out.Items = append(out.Items, d.line(r))
		return nil
	})
	if err != nil {
		return Entries{}, err
	}
	if len(out.Items) > page.Limit {
		out.Items = out.Items[:page.Limit]
		next := out.Items[page.Limit-1].EntryID
		out.Next = &next
	}
	return out, nil
}

// EntriesCSVHeader is the drill-down CSV's header, in order.
var EntriesCSVHeader = []string{"Period", "EntryID", "Date", "Employee", "UserID", "TicketRef", "TicketTitle", "ProjectKey",
	"ActivityType", "Minutes", "Hours", "Rate", "Amount", "CapExOpEx"}

// EntriesCSVRationale are the columns the drill-down CSV adds under a
// policy.
var EntriesCSVRationale = []string{"Classification", "RuleID", "Reason"}

// EntriesCSV writes every selected entry as CSV to w, one row at a time
// (RFC 4180, CRLF, formula-like cells escaped); Rate and Amount are in
// currency units with two decimals, Rate empty for an entry without one.
// Authorization and the totals' query run before the first byte; the
// returned writer runs later (the stream), under ctx without its cancel.
func (s *Service) EntriesCSV(ctx context.Context, p domain.Principal, eq EntriesQuery) (func(io.Writer) error, error) {
	q := s.DB.Q()
	d, err := s.prepareDrill(ctx, q, p, &eq)
	if err != nil {
		return nil, err
	}
	period := eq.Period.String()
	ctx = context.WithoutCancel(ctx)
	return func(out io.Writer) error {
		w := csv.NewWriter(out)
		w.UseCRLF = true
		header := EntriesCSVHeader
		if d.pol != nil { // the rationale's columns, under a policy only
			header = append(header[:len(header):len(header)], EntriesCSVRationale...)
		}
		if err := w.Write(header); err != nil {
			return err
		}
		err := s.DB.ReadOnly(ctx, func(q store.Querier) error {
			return capexdb.EachEntry(ctx, q, d.src, d.f, uuid.Nil, 0, func(r capexdb.EntryRow) error {
				l := d.line(r)
				rate := ""
				if l.RateCents != nil {
					rate = CentsAsDecimal(*l.RateCents).String()
				}
				row := []string{period, l.EntryID.String(), l.Date, l.DisplayName, l.UserID.String(),
					l.TicketRef, l.TicketTitle, l.ProjectKey, l.ActivityType, strconv.FormatInt(l.DurationMinutes, 10),
					l.Hours.String(), rate, CentsAsDecimal(l.AmountCents).String(), l.CapExOpEx}
				if d.pol != nil {
					row = append(row, l.Classification, l.RuleID, l.Reason)
				}
				return w.Write(SafeRow(row))
			})
		})
		if err != nil {
			return err
		}
		w.Flush()
		return w.Error()
	}, nil
}
