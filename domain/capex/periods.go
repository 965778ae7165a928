package capex

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// MaxPeriodSpan bounds the months one period list covers.
const MaxPeriodSpan = 120

// PeriodState is one month of the period list: Closed with the close in
// force, or Open; History lists earlier closes that were reopened.
type PeriodState struct {
	Period  string      `json:"period"`
	Status  string      `json:"status"`
	Close   *CloseInfo  `json:"close"`
	History []CloseInfo `json:"history"`
}

// Periods is the period list of an org.
type Periods struct {
	OrgID                 uuid.UUID     `json:"org_id"`
	AutoClose             bool          `json:"auto_close"`
	RequireSecondApprover bool          `json:"require_second_approver"`
	Periods               []PeriodState `json:"periods"`
}

// ListPeriods lists the state of each month of [from, to] (Admin); empty
// bounds default to the twelve months ending with the current one.
func (s *Service) ListPeriods(ctx context.Context, p domain.Principal, orgID uuid.UUID, from, to string) (Periods, error) {
	cur := PeriodOf(s.now())
	var probs domain.Problems
	f, t := cur, cur
	for i := 0; i < 11; i++ {
		f = f.Previous()
	}
	if from != "" {
		v, err := ParsePeriod("from", from)
		if err != nil {
			probs = append(probs, domain.AsError(err).Details...)
		}
		f = v
	}
	if to != "" {
		v, err := ParsePeriod("to", to)
		if err != nil {
			probs = append(probs, domain.AsError(err).Details...)
		}
		t = v
	}
	if err := probs.Err(); err != nil {
		return Periods{}, err
	}
	n := months(f, t)
	if n < 1 {
		return Periods{}, domain.Invalid("to: must not be before from")
	}
	if n > MaxPeriodSpan {
		return Periods{}, domain.Invalid("to: at most 120 months after from")
	}
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
		return Periods{}, err
	}
	closes, err := capexdb.Between(ctx, q, orgID, f.String(), t.String())
	if err != nil {
		return Periods{}, err
	}
	auto, err := capexdb.AutoClose(ctx, q, orgID)
	if err != nil {
		return Periods{}, err
	}
	four, err := capexdb.RequireSecondApprover(ctx, q, orgID)
	if err != nil {
		return Periods{}, err
	}
	byPeriod := map[string][]CloseInfo{}
	for _, c := range closes {
		byPeriod[c.Period] = append(byPeriod[c.Period], toCloseInfo(c))
	}
	out := Periods{OrgID: orgID, AutoClose: auto, RequireSecondApprover: four, Periods: make([]PeriodState, 0, n)}
	for per := f; months(per, t) >= 1; per = nextPeriod(per) {
		st := PeriodState{Period: per.String(), Status: PeriodOpen, History: []CloseInfo{}}
		for _, c := range byPeriod[per.String()] {
			if c.ReopenedAt == nil && c.RejectedAt == nil {
				c := c
				st.Status, st.Close = PeriodClosed, &c
				if c.Status == capexdb.StatusPending {
					st.Status = PeriodPending
				}
			} else {
				st.History = append(st.History, c)
			}
		}
		out.Periods = append(out.Periods, st)
	}
	return out, nil
}

// SetAutoClose records whether the monthly Schedule closes orgID's previous
// month (Admin).
// A missing value is a 422 (checked after access, so a caller without
// the role learns nothing about the body).
func (s *Service) SetAutoClose(ctx context.Context, p domain.Principal, orgID uuid.UUID, value *bool) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		if value == nil {
			return domain.Invalid("auto_close: required (true or false)")
		}
		on := *value
		old, err := capexdb.AutoClose(ctx, q, orgID)
		if err != nil || old == on {
			return err
		}
		if err := capexdb.SetAutoClose(ctx, q, orgID, on); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "organization",
			EntityID: orgID, Action: "updated", Changes: []domain.FieldChange{{Field: "auto_close_periods", Old: old, New: on}},
			Data: map[string]bool{"auto_close": on}})
	})
}

// autoClose closes job's month for the Schedule when the org opted in and
// the month is still open; it is idempotent (a retried activity finds the
// month closed and does nothing).
func (s *Service) autoClose(ctx context.Context, orgID uuid.UUID, per Period) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		on, err := capexdb.AutoClose(ctx, q, orgID)
		if err != nil || !on {
			return err
		}
		if _, ok, err := closedOf(ctx, q, orgID, per); err != nil || ok {
			return err
		}
		status, action, err := closeStatus(ctx, q, orgID)
		if err != nil {
			return err
		}
		c, err := s.closeTx(ctx, q, orgID, per, nil, status)
		if err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, EntityType: "period", EntityID: c.ID,
			Action: action, Data: toCloseInfo(c)})
	})
}

// months counts the months of [f, t] (0 or less when t is before f).
func months(f, t Period) int {
	return (t.Year-f.Year)*12 + int(t.Month) - int(f.Month) + 1
}

func nextPeriod(p Period) Period { return PeriodOf(p.End()) }
