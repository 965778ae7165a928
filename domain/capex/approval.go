package capex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// closeStatus is the status a new close of orgID takes and the audit
// action that records it: pending_approval when the org requires a second
// approver.
func closeStatus(ctx context.Context, q store.Querier, orgID uuid.UUID) (status, action string, err error) {
	four, err := capexdb.RequireSecondApprover(ctx, q, orgID)
	if err != nil {
		return "", "", err
	}
	if four {
		return capexdb.StatusPending, "close_requested", nil
	}
	return capexdb.StatusClosed, "closed", nil
}

// PeriodSettings is the body of the org's close settings; a field left out
// keeps its value.
type PeriodSettings struct {
	AutoClose             *bool `json:"auto_close"`
	RequireSecondApprover *bool `json:"require_second_approver"`
}

// SetPeriodSettings records the org's close settings (Admin): whether the
// monthly Schedule closes the previous month, and whether a close waits for
// a second Admin or Owner. At least one field is required (422, checked
// after access). Turning the second approver off leaves a pending close
// pending: it was asked for under the rule and is decided under it.
func (s *Service) SetPeriodSettings(ctx context.Context, p domain.Principal, orgID uuid.UUID, in PeriodSettings) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		if in.AutoClose == nil && in.RequireSecondApprover == nil {
			return domain.Invalid("auto_close: required (true or false) unless require_second_approver is given")
		}
		var changes []domain.FieldChange
		if v := in.AutoClose; v != nil {
			old, err := capexdb.AutoClose(ctx, q, orgID)
			if err != nil {
				return err
			}
			if old != *v {
				if err := capexdb.SetAutoClose(ctx, q, orgID, *v); err != nil {
					return err
				}
				changes = append(changes, domain.FieldChange{Field: "auto_close_periods", Old: old, New: *v})
			}
		}
		if v := in.RequireSecondApprover; v != nil {
			old, err := capexdb.RequireSecondApprover(ctx, q, orgID)
			if err != nil {
				return err
			}
			if old != *v {
				if err := capexdb.SetRequireSecondApprover(ctx, q, orgID, *v); err != nil {
					return err
				}
				changes = append(changes, domain.FieldChange{Field: "require_second_close_approver", Old: old, New: *v})
			}
		}
		if len(changes) == 0 {
			return nil
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "organization",
			EntityID: orgID, Action: "updated", Changes: changes, Data: in})
	})
}

// pendingClose takes the month's exclusive lock and reads its close
// pending approval (409 when there is none).
func pendingClose(ctx context.Context, q store.Querier, orgID uuid.UUID, per Period) (capexdb.Close, error) {
	if err := capexdb.Lock(ctx, q, orgID, per.String(), true); err != nil {
		return capexdb.Close{}, err
	}
	c, err := capexdb.InForce(ctx, q, orgID, per.String())
	if errors.Is(err, store.ErrNotFound) {
		return c, domain.Conflict("period "+per.String()+" has no close pending approval", "period: "+per.String())
	}
	if err != nil {
		return c, err
	}
	if c.Status != capexdb.StatusPending {
		return c, domain.Conflict("period "+per.String()+" is already closed", "period: "+per.String(),
			"closed_at: "+c.ClosedAt.UTC().Format(time.RFC3339))
	}
	return c, nil
}

// Approve makes a pending close of orgID's month final (Owner or Admin, not
// the person who asked for it). The month must still be what the snapshot
// froze: its capitalization CSV, computed now under the policy now in force,
// must hash to the close's SHA-256, else 409 (reject the close and close the
// month again), so nobody approves figures they did not see.
func (s *Service) Approve(ctx context.Context, p domain.Principal, orgID uuid.UUID, period string) (CloseInfo, error) {
	per, err := ParsePeriod("period", period)
	if err != nil {
		return CloseInfo{}, err
	}
	var out CloseInfo
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		c, err := pendingClose(ctx, q, orgID, per)
		if err != nil {
			return err
		}
		if c.ClosedBy != nil && *c.ClosedBy == p.UserID {
			return domain.Forbidden("the close of " + per.String() + " needs a second approver: the Admin who requested it cannot approve it")
		}
		pol, err := policyInForce(ctx, q, orgID, per, s.now())
		if err != nil {
			return err
		}
		qr := Query{OrgID: orgID, Period: per}
		live, err := rollup.csv(ctx, q, qr, filterOf(qr), pol)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(live)
		if now := hex.EncodeToString(sum[:]); now != c.SHA256 {
			return domain.Conflict("period "+per.String()+" changed since its close was requested: reject the close and close the month again",
				"period: "+per.String(), "sha256: "+c.SHA256, "current_sha256: "+now)
		}
		js, _, err := capexdb.Files(ctx, q, c.ID)
		if err != nil {
			return err
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(js, &doc); err != nil {
			return err
		}
		at := s.now()
		by, _ := json.Marshal(p.UserID)
		when, _ := json.Marshal(at.UTC())
		doc["approved_by"], doc["approved_at"] = by, when
		if js, err = json.Marshal(doc); err != nil {
			return err
		}
		if err := capexdb.Approve(ctx, q, c.ID, p.UserID, at, js); err != nil {
			return err
		}
		c.Status, c.ApprovedBy, c.ApprovedAt = capexdb.StatusClosed, &p.UserID, &at
		out = toCloseInfo(c)
		return domain.Record(ctx, q, domain.Change{At: at, OrgID: orgID, ActorID: &p.UserID, EntityType: "period",
			EntityID: c.ID, Action: "closed", Changes: []domain.FieldChange{{Field: "status", Old: capexdb.StatusPending, New: capexdb.StatusClosed}},
			Data: out})
	})
	return out, err
}

// Reject lifts a pending close of orgID's month (Owner or Admin, the
// requester included: withdrawing a request needs no second person) with a
// required reason; the month is open again and its snapshot entries are
// dropped, the close row kept with who rejected it, when and why.
func (s *Service) Reject(ctx context.Context, p domain.Principal, orgID uuid.UUID, period, reason string) (CloseInfo, error) {
	per, err := ParsePeriod("period", period)
	if err != nil {
		return CloseInfo{}, err
	}
	var out CloseInfo
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		reason = strings.TrimSpace(reason)
		if reason == "" {
			return domain.Invalid("reason: required")
		}
		if len(reason) > MaxReasonLen {
			return domain.Invalid("reason: at most 2000 characters")
		}
		c, err := pendingClose(ctx, q, orgID, per)
		if err != nil {
			return err
		}
		at := s.now()
		if err := capexdb.Reject(ctx, q, c.ID, p.UserID, reason, at); err != nil {
			return err
		}
		c.Status, c.ReopenedBy, c.ReopenedAt, c.ReopenReason = capexdb.StatusRejected, &p.UserID, &at, &reason
		out = toCloseInfo(c)
		return domain.Record(ctx, q, domain.Change{At: at, OrgID: orgID, ActorID: &p.UserID, EntityType: "period",
			EntityID: c.ID, Action: "close_rejected", Changes: []domain.FieldChange{{Field: "status", Old: capexdb.StatusPending, New: capexdb.StatusRejected},
				{Field: "reason", Old: nil, New: reason}}, Data: out})
	})
	return out, err
}
